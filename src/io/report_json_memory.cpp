// The JSON of a plan's memory (docs/output-json.md, data/schema/): per GPU at the peak, in bytes.
#include "json_write.hpp"
#include "report_detail.hpp"
#include "report_json_detail.hpp"

namespace gpuadvise::detail {

void write_memory(JsonWriter& o, const MemoryEstimate& mem, bool explain) {
  o.begin_object();
  o.member("tensor_peak_bytes", bytes_int(mem.tensor_peak));
  o.member("device_peak_bytes", bytes_int(mem.device_peak));
  o.member("device_peak_low_bytes", bytes_int(mem.device_low));
  o.member("device_peak_high_bytes", bytes_int(mem.device_high));
  o.key("components");
  o.begin_object();
  o.member("weights", bytes_int(mem.weights));
  o.member("gradients", bytes_int(mem.gradients));
  o.member("optimizer_states", bytes_int(mem.optimizer_states));
  o.member("activations", bytes_int(mem.activations));
  o.member("kv_cache", bytes_int(mem.kv_cache));
  o.member("logits", bytes_int(mem.logits));
  o.member("allocator_reserve", bytes_int(mem.allocator_reserve));
  o.member("runtime", bytes_int(mem.runtime));
  o.end_object();
  o.member("peak_phase", mem.peak_phase);
  o.member("runtime_basis", mem.runtime_assumed_generic ? "no --gpu given: runtime overhead of a current data-centre GPU"
                                                        : "runtime overhead of the given GPU");
  // llama.cpp's layers past -ngl, or some layers' experts, in host memory (method.md §8.3); Megatron's offloaded
  // activations (§4.5).
  if (mem.host_weights > 0 || mem.host_activations > 0) {
    o.key("host_offload");
    o.begin_object();
    o.member("gpu_layers", mem.gpu_layers);
    o.member("cpu_moe_layers", mem.cpu_moe_layers);
    // Over several GPUs with some layers' experts on the host: the layers each GPU holds (llama.cpp's --tensor-split).
    if (!mem.layer_split.empty()) o.member("layers_per_gpu", mem.layer_split);
    o.member("weights_bytes", bytes_int(mem.host_weights));
    o.member("kv_cache_bytes", bytes_int(mem.host_kv_cache));
    if (mem.host_activations > 0) o.member("activations_bytes", bytes_int(mem.host_activations));
    o.end_object();
  }
  if (mem.vllm) {
    o.key("vllm");
    o.begin_object();
    o.member("engine", mem.vllm->engine);
    o.member("gpu_memory_utilization", mem.vllm->utilization);
    o.member("budget_bytes", bytes_int(mem.vllm->budget_bytes));
    o.member("kv_pool_bytes", bytes_int(mem.vllm->kv_pool_bytes));
    o.member("kv_bytes_per_token", mem.vllm->kv_bytes_per_token);
    o.member("max_tokens", mem.vllm->max_tokens);
    o.member("max_concurrent_sequences", mem.vllm->max_concurrent_sequences);
    o.end_object();
  }
  if (explain) {
    o.key("explain");
    o.begin_array();
    for (const auto& x : mem.explain) {
      o.begin_object();
      o.member("component", x.component);
      o.member("formula", x.formula);
      o.member("inputs", x.inputs);
      o.member("bytes", bytes_int(x.bytes));
      o.member("source", x.source);
      o.end_object();
    }
    o.end_array();
  }
  o.end_object();
}

}  // namespace gpuadvise::detail
