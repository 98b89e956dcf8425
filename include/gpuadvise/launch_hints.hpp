#pragma once
// Launch hints (io): a plan as the command lines and configs of the tools that run it (vLLM, SGLang,
// TensorRT-LLM, torchrun, DeepSpeed, the Hugging Face Trainer, SkyPilot). The plan's settings come from core; the
// text is written here.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpuadvise/model.hpp"
#include "gpuadvise/ranking.hpp"

namespace gpuadvise {

// A DeepSpeed config (ds_config.json) as settings: io writes it as JSON and on one line (`deepspeed_json`).
// The ZeRO form carries every field; the one-GPU optimizer-offload form only the micro-batch, bf16 and the
// offloaded stage 2 (the optional fields are absent there).
struct DeepSpeedConfig {
  std::int64_t micro_batch = 1;                   // train_micro_batch_size_per_gpu
  std::optional<std::int64_t> grad_accum;         // gradient_accumulation_steps
  bool bf16 = false;                              // bf16.enabled
  std::optional<bool> fp16;                       // fp16.enabled
  int stage = 0;                                  // zero_optimization.stage
  bool overlap_comm = false;                      // zero_optimization.overlap_comm (written when set)
  bool offload_optimizer = false, offload_param = false;  // to the CPU, pinned
};

struct LaunchHints {
  std::optional<std::string> vllm;             // vllm serve command line
  std::optional<std::string> server;           // the serving engine's own command line (SGLang, TensorRT-LLM, llama.cpp)
  std::optional<std::string> torchrun;         // torchrun / accelerate command line
  std::optional<DeepSpeedConfig> deepspeed_config;
  std::optional<std::string> hf_trainer;       // Hugging Face TrainingArguments flags
  std::optional<std::string> skypilot;         // SkyPilot task YAML
  std::optional<std::string> skypilot_accelerator;
  std::vector<std::string> notes;
};

// `asked`: the workload the candidate was planned for (its layout and savers are the candidate's own).
LaunchHints launch_hints(const Workload& asked, const Candidate& c, const ModelSpec& m);

}  // namespace gpuadvise
