#pragma once
// Physical bounds on what a user's file may say (docs/method.md, "Input ranges"; docs/testing.md, "Security").
// One table, read by the parsers of flags and files alike: a value outside is bad input (exit 2) naming the
// field and the range, never a number carried into arithmetic. Each bound is the largest published part or
// model with margin, named beside it.
#include <cstddef>

namespace gpuadvise {

// GPU catalogues. The fastest part of 2026 (B300: 8 TB/s HBM3e, ~5 PFLOPS dense FP4) with a 10x margin;
// a link no faster than 10x NVLink 5's 1.8 TB/s per GPU.
inline constexpr double k_max_bandwidth_gb_per_s = 100000;   // memory bandwidth, GB/s
inline constexpr double k_max_dense_tflops = 100000;         // any precision's dense peak, TFLOPS
inline constexpr double k_max_link_gb_per_s = 20000;         // interconnect, GB/s per GPU

// The planner's reach: 2x Llama 3 405B's 16,384 H100s (arXiv:2407.21783 §3.3), the largest published run of
// an open model; --max-gpus takes up to it, and a ranking with a job size searches up to it by default.
inline constexpr long k_max_plan_gpus = 32768;

// Prices: the dearest on-demand GPU-hour listed in 2026 is below 20 USD (gpus.md); 1,000 leaves room for any
// bundle while refusing a mistyped exponent. A purchase price up to 10 M USD (a whole NVL72 rack is ~3 M).
inline constexpr double k_max_usd_per_gpu_hour = 1000;
inline constexpr double k_max_purchase_usd = 10e6;

// config.json: DeepSeek-V3 (256 routed + 1 shared expert, kv_lora_rank 512, q_lora_rank 1536), Llama 4
// (128 experts), Kimi K2 (384 experts): shared experts and LoRA ranks of attention well inside these.
inline constexpr double k_max_shared_experts = 1024;
inline constexpr double k_max_attention_lora_rank = 65536;

// A probe's measurement against its own estimate: the correction a calibration file may hold. A probe of the
// same workload on the same GPU lands within these (docs/accuracy.md: memory p90 under 20 %, throughput p90
// under 50 %); anything further is another workload or a result edited by hand.
inline constexpr double k_calibration_memory_min = 0.2, k_calibration_memory_max = 5.0;
inline constexpr double k_calibration_speed_min = 0.1, k_calibration_speed_max = 10.0;

// The workloads a saved correction applies to (docs/method.md §15): a model within 2x of the measured one's
// parameters (a step of the preset ladder, 8B to 14B or 3B to 7B, stays inside; 8B to 70B does not) and a step
// within 4x of its elements per GPU (batch x sequence or pixels). Past these the shares of weights, optimizer
// state and activations in the peak, and the kernels' shapes, are no longer the measured ones.
inline constexpr double k_scope_params_factor = 2.0;
inline constexpr double k_scope_step_factor = 4.0;
// A saved scope's sizes: past the largest published models (2T parameters) and any step a GPU holds.
inline constexpr double k_max_scope_params = 1e14;
inline constexpr double k_max_scope_step_elements = 1e12;

// Files read: the largest bundled-schema file a user writes is a catalogue of a few hundred KB; 64 MiB holds
// 100,000 workloads and any config.json, and stops /dev/zero or a 2 GB file before it is read.
inline constexpr std::size_t k_max_input_file_bytes = std::size_t{64} << 20;

}  // namespace gpuadvise
