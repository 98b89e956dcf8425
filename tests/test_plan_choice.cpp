// The choice among one GPU's plans (src/core/plan_choice.cpp, method.md §9), on plans made by hand: the value
// band, the orders, a deadline and a budget, and how far the search goes.
#include <catch2/catch.hpp>
#include <vector>

#include <algorithm>
#include <set>
#include <string>
#include <tuple>

#include "helpers.hpp"
#include "layout_space.hpp"
#include "ranking_common.hpp"

using namespace gpuadvise;
using namespace gpuadvise::ranking_detail;

namespace {
// A plan that fits on `gpus` GPUs, its job `usd` dollars and `hours` of wall time.
Candidate plan_of(std::int64_t gpus, double usd, double hours) {
  Candidate c;
  c.fits = true;
  c.gpus = gpus;
  c.planned.gpus = gpus;
  c.cost.total_usd = usd;
  c.cost.wall_hours = hours;
  c.time.job_seconds = hours * 3600.0;
  c.value_usd = usd;
  return c;
}

std::vector<const Candidate*> pointers(const std::vector<Candidate>& plans) {
  std::vector<const Candidate*> out;
  for (const auto& c : plans) out.push_back(&c);
  return out;
}
}  // namespace

TEST_CASE("plan choice: best value is the cheapest plan within a day among those at most 10 % dearer than the cheapest", "[plan-choice]") {
  // The cheapest is $100 on 8 GPUs for 500 h; $110 is the band's ceiling. 512 GPUs finish in 8 h for $109: in
  // the band and within 24 h, so it is chosen; 1,024 GPUs are faster but $130, outside it.
  const std::vector<Candidate> plans{plan_of(8, 100, 500), plan_of(64, 104, 62), plan_of(512, 109, 8), plan_of(1024, 130, 4.5)};
  const RankOptions opts;
  const Pick p = pick_plan(pointers(plans), 8, true, RankBy::value, opts);
  REQUIRE(p.plan);
  CHECK(p.plan->gpus == 512);
  CHECK(p.in_band);
  // By cost the cheapest wins; by time the fastest within --max-gpus.
  CHECK(pick_plan(pointers(plans), 8, true, RankBy::cost, opts).plan->gpus == 8);
  RankOptions wide;
  wide.max_gpus = 2048;
  CHECK(pick_plan(pointers(plans), 8, true, RankBy::time, wide).plan->gpus == 1024);
  CHECK(pick_plan(pointers(plans), 8, true, RankBy::time, opts).plan->gpus == 64);  // --max-gpus 64
}

TEST_CASE("plan choice: where no plan of the band finishes within a day, its fastest, and a cheap fast plan needs no band", "[plan-choice]") {
  // $105 (64 GPUs, 600 h) is within 10 % of $100, $120 is not: the fastest of the band is 64 GPUs.
  const std::vector<Candidate> slow{plan_of(8, 100, 5000), plan_of(64, 105, 600), plan_of(128, 120, 300)};
  const RankOptions opts;
  const Pick p = pick_plan(pointers(slow), 8, true, RankBy::value, opts);
  CHECK(p.plan->gpus == 64);
  CHECK(p.in_band);
  // Within a day the band trades dollars for hours (value_time_weight 0.1): 8 GPUs in 0.7 h for 5 % more score
  // 1.05 + 0.1 x 0.7/5 = 1.064 against the single GPU's 1.0 + 0.1 = 1.1, and win; 8 GPUs in 4 h for 5 % more
  // score 1.05 + 0.08 = 1.13 and do not: the cheapest is chosen, and the band is not named.
  const std::vector<Candidate> quick{plan_of(1, 10, 5), plan_of(8, 10.5, 0.7)};
  const Pick q = pick_plan(pointers(quick), 1, true, RankBy::value, opts);
  CHECK(q.plan->gpus == 8);
  CHECK(q.in_band);
  const std::vector<Candidate> slight{plan_of(1, 10, 5), plan_of(8, 10.5, 4)};
  const Pick s = pick_plan(pointers(slight), 1, true, RankBy::value, opts);
  CHECK(s.plan->gpus == 1);
  CHECK_FALSE(s.in_band);
}

TEST_CASE("plan choice: a deadline keeps the cheapest plan that meets it, a budget the fastest within it, and a plan both cheaper and faster wins", "[plan-choice]") {
  const std::vector<Candidate> plans{plan_of(8, 100, 500), plan_of(64, 104, 62), plan_of(512, 109, 8), plan_of(1024, 130, 4.5)};
  RankOptions deadline;
  deadline.deadline_seconds = 70 * 3600.0;
  CHECK(pick_plan(pointers(plans), 8, true, RankBy::value, deadline).plan->gpus == 64);
  RankOptions budget;
  budget.budget_usd = 120;
  CHECK(pick_plan(pointers(plans), 8, true, RankBy::value, budget).plan->gpus == 512);
  // Nothing meets a 1 h deadline: the closest (fastest) is reported so the row can say why.
  RankOptions none;
  none.deadline_seconds = 3600.0;
  CHECK(pick_plan(pointers(plans), 8, true, RankBy::value, none).plan->gpus == 1024);
  // Fewest GPUs: 2 GPUs for $50 in 10 h beat 1 GPU for $60 in 40 h on both, so they win whatever the order.
  const std::vector<Candidate> dominated{plan_of(1, 60, 40), plan_of(2, 50, 10)};
  CHECK(pick_plan(pointers(dominated), 1, true, RankBy::gpus, RankOptions{}).plan->gpus == 2);
}

TEST_CASE("plan choice: the frontier keeps each plan no other beats on both hours and dollars, ties once", "[plan-choice]") {
  // (gpus, $, h): 8 ($100, 40 h) and 16 ($100, 20 h): 16 is as cheap and faster, so 8 is dominated. 32 ($150, 20 h)
  // is as fast as 16 and dearer: dominated. 64 ($200, 10 h) and 128 ($400, 5 h) trade dollars for hours: kept.
  // 256 ($400, 6 h) is slower than 128 at the same price: dominated. A second 16-GPU plan with the same hours and
  // dollars (ZeRO-2 beside ZeRO-1) is the same point: kept once.
  const std::vector<Candidate> plans{plan_of(8, 100, 40),   plan_of(16, 100, 20), plan_of(16, 100, 20), plan_of(32, 150, 20),
                                     plan_of(64, 200, 10),  plan_of(128, 400, 5), plan_of(256, 400, 6)};
  const auto front = frontier_of(pointers(plans));
  std::vector<std::int64_t> kept;
  for (const auto& f : front) kept.push_back(f.gpus);
  CHECK(kept == std::vector<std::int64_t>{16, 64, 128});
}

TEST_CASE("plan choice: the search goes on while the last count still had a plan within the band", "[plan-choice]") {
  const RankOptions opts;
  std::vector<Candidate> fits;
  CHECK(search_further(fits, 1, 0, true, RankBy::value, opts));  // nothing fits yet
  fits = {plan_of(8, 100, 500), plan_of(16, 101, 250)};
  CHECK(search_further(fits, 32, 8, true, RankBy::value, opts));    // within 8x the first fit
  fits.push_back(plan_of(64, 104, 62));
  CHECK(search_further(fits, 128, 8, true, RankBy::value, opts));   // 64 GPUs are in the band, 62 h is over a day
  fits.push_back(plan_of(128, 125, 40));
  CHECK_FALSE(search_further(fits, 256, 8, true, RankBy::value, opts));  // 128 GPUs left the band
  // A plan of the band within a day does not end it: 128 GPUs still cost within the band, and 256 at the same
  // cost in half the time would beat them (1.06 + 0.1 x 10/500 against 1.06 + 0.1 x 20/500).
  std::vector<Candidate> done{plan_of(8, 100, 500), plan_of(64, 104, 62), plan_of(128, 106, 20)};
  CHECK(search_further(done, 256, 8, true, RankBy::value, opts));
  done.push_back(plan_of(256, 106, 10));
  std::vector<const Candidate*> pool;
  for (const auto& c : done) pool.push_back(&c);
  CHECK(pick_in_value_band(pool)->gpus == 256);
  CHECK_FALSE(search_further(done, 16, 8, false, RankBy::value, opts));  // no job size: the first fit's count
  CHECK(search_further(done, 256, 8, true, RankBy::time, opts));         // the fastest: up to --max-gpus
}

TEST_CASE("layout space: Llama 3 405B on 16,384 H100s offers Meta's TP 8 x PP 16, with interleaved chunks, and no tensor parallel across nodes", "[plan-choice][layout-space]") {
  const ModelSpec m = test::model("llama-3.1-405b");
  const GpuSpec& g = *test::gpus().find("h100-sxm-80gb");
  Workload w;
  w.model = "llama-3.1-405b";
  w.mode = Mode::train;
  w.seq_len = 8192;
  w.global_batch = 2048;
  std::vector<std::tuple<std::int64_t, std::int64_t, std::int64_t, std::int64_t>> seen;  // tp, pp, v, dp
  layout_space::for_each_layout(w, m, g, 16384, [&](const Workload& p) {
    CHECK(p.tp <= 8);              // tensor parallelism stays in a node
    CHECK(p.data_parallel() <= 2048);  // never more data-parallel ranks than the global batch has sequences
    CHECK(p.nodes == 2048);
    seen.emplace_back(p.tp, p.pp, p.virtual_stages, p.data_parallel());
  });
  // 126 layers over 16 stages: the largest holds 8, so 1, 2, 4 or 8 chunks each.
  for (std::int64_t v : {1, 2, 4, 8}) CHECK(std::find(seen.begin(), seen.end(), std::make_tuple(8, 16, v, 128)) != seen.end());
  CHECK(std::none_of(seen.begin(), seen.end(), [](const auto& t) { return std::get<0>(t) == 8 && std::get<1>(t) == 16 && std::get<2>(t) == 16; }));
  // Each layout reaches the global batch: 2,048 sequences over 128 ranks are 16 micro-batches each.
  layout_space::for_each_layout(w, m, g, 16384, [&](const Workload& p) {
    if (p.tp == 8 && p.pp == 16) CHECK(p.batch * p.grad_accum == 16);
  });
}

TEST_CASE("layout space: DeepSeek-V3 on 1,024 H100s offers Megatron-Bridge's TP 2 x PP 8 x VP 4 x EP 64, expert parallel across nodes", "[plan-choice][layout-space][moe]") {
  // Megatron-Bridge 25.09, DGX-H100: DeepSeek-V3 on 1,024 GPUs, TP 2, PP 8, VP 4, EP 64 (docs/performance-summary-archive.md).
  // 61 layers over 8 stages hold 8 on the largest: 4 chunks of 2. EP 64 x TP 2 spans 16 nodes.
  const ModelSpec m = test::model("deepseek-v3");
  const GpuSpec& g = *test::gpus().find("h100-sxm-80gb");
  Workload w;
  w.model = "deepseek-v3";
  w.mode = Mode::train;
  w.seq_len = 4096;
  w.global_batch = 8192;
  bool recipe = false;
  layout_space::for_each_layout(w, m, g, 1024, [&](const Workload& p) {
    if (p.ep > 1) {
      CHECK(m.experts % p.ep == 0);
      // Inside the data-parallel ranks, or folded over the tensor-parallel ones: whole experts per GPU.
      if (experts_folded(p)) CHECK((p.ep % p.tp == 0 && (p.tp * p.replica_ranks()) % p.ep == 0));
      else CHECK(p.data_parallel() % p.ep == 0);
    }
    recipe = recipe || (p.tp == 2 && p.pp == 8 && p.virtual_stages == 4 && p.ep == 64 && p.batch * p.grad_accum == 128);
  });
  CHECK(recipe);
}

TEST_CASE("pipeline pace: whole layers per stage and the output projection on the last one", "[time][pipeline]") {
  // Qwen3-235B-A22B: 94 layers of 0.2228B active weights on average ((22.191B - 2 x 0.6223B) / 94) and a head
  // of 151,936 x 4,096 = 0.6223B, 2.793 layers' worth. Over 64 stages no stage can hold fewer than 2 layers but
  // the last, which holds the head alone: the pace is 2.793 layers, the work 96.79, so 34.66 stages' worth of
  // 64 GPUs. Llama 3.1 405B over 16 stages: 8 layers on the largest (the head, 2.10B against 3.21B, is 0.65 of
  // a layer and fits beside 6 on the last), 126.65 / 8 = 15.83.
  auto pace = [](const char* id, std::int64_t pp) {
    const ModelSpec m = test::model(id);
    return pipeline_pace_split(m, count_params(m), pp);
  };
  const ParamCounts q = count_params(test::model("qwen3-235b-a22b"));
  const double per_layer = (q.active - q.embedding - q.head) / 94.0, head = 151936.0 * 4096.0 / per_layer;
  CHECK(head == Approx(2.793).epsilon(0.002));
  CHECK(pace("qwen3-235b-a22b", 64) == Approx((94.0 + head) / head));
  CHECK(pace("qwen3-235b-a22b", 64) == Approx(34.66).epsilon(0.002));
  CHECK(pace("llama-3.1-405b", 16) == Approx(15.83).epsilon(0.002));
  CHECK(pace("llama-3.1-405b", 1) == 1.0);
}

TEST_CASE("pipeline pace: per-GPU throughput counts every stage's GPUs, so an uneven deep pipeline is slower per GPU", "[time][pipeline]") {
  // The same job over 8 and 64 stages of Qwen3-235B-A22B (TP 2, EP 2, 256 H100s): 64 stages run at 34.66 / 64 =
  // 54 % of their GPUs' share; 8 stages hold 12 layers on the largest ((94 + 2.79) / 12 = 8.07 of 8): they may
  // not be slower per GPU for the unevenness.
  auto tps = [](const char* pp) {
    const auto r = test::run({"estimate", "--model", "qwen3-235b-a22b", "--mode", "train", "--precision", "fp8", "--framework", "megatron", "--gpu",
                              "h100-sxm-80gb", "--gpus", "256", "--tp", "2", "--pp", pp, "--ep", "2", "--seq-len", "4096", "--global-batch", "2048",
                              "--format", "json"});
    REQUIRE(r.code == 0);
    const auto j = r.json();
    return j["time"]["train_tokens_per_second_per_gpu"].get<double>();
  };
  const double eight = tps("8"), sixty_four = tps("64");
  CHECK(sixty_four < 0.6 * eight);
  CHECK(sixty_four > 0.45 * eight);
}

TEST_CASE("layout space: without --batch each layout is also tried at 2x, 4x, ... 32x the micro-batch, and with it only as asked", "[plan-choice][layout-space]") {
  // Qwen3-30B-A3B on 16 H100s, global batch 512 (Megatron-Bridge's recipe): 8 data-parallel ranks at PP 2 step
  // with 64 sequences each, so micro-batches 1 to 32 all reach it (64 down to 2 accumulation steps).
  const ModelSpec m = test::model("qwen3-30b-a3b");
  const GpuSpec& g = *test::gpus().find("h100-sxm-80gb");
  Workload w;
  w.model = "qwen3-30b-a3b";
  w.mode = Mode::train;
  w.seq_len = 4096;
  w.global_batch = 512;
  auto micro_batches = [&](const Workload& x) {
    std::set<std::pair<std::int64_t, std::int64_t>> seen;  // (micro-batch, accumulation) at PP 2 x EP 8
    layout_space::for_each_layout(x, m, g, 16, [&](const Workload& p) {
      if (p.tp == 1 && p.pp == 2 && p.ep == 8 && p.virtual_stages == 1) seen.insert({p.batch, p.grad_accum});
    });
    return seen;
  };
  CHECK(micro_batches(w) == std::set<std::pair<std::int64_t, std::int64_t>>{{1, 64}, {2, 32}, {4, 16}, {8, 8}, {16, 4}, {32, 2}});
  w.batch_given = true;
  CHECK(micro_batches(w) == std::set<std::pair<std::int64_t, std::int64_t>>{{1, 64}});
  // A search that says a larger micro-batch is not worth it stops at the first.
  w.batch_given = false;
  int tries = 0;
  layout_space::for_each_layout(w, m, g, 16, [&](const Workload& p) {
    if (p.tp == 1 && p.pp == 2 && p.ep == 8 && p.virtual_stages == 1) ++tries;
    return false;
  });
  CHECK(tries == 1);
}

TEST_CASE("plan: where a micro-batch pays a fixed cost, the pick runs a larger one, faster than the same layout at micro-batch 1", "[plan-choice][moe][cli]") {
  // Qwen3-30B-A3B under Megatron on at most 16 H100s: 16 experts per GPU at EP 8, launched one by one each
  // micro-batch (coef::expert_host_s), so the planner's own pick steps with more than one sequence per micro-batch.
  const auto r = test::run({"--model", "qwen3-30b-a3b", "--mode", "train", "--precision", "fp8", "--framework", "megatron", "--tokens", "1T",
                            "--seq-len", "4096", "--only", "h100-sxm-80gb", "--max-gpus", "16", "--global-batch", "512", "--rank-by", "time",
                            "--format", "json"});
  REQUIRE(r.code == 0);
  const auto pick = r.json()["ranking"][0];
  const auto& plan = pick["plan"];
  REQUIRE(plan["micro_batch"].get<int>() > 1);
  std::vector<std::string> args{"estimate", "--model", "qwen3-30b-a3b", "--mode", "train", "--precision", "fp8", "--framework", "megatron",
                                "--seq-len", "4096", "--gpu", "h100-sxm-80gb", "--global-batch", "512", "--batch", "1", "--format", "json"};
  for (const char* k : {"gpus", "tp", "pp", "ep", "virtual_stages"}) {
    args.push_back(std::string("--") + (std::string(k) == "virtual_stages" ? "virtual-stages" : k));
    args.push_back(std::to_string(plan[k].get<int>()));
  }
  args.insert(args.end(), {"--sharding", plan["sharding"].get<std::string>(), "--gradient-checkpointing", plan["gradient_checkpointing"].get<std::string>()});
  const auto one = test::run(args);
  REQUIRE(one.code == 0);
  const auto at_one = one.json();
  CHECK(pick["time"]["train_tokens_per_second_per_gpu"].get<double>() > 1.2 * at_one["time"]["train_tokens_per_second_per_gpu"].get<double>());
}

TEST_CASE("layout space: a vision inference job of images tries independent replicas, a job without images none", "[plan-choice][layout-space]") {
  const ModelSpec m = test::model("resnet-50");
  const GpuSpec& g = *test::gpus().find("h100-sxm-80gb");
  Workload w;
  w.model = "resnet-50";
  w.mode = Mode::inference;
  w.batch = 256;
  w.batch_given = true;  // --batch 256: the replicas' batch, no batch search (the next test)
  std::vector<std::pair<std::int64_t, std::int64_t>> seen;  // gpus, nodes
  auto record = [&](const Workload& p) {
    CHECK(p.tp == 1);
    CHECK(p.pp == 1);
    CHECK(p.sharding == Sharding::none);
    CHECK(p.batch == 256);
    seen.emplace_back(p.gpus, p.nodes);
  };
  layout_space::for_each_layout(w, m, g, 8, record);
  CHECK(seen.empty());  // no job size: nothing to split
  w.images = 1e8;
  layout_space::for_each_layout(w, m, g, 8, record);
  layout_space::for_each_layout(w, m, g, 32, record);
  CHECK(seen == std::vector<std::pair<std::int64_t, std::int64_t>>{{8, 1}, {32, 4}});
}

TEST_CASE("plan: an image job without --batch doubles the batch while the host's dispatch is a tenth of the forward or more", "[plan-choice][layout-space]") {
  // ResNet-50 inference on an RTX 3090: the host's 2 ms of launches per forward (small_batch_overhead_s) overlap the
  // GPU's work and floor it. Batch 4: 4 / 2 ms = 2,000 images/s exactly, host-bound; batch 8's GPU work outlasts
  // the floor, as every larger batch's, so the rate is the compute-bound one of batch 64, and the search stops
  // there (the floor's share is 0: nothing left to amortise).
  const std::vector<std::string> base{"estimate", "--model", "resnet-50", "--mode", "inference", "--gpu", "rtx-3090-24gb", "--format", "json"};
  auto rate = [&](const char* batch) {
    auto a = base;
    a.insert(a.end(), {"--batch", batch});
    return test::run_json(a)["time"];
  };
  CHECK(rate("4")["images_per_second"].get<double>() == Approx(2000.0));
  // Training launches two passes a step (forward, backward): 4 ms, so batch 8 on a B300 trains at 8 / 4 ms.
  const auto train = test::run_json({"estimate", "--model", "resnet-50", "--mode", "train", "--gpu", "b300-hgx-288gb", "--batch", "8", "--format", "json"})["time"];
  CHECK(train["images_per_second"].get<double>() == Approx(2000.0));
  CHECK(train["bound"] == "host overhead (kernel launches)");
  CHECK(rate("4")["bound"] == "host overhead (kernel launches)");
  const double compute_bound = rate("64")["images_per_second"].get<double>();
  CHECK(rate("8")["images_per_second"].get<double>() == Approx(compute_bound));
  CHECK(8.0 / compute_bound > 0.002);  // batch 8's GPU work outlasts the floor
  CHECK(4.0 / compute_bound < 0.002);
  // The ranking's plan for a million images: batch 8, at that rate; given --batch 1 it keeps it (500 images/s).
  const auto row = test::run_json({"--model", "resnet-50", "--mode", "inference", "--images", "1M", "--only", "rtx-3090-24gb", "--format", "json"})["ranking"][0];
  CHECK(row["plan"]["micro_batch"] == 8);
  CHECK(row["time"]["images_per_second"].get<double>() == Approx(compute_bound));
  const auto asked = test::run_json({"--model", "resnet-50", "--mode", "inference", "--images", "1M", "--batch", "1", "--only", "rtx-3090-24gb", "--format", "json"})["ranking"][0];
  CHECK(asked["plan"]["micro_batch"] == 1);
  CHECK(asked["time"]["images_per_second"].get<double>() == Approx(500.0));
}

TEST_CASE("plan: serving over several nodes runs replicas of a narrower layout, not one pipeline over every node", "[plan-choice][serving]") {
  // DeepSeek-V3 FP8 under SGLang on at most 64 H200s, 1,000 in / 1,000 out: one engine over 8 nodes (TP 8 x PP 8)
  // carries each token through eight stages; replicas of a one- or two-node engine each run their own sequences.
  const auto r = test::run({"--model", "deepseek-v3", "--mode", "inference", "--framework", "sglang", "--precision", "fp8", "--only", "h200-sxm-141gb",
                            "--max-gpus", "64", "--requests", "1M", "--input-tokens", "1000", "--output-tokens", "1000", "--rank-by", "time", "--format", "json"});
  REQUIRE(r.code == 0);
  const auto pick = r.json()["ranking"][0];
  REQUIRE(pick["fits"] == true);
  const auto& plan = pick["plan"];
  CHECK(plan["gpus"].get<int>() / (plan["tp"].get<int>() * plan["pp"].get<int>()) > 1);  // several replicas
  const auto one = test::run({"estimate", "--model", "deepseek-v3", "--mode", "inference", "--framework", "sglang", "--precision", "fp8", "--gpu", "h200-sxm-141gb",
                              "--gpus", "64", "--nodes", "8", "--tp", "8", "--pp", "8", "--requests", "1M", "--input-tokens", "1000", "--output-tokens", "1000",
                              "--format", "json"});
  REQUIRE(one.code == 0);
  CHECK(pick["time"]["requests_per_second"].get<double>() > 1.5 * one.json()["time"]["requests_per_second"].get<double>());
}

TEST_CASE("recommendation: the fastest line names a frontier plan only when it is clearly faster, in the table's units", "[plan-choice][cli]") {
  // Ten images through ResNet-50 on H100s: one GPU takes the 15-minute start and 10 / 16,000 s of compute; eight
  // replicas save half a millisecond of it at eight times the price, so the fastest line keeps the one GPU (2 %
  // margin, as the plan choice asks of more GPUs) and writes its time as the table does ("15 min", not "0.3 h").
  const auto j = test::run_json({"--model", "resnet-50", "--mode", "inference", "--images", "10", "--gpu", "h100-sxm-80gb", "--format", "json"});
  std::string fastest;
  for (const auto& rec : j["recommendations"])
    if (rec["label"] == "fastest") fastest = rec["reason"].get<std::string>();
  CHECK(fastest.rfind("15 min for the job on single GPU", 0) == 0);
}

TEST_CASE("plan: a count given alone that is not whole nodes keeps the layout given and says why", "[plan-choice][cli]") {
  // Twelve H100s are a node of 8 and half of another: the search runs one node or whole nodes, so --gpus 12 is the
  // layout given, data parallel, and a 7B full fine-tune (16 B of states per parameter: 112 GB a GPU) does not fit.
  const auto j = test::run_json({"--model", "7B", "--mode", "finetune", "--gpus", "12", "--gpu", "h100-sxm-80gb", "--tokens", "1B", "--format", "json"});
  const auto row = j["ranking"][0];
  CHECK_FALSE(row["fits"].get<bool>());
  CHECK(row["why"].get<std::string>().rfind("the layout given (the search runs whole nodes of 8 GPUs)", 0) == 0);
  CHECK(row["layout"].get<std::string>().find("data parallel 12") != std::string::npos);
}

TEST_CASE("plan: a deadline no plan of any GPU asked meets says how close each came, in text and markdown", "[plan-choice][cli]") {
  // Llama 3.1 8B pre-training on 1T tokens within 8 H100s and one day: the fastest plan takes months, so the only GPU
  // asked is dropped and no row is left; the answer still names the plan and its time instead of "No GPU selected."
  const std::vector<std::string> args{"--model", "llama-3.1-8b", "--mode", "train", "--tokens", "1T", "--gpu", "h100-sxm-80gb", "--max-gpus", "8", "--deadline", "1d"};
  for (const char* format : {"table", "markdown"}) {
    INFO(format);
    std::vector<std::string> a = args;
    a.insert(a.end(), {"--format", format});
    const auto r = test::run(a);
    REQUIRE(r.code == 0);
    CHECK(r.out.find("No GPU selected") == std::string::npos);
    CHECK(r.out.find("No plan meets the deadline or budget") != std::string::npos);
    CHECK(r.out.find("h100-sxm-80gb") != std::string::npos);
    CHECK(r.out.find("the fastest plan within 8 GPUs (8 GPUs: ") != std::string::npos);
    CHECK(r.out.find(" d for $") != std::string::npos);  // the plan's time and its cost
    CHECK(r.out.find(", over the 24.0 h deadline") != std::string::npos);
  }
  const auto j = test::run_json(args);
  CHECK(j["ranking"].empty());
  REQUIRE(j["dropped"].size() == 1);
  CHECK(j["dropped"][0]["gpu"] == "h100-sxm-80gb");
  CHECK(j["dropped"][0]["gpus"] == 8);
  CHECK(j["dropped"][0]["wall_hours"].get<double>() > 24.0);
}

TEST_CASE("plan: a serving layout that misses the latency targets is not a plan that fits, and where none meets them, the nearest says by how much", "[plan-choice][serving]") {
  // Llama 3.1 70B FP8 under vLLM on RTX 4090s (no NVLink, no peer-to-peer), 2,000-token prompts. With
  // --max-ttft-ms 1000 the search kept tensor parallel 4 x 2 replicas among its "plans that fit" although one
  // sequence there waits longer than a second for its first token: the row said "does not fit" beside "of 3 plans
  // that fit". Latency is part of fitting: only tensor parallel 8 (TTFT just under 1 s) is a plan.
  auto run = [](const char* ttft) {
    return test::run_json({"--model", "llama-3.1-70b", "--mode", "inference", "--precision", "fp8", "--framework", "vllm", "--requests", "100000",
                           "--input-tokens", "2000", "--output-tokens", "300", "--max-ttft-ms", ttft, "--max-tpot-ms", "40", "--only", "rtx-4090-24gb"});
  };
  const auto met = run("1000")["ranking"][0];
  CHECK(met["fits"] == true);
  CHECK(met["plan"]["tp"] == 8);
  CHECK(met["time"]["ttft_seconds"].get<double>() <= 1.0);
  CHECK(met["time"]["tpot_seconds"].get<double>() <= 0.040);
  // 300 ms: no layout meets it; the row names the nearest, the target it misses and the one it meets.
  const auto missed = run("300")["ranking"][0];
  CHECK(missed["fits"] == false);
  CHECK(missed["time"]["decode_tokens_per_second"].is_null());
  const std::string why = missed["why"].get<std::string>();
  CHECK(why.rfind("no layout within 8 GPUs meets the latency targets; the nearest, 8 GPUs: tensor parallel 8: ", 0) == 0);
  CHECK(why.find("over --max-ttft-ms 300") != std::string::npos);
  CHECK(why.find("within --max-tpot-ms 40") != std::string::npos);
  // sweep gives each count the same verdict: 4 GPUs fit in memory (23.2 GB) but miss the first-token target.
  const std::vector<std::string> sweep{"sweep", "--model", "llama-3.1-70b", "--mode", "inference", "--precision", "fp8", "--framework", "vllm",
                                       "--requests", "100000", "--input-tokens", "2000", "--output-tokens", "300", "--max-ttft-ms", "1000",
                                       "--max-tpot-ms", "40", "--gpu", "rtx-4090-24gb", "--vary", "gpus", "--from", "4", "--to", "8"};
  const auto text = test::run(sweep);
  CHECK(text.out.find("GB no: latency") != std::string::npos);
  const auto points = test::run_json(sweep)["points"];
  REQUIRE(points.size() == 2);
  CHECK(points[0]["gpus"][0]["fits"] == false);
  CHECK(points[0]["gpus"][0]["fit_reason"].get<std::string>().find("over --max-ttft-ms 1000") != std::string::npos);
  CHECK(points[1]["gpus"][0]["fits"] == true);
  CHECK(points[1]["gpus"][0]["fit_reason"].is_null());
}

TEST_CASE("plan: inference without requests is one engine: no replicas to share a job that is not there", "[plan-choice][serving]") {
  // Llama 3.1 8B int4, no --requests, ranked by time within 64 GPUs: the fastest line read "4173 output tokens/s
  // (1 sequence at once) on 64 GPUs: 64 replicas", a rate no user of one sequence sees. Every row is now one engine
  // over its GPUs (tensor x pipeline parallel = its GPUs).
  const auto j = test::run_json({"--model", "llama-3.1-8b", "--mode", "inference", "--precision", "int4", "--rank-by", "time", "--max-gpus", "64"});
  REQUIRE_FALSE(j["ranking"].empty());
  for (const auto& row : j["ranking"]) {
    if (!row["fits"].get<bool>()) continue;
    INFO(row["gpu"].get<std::string>() << ": " << row["layout"].get<std::string>());
    CHECK(row["plan"]["tp"].get<int>() * row["plan"]["pp"].get<int>() == row["gpus"].get<int>());
  }
  // Each row shows the fastest plan (an RTX 3090's: tensor parallel 2, $2.50 per M output tokens); the best value
  // line names the cheapest plan the searches found, one card at $1.46, and says the row shows another order's plan.
  for (const auto& rec : j["recommendations"])
    if (rec["label"] == "best value") {
      CHECK(rec["gpu"] == "rtx-3090-24gb");
      CHECK(rec["reason"].get<std::string>().find("$1.46 per M output tokens on single GPU (its row shows the time order's plan)") != std::string::npos);
    }
  // With requests the same question spreads them over replicas.
  const auto job = test::run_json({"--model", "llama-3.1-8b", "--mode", "inference", "--precision", "int4", "--rank-by", "time", "--max-gpus", "64",
                                   "--requests", "1M", "--output-tokens", "256", "--only", "h100-sxm-80gb"});
  const auto row = job["ranking"][0];
  CHECK(row["gpus"].get<int>() > row["plan"]["tp"].get<int>() * row["plan"]["pp"].get<int>());
}

TEST_CASE("layout space: each framework's own data-parallel sharding", "[plan-choice][layout]") {
  // Megatron keeps ZeRO-1 (its distributed optimizer) beside model parallelism; torchtitan and torchtune have FSDP2
  // alone: ZeRO-1 beside model parallelism is FSDP there, and ZeRO-1 over every GPU is no layout of theirs.
  Workload w = test::wl({{"model", "llama-3.1-8b"}, {"mode", "train"}, {"framework", "megatron"}});
  CHECK(layout_space::framework_sharding(w, Sharding::zero1, true) == Sharding::zero1);
  for (const char* fw : {"torchtitan", "torchtune"}) {
    INFO(fw);
    w = test::wl({{"model", "llama-3.1-8b"}, {"mode", "train"}, {"framework", fw}});
    CHECK(layout_space::framework_sharding(w, Sharding::zero1, true) == Sharding::zero3);
    CHECK_FALSE(layout_space::framework_sharding(w, Sharding::zero1, false).has_value());
    CHECK(layout_space::framework_sharding(w, Sharding::zero2, false) == Sharding::zero2);
    CHECK(layout_space::framework_sharding(w, Sharding::none, true) == Sharding::none);
  }
}

TEST_CASE("plan: under a deadline the row is the cheapest plan that meets it, and the fastest line searches to --max-gpus", "[plan-choice]") {
  // Llama 3.1 8B pre-training on 100B tokens within 7 days on at most 256 H100s: 32 GPUs meet it for the least (109
  // h); the search stopped near there, so "fastest" named a plan of about that count. It now goes on to 256 GPUs,
  // whose plans form the frontier (each count about half the time of the one before), and names the fastest with
  // the order its row shows.
  const auto j = test::run_json({"--model", "llama-3.1-8b", "--mode", "train", "--tokens", "100B", "--deadline", "7d", "--max-gpus", "256", "--only",
                                 "h100-sxm-80gb"});
  const auto row = j["ranking"][0];
  CHECK(row["gpus"] == 32);
  REQUIRE(row["frontier"].size() >= 2);
  CHECK(row["frontier"].back()["gpus"] == 256);
  CHECK(row["frontier"].back()["hours"].get<double>() < row["frontier"].front()["hours"].get<double>() / 4.0);
  for (const auto& rec : j["recommendations"])
    if (rec["label"] == "fastest") {
      CHECK(rec["reason"].get<std::string>().find("on 256 GPUs in 32 nodes") != std::string::npos);
      CHECK(rec["reason"].get<std::string>().find("its row shows the cheapest plan that meets the deadline") != std::string::npos);
    }
}

TEST_CASE("plan: the fastest line writes a rate under 10 a second with two significant digits", "[plan-choice][advice]") {
  // FLUX.1-dev takes seconds an image on any card: its fastest line read "0 images/s".
  const auto r = test::run({"--model", "flux-1-dev", "--mode", "inference"});
  REQUIRE(r.code == 0);
  const auto at = r.out.find("fastest:");
  REQUIRE(at != std::string::npos);
  const std::string line = r.out.substr(at, r.out.find('\n', at) - at);
  CHECK(line.find(" 0 images/s") == std::string::npos);
  CHECK(line.find("images/s") != std::string::npos);
}
