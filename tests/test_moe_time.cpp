// Mixture-of-experts training time (docs/method.md §8.2): the routed experts' weights streamed per micro-batch,
// the host's launches per local expert, and Megatron-Bridge's recipe rows (tests/data/moe_train_time.jsonl, each
// with its source, quote and whether it was used to fit a coefficient).
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <set>
#include <string>

#include "gpuadvise/coefficients.hpp"
#include "gpuadvise/error.hpp"
#include "gpuadvise/perf.hpp"
#include "helpers.hpp"
#include "perf_common.hpp"

using namespace gpuadvise;
using test::wl;

TEST_CASE("time: a routed expert's weights stream each micro-batch, and below the ridge of tokens the bytes set its time", "[time][moe]") {
  // Mixtral 8x7B full fine-tune in bf16 with fp32 master weights, micro-batch 1 x 1,024 tokens, no recompute
  // (perf_weights.cpp): per weight and micro-batch 2 x 2 bytes read (forward, input gradient) + 4 + 4 of the
  // fp32 gradient (read, write) = 12 bytes, and 6 FLOPs per token. At 5e14 FLOP/s and 2.5e12 B/s, 12 / 2.5e12 =
  // 4.8e-12 s per weight against 6 x T / 5e14: a routed expert sees 1,024 x 2 / 8 = 256 tokens (3.072e-12 s), so
  // its bytes show 1.728e-12 s per weight beyond its FLOPs; attention sees 1,024 (1.229e-11 s): none.
  // 32 x 8 x 3 x 4,096 x 14,336 = 45,097,156,608 routed weights: 45.097e9 x 1.728e-12 / 1,024 = 7.610e-5 s per
  // token. With 8-way expert parallelism each rank's expert sees 2,048 tokens: compute-bound, nothing.
  const ModelSpec m = test::model("mixtral-8x7b");
  const GpuSpec& g = *test::gpus().find("h100-sxm-80gb");
  Workload w = wl({{"model", "mixtral-8x7b"}, {"mode", "finetune"}, {"seq_len", "1024"}});
  const MemoryEstimate mem = estimate_memory(w, m, &g);
  auto excess = [&](const Workload& x) {
    const perf_detail::TimeBasis in{{x, m, g, mem}, precision_support(x, g), 5e14, 1024.0, count_params(m), 1.0, 1.0, 1.0};
    return perf_detail::weight_streaming_seconds_per_token(in, 1024.0, 5e14, 2.5e12);
  };
  CHECK(count_params(m).routed_experts == Approx(45097156608.0));
  CHECK(excess(w) == Approx(45097156608.0 * 1.728e-12 / 1024.0).epsilon(1e-6));
  CHECK(excess(w) == Approx(7.610e-5).epsilon(1e-3));
  w.gpus = 8;
  w.ep = 8;
  CHECK(excess(w) == 0.0);
}

TEST_CASE("time: mixture-of-experts pre-training at Megatron-Bridge's layouts", "[time][moe][heldout]") {
  // tests/data/moe_train_time.jsonl: twenty-eight recipe rows (Megatron-Bridge's performance archive, H100, B200 and
  // B300, container versions 25.09 to 26.06). One, Qwen3-30B-A3B on 8 B200s (26.02), fits coef::expert_host_s (the
  // dropless layer's experts launched one by one from the host). The others are held out and come within 20 %,
  // whether the all-to-alls cross the network (DeepSeek-V3 on 1,024 H100s, EP 64; Qwen3-30B-A3B at EP 16 over two
  // H100 nodes) or stay in a node (B200 and B300, EP 8: 32 and 16 experts per GPU), at micro-batch 1, 2, 4 or 8:
  // the same B200 layout at micro-batch 4 (26.02.01, 26.04.01) ran 2.75x the fitted micro-batch-1 row, and the
  // host time per expert, fixed per micro-batch, gives it within 10 %.
  // Qwen3-30B-A3B on 16 H100s at PP 2 x 12 one-layer chunks ran 5,113 tokens/s per GPU in 26.02 and 9,058 in
  // 26.02.01, the same layout one container patch apart (and 5,275 in 25.11 at PP 2 x 24): a software-version
  // spread of 1.77x that no hardware model closes; Qwen3-235B-A22B on 256 B300s ran 2,644 in 26.02.01 at micro-batch
  // 1, where 26.04 and 26.04.01 ran 4,865 and 5,936 at micro-batch 2. Those older rows are reported, held only to
  // running and not falling below half the measured rate; the newer rows are held to 20 % (docs/method.md §8.2).
  // DeepSeek-V3 on 256 B200s at EP 32 over four nodes (26.04.01) runs DeepEP (a token crosses the network once per
  // destination node) with the all-to-alls overlapped by another micro-batch's compute; the tool charges a copy per
  // expert, exposed, and stays under it (known, method.md §8.4): held to the sign of that gap.
  // Qwen3-235B-A22B in FP8 with current scaling on 256 H100s (25.11 and 26.04.01) ran the recipe's TP 2, PP 8 x 4, EP 32
  // folded, all-to-alls overlapped, at 1,575 and 1,712, where the report ran the same layout in BF16 at 2,132: the
  // tool's step is bound by the all-to-alls, the same in both precisions (2,199 in BF16, 2,248 and 2,327 in FP8), and
  // sits 36-43 % over the FP8 rows (known, method.md §8.4): held to the sign of that gap. gpt-oss-120b on 64 H100s,
  // B200s and B300s (26.04.01, BF16, the recipes' layouts and recompute modules) ran 40-48 % below the estimate on all
  // three families alike (known, method.md §8.2): held so too.
  // Two rows of NVIDIA's Megatron-Core MoE report (arXiv:2603.07685: Qwen3-235B-A22B BF16 on 256 H100s, DeepSeek-V3 FP8
  // on 1,024) ran with the all-to-alls overlapped: run with --ep-overlap, held to 20 % like the recipe rows.
  std::map<std::string, double> err;
  for (const auto& [c, e] : test::data_case_errors("moe_train_time.jsonl")) err[c["id"].get<std::string>()] = e;
  REQUIRE(err.size() == 30);
  CHECK(std::abs(err.at("mbridge_2602_qwen3_30b_a3b_8xb200")) <= 0.02);  // the fitted row
  const std::set<std::string> version_spread{"mbridge_2511_qwen3_30b_a3b_16xh100", "mbridge_2602_qwen3_30b_a3b_16xh100",
                                             "mbridge_26021_qwen3_235b_a22b_256xb300_mbs1"};
  const std::string deepep = "mbridge_26041_deepseek_v3_256xb200";
  CHECK(err.at(deepep) < -0.2);
  CHECK(err.at(deepep) > -0.6);
  const std::set<std::string> fp8_cs{"mbridge_2511_qwen3_235b_a22b_256xh100", "mbridge_26041_qwen3_235b_a22b_256xh100",
                                     "mbridge_26041_gpt_oss_120b_64xh100", "mbridge_26041_gpt_oss_120b_64xb200", "mbridge_26041_gpt_oss_120b_64xb300"};
  for (const auto& id : fp8_cs) {
    INFO(id);
    CHECK(err.at(id) > 0.2);
    CHECK(err.at(id) < 0.6);
  }
  std::size_t held = 0;
  for (const auto& [id, e] : err) {
    INFO(id);
    if (id != deepep) CHECK(e > -0.5);
    if (id == "mbridge_2602_qwen3_30b_a3b_8xb200" || id == deepep || version_spread.count(id) != 0 || fp8_cs.count(id) != 0) continue;
    CHECK(std::abs(e) <= 0.20);
    ++held;
  }
  CHECK(held == 20);
  // Micro-batch 4 against the fitted micro-batch 1 on the same 8 B200s: the estimate's ratio is within 10 % of the
  // measured 2.75x (26,695 / 9,691).
  const double mbs1 = (1.0 + err.at("mbridge_2602_qwen3_30b_a3b_8xb200")) * 9691.0;
  const double mbs4 = (1.0 + err.at("mbridge_26021_qwen3_30b_a3b_8xb200_mbs4")) * 26695.0;
  CHECK(mbs4 / mbs1 == Approx(26695.0 / 9691.0).epsilon(0.10));
  // The same layout in two versions: the estimate sits at the newer one (within 20 %), 1.58x the older.
  const double older = (1.0 + err.at("mbridge_2602_qwen3_30b_a3b_16xh100")) * 5113.0;
  const double newer = (1.0 + err.at("mbridge_26021_qwen3_30b_a3b_16xh100")) * 9058.0;
  CHECK(older == Approx(newer).epsilon(1e-9));  // one estimate, two measurements
  CHECK(newer / 5113.0 > 1.5);
}

TEST_CASE("time: a dropless MoE layer's experts at the host's pace, worked by hand", "[time][moe]") {
  // Qwen3-30B-A3B, Megatron, FP8, 8 B200s at EP 8: 128 experts / 8 = 16 per GPU, 48 MoE layers, no pipeline:
  // the host issues 48 x 16 x 0.45 ms = 345.6 ms of expert work per micro-batch, against the experts' GPU time,
  // their FLOP share of the step (2 FLOPs per active routed weight, token and pass: 3 passes, 4 recomputing,
  // whose host time is 1.5x). torchtitan's grouped GEMM launches one kernel for all experts: nothing.
  const ModelSpec m = test::model("qwen3-30b-a3b");
  const GpuSpec& g = *test::gpus().find("b200-hgx-180gb");
  Workload w = wl({{"model", "qwen3-30b-a3b"}, {"mode", "train"}, {"framework", "megatron"}, {"precision", "fp8"}, {"seq_len", "4096"}});
  w.gpus = 8;
  w.ep = 8;
  const MemoryEstimate mem = estimate_memory(w, m, &g);
  const ParamCounts pc = count_params(m);
  const double active_routed = pc.routed_experts * 8.0 / 128.0;
  auto host = [&](const Workload& x, double t_compute) {
    const perf_detail::TimeBasis in{{x, m, g, mem}, precision_support(x, g), 4.5e15, 4096.0, pc, 1.0, 1.0, 1.0};
    return perf_detail::expert_host_seconds(in, t_compute, train_flops_per_token(x, m, 4096));
  };
  CHECK(48 * 16 * coef::expert_host_s.value == Approx(0.3456));
  CHECK(host(w, 0.1) == Approx(0.3456 - 0.1 * 6.0 * active_routed / train_flops_per_token(w, m, 4096)));
  CHECK(host(w, 10.0) == 0.0);  // GPU work that outlasts the launches hides them
  Workload full = w;
  full.checkpointing = Checkpointing::full;
  CHECK(host(full, 0.1) == Approx(1.5 * 0.3456 - 0.1 * 8.0 * active_routed / train_flops_per_token(full, m, 4096)));
  Workload more = w;
  more.ep = 1;  // all 128 experts on the GPU: 8x the launches
  CHECK(host(more, 0.1) == Approx(8.0 * 0.3456 - 0.1 * 6.0 * active_routed / train_flops_per_token(w, m, 4096)));
  Workload titan = w;
  titan.framework = Framework::torchtitan;
  CHECK(host(titan, 0.1) == 0.0);
}

TEST_CASE("moe: expert parallelism folded over tensor parallel holds whole experts: the memory of EP/TP, a TP-th of the launches", "[moe][layout]") {
  // Qwen3-30B-A3B (128 experts, 48 MoE layers) on 8 H100s at TP 2: 4 data-parallel ranks. EP 4 cuts each GPU's 32
  // experts into 2 slices; EP 8 folds over the TP pairs (Megatron-Core's parallel folding, expert TP 1): 16 whole
  // experts per GPU. Both hold 1/8 of the routed weights (method.md §3.4), the folded one launches half the experts.
  const ModelSpec m = test::model("qwen3-30b-a3b");
  const GpuSpec& g = *test::gpus().find("h100-sxm-80gb");
  auto at = [&](const char* ep) {
    return wl({{"model", "qwen3-30b-a3b"}, {"mode", "train"}, {"framework", "megatron"}, {"seq_len", "4096"}, {"gpus", "8"}, {"tp", "2"}, {"ep", ep}});
  };
  const Workload folded = at("8"), sliced = at("4");
  CHECK(experts_folded(folded));
  CHECK_FALSE(experts_folded(sliced));
  CHECK(expert_shards(folded) == 4);
  const MemoryEstimate mf = estimate_memory(folded, m, &g), ms = estimate_memory(sliced, m, &g);
  CHECK(mf.weights == Approx(ms.weights));
  CHECK(mf.optimizer_states == Approx(ms.optimizer_states));
  const TimeEstimate tf = estimate_time(folded, m, g, mf), ts = estimate_time(sliced, m, g, ms);
  auto launches = [](const TimeEstimate& t) {
    for (const auto& n : t.notes)
      if (n.text().find("local experts of each MoE layer") != std::string::npos) return n.text();
    return std::string();
  };
  CHECK(launches(tf).find("the 16 local experts") != std::string::npos);
  CHECK(launches(ts).find("the 32 local experts") != std::string::npos);
  REQUIRE(tf.train_tokens_per_second_per_gpu);
  REQUIRE(ts.train_tokens_per_second_per_gpu);
  CHECK(*tf.train_tokens_per_second_per_gpu == Approx(4109).epsilon(0.01));  // method.md §3.4 quotes both
  CHECK(*ts.train_tokens_per_second_per_gpu == Approx(2426).epsilon(0.01));
  // EP 16 neither divides the 4 ranks nor, folded, the 8 GPUs of a stage: bad input naming both rules.
  try {
    (void)at("16");
    FAIL("EP 16 over 8 GPUs was accepted");
  } catch (const gpuadvise::InputError& e) {
    CHECK(std::string(e.what()).find("folded over tensor parallel, be a multiple of --tp 2 that divides 8") != std::string::npos);
  }
}
