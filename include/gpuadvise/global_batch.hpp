#pragma once
// The global batch of a training job (docs/method.md §9.1): sequences per optimizer step over all data-parallel
// ranks. Given with --global-batch, or for pre-training with a job size from DeepSeek LLM's fitted law; every
// layout reaches it with its own micro-batch and gradient accumulation, and no layout has more data-parallel
// ranks than it has sequences.
#include <cstdint>

#include "gpuadvise/model.hpp"
#include "gpuadvise/workload.hpp"

namespace gpuadvise {

// DeepSeek LLM (arXiv:2401.02954, §3.1): B_opt = 0.2920 · C^0.3271 tokens for a compute budget of C FLOPs,
// here C = 6 · N · D (N the parameters each token uses, D the training tokens).
double law_batch_tokens(double params, double tokens);

// The workload with its global batch settled: the one given, else (pre-training with a job size and no
// --grad-accum) the law's, in sequences of its length; then its own layout's micro-batch and accumulation.
// Fine-tuning without --global-batch keeps the batch and accumulation as given.
Workload with_global_batch(Workload w, const ModelSpec& m);

// Reads --global-batch (or a workload's "global_batch"): sequences ("256", "1k"), or tokens with a "tok" or
// "tokens" suffix ("4Mtok", "16M tokens"), settled into sequences of the job's length by with_global_batch.
void read_global_batch(Workload& w, const RawValue& v, double max_sequences);

// Sets the micro-batch (at most `micro_batch`) and the accumulation that reach w.global_batch on w's layout;
// false when the layout has more data-parallel ranks than the global batch has sequences.
bool reach_global_batch(Workload& w, std::int64_t micro_batch);

}  // namespace gpuadvise
