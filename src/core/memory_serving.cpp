// Serving engines' memory pools (method.md §6.2): vLLM pre-allocates its share of the card after profiling a
// dummy forward, SGLang reserves by GPU class, TensorRT-LLM takes a fraction of what the engine leaves free.
#include <algorithm>
#include <cmath>

#include "gpuadvise/framework.hpp"
#include "memory_common.hpp"

namespace gpuadvise::memory_detail {

void apply_serving_pool(MemoryEstimate& e, const Workload& w, const ModelSpec& m, const GpuSpec* gpu, const ServingShape& sh) {
  VllmPool pool;
  pool.engine = to_string(w.effective_framework());
  pool.utilization = w.gpu_memory_utilization;
  const double capacity = gpu ? d(gpu->memory_bytes) : 0.0;
  pool.budget_bytes = capacity * pool.utilization;
  // vLLM profiles a dummy forward of max_num_batched_tokens and a sampler run of min(max_num_seqs, that) sequences
  // and keeps its peak (vllm_batch_defaults: 8,192 tokens and 1,024 sequences on an H100-class GPU, 2,048 and 256
  // on smaller ones); TensorRT-LLM's engine and SGLang's reserve are sized alike at 8,192 tokens and 256 sequences.
  const bool vllm = w.effective_framework() == Framework::vllm;
  const VllmBatchDefaults batch = vllm ? vllm_batch_defaults(gpu) : VllmBatchDefaults{};
  const double nprof = batch.max_num_batched_tokens, sampled = std::min(batch.max_num_seqs, nprof);
  double prof_act = nprof * (m.gated_mlp ? 3.0 : 2.0) * sh.f * sh.act_b + 3.0 * nprof * sh.h * sh.act_b + sampled * sh.V / sh.tp * 4.0;
  const double kv_per_token = e.kv_bytes_per_token;
  pool.kv_bytes_per_token = kv_per_token;
  pool.kv_pool_bytes = std::max(0.0, pool.budget_bytes - e.weights - prof_act - e.runtime);
  if (w.effective_framework() == Framework::sglang) {
    // SGLang: weights + KV pool = mem_fraction_static of the card; the rest is reserved for activations and
    // CUDA graphs by GPU class ([SGL-SA] server_args.py: (gpu_mem - reserved) / gpu_mem, reserved in GiB:
    // 2.8 + tp·pp/10 under 35 GiB, 9.5 + tp·pp/2 under 90 GiB, 12 + tp·pp/2 under 160 GiB, else 32).
    const double gib = capacity / 1073741824.0, par = sh.tp * sh.pp;
    const double reserved = gib < 35 ? 2.8 + par / 10.0 : gib < 90 ? 9.5 + par / 2.0 : gib < 160 ? 12.0 + par / 2.0 : 32.0;
    pool.utilization = w.gpu_memory_utilization_given ? w.gpu_memory_utilization : (gib > reserved ? (gib - reserved) / gib : 0.0);
    pool.budget_bytes = capacity * pool.utilization;
    prof_act = capacity - pool.budget_bytes - e.runtime;  // what the reserve holds
    pool.kv_pool_bytes = std::max(0.0, pool.budget_bytes - e.weights);
  } else if (w.effective_framework() == Framework::trtllm) {
    // TensorRT-LLM: the engine (weights, its activation workspace, the runtime) loads first; the KV pool takes
    // kv_cache_free_gpu_mem_fraction (0.9) of what is free ([TRTLLM-KV] KvCacheConfig.free_gpu_memory_fraction).
    pool.utilization = w.gpu_memory_utilization_given ? w.gpu_memory_utilization : 0.9;
    const double engine = e.weights + prof_act + e.runtime;
    pool.kv_pool_bytes = std::max(0.0, pool.utilization * (capacity - engine));
    pool.budget_bytes = std::min(capacity, engine + pool.kv_pool_bytes);
  }
  pool.max_tokens = kv_per_token > 0 ? std::floor(pool.kv_pool_bytes / kv_per_token / 16.0) * 16.0 : 0.0;
  pool.max_concurrent_sequences = pool.max_tokens / kv_tokens_avg(m, sh.s);
  e.activations = prof_act;
  e.tensor_peak = e.weights + prof_act + pool.kv_pool_bytes;
  e.allocator_reserve = 0;
  if (gpu) {
    // The engine takes its share of the card; where the weights and activations alone exceed it, the device
    // needs at least those (device = tensor + runtime, as every other plan; the share is `vllm.budget_bytes`).
    e.device_peak = std::max(pool.budget_bytes, e.tensor_peak + e.runtime);
    e.kv_cache = pool.kv_pool_bytes;
  }
  e.vllm = pool;
  switch (w.effective_framework()) {
    case Framework::sglang: e.peak_phase = "SGLang reserves its static share of the card for the weights and the KV-cache pool"; break;
    case Framework::trtllm: e.peak_phase = "TensorRT-LLM loads the engine, then its KV-cache pool takes its share of the memory left free"; break;
    default: e.peak_phase = "vLLM pre-allocates its share of the card; the KV-cache pool takes what is left"; break;
  }
}

}  // namespace gpuadvise::memory_detail
