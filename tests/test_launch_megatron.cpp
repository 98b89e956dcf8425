// Megatron-LM launch hints (method.md §11): a plan Megatron runs is launched as Megatron runs it, with the flags its
// own argument checks ask for together; a plan it cannot run keeps the other hints and names the flags in a note.
#include <catch2/catch.hpp>

#include <string>

#include "helpers.hpp"

TEST_CASE("launch: a plan with model parallelism and the optimizer on the CPU launches Megatron-LM with the flags it asserts together", "[launch][megatron]") {
  // 70B fully fine-tuned on 16 H100s (two nodes): the planner's pick is TP 4 x PP 2 (interleaved) + ZeRO-1 over 2 with
  // the optimizer offloaded. Megatron's arguments.py asserts --optimizer-cpu-offload only with
  // --use-precision-aware-optimizer, which its optimizer builder allows only with the distributed optimizer, and
  // --tp-comm-overlap only with --sequence-parallel (the time counts the overlap: method.md §8.4).
  const auto j = test::run_json({"--model", "llama-3.1-70b", "--mode", "finetune", "--tokens", "1B", "--only", "h100-sxm-80gb", "--gpus", "16"});
  const auto h = j["ranking"][0]["launch_hints"];
  const std::string cmd = h["torchrun"].get<std::string>();
  CHECK(cmd.rfind("torchrun --nnodes 2 --nproc_per_node 8 --rdzv_backend c10d --rdzv_endpoint $HEAD:29500 pretrain_gpt.py ", 0) == 0);
  CHECK(cmd.find("--tensor-model-parallel-size 4 --pipeline-model-parallel-size 2 --num-layers-per-virtual-pipeline-stage 5 --sequence-parallel "
                 "--tp-comm-overlap --micro-batch-size 1 --global-batch-size 128 --seq-length 2048 --bf16 --use-distributed-optimizer --use-precision-aware-optimizer "
                 "--optimizer-cpu-offload") != std::string::npos);
  CHECK(h["deepspeed_config"].is_null());
}

TEST_CASE("launch: a layout Megatron cannot run as planned keeps the DeepSpeed hints and names Megatron's flags in a note", "[launch][megatron]") {
  // SGD with the optimizer offloaded: Megatron's precision-aware optimizer, which its CPU offload needs, is Adam's only.
  const auto j = test::run_json({"estimate", "--model", "llama-3.1-8b", "--mode", "finetune", "--optimizer", "sgd", "--gpu", "h100-sxm-80gb", "--gpus", "8",
                                 "--tp", "2", "--sharding", "zero1", "--offload", "optimizer"});
  const auto h = j["launch_hints"];
  REQUIRE(h.is_object());
  CHECK(h["torchrun"].get<std::string>().find("pretrain_gpt.py") == std::string::npos);
  CHECK(h["notes"].dump().find("--tensor-model-parallel-size 2") != std::string::npos);
}

TEST_CASE("launch: FP8 training sharded under Megatron keeps and gathers its weights in FP8 (--fp8-param-gather), as the memory counts them", "[launch][megatron]") {
  // The memory counts FP8 parameters as their two FP8 copies (method.md §3.1); Megatron stores them so with
  // --fp8-param-gather, which its arguments.py allows with the distributed optimizer or Megatron-FSDP.
  auto hint = [](const char* precision, const char* sharding) {
    const auto j = test::run_json({"estimate", "--model", "llama-3.1-8b", "--mode", "train", "--framework", "megatron", "--precision", precision, "--gpu",
                                   "h100-sxm-80gb", "--gpus", "8", "--sharding", sharding});
    return j["launch_hints"]["torchrun"].get<std::string>();
  };
  CHECK(hint("fp8", "zero1").find("--use-distributed-optimizer --fp8-param-gather") != std::string::npos);
  CHECK(hint("fp8", "zero3").find("--use-megatron-fsdp --data-parallel-sharding-strategy optim_grads_params --ckpt-format fsdp_dtensor --fp8-param-gather") !=
        std::string::npos);
  CHECK(hint("bf16", "zero1").find("--fp8-param-gather") == std::string::npos);
  // ZeRO-2 shards the gradients, which Megatron's distributed optimizer does not (its gradient buffer stays whole:
  // dist_optimizer.md, 6 + 12/d bytes a parameter): Megatron-FSDP's optim_grads does.
  const std::string zero2 = hint("bf16", "zero2");
  CHECK(zero2.find("--use-megatron-fsdp --data-parallel-sharding-strategy optim_grads --ckpt-format fsdp_dtensor") != std::string::npos);
  CHECK(zero2.find("--use-distributed-optimizer") == std::string::npos);
  CHECK(hint("bf16", "zero1").find("--use-distributed-optimizer") != std::string::npos);
  // One GPU: the distributed optimizer over its one rank is plain Adam, and lets Megatron keep FP8 weights.
  const auto one = test::run_json({"estimate", "--model", "llama-3.2-1b", "--mode", "train", "--framework", "megatron", "--precision", "fp8", "--gpu",
                                   "h200-sxm-141gb"});
  CHECK(one["launch_hints"]["torchrun"].get<std::string>().find("--use-distributed-optimizer --fp8-param-gather") != std::string::npos);
}
