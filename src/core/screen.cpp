// The planner's numeric screen (method.md §9): whether a layout runs on a GPU and fits in its memory, as a
// verdict alone, the same one assess_fit writes into a candidate, without its notes, text or candidate.
#include <utility>

#include "gpuadvise/memory.hpp"
#include "ranking_common.hpp"

namespace gpuadvise {

bool ranking_detail::layout_supported(const Workload& w, const ModelSpec& m, const GpuSpec& g, Notes* notes) {
  bool supported = true;
  if (notes) {
    const PrecisionSupport ps = precision_support(w, g);
    supported = ps.supported;
    if (!ps.supported && w.precision == Precision::bf16 && m.vision && m.vision->fp32_text_encoder_params > 0)
      notes->push_back(Note::format("{}, with the T5 text encoder in fp32 (its activations overflow fp16; --precision fp16 counts it)", ps.note.text()));
    else if (!ps.note.empty()) notes->push_back(ps.note);
  } else {
    supported = precision_runs(w, g);
  }
  auto refuse = [&](Note why) {
    supported = false;
    if (notes) notes->push_back(std::move(why));
  };
  const Framework fw = w.effective_framework();
  if (w.mode == Mode::qlora && w.tp > 1) refuse("QLoRA's 4-bit layers (bitsandbytes NF4) have no tensor parallelism: use data parallel or FSDP (FSDP-QLoRA)");
  if ((fw == Framework::torchtitan || fw == Framework::torchtune) && is_training(w.mode) && w.sharding == Sharding::zero1 && w.gpus > 1)
    refuse("torchtitan and torchtune shard with FSDP2 only: ZeRO-3 (--sharding zero3), or ZeRO-2 with reshard_after_forward off (--sharding zero2); no ZeRO-1");
  // Pipeline-parallel training is Megatron-LM's (NeMo, Megatron-Bridge) and torchtitan's: Hugging Face's Trainer and
  // Accelerate (whose ND-parallel config has data, FSDP, tensor and context parallel), LitGPT, torchtune and llm.q
  // have none. Named, such a framework cannot run the layout; left to its default, the layout says what runs it.
  if (is_training(w.mode) && w.pp > 1 && fw != Framework::megatron && fw != Framework::torchtitan) {
    if (w.framework)
      refuse(Note::format("--framework {} has no pipeline-parallel training: Megatron-LM/NeMo or torchtitan run pipeline stages (--framework megatron or "
                          "torchtitan)", to_string(fw)));
    else if (notes)
      notes->push_back("pipeline stages are Megatron-LM/NeMo's or torchtitan's (Hugging Face's Trainer has none): --framework megatron or torchtitan "
                       "runs this layout (timed here with Hugging Face's kernels)");
  }
  if ((fw == Framework::tensorrt || fw == Framework::trtllm) && g.stack != "cuda") refuse("TensorRT, TensorRT-LLM and DeepStream run on NVIDIA GPUs only (CUDA)");
  // llama.cpp's backends (CPU, CUDA, HIP, Metal, Vulkan, SYCL, MUSA, CANN, OpenCL, ...) have none for Intel Gaudi, and
  // the ExLlama kernels and AutoAWQ build for CUDA and ROCm only.
  const bool gguf = fw == Framework::llamacpp || (!w.framework && is_gguf(w.precision));
  if (g.stack == "synapseai" && gguf)
    refuse("llama.cpp has no Intel Gaudi backend (CPU, CUDA, HIP, Metal, Vulkan, SYCL, MUSA, CANN, OpenCL): vLLM or Hugging Face (Optimum Habana) "
           "serve on Gaudi");
  if (g.stack == "synapseai" && (fw == Framework::exllama || fw == Framework::exllamav2 || fw == Framework::autoawq))
    refuse(Note::format("{}'s kernels build for CUDA and ROCm only, not Intel Gaudi: vLLM or Hugging Face (Optimum Habana) serve on Gaudi",
                        fw == Framework::autoawq ? "AutoAWQ" : fw == Framework::exllama ? "ExLlama" : "ExLlamaV2"));
  return supported;
}

std::optional<bool> ranking_detail::screen_fit(const Workload& w, const ModelSpec& m, const GpuSpec& g, const CostOptions& cost, TensorMemo& memo) {
  // What the screen leaves to assess_fit: a vision model (no tensor memo), a serving engine's pool, a local
  // correction, and a count of GPUs spread over nodes the workload does not name.
  if (m.vision || !cost.corrections.empty() || (framework_profile(w.effective_framework()).kv_pool && !is_training(w.mode)) ||
      (w.nodes == 1 && w.gpus > g.gpus_per_node()))
    return std::nullopt;
  if (!layout_supported(w, m, g, nullptr)) return false;
  if (device_peak_bytes(memo.of(PlanShape::of(w), w, m).e, w, &g) > static_cast<double>(g.memory_bytes)) return false;
  return w.nodes <= 1 || g.multi_node();  // several nodes need a network between them
}

}  // namespace gpuadvise
