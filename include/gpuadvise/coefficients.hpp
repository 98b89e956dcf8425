// The model's scalar coefficients in one table (docs/method.md, "Coefficients"): each with its value, unit, what it
// rests on (a published figure, the rows it was fitted on, or an assumption) and the method section that uses it.
// Per-family shares are efficiency.cpp's table (§8.2) and per-framework traits framework.cpp's (§7); formula
// factors that are counts (3 for forward + backward, 2 bytes per 16-bit value) are not coefficients. A test
// checks this table against docs/method.md row by row.
#pragma once

#include <array>
#include <string_view>

namespace gpuadvise::coef {

enum class Basis { published, fitted, assumed };

struct Coefficient {
  std::string_view name;
  double value;
  std::string_view unit;
  Basis basis;
  std::string_view rests_on;
  std::string_view section;
};

// Compute and memory rates.
inline constexpr Coefficient fp32_cuda_core_share{
    "fp32_cuda_core_share", 0.65, "share of the fp32 peak", Basis::fitted,
    "matmuls and convolutions on CUDA cores (no tensor cores): the vision model's share; BERT-large V100 fp32 rows showed the former 0.5 low",
    "§8.2, §12.3"};
inline constexpr Coefficient streaming_bandwidth_share{
    "streaming_bandwidth_share", 0.8, "share of the peak memory bandwidth", Basis::assumed,
    "elementwise kernels and the fused optimizer step stream their tensors once", "§8.2, §12.3"};
inline constexpr Coefficient feature_map_bandwidth_share{
    "feature_map_bandwidth_share", 0.7, "share of the peak memory bandwidth", Basis::fitted,
    "fitted with the convolution shares on NVIDIA's ResNet-50 T4/V100/A100 rows and detectron2's V100 rows", "§12.3"};
inline constexpr Coefficient conv_tensor_share{
    "conv_tensor_share", 0.7, "share of the dense tensor peak", Basis::fitted,
    "NVIDIA's ResNet-50 T4/V100/A100 rows and detectron2's V100 rows (fitted together with the two below)", "§12.3"};
inline constexpr Coefficient conv_cuda_share{
    "conv_cuda_share", 0.06, "FLOPs at the fp32 peak per FLOP of convolution", Basis::fitted,
    "the same rows: norm and activation arithmetic, epilogues and index math beside the convolutions", "§12.3"};
inline constexpr Coefficient conv_traffic_share{
    "conv_traffic_share", 0.7, "factor on the feature-map passes", Basis::fitted,
    "the same rows (solved again, 0.8 -> 0.7, when the stems' kept maps were counted per position)", "§12.3"};
inline constexpr Coefficient nchw_forward_accesses{
    "nchw_forward_accesses", 1, "element accesses per convolution input-and-output element, forward", Basis::fitted,
    "cuDNN's tensor-core convolutions run NHWC: a channels-first output is written NHWC and transposed back (a read and a write per output element, about one per input-and-output element); timm's RTX 3090/4090 NCHW-NHWC inference pairs (ResNet-18..152, EfficientNet-B0): 1.1-3.2 B per element at the streaming share",
    "§12.3"};
inline constexpr Coefficient nchw_train_accesses{
    "nchw_train_accesses", 5, "element accesses per convolution input-and-output element, training step", Basis::fitted,
    "the forward's output transpose, then the backward's: the data gradient transposes the incoming gradient and its result, the weight gradient the input and the incoming gradient (a read and a write each); timm's RTX 3090 NCHW-NHWC training pairs (PyTorch 1.12): 8.6-11.7 B per element over ResNet-18..152, 11.5 for EfficientNet-B0",
    "§12.3"};
inline constexpr Coefficient grouped_conv_efficiency{
    "grouped_conv_efficiency", 0.3, "rate of grouped 3x3 convolutions per dense rate", Basis::fitted,
    "detectron2's two ResNeXt-101-32x8d training rows", "§12.3"};
inline constexpr Coefficient miopen_conv{
    "miopen_conv", 0.12, "MIOpen's convolution rate per cuDNN's", Basis::fitted,
    "solved on milabench's ResNet-50 MI325X/H100 row (0.68); held out: its RegNetY-128GF row", "§12.3"};
inline constexpr Coefficient miopen_depthwise_share{
    "miopen_depthwise_share", 0.014, "share of the streaming bandwidth rate MIOpen's 7x7 depthwise convolutions reach", Basis::fitted,
    "solved on milabench's ConvNeXt-Large MI325X/H100 training row (0.48); the kernels behind it: ROCm/rocm-libraries#9168 (no 7x7 depthwise instance: the naive forward solver and the naive backward-data solver, ~2.8 and ~7.4 ms at 192 channels of 56x56 against ~0.11 ms for a depthwise kernel), #12039 (the implicit-GEMM fallback at 11-17 GB/s of 213.9 achievable on gfx1151)",
    "§12.3"};
inline constexpr Coefficient denoiser_share{
    "denoiser_share", 0.8, "share of the dense tensor peak", Basis::fitted,
    "a denoiser's convolutions and projections (UNet or diffusion transformer) at full occupancy: diffusers' SD 1.5 fp16 benchmark (A100, V100, RTX 3090, RTX 4090 at batch 1, 4 and 16, eager and compiled), fal.ai's SD 1.5 A100 rows and the SDXL A100 rows of Hugging Face's and PyTorch's blogs (fitted with the eight below; held out: 33 rows of seven other sources)",
    "§12.4"};
inline constexpr Coefficient denoiser_half_occupancy{
    "denoiser_half_occupancy", 2.5e5, "output elements per layer (rows x width)", Basis::fitted,
    "the size of a layer's output at which its GEMM or convolution reaches half its rate (too few tiles to fill the SMs): the same rows, batch 1 against 16",
    "§12.4"};
inline constexpr Coefficient resnet_block_passes{
    "resnet_block_passes", 84, "element passes per ResNet block per channel and position", Basis::fitted,
    "the memory-bound work beside a ResNet block's two convolutions (GroupNorm's statistics and normalisation, SiLU, the time-embedding and residual adds, the layout conversions around cuDNN's convolutions): the same rows",
    "§12.4"};
inline constexpr Coefficient channels_last_passes{
    "channels_last_passes", 30, "element passes per ResNet block per channel and position", Basis::fitted,
    "a channels_last UNet's GroupNorms: PyTorch's CUDA GroupNorm converts its input to contiguous and returns it so (pytorch/pytorch#111824), and the next convolution converts it back: diffusers' SD 1.5 rows (channels_last) against the contiguous rows",
    "§12.4"};
inline constexpr Coefficient transformer_layer_passes{
    "transformer_layer_passes", 5, "element passes per transformer layer per channel and token", Basis::fitted,
    "the LayerNorms, activations and residual adds beside a transformer layer's projections and fused attention: the same rows",
    "§12.4"};
inline constexpr Coefficient element_pass_ops{
    "element_pass_ops", 80, "CUDA-core operations per element pass", Basis::fitted,
    "eager elementwise and normalisation kernels compute in fp32 with index math per element: why an A100 (19.5 fp32 TFLOP/s) runs SD 1.5 no faster than an RTX 4090 (82.6): the same rows",
    "§12.4"};
inline constexpr Coefficient eager_op_host_s{
    "eager_op_host_s", 20e-6, "seconds per module operation", Basis::fitted,
    "Python dispatch and launch of one eager PyTorch operation in a diffusers denoiser: the batch-1 rows of the same sources (fal.ai's SD 1.5 A100 row: 31.2 it/s); CUDA graphs (torch.compile) remove it",
    "§12.4"};
inline constexpr Coefficient eager_op_gpu_s{
    "eager_op_gpu_s", 10e-6, "GPU seconds per module operation", Basis::fitted,
    "the GPU time an operation's kernels take beyond their work at small sizes (launch gaps, ramp and tail of a few thread blocks): compiled batch-1 rows, where no host waits",
    "§12.4"};
inline constexpr Coefficient compiled_pass_share{
    "compiled_pass_share", 0.8, "element passes and operations left after torch.compile fuses them", Basis::fitted,
    "diffusers' SD 1.5 compile rows against its eager rows (A100, RTX 3090, RTX 4090 at batch 1, 4 and 16)", "§12.4"};

inline constexpr Coefficient two_stage_postprocess_s{
    "two_stage_postprocess_s", 0.013, "seconds per image", Basis::fitted,
    "MMDetection's batch-1 V100 inference rows (proposal NMS, ROI ops, mask paste, launch overhead)", "§12.3"};
inline constexpr Coefficient nms_postprocess_s{
    "nms_postprocess_s", 0.001, "seconds per image", Basis::published,
    "Ultralytics' reported postprocess times for single-stage detectors", "§12.3"};
inline constexpr Coefficient small_batch_overhead_s{
    "small_batch_overhead_s", 2e-3, "seconds per forward, a floor beside the GPU's work", Basis::assumed,
    "kernel launches and host-to-device transfers of an eager framework's forward, overlapping the GPU's work", "§12.3"};

// Inference.
inline constexpr Coefficient prefill_share{
    "prefill_share", 0.65, "share of the dense peak", Basis::fitted,
    "optimum's Llama-2-13B fp16 prefill rows with the forward's elementwise traffic beside (4: -9.5..-1.7 %); held out: TensorRT-LLM's prefill-heavy dense FP8 rows on H100/H200 (12: -5.4..+5.9 %)",
    "§8.3"};
inline constexpr Coefficient decode_bandwidth_share{
    "decode_bandwidth_share", 0.8, "share of the peak memory bandwidth", Basis::fitted,
    "ExLlama and AutoAWQ batch-1 decode rows", "§8.3"};
inline constexpr Coefficient llamacpp_decode_bytes_per_sm_cycle{
    "llamacpp_decode_bytes_per_sm_cycle", 5.5, "bytes per multiprocessor per boost-clock cycle", Basis::fitted,
    "Pavlo Khmel's llama.cpp Q4_K_M table (2026-06): the H100 SXM's time per token against model size between Ministral-3-3B and gemma-4-31B, 1.44 TB/s over 132 SMs at 1,980 MHz; "
    "held out: the same slope on the A100 PCIe and SXM, H200 NVL and SXM, V100 and B300 (method.md §8.3)",
    "§8.3"};
inline constexpr Coefficient decode_compute_share{
    "decode_compute_share", 0.5, "share of the dense peak", Basis::assumed,
    "the matmuls of a batched decode step: thin GEMMs of a few rows per weight, below a prompt's share", "§8.3"};
inline constexpr Coefficient decode_attention_share{
    "decode_attention_share", 0.59, "share of the dense 16-bit peak", Basis::published,
    "FlashMLA (deepseek-ai/FlashMLA README): 580 TFLOPS in its compute-bound configuration on an H800 SXM5 (989.4 dense), multi-head latent "
    "attention's decode; its April 2025 kernel reaches up to 660",
    "§8.3"};
inline constexpr Coefficient fp4_matmul_share{
    "fp4_matmul_share", 0.65, "of the share 8- and 16-bit matmuls reach", Basis::fitted,
    "TensorRT-LLM's B200 TP1 Llama 3.3 70B NVFP4 rows (10); held out: its 405B TP4, Qwen3-235B TP8 and RTX PRO 6000 rows", "§8.3"};
inline constexpr Coefficient weight_only_moe_share{
    "weight_only_moe_share", 0.6, "of the 16-bit matmul share, on an A100 (half on Hopper)", Basis::fitted,
    "vLLM 0.10.2 and 0.11.0's gpt-oss-20b and -120b rows on one H100 and one A100 (GPUStack's performance lab, 16 rows: MXFP4 experts "
    "weight-only in Triton's MoE kernels; at the 16-bit share they ran +8..+202 %); held out: TensorRT-LLM's gpt-oss rows on H100 and H200 "
    "(its Triton MoE backend, 20 rows: +6..+141 % before, -26..+66 % after)",
    "§8.3"};
inline constexpr Coefficient gptq_cuda_core_share{
    "gptq_cuda_core_share", 0.3, "share of the fp32 peak", Basis::fitted,
    "optimum's GPTQ rows at batch 1-16 (dequantising matmuls on CUDA cores)", "§8.3"};
inline constexpr Coefficient nf4_dequant_s{
    "nf4_dequant_s", 0.18e-3, "seconds per linear layer per forward", Basis::fitted,
    "LitGPT's NF4 rows (bitsandbytes' dequantisation launches)", "§8.3"};
inline constexpr Coefficient nf4_double_quant_dequant_s{
    "nf4_double_quant_dequant_s", 0.23e-3, "seconds per linear layer per forward", Basis::fitted,
    "LitGPT's NF4 rows with double quantisation", "§8.3"};
inline constexpr Coefficient tp_allreduce_latency_nvlink_s{
    "tp_allreduce_latency_nvlink_s", 20e-6, "seconds per small all-reduce", Basis::assumed,
    "small-message NCCL all-reduce latency over NVLink, derived in the reference formulas (§7.4)", "§8.3, §8.4"};
inline constexpr Coefficient tp_allreduce_latency_pcie_s{
    "tp_allreduce_latency_pcie_s", 60e-6, "seconds per small all-reduce", Basis::assumed,
    "3x the NVLink latency", "§8.3, §8.4"};
inline constexpr Coefficient pp_hop_latency_node_s{
    "pp_hop_latency_node_s", 20e-6, "seconds per stage boundary", Basis::assumed, "a point-to-point send inside a node", "§8.3"};
inline constexpr Coefficient pp_hop_latency_network_s{
    "pp_hop_latency_network_s", 30e-6, "seconds per stage boundary", Basis::assumed, "a point-to-point send across nodes", "§8.3"};
inline constexpr Coefficient ttft_wait_steps{
    "ttft_wait_steps", 1.5, "decode steps", Basis::assumed,
    "half a running scheduler step on average, then one step shared with the running decode (continuous batching)", "§8.3"};

// The band around a throughput (± this share of it, method.md §8.5).
inline constexpr Coefficient band_mfu_given{
    "band_mfu_given", 0.10, "± share of the throughput", Basis::assumed, "a utilisation the user gives (--mfu)", "§8.5"};
inline constexpr Coefficient band_exposed_communication{
    "band_exposed_communication", 0.15, "± share added", Basis::assumed,
    "link efficiency varies with message sizes and topology", "§8.5"};
inline constexpr Coefficient band_host_bound{
    "band_host_bound", 0.35, "± share of the throughput (at least)", Basis::assumed,
    "host time per layer fitted on decode rows, two passes per training micro-batch a prior", "§8.5"};
inline constexpr Coefficient band_images{
    "band_images", 0.25, "± share of the throughput (at least)", Basis::assumed,
    "the held-out vision rows (tests/data/vision_time_heldout.jsonl; docs/accuracy.md)", "§8.5"};
inline constexpr Coefficient band_decode_bandwidth{
    "band_decode_bandwidth", 0.20, "± share of the throughput", Basis::assumed,
    "the achieved share of peak bandwidth in decode", "§8.5"};
inline constexpr Coefficient band_decode_overheads{
    "band_decode_overheads", 0.35, "± share of the throughput", Basis::assumed,
    "per-layer host and kernel overheads, all-reduce latency, fused MoE kernels (engine versions differ)", "§8.5"};
inline constexpr Coefficient band_rocm_engine_builds{
    "band_rocm_engine_builds", 2.1, "throughput of AMD's tuned build per an untuned or regressed one (the band's low end)", Basis::published,
    "same GPU, model and engine across builds: SGLang DeepSeek-V3/R1 on 8 MI300X 6,485 -> 13,704 tok/s with AITER (AMD ROCm blog, 2.11x); "
    "vLLM v0.18.0 -> v0.21.0 ~0.62x on MI325X (MiniMax-M2.5) and MI355X (Kimi K2.5) (vllm-project/vllm#43029, #43153); "
    "vLLM Qwen3-30B-A3B FP8 on one MI300X, AITER off, 1.88 -> 2.17 req/s with a tuned MoE config (vllm-project/vllm#17530)",
    "§8.5"};

// Communication.
inline constexpr Coefficient link_efficiency{
    "link_efficiency", 0.8, "share of the one-way link rate (NCCL bus bandwidth)", Basis::published,
    "an H100 SXM pair measured 749 of 900 GB/s (NVIDIA/nccl#1264), rounded down for larger groups", "§8.4"};
inline constexpr Coefficient network_efficiency{
    "network_efficiency", 0.94, "share of a NIC's line rate (NCCL, per NIC)", Basis::published,
    "46-48 GB/s per 400 Gb/s NDR NIC (NVIDIA/nccl-tests#290, an NCCL maintainer); 4x HDR per 8 A100 peaked at 96 of 100 GB/s bus bandwidth (NVIDIA/nccl-tests#119)",
    "§8.4"};
inline constexpr Coefficient nccl_base_latency_s{
    "nccl_base_latency_s", 8.4e-6, "seconds per collective", Basis::published,
    "NCCL's tuning model, ring and tree, Simple protocol (NVIDIA/nccl src/graph/tuning.cc, baseLat)", "§8.4"};
inline constexpr Coefficient nccl_hop_nvlink_s{
    "nccl_hop_nvlink_s", 3.4e-6, "seconds per ring step", Basis::published,
    "NCCL's tuning model, ring over NVLink, Simple protocol (tuning.cc, hwLat)", "§8.4"};
inline constexpr Coefficient nccl_hop_pcie_s{
    "nccl_hop_pcie_s", 5.7e-6, "seconds per ring step", Basis::published, "NCCL's tuning model, ring over PCIe, Simple protocol (tuning.cc, hwLat)",
    "§8.4"};
inline constexpr Coefficient nccl_hop_network_s{
    "nccl_hop_network_s", 14e-6, "seconds per step across nodes", Basis::published,
    "NCCL's tuning model, ring and tree over the network, Simple protocol (tuning.cc, hwLat)", "§8.4"};
inline constexpr Coefficient dp_bucket_params{
    "dp_bucket_params", 4e7, "parameters per gradient bucket", Basis::published,
    "Megatron-LM's DistributedDataParallelConfig.bucket_size default max(40000000, 1000000 * dp_size)", "§8.4"};
inline constexpr Coefficient dp_bucket_params_per_rank{
    "dp_bucket_params_per_rank", 1e6, "parameters per data-parallel rank", Basis::published,
    "the same default: larger buckets with more ranks \"to ensure collectives do not become latency-bound\"", "§8.4"};
inline constexpr Coefficient dp_overlap_window{
    "dp_overlap_window", 2.0 / 3.0, "share of the last micro-batch's compute", Basis::assumed,
    "the backward's share of a forward + backward (2 of 3 FLOP units), where the gradient all-reduce runs", "§8.4"};
inline constexpr Coefficient overlap_slowdown{
    "overlap_slowdown", 0.189, "fraction of the overlapped compute's time", Basis::published,
    "Lee et al. 2025, arXiv:2507.03114: average computational slowdown beside collectives (A100, H100, MI250, MI210)", "§8.4"};
inline constexpr Coefficient expert_host_s{
    "expert_host_s", 0.45e-3, "seconds per local expert, MoE layer and training micro-batch (forward and backward)", Basis::fitted,
    "Megatron-Bridge 26.02 Qwen3-30B-A3B on 8 B200 (MXFP8, EP 8, micro-batch 1): 9,691 tokens/s per GPU; about 20 host launches of ~20 us per expert", "§8.2"};
inline constexpr Coefficient engine_sequence_host_s{
    "engine_sequence_host_s", 25e-6, "seconds of host time per running sequence and scheduler step (TensorRT-LLM's PyTorch executor)", Basis::fitted,
    "TensorRT-LLM perf-overview, Qwen3-30B-A3B NVFP4 on one B200, 128/128 tokens at 4,096 in flight: 39,827 output tokens/s = 1 / 25.1 us; the same die on "
    "GB200 (Grace host) reaches 24,107 (host-bound: the engine's Python executor, not the GPU); held out: the same model's 128/2048, 500/2000 and 1000/1000 rows",
    "§8.3"};
inline constexpr Coefficient host_dram_desktop_bytes_per_s{
    "host_dram_desktop_bytes_per_s", 89.6e9, "bytes per second (peak)", Basis::published,
    "a desktop's two 64-bit DDR5-5600 channels: 5,600 MT/s x 8 B x 2 (JEDEC JESD79-5; the top speed AMD AM5 and Intel's Raptor Lake list)", "§8.3"};
inline constexpr Coefficient host_dram_server_bytes_per_s{
    "host_dram_server_bytes_per_s", 307.2e9, "bytes per second (peak)", Basis::published,
    "one server socket's eight DDR5-4800 channels: 4,800 MT/s x 8 B x 8 (Intel Xeon 4th generation; AMD EPYC 9004 has twelve)", "§8.3"};
inline constexpr Coefficient host_dram_desktop_max_bytes{
    "host_dram_desktop_max_bytes", 256e9, "bytes", Basis::published,
    "the most a desktop board's four DIMM slots hold: four 64 GB DDR5 UDIMMs (AMD AM5, Intel LGA1851); a plan that keeps more in host memory "
    "needs a workstation or server socket, whose channels set its rate",
    "§8.3"};
inline constexpr Coefficient host_decode_bandwidth_share{
    "host_decode_bandwidth_share", 0.7, "share of the host's peak memory bandwidth", Basis::assumed,
    "llama.cpp's CPU layers read their weights once a token: a Ryzen 7 7800X3D ran Llama 2 70B Q5_K_M (48.8 GB) at 1.41 tokens/s on the CPU alone "
    "(evshiron/rocm_lab#13), 68.8 GB/s, 0.72 of DDR5-6000's 96 GB/s (the speed such systems run; not stated there)",
    "§8.3"};
inline constexpr Coefficient cpu_adam_params_per_s{
    "cpu_adam_params_per_s", 1e9, "parameters per second", Basis::assumed, "DeepSpeed's CPU-Adam on a server CPU", "§8.4"};

// Memory.
inline constexpr Coefficient cuda_context_bytes{
    "cuda_context_bytes", 0.5 * 1073741824.0, "bytes per GPU", Basis::assumed,
    "context and cuBLAS/cuDNN handles under CUDA 11.7+ lazy module loading (about 0.5 GiB)", "§6.4"};
inline constexpr Coefficient cuda_context_pre_ampere_bytes{
    "cuda_context_pre_ampere_bytes", 1343.0 * 1048576.0, "bytes per GPU", Basis::published,
    "1,343 MiB measured on a V100 with every kernel loaded (Hugging Face, Model training anatomy)", "§6.4"};
inline constexpr Coefficient other_runtime_context_bytes{
    "other_runtime_context_bytes", 0.75 * 1073741824.0, "bytes per GPU", Basis::assumed,
    "ROCm and Gaudi runtime context, not measured", "§6.4"};
inline constexpr Coefficient cpu_runtime_bytes{
    "cpu_runtime_bytes", 2.0 * 1073741824.0, "bytes per CPU instance", Basis::assumed,
    "the operating system and the framework's process beside the model on a CPU instance (§16), not measured", "§6.4"};
inline constexpr Coefficient fp32_logits_factor{
    "fp32_logits_factor", 1.2, "times the framework's bytes per logit element", Basis::assumed,
    "fp32 training keeps its logits and loss temporaries at 4 bytes where 16-bit runs upcast part of them", "§4.3"};
inline constexpr Coefficient band_weights{
    "band_weights", 0.01, "± share of the weights", Basis::assumed, "exact counts; alignment and buffers", "§6.5"};
inline constexpr Coefficient band_states{
    "band_states", 0.03, "± share of gradients and optimizer states", Basis::assumed, "exact counts; bucketing and flat buffers", "§6.5"};
inline constexpr Coefficient band_activations{
    "band_activations", 0.20, "± share of the activations", Basis::assumed, "kernel choices and fused paths differ", "§6.5"};
inline constexpr Coefficient band_logits{
    "band_logits", 0.30, "± share of the logits", Basis::assumed, "upcasts and loss temporaries differ by framework", "§6.5"};
inline constexpr Coefficient band_kv_cache{
    "band_kv_cache", 0.02, "± share of the KV cache", Basis::assumed, "exact counts; block rounding", "§6.5"};
inline constexpr Coefficient band_reserve{
    "band_reserve", 0.5, "± share of the allocator reserve", Basis::assumed, "fragmentation depends on the allocation pattern", "§6.5"};
inline constexpr Coefficient band_runtime{
    "band_runtime", 0.4, "± share of the runtime", Basis::assumed, "driver, library and communicator versions", "§6.5"};
inline constexpr Coefficient cnn_transient_factor{
    "cnn_transient_factor", 1.35, "times the saved activations", Basis::fitted,
    "median measured/modelled ratio over detectron2's 22 MODEL_ZOO rows", "§12.2"};
inline constexpr Coefficient tal_bce_per_anchor{
    "tal_bce_per_anchor", 680.0, "fp32 values per anchor point per image", Basis::fitted,
    "MMYOLO's YOLOv8-n/s/m/l/x training memory (8 x A100, batch 16)", "§12.5"};
inline constexpr Coefficient tal_vfl_per_anchor{
    "tal_vfl_per_anchor", 3000.0, "fp32 values per anchor point per image", Basis::fitted,
    "MMYOLO's YOLOv6-n/t/s/m/l training memory (8 x A100, batch 32)", "§12.5"};

// Video and the job around the compute.
inline constexpr Coefficient nvdec_pixels_per_s{
    "nvdec_pixels_per_s", 19.0 * 1920.0 * 1080.0 * 30.0, "pixels per second per NVDEC engine", Basis::published,
    "a T4 (2 engines) decodes up to 38 full-HD H.264 streams (NVIDIA T4 product page); other architectures and codecs by their ratio in NVIDIA's NVDEC Application Note (SDK 13.0)", "§13"};
inline constexpr Coefficient cpu_jpeg_images_per_s{
    "cpu_jpeg_images_per_s", 190.0, "ImageNet-size images per second per data-loader worker (logical CPU)", Basis::published,
    "timm#1491: ResNet-50 AMP on an A100, 10 workers (Pillow) average 1,923 images/s against 2,600 on synthetic data; Pillow-SIMD reached 2,500", "§14"};
inline constexpr Coefficient host_cpus_per_gpu_server{
    "host_cpus_per_gpu_server", 24.0, "logical CPUs per GPU", Basis::published,
    "8-GPU cloud shapes: AWS p5.48xlarge, p6-b200.48xlarge and g6e.48xlarge 192 vCPU for 8 GPUs (servers.md Table 2; range 12-36)", "§14"};
inline constexpr Coefficient host_cpus_per_gpu_desktop{
    "host_cpus_per_gpu_desktop", 12.0, "logical CPUs per GPU", Basis::published,
    "consumer and workstation hosts: fal.ai GPU-RTX4090 12 vCPU, Lambda gpu_4x_a6000 56 vCPU for 4 (servers.md Table 2)", "§14"};
inline constexpr Coefficient interruptions_per_gpu_hour{
    "interruptions_per_gpu_hour", 419.0 / (54.0 * 24.0 * 16384.0), "interruptions per GPU-hour", Basis::published,
    "Llama 3: 419 unexpected interruptions in 54 days on 16,384 H100s (arXiv:2407.21783 §3.3.4)", "§10"};
inline constexpr Coefficient restart_hours{
    "restart_hours", 0.25, "hours per interruption", Basis::assumed, "reschedule, reload, warm up", "§10"};
inline constexpr Coefficient checkpoint_write_bytes_per_s{
    "checkpoint_write_bytes_per_s", 2e9, "bytes per second per node", Basis::assumed,
    "a node writing its shards of the model states to shared storage", "§10"};
inline constexpr Coefficient checkpoint_storage_bytes_per_s{
    "checkpoint_storage_bytes_per_s", 2e12, "bytes per second", Basis::published,
    "Llama 3: Tectonic sustains 2 TB/s (7 TB/s peak) for the checkpoints of 16,384 H100s (arXiv:2407.21783 §3.3.1)", "§10"};

// The planner's choice (what the order means where the user names no target).
inline constexpr Coefficient value_cost_slack{
    "value_cost_slack", 0.10, "share above the cheapest job's cost", Basis::assumed,
    "best value pays up to this much more for a plan that finishes sooner (cost per job is nearly flat as data parallelism scales out)",
    "§9"};
inline constexpr Coefficient value_target_hours{
    "value_target_hours", 24, "hours", Basis::assumed,
    "a job within the band that finishes within a day needs no more GPUs: best value is chosen among such plans (value_time_weight)", "§9"};
inline constexpr Coefficient value_time_weight{
    "value_time_weight", 0.10, "cost share per share of the cheapest plan's hours", Basis::assumed,
    "best value within a day pays up to a tenth of the time it saves, as a share of cost: twice as fast for 2 % more wins, 20 % faster for 8 % more does not", "§9"};
inline constexpr Coefficient finetune_global_batch{
    "finetune_global_batch", 128, "sequences per optimizer step", Basis::published,
    "Stanford Alpaca's fine-tuning recipe (tatsu-lab/stanford_alpaca README: batch size 128, LLaMA 7B and 13B)", "§9.1"};

inline constexpr Coefficient classification_global_batch{
    "classification_global_batch", 256, "images per optimizer step", Basis::published,
    "ResNet's ImageNet recipe (He et al. 2016, arXiv:1512.03385 §3.4: 'SGD with a mini-batch size of 256'); torchvision's classification reference: 32 per GPU on 8 GPUs", "§9.1"};
inline constexpr Coefficient detection_global_batch{
    "detection_global_batch", 16, "images per optimizer step", Basis::published,
    "detectron2's Base-RCNN configs (SOLVER.IMS_PER_BATCH: 16), MMDetection's and MMSegmentation's 8 GPUs x 2 images, Ultralytics' default batch=16", "§9.1"};

inline constexpr std::array<const Coefficient*, 91> all{
    &fp32_cuda_core_share, &streaming_bandwidth_share, &feature_map_bandwidth_share, &conv_tensor_share,
    &conv_cuda_share,      &conv_traffic_share,        &grouped_conv_efficiency, &nchw_forward_accesses, &nchw_train_accesses,
    &miopen_conv,          &miopen_depthwise_share, &denoiser_share,            &denoiser_half_occupancy,     &resnet_block_passes,         &channels_last_passes,
    &transformer_layer_passes, &element_pass_ops,     &eager_op_host_s,             &eager_op_gpu_s,              &compiled_pass_share,         &two_stage_postprocess_s,     &nms_postprocess_s,
    &small_batch_overhead_s, &prefill_share,           &decode_bandwidth_share,
    &llamacpp_decode_bytes_per_sm_cycle, &decode_compute_share, &decode_attention_share, &fp4_matmul_share, &weight_only_moe_share, &gptq_cuda_core_share,      &nf4_dequant_s,               &nf4_double_quant_dequant_s,
    &tp_allreduce_latency_nvlink_s, &tp_allreduce_latency_pcie_s, &pp_hop_latency_node_s, &pp_hop_latency_network_s,
    &ttft_wait_steps,      &band_mfu_given,            &band_exposed_communication,  &band_host_bound,
    &band_images,          &band_decode_bandwidth,     &band_decode_overheads,       &band_rocm_engine_builds,     &link_efficiency,           &network_efficiency, &nccl_base_latency_s, &nccl_hop_nvlink_s, &nccl_hop_pcie_s,
    &nccl_hop_network_s, &dp_bucket_params, &dp_bucket_params_per_rank, &dp_overlap_window,
    &overlap_slowdown,     &expert_host_s, &engine_sequence_host_s, &host_dram_desktop_bytes_per_s, &host_dram_server_bytes_per_s, &host_dram_desktop_max_bytes, &host_decode_bandwidth_share, &cpu_adam_params_per_s, &cuda_context_bytes, &cuda_context_pre_ampere_bytes, &other_runtime_context_bytes, &cpu_runtime_bytes,
    &fp32_logits_factor, &band_weights, &band_states, &band_activations, &band_logits, &band_kv_cache, &band_reserve, &band_runtime,     &cnn_transient_factor,        &tal_bce_per_anchor,
    &tal_vfl_per_anchor,   &nvdec_pixels_per_s,        &cpu_jpeg_images_per_s, &host_cpus_per_gpu_server, &host_cpus_per_gpu_desktop, &interruptions_per_gpu_hour,  &restart_hours,
    &checkpoint_write_bytes_per_s, &checkpoint_storage_bytes_per_s, &value_cost_slack, &value_target_hours, &value_time_weight, &finetune_global_batch, &classification_global_batch,
    &detection_global_batch};

}  // namespace gpuadvise::coef
