// --ep-overlap (method.md §8.4): Megatron's batch-level overlap of the expert all-to-alls, counted where asked and
// where Megatron runs it, said in a note and in the launch; and the uneven pipeline split launched as a layout string.
#include <catch2/catch.hpp>

#include <string>

#include "gpuadvise/perf.hpp"
#include "helpers.hpp"

using namespace gpuadvise;

namespace {
Workload moe_layout(std::int64_t pp, std::int64_t vp, std::int64_t accum) {
  return test::wl({{"mode", "train"}, {"framework", "megatron"}, {"precision", "bf16"}, {"gpus", "256"}, {"ep", "32"}, {"tp", "2"}, {"pp", std::to_string(pp)},
                   {"virtual_stages", std::to_string(vp)}, {"grad_accum", std::to_string(accum)}, {"ep_overlap", "true"}});
}
const std::vector<std::string> qwen_h100 = {"estimate", "--model", "qwen3-235b-a22b", "--mode", "train", "--framework", "megatron", "--precision", "bf16",
                                            "--seq-len", "4096", "--gpu", "h100-sxm-80gb", "--gpus", "256", "--tp", "2", "--pp", "8", "--ep", "32",
                                            "--batch", "1", "--global-batch", "2048"};
std::vector<std::string> with(const std::vector<std::string>& extra) { return test::args(qwen_h100, extra); }
}  // namespace

TEST_CASE("ep overlap: the 1F1B steady state's share of the micro-batches, and where Megatron refuses it", "[ep-overlap]") {
  const ModelSpec m = test::model("qwen3-235b-a22b");
  // 128 micro-batches over 8 stages: the 8 of warm-up and cool-down wait on their all-to-alls, (128 - 8)/128 overlap.
  CHECK(expert_overlap_share(moe_layout(8, 4, 128), m) == Approx(120.0 / 128.0));
  // No pipeline: each micro-batch but the first pairs with the one before, (4 - 1)/4.
  CHECK(expert_overlap_share(moe_layout(1, 1, 4), m) == Approx(0.75));
  CHECK(expert_overlap_share(moe_layout(8, 1, 128), m) == 0.0);  // pipeline stages without the interleaved schedule
  CHECK(expert_overlap_share(moe_layout(1, 1, 1), m) == 0.0);    // one micro-batch: nothing to overlap with
  Workload full = moe_layout(8, 4, 128);
  full.checkpointing = Checkpointing::full;  // transformer_config.py asserts it off
  CHECK(expert_overlap_share(full, m) == 0.0);
  Workload unasked = moe_layout(8, 4, 128);
  unasked.ep_overlap = false;
  CHECK(expert_overlap_share(unasked, m) == 0.0);
}

TEST_CASE("ep overlap: hiding the all-to-alls speeds the step, says so, and the launch asks Megatron for it", "[ep-overlap][launch]") {
  const auto off = test::run_json(with({"--virtual-stages", "4"}));
  const auto on = test::run_json(with({"--virtual-stages", "4", "--ep-overlap"}));
  const double r_off = off["time"]["train_tokens_per_second_per_gpu"].get<double>(), r_on = on["time"]["train_tokens_per_second_per_gpu"].get<double>();
  CHECK(r_on > 1.3 * r_off);  // the all-to-alls across four nodes were most of the exposed time
  CHECK(test::says(on["notes"], "--ep-overlap: 94% of the micro-batches"));
  // Not asked, where Megatron could run it and the all-to-alls weigh: the note says what they cost and how to hide them.
  CHECK(test::says(off["notes"], "the expert all-to-alls wait on the link"));
  CHECK(test::says(off["notes"], "(--ep-overlap, its --overlap-moe-expert-parallel-comm)"));
  CHECK(!test::says(on["notes"], "the expert all-to-alls wait on the link,"));
  const std::string cmd = on["launch_hints"]["torchrun"].get<std::string>();
  CHECK(cmd.find(" --moe-token-dispatcher-type alltoall --overlap-moe-expert-parallel-comm ") != std::string::npos);
  CHECK(off["launch_hints"]["torchrun"].get<std::string>().find("--overlap-moe-expert-parallel-comm") == std::string::npos);
  // Without the interleaved schedule Megatron asserts a virtual pipeline size: not counted, and said.
  const auto plain = test::run_json(with({"--ep-overlap"}));
  CHECK(test::says(plain["notes"], "--ep-overlap does not apply to this layout"));
  CHECK(plain["launch_hints"]["torchrun"].get<std::string>().find("--overlap-moe-expert-parallel-comm") == std::string::npos);
}

TEST_CASE("ep overlap: refused where it cannot apply, naming the field", "[ep-overlap][cli]") {
  const auto hf = test::run({"estimate", "--model", "qwen3-235b-a22b", "--mode", "train", "--ep-overlap"});
  CHECK(hf.code == 2);
  CHECK(hf.err.find("--ep-overlap: applies to Megatron training of a mixture-of-experts model") != std::string::npos);
  const auto dense = test::run({"estimate", "--model", "llama-3.1-8b", "--mode", "train", "--framework", "megatron", "--ep-overlap"});
  CHECK(dense.code == 2);
  const auto full = test::run(with({"--virtual-stages", "4", "--ep-overlap", "--gradient-checkpointing", "full"}));
  CHECK(full.code == 2);
  CHECK(full.err.find("full recomputation") != std::string::npos);
}

TEST_CASE("launch: stages that do not divide the layers go to Megatron as a pipeline layout, the first and last chunks shorter", "[launch][megatron]") {
  // Qwen3-235B-A22B's 94 layers over 8 stages x 4 chunks: the largest stage holds ceil(94/8) = 12, 3 a chunk; 32 chunks
  // of 3 are 96, so the first and the last chunk give up one each (2 and 2), embedding first and loss last.
  const auto j = test::run_json(with({"--virtual-stages", "4"}));
  const std::string cmd = j["launch_hints"]["torchrun"].get<std::string>();
  CHECK(cmd.find(" --pipeline-model-parallel-size 8 --pipeline-model-parallel-layout 'Et*2|(t*3|)*30t*2L' ") != std::string::npos);
  CHECK(cmd.find("--num-layers-per-virtual-pipeline-stage") == std::string::npos);  // Megatron asserts an even split for it
  // 70B's 80 layers over 4 stages x 5 chunks divide: layers per virtual stage, 4.
  const auto even = test::run_json({"estimate", "--model", "llama-3.1-70b", "--mode", "train", "--framework", "megatron", "--gpu", "h100-sxm-80gb",
                                    "--gpus", "64", "--tp", "4", "--pp", "4", "--virtual-stages", "5", "--sharding", "zero1", "--gradient-checkpointing", "full"});
  CHECK(even["launch_hints"]["torchrun"].get<std::string>().find(" --pipeline-model-parallel-size 4 --num-layers-per-virtual-pipeline-stage 4 ") !=
        std::string::npos);
  // Stages that divide but chunks that do not: 20 layers a stage in 3 chunks of at most 7. 12 chunks of 7 are 84, so
  // the first, the last, the second and the last but one give up one each, one chunk of each stage: 20 on every stage.
  const auto three = test::run_json({"estimate", "--model", "llama-3.1-70b", "--mode", "train", "--framework", "megatron", "--gpu", "h100-sxm-80gb",
                                     "--gpus", "64", "--tp", "4", "--pp", "4", "--virtual-stages", "3", "--sharding", "zero1", "--gradient-checkpointing", "full"});
  CHECK(three["launch_hints"]["torchrun"].get<std::string>().find(" --pipeline-model-parallel-layout 'Et*6|t*6|(t*7|)*8t*6|t*6L' ") != std::string::npos);
}

TEST_CASE("full cuda graph: the iteration replays without the host, so no launches per expert, and Megatron is told", "[ep-overlap][moe][launch]") {
  // Qwen3-30B-A3B on 8 GB200s at EP 8 holds 16 experts per GPU: launched one by one from the host (method.md §8.2) they
  // bound each micro-batch; captured in one CUDA graph (Megatron-Bridge 26.08's recipe) they replay at the GPU's pace.
  auto args = [](bool graph) {
    std::vector<std::string> a{"estimate", "--model", "qwen3-30b-a3b", "--mode", "train", "--framework", "megatron", "--precision", "fp8",
                               "--seq-len", "4096", "--sharding", "zero1", "--gpu", "gb200-nvl72-186gb", "--gpus", "8", "--ep", "8", "--batch", "4",
                               "--global-batch", "512", "--grad-dtype", "bf16"};
    if (graph) a.push_back("--full-cuda-graph");
    return a;
  };
  const auto host = test::run_json(args(false)), graph = test::run_json(args(true));
  CHECK(test::says(host["notes"], "MoE experts at the host's pace"));
  CHECK_FALSE(test::says(graph["notes"], "MoE experts at the host's pace"));
  CHECK(graph["time"]["train_tokens_per_second_per_gpu"].get<double>() > 1.3 * host["time"]["train_tokens_per_second_per_gpu"].get<double>());
  const std::string cmd = graph["launch_hints"]["torchrun"].get<std::string>();
  CHECK(cmd.find(" --cuda-graph-impl local --cuda-graph-scope full_iteration") != std::string::npos);
  CHECK(host["launch_hints"]["torchrun"].get<std::string>().find("--cuda-graph") == std::string::npos);
  // Megatron's option, for training: refused elsewhere, naming the field.
  const auto hf = test::run({"estimate", "--model", "7B", "--mode", "train", "--full-cuda-graph"});
  CHECK(hf.code == 2);
  CHECK(hf.err.find("--full-cuda-graph: applies to Megatron training (--framework megatron, --mode train or finetune)") != std::string::npos);
}
