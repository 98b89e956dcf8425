// Language-model inference time: docs/method.md §8.3.
#include <algorithm>
#include <cmath>

#include "gpuadvise/coefficients.hpp"
#include "gpuadvise/efficiency.hpp"
#include "gpuadvise/framework.hpp"
#include "layer_offload.hpp"
#include "perf_common.hpp"

namespace gpuadvise::perf_detail {

namespace {

// The all-reduce volumes a tensor-parallel layer moves: two (after the attention and after the MLP), or, with attention
// data parallel, one (an all-gather of the tokens before the experts and a reduce-scatter after: a ring all-reduce is
// the two).
double layer_allreduce_volumes(const Workload& w) { return w.attention_dp ? 1.0 : 2.0; }

// Of a mixture of experts' routed experts, the share `tokens` routed at random touch: each expert is missed by all of
// them with probability (1 - k/E)^tokens.
double touched_expert_share(const ModelSpec& m, double tokens) {
  const double e = d(m.experts), k = d(m.experts_per_token);
  return 1.0 - std::pow(1.0 - k / e, tokens);
}

// The weight bytes a forward of `tokens` reads on one GPU: every resident weight but the routed experts, and of
// those (their bytes on this GPU, as memory splits them over the tensor- and expert-parallel ranks) the share the
// tokens touch, each routed to k of E independently. Bytes, not parameters: an MXFP4 checkpoint's 4.25-bit experts
// sit beside bf16 attention.
double weights_read_bytes(const TimeBasis& in, double tokens) {
  const auto& [w, m, gpu, mem] = in.io;
  if (!m.is_moe()) return mem.weights;
  const double experts = std::min(mem.expert_weights, mem.weights);
  // Experts split over data-parallel ranks serve every rank's tokens: the group's touch this rank's experts.
  return mem.weights - experts + experts * touched_expert_share(m, experts_over_serving_ranks(w) ? tokens * d(w.ep) : tokens);
}

// The bytes of llama.cpp's host-resident weights a forward of `tokens` reads on the CPU (method.md §8.3): with
// --offload experts, the experts the tokens route to; with --offload layers, the CPU's layers as the GPU's are read
// (of a MoE's, the experts touched) and the output layer whole.
double host_weight_reads(const TimeBasis& in, double tokens) {
  const auto& [w, m, gpu, mem] = in.io;
  if (w.offload == Offload::experts) return mem.host_weights * touched_expert_share(m, tokens);
  const double touched = mem.weights > 0 ? std::min(1.0, weights_read_bytes(in, tokens) / mem.weights) : 1.0;
  return (mem.host_weights - mem.host_output) * touched + mem.host_output;
}

// The share of the peak bandwidth a decode's weight reads reach: the engine's (ExLlama, AutoAWQ rows), below the
// ceiling its kernels' bytes in flight set where the engine has one (method.md §8.3). By Little's law each
// multiprocessor streams the bytes it keeps in flight once per memory latency, a number of its clock cycles that
// changes little between generations, so a kernel with few loads in flight reads at most multiprocessors x boost
// clock x bytes per cycle: llama.cpp's matrix-vector products reach 132 x 1.98 GHz x 5.5 = 1.44 TB/s on an H100
// SXM, 43 % of its 3.35 TB/s, while on an RTX 4090 the ceiling (1.77 TB/s) is above the card's own share. Fitted
// on NVIDIA's SMs; AMD's compute units have no row and run at the share alone.
double decode_bandwidth_share(const FrameworkProfile& fw, const GpuSpec& gpu, TimeEstimate& t) {
  const double share = fw.decode_bandwidth_share.value_or(coef::decode_bandwidth_share.value);
  const double bw = gpu.bandwidth_gb_per_s.value_or(0) * 1e9;
  if (!fw.decode_bytes_per_sm_cycle || bw <= 0 || gpu.stack != "cuda") return share;
  if (!gpu.multiprocessors || !gpu.boost_clock_mhz) {
    t.notes.push_back("the GPU's multiprocessors or boost clock are not in the catalogue: decode is timed at the bandwidth share alone, "
                      "without the ceiling llama.cpp's kernels' bytes in flight set on data-centre cards (method.md §8.3)");
    return share;
  }
  const double ceiling = *gpu.multiprocessors * *gpu.boost_clock_mhz * 1e6 * *fw.decode_bytes_per_sm_cycle;
  if (ceiling >= share * bw) return share;
  t.notes.push_back(Note::format("decode reads the weights at {:.2f} TB/s, {:.0f} % of the bandwidth: {} multiprocessors x {:g} MHz x {:g} bytes in "
                                 "flight per cycle (llama.cpp's matrix-vector kernels; method.md §8.3)",
                                 ceiling / 1e12, 100.0 * ceiling / bw, *gpu.multiprocessors, *gpu.boost_clock_mhz, *fw.decode_bytes_per_sm_cycle));
  return ceiling / bw;
}

// Prefill: the prompt's FLOPs at prefill_matmul_share of the tensor peak and its elementwise bytes at the bandwidth's
// share, after the engine's fixed and per-layer host costs, and never faster than reading the weights once (the
// roofline: a short prompt is a forward like a decode step, bound by the weights it reads). Returns the prompt
// tokens per second of that work alone: the rate a serving engine's steps prefill beside their decodes, one
// forward whose weight reads and host time they share.
double prefill_time(const TimeBasis& in, const FrameworkProfile& fw, double prompt, double overhead, TimeEstimate& t) {
  const auto& [w, m, gpu, mem] = in.io;
  const double b = d(in.io.w.batch);
  const double eta = matmul_share(in, prefill_matmul_share(gpu));
  // 2 FLOPs per weight a prompt token multiplies (the embedding table is a gather), the output projection only on the
  // positions whose logits the framework takes (an engine's: the last).
  const MatmulWeights mw = matmul_weights(in.pc, m);
  const double head_positions = fw.prompt_logits_all_positions ? prompt : 1.0;
  const double attn = attention_fwd_flops(m, static_cast<std::int64_t>(prompt)) * prompt * b;
  const double flops = 2.0 * ((mw.per_token - mw.head) * prompt + mw.head * head_positions) * b + attn;
  // Tensor parallel: each layer's two all-reduces carry every prompt token's h 16-bit values (a ring moves each
  // byte twice), between the matmuls they follow: FLOPs at the tp GPUs' rate plus the bytes at the link's.
  const double tp_bytes_s = w.tp > 1 ? layer_allreduce_volumes(w) * d(m.layers) / in.pp * d(m.hidden) * 2.0 * 2.0 / intra_node_bytes_per_s(gpu, w.tp) : 0.0;
  const double bw = gpu.bandwidth_gb_per_s.value_or(0) * 1e9 * coef::decode_bandwidth_share.value;
  // Beside the matmuls, the forward's memory-bound kernels (norms, residual adds, rotary, the activation, a MoE
  // layer's permutations; eager attention's scores), fused or op by op as the framework runs them, at the
  // bandwidth's share; split over the tensor-parallel GPUs, or, under attention data parallel, on the prompt's own
  // GPU but for the routed experts' part, split with the experts.
  const bool flash = w.flash_attention && !fw.prefill_eager_attention, fused = fw.fused_elementwise || w.compile;
  const double ew_bytes = forward_elementwise_bytes_per_token(m, static_cast<std::int64_t>(prompt), fused, flash);
  const double ew_experts = w.attention_dp ? routed_expert_elementwise_bytes_per_token(m, fused) : 0.0;
  const double elementwise_s = bw <= 0 ? 0.0 : w.attention_dp ? (ew_bytes - ew_experts + ew_experts / in.tp) / bw : ew_bytes / (bw * in.tp);
  // Experts split over data-parallel ranks: each prompt token's dispatch and combine, one copy per node (perf_experts.cpp).
  const double exchange_s = serving_expert_exchange_seconds(in, prompt * b, true);
  const double attn_rate = prefill_attention_rate(in);
  const MatmulRates r = matmul_rates(in, prefill_matmul_share(gpu));
  const double experts = routed_expert_flops(in, prompt * b), dense = flops - attn - experts;
  // Over the tensor-parallel GPUs; under attention data parallel only the routed experts split.
  const double on_one = w.attention_dp ? 1.0 : in.tp;
  const double gpu_s = (attn / attn_rate + dense / r.dense) / on_one + experts / (r.experts * in.tp);
  const double work_s = gpu_s + (tp_bytes_s + elementwise_s) * prompt * b + exchange_s;  // the b prompts' GPU time
  auto reads = [&](double tokens) { return bw > 0 ? weights_read_bytes(in, tokens) / bw : 0.0; };
  // llama.cpp with layers past -ngl, or experts in host memory: for a batch of 32 tokens or more it copies their
  // weights over PCIe and runs them on the GPU, once per micro-batch of 512 tokens (its -ub; a micro-batch that
  // large routes to nearly every expert); the prompt pays the copies (method.md §8.3).
  // A shorter batch runs them where they are, the CPU reading what its tokens touch at the host's rate.
  const double tokens = prompt * b, host_bytes = mem.host_weights;
  double copies = 0, cpu_reads = 0;
  if (host_bytes > 0 && tokens >= 32) copies = std::ceil(tokens / 512.0) * host_bytes / host_to_device_bytes_per_s(gpu);
  if (host_bytes > 0 && tokens < 32) cpu_reads = host_weight_reads(in, tokens) / cpu_read_bytes_per_s(gpu, mem);
  const double secs = fw.prefill_fixed_s + overhead + copies + cpu_reads + std::max(work_s, reads(tokens));
  t.prefill_tokens_per_second = prompt * b / secs;
  // A serving engine prefills each request as it arrives (continuous batching): one request waits for its own
  // prompt, not the whole batch's (queueing at load is not modelled).
  t.ttft_seconds = fw.kv_pool ? fw.prefill_fixed_s + overhead + std::max(work_s / b, reads(prompt)) : secs;
  if (copies > 0)
    t.notes.push_back(Note::format("prompt processing copies the CPU's {} ({:.1f} GB) over {} to the GPU for every 512 tokens: {:.1f} s of each prompt",
                                  w.offload == Offload::experts ? "experts" : "layers", in.io.mem.host_weights / 1e9, host_link_name(gpu), copies / b));
  t.utilization = eta;
  // A serving engine's stages prefill different micro-batches at once: p times one stage's rate.
  return prompt * b / work_s * (fw.kv_pool ? d(std::max<std::int64_t>(1, w.pp)) : 1.0);
}

// Continuous batching (vLLM/SGLang chunked prefill, TensorRT-LLM in-flight batching; method.md §8.3): in the steady
// state a finished sequence is replaced by a new request, so each scheduler step also prefills b·in/out prompt
// tokens beside the b decode tokens, and every running sequence waits for them: by Little's law a request lives
// b x (its prompt's GPU time + out x the decode step / b). Returns what that adds to each output token.
double prefill_interference(const Workload& w, double prompt, double decode_tpot, double prefill_rate, TimeEstimate& t) {
  const double b = d(w.batch);
  if (b <= 1 || !w.output_tokens || *w.output_tokens <= 0 || prefill_rate <= 0) return 0.0;
  const double per_step = b * prompt / *w.output_tokens;
  const double interference = per_step / prefill_rate;
  if (interference > 0.1 * decode_tpot)
    t.notes.push_back(Note::format("time per output token at {} in flight: {:.1f} ms of decode + {:.1f} ms of the new requests' prompts "
                                  "prefilled in the same scheduler steps ({:.0f} prompt tokens per step)",
                                  w.batch, decode_tpot * 1e3, interference * 1e3, per_step));
  return interference;
}

// Disaggregated prefill and decode (--disaggregate; DistServe, Zhong et al. 2024, arXiv:2401.09670; Splitwise;
// vLLM/SGLang PD disaggregation, NVIDIA Dynamo): the plan's replicas split into a prefill pool, which runs prompts
// at their FLOP rate, and a decode pool, whose steps run decodes alone (no prompt interference in the TPOT); each
// prompt's KV cache crosses from one pool to the other before its first token. The split of R replicas is the one
// whose slower pool is fastest: P prefill replicas of r_p = rate / prompt requests/s, R − P decode replicas of
// r_d = B / (output x TPOT). Off (timed together) with fewer than two replicas.
struct Disaggregation {
  bool on = false;
  double replicas = 0, prefill_replicas = 0, requests_per_second = 0, kv_transfer_s = 0;
};

Disaggregation disaggregation(const TimeBasis& in, double prompt, double decode_tpot, double prefill_rate, TimeEstimate& t) {
  const auto& [w, m, gpu, mem] = in.io;
  Disaggregation s;
  if (!w.disaggregate || !framework_profile(w.effective_framework()).kv_pool) return s;
  const double replicas = std::floor(d(w.gpus) / in.model_par);  // whole replicas of the layout
  if (replicas < 2 || prefill_rate <= 0) {
    t.notes.push_back(Note::format("--disaggregate needs at least two replicas of the layout (--gpus {} or more): timed with prefill and decode "
                                  "together", 2 * static_cast<std::int64_t>(in.model_par)));
    return s;
  }
  s.on = true;
  s.replicas = replicas;
  // The prompt's KV cache, each GPU of the layout sending its shard: over the network between nodes, else the
  // links inside the node.
  const double kv_bytes = kv_tokens_avg(m, prompt) * mem.kv_bytes_per_token;
  const double link = w.nodes > 1 ? inter_node_bytes_per_s(gpu) : intra_node_bytes_per_s(gpu, 2);
  s.kv_transfer_s = link > 0 ? kv_bytes / link : 0.0;
  const double out = w.output_tokens.value_or(1.0);
  const double r_p = prefill_rate / prompt, r_d = d(w.batch) / (out * decode_tpot);
  for (double p = 1; p < replicas; ++p) {
    const double rate = std::min(p * r_p, (replicas - p) * r_d);
    if (rate > s.requests_per_second) {
      s.requests_per_second = rate;
      s.prefill_replicas = p;
    }
  }
  t.notes.push_back(Note::format("disaggregated: {:.0f} prefill and {:.0f} decode replicas of {:.0f} GPU(s) ({:.1f} and {:.1f} requests/s each); "
                                "the decode steps run no prompts",
                                s.prefill_replicas, replicas - s.prefill_replicas, in.model_par, r_p, r_d));
  t.notes.push_back(Note::format("disaggregated: each prompt's KV cache ({:.0f} MB per GPU) crosses {} in {:.1f} ms before its first token",
                                kv_bytes / 1e6, w.nodes > 1 ? "the network" : "the node's links", s.kv_transfer_s * 1e3));
  return s;
}

// The first token at load: apart, after the prompt's own prefill and its KV cache's transfer; together, a new
// request first waits for the running scheduler iteration to end (half a step on average), then its prompt is
// batched with the other sequences' decode into one longer step: its own prefill plus a decode step (vLLM/SGLang
// continuous batching with chunked prefill; method.md §8.3).
void ttft_at_load(const Workload& w, const FrameworkProfile& fw, const Disaggregation& split, double tpot, TimeEstimate& t) {
  if (!t.ttft_seconds) return;
  if (split.on) {
    *t.ttft_seconds += split.kv_transfer_s;
  } else if (fw.kv_pool && w.batch > 1) {
    const double own = *t.ttft_seconds;
    t.ttft_seconds = own + coef::ttft_wait_steps.value * tpot;
    t.notes.push_back(Note::format("time to first token at {} in flight: {:.0f} ms of its own prefill + {:.0f} ms waiting for and sharing a "
                                  "scheduler step", w.batch, own * 1e3, coef::ttft_wait_steps.value * tpot * 1e3));
  }
}

// One decode step of `batch` sequences through one stage (method.md §8.3). Its kernels run one after another: the
// projections read the weights (MoE: the experts the batch touches) while doing 2 FLOPs per active weight and
// sequence, bound by the slower of the two; then the attention reads every running sequence's KV cache,
// memory-bound (a KV head's bytes serve only its group of query heads: 2 x heads/kv_heads FLOPs per byte, far below
// the ridge). The two do not hide each other: at large batches the projections turn compute-bound while the KV
// reads still add (TensorRT-LLM's Llama 3.1 8B FP8 at 880 in flight on an H200: 14 ms of projections + 17 ms of KV
// reads, 33.6 ms measured).
struct StageStep {
  double total = 0, host = 0, tp = 0, moe = 0, weights = 0, compute = 0, kv = 0, cpu_layers = 0, ep = 0;
};

StageStep decode_stage(const TimeBasis& in, const FrameworkProfile& fw, double batch, double ctx, double host, double eta_mem) {
  const auto& [w, m, gpu, mem] = in.io;
  const double bw = gpu.bandwidth_gb_per_s.value_or(0) * 1e9 * eta_mem;
  StageStep st;
  st.host = host + fw.decode_step_fixed_s;
  // With llama.cpp's layers past -ngl on the CPU, the GPU reads its share of the weights (mem.weights holds only that)
  // and of the KV cache, and the CPU the rest from host memory, one after the other, at host_decode_bandwidth_share of
  // the host's peak: of a MoE's experts, those the batch touches, as on the GPU.
  const double share = gpu_layer_share(w, m);
  st.weights = weights_read_bytes(in, batch) / bw;
  st.kv = share * batch * kv_tokens_avg(m, ctx) * mem.kv_bytes_per_token / bw;
  // The attention reads each sequence's keys and values once for all the query heads they serve: 2 FLOPs per
  // head and dimension of the scores and of the values, per key. Grouped heads make that a few FLOPs per byte,
  // bound by the reads; multi-head latent attention serves all its query heads from one latent per token
  // (absorbed: scores over the latent and its rotary part, values over the latent), hundreds of FLOPs per byte,
  // bound by the FLOPs at FlashMLA's share of the 16-bit peak (method.md §8.3). Per GPU, a tp-th of the heads
  // (tensor parallel) or of the sequences (attention data parallel).
  const double qk = m.is_mla() ? d(m.kv_lora_rank + m.qk_rope_head_dim) : d(m.head_dim);
  const double v = m.is_mla() ? d(m.kv_lora_rank) : d(m.head_dim);
  auto attn_peak = gpu.peak_flops("bf16");
  if (!attn_peak) attn_peak = gpu.peak_flops("fp16");
  if (attn_peak && *attn_peak > 0) {
    const double flops = share * batch * d(m.layers) / in.pp * 2.0 * d(m.heads) / in.tp * (qk + v) * kv_tokens_avg(m, ctx);
    st.kv = std::max(st.kv, flops / (*attn_peak * coef::decode_attention_share.value));
  }
  // With --offload experts the CPU reads the experts the batch routes to in its layers, and nothing else. Over several
  // GPUs (the layer split) the CPU's layers are all stages': once per token.
  if (mem.host_weights > 0)
    st.cpu_layers = (host_weight_reads(in, batch) + batch * kv_tokens_avg(m, ctx) * mem.host_kv_bytes_per_token) / cpu_read_bytes_per_s(gpu, mem);
  if (w.tp > 1) {
    // Tensor-parallel decode: 2 all-reduces of b·h 16-bit values per layer, latency-bound: ~20 µs over
    // NVLink, ~60 µs over PCIe (formulas §7.4 [derived]; the PCIe figure assumed 3x). Attention data parallel
    // runs an all-gather of the tokens before the experts and a reduce-scatter after: two collectives' latency,
    // one all-reduce's bytes (a ring all-reduce is a reduce-scatter and an all-gather).
    const double lat = gpu.fast_link_joins(w.tp) ? coef::tp_allreduce_latency_nvlink_s.value : coef::tp_allreduce_latency_pcie_s.value;
    st.tp = d(m.layers) / in.pp * (2.0 * lat + layer_allreduce_volumes(w) * batch * d(m.hidden) * 2.0 * 2.0 / intra_node_bytes_per_s(gpu, w.tp));
  }
  const auto fp32_peak = gpu.peak_flops("fp32");
  const double flops = 2.0 * matmul_weights(in.pc, m).per_token * batch / in.model_par;  // the head once per token, no embedding matmul
  if (fw.quant_matmul_cuda_cores && (w.precision == Precision::int4 || w.precision == Precision::int8) && fp32_peak) {
    // GPTQ kernels dequantise on CUDA cores: their matmuls run at ~30 % of the fp32 peak and add to the
    // weight reads (fitted on optimum's GPTQ rows at batch 1-16).
    st.compute = flops / (*fp32_peak * coef::gptq_cuda_core_share.value);
    st.total = st.weights + st.compute + st.kv;
  } else {
    const MatmulRates r = matmul_rates(in, coef::decode_compute_share.value);
    const double experts = routed_expert_flops(in, batch) / in.model_par;
    st.compute = in.peak ? experts / r.experts + (flops - experts) / r.dense : 0.0;
    st.total = std::max(st.weights, st.compute) + st.kv;
  }
  if (m.is_moe() && fw.moe_layer_dispatch_s > 0) {
    // Routed experts at decode: routing, token permutation, two grouped expert GEMMs and the weighted
    // combine run as a chain of small kernels per MoE layer whose time does not shrink with the batch
    // (framework trait, method.md §8.3).
    st.moe = d(m.layers - m.dense_layers) / in.pp * fw.moe_layer_dispatch_s;
  }
  // Experts split over data-parallel ranks: each step's dispatch and combine over NVLink and the NICs (perf_experts.cpp).
  st.ep = serving_expert_exchange_seconds(in, batch, false);
  st.total += st.host + st.tp + st.moe + st.cpu_layers + st.ep;
  return st;
}

// What the CPU's share of a token costs with llama.cpp's layers past -ngl, or some layers' experts, in host memory.
Note cpu_share_note(const Workload& w, const ModelSpec& m, const GpuSpec& gpu, const MemoryEstimate& mem, double cpu_s, double step) {
  const double resident = mem.host_bytes(), host_rate = cpu_read_bytes_per_s(gpu, mem) / 1e9;
  // A consumer card's host that must hold more than a desktop board does is a workstation or server socket.
  const std::string rate = fmt::format("{:.0f} GB/s", host_rate) +
                           (gpu.segment != Segment::edge && !server_host(gpu, 0) && server_host(gpu, resident)
                                ? fmt::format(" (a server socket's: {:.0f} GB in host memory is more than a desktop board holds)", resident / 1e9)
                                : "");
  if (w.offload == Offload::experts)
    return Note::format("the routed experts of {} layers (--n-cpu-moe {}) run on the CPU from host memory: {:.0f} ms of each token at {}, "
                        "against {:.0f} ms on the GPU (each layer's experts moved to the GPU save about {:.1f} ms)",
                        cpu_moe_layers(w, m), cpu_moe_layers(w, m), cpu_s * 1e3, rate, (step - cpu_s) * 1e3,
                        cpu_s / std::max(1.0, d(cpu_moe_layers(w, m) - m.dense_layers)) * 1e3);
  return Note::format("the layers past -ngl {} run on the CPU from host memory: {:.0f} ms of each token at {}, against {:.0f} ms "
                      "on the GPU (each layer moved to the GPU saves about {:.1f} ms)",
                      w.gpu_layers, cpu_s * 1e3, rate, (step - cpu_s) * 1e3, cpu_s / std::max(1.0, d(m.layers - w.gpu_layers)) * 1e3);
}

}  // namespace

// Inference (method.md §8.3): prefill at a share of the peak, decode bound by the bytes each step reads.
TimeEstimate inference_time(const TimeBasis& in, TimeEstimate t) {
  const auto& [w, m, gpu, mem] = in.io;
  const auto& peak = in.peak;
  const double s = in.s, pp = in.pp, model_par = in.model_par;
  // Inference (method.md §8.3).
  const FrameworkProfile& fw = framework_profile(w.effective_framework());
  const double bw = gpu.bandwidth_gb_per_s.value_or(0) * 1e9;
  const double b = d(w.batch);
  const double layers = d(m.layers + m.encoder_layers);
  double prompt = std::max(1.0, s - 1.0);
  if (w.input_tokens) prompt = *w.input_tokens;
  double ctx_decode = s;  // decode speed at the full context
  if (w.input_tokens && w.output_tokens) ctx_decode = *w.input_tokens + *w.output_tokens / 2.0;
  // Host-side time per forward: per layer, plus bitsandbytes' 4-bit dequantisation launches per linear
  // layer (0.18 ms, 0.23 ms with double quantisation; fitted on LitGPT's NF4 rows).
  const bool fused_qkv = w.effective_framework() != Framework::hf;
  const double linears = (fused_qkv ? 2.0 : 4.0) + (m.gated_mlp ? 3.0 : 2.0);
  double per_layer = fw.layer_overhead_s;
  if (w.precision == Precision::nf4) per_layer += linears * (w.double_quant ? coef::nf4_double_quant_dequant_s.value : coef::nf4_dequant_s.value);
  const double overhead = layers * per_layer / pp;
  // The GPU time of prompts, per token: in a serving engine's steps beside the decodes (which read the weights
  // anyway), their FLOPs alone; elsewhere each prompt is a forward of its own, roofline and all.
  double prefill_rate = 0;
  if (peak) {
    prefill_rate = prefill_time(in, fw, prompt, overhead, t);
    if (!fw.kv_pool) prefill_rate = t.prefill_tokens_per_second.value_or(0);
  }
  if (bw > 0) {
    const double eta_mem = decode_bandwidth_share(fw, gpu, t);
    // A serving engine pipelines its stages (vLLM's virtual engines, TensorRT-LLM's and SGLang's micro-batches): the
    // sequences in flight split into up to p micro-batches, one in each stage at a time, so a stage's step serves
    // b/p of them and a token's round trip crosses the p stages; a plain pipeline (Hugging Face's device_map,
    // llama.cpp's layer split) runs the whole batch through one stage at a time.
    const double micro = fw.kv_pool && w.pp > 1 ? std::min(b, d(w.pp)) : 1.0;
    const double mb = b / micro;
    const StageStep st = decode_stage(in, fw, mb, ctx_decode, overhead, eta_mem);
    const double step = st.total;
    double tpot = step;
    if (w.pp > 1) {
      // Pipeline stages run one after another for each token: a step crosses every stage and p−1 stage
      // boundaries (a point-to-point send of b·h 16-bit values, ~20 µs latency inside a node, more across).
      const LinkPlan links = plan_links(gpu, w);
      const double hop = (w.nodes > 1 ? coef::pp_hop_latency_network_s.value : coef::pp_hop_latency_node_s.value) + (links.pp_bytes_per_s > 0 ? mb * d(m.hidden) * 2.0 / links.pp_bytes_per_s : 0.0);
      // The CPU's share of a token (llama.cpp's layers past -ngl or experts in host memory) is once per token, not
      // once per stage.
      tpot = pp * (step - st.cpu_layers) + st.cpu_layers + (pp - 1.0) * hop;
      // A plain pipeline's token passes each stage once: the output layer (and embeddings) are read on their own stage,
      // not on every stage as pp times the largest would count them, where the stages wait on their weights.
      if (micro == 1.0 && st.weights > st.compute) tpot -= std::min(mem.pipeline_edge_excess / bw / eta_mem, pp * (st.weights - st.compute));
      t.notes.push_back(micro > 1 ? Note::format("pipeline parallel {}: the {} sequences in flight run as {:.0f} micro-batches, one in each stage at a time; "
                                                 "each token passes the stages one after another",
                                                 w.pp, w.batch, micro)
                                  : Note::format("pipeline parallel {}: each token passes the stages one after another", w.pp));
    }
    if (st.ep > 0) t.notes.push_back(expert_exchange_note(in, st.ep, step));
    const double decode_tpot = tpot;
    const Disaggregation split = disaggregation(in, prompt, decode_tpot, prefill_rate, t);
    if (fw.kv_pool && !split.on) tpot += prefill_interference(w, prompt, decode_tpot, prefill_rate, t);
    // The engine's host work per running sequence and step, hidden behind the GPU's step (the overlap scheduler)
    // until it is the longer: each GPU's executor tends all b sequences under tensor parallel, b/tp under attention
    // data parallel (method.md §8.3).
    const double host_per_sequence = fw.kv_pool ? fw.sequence_host_s / (w.attention_dp ? d(w.tp) : 1.0) : 0.0;
    const bool pipelined_host = w.pp > 1 && host_per_sequence > 0;
    if (pipelined_host) tpot += b * host_per_sequence;
    const bool host_paced = !pipelined_host && b * host_per_sequence > tpot;
    if (host_paced) {
      t.notes.push_back(Note::format("the engine's host work paces the steps at {} in flight: {:.1f} ms a step ({:.0f} us per sequence) against "
                                    "{:.1f} ms of GPU work; more GPUs per replica or attention data parallel share it",
                                    w.batch, b * host_per_sequence * 1e3, host_per_sequence * 1e6, tpot * 1e3));
      tpot = b * host_per_sequence;
    }
    t.tpot_seconds = tpot;
    // Apart, only the decode pool emits tokens, at the split's pace: per replica of the plan, its output over all.
    t.decode_tokens_per_second = split.on ? split.requests_per_second * w.output_tokens.value_or(1.0) / split.replicas : b / tpot;
    ttft_at_load(w, fw, split, tpot, t);
    t.bandwidth_efficiency = eta_mem;
    const double t_main = step - st.host - st.tp - st.moe - st.cpu_layers - st.ep;  // the projections and the KV reads
    const double biggest = std::max({t_main, st.host, st.tp, st.moe, st.cpu_layers, st.ep});
    if (st.cpu_layers > 0) t.notes.push_back(cpu_share_note(w, m, gpu, mem, st.cpu_layers, decode_tpot));
    t.bound = biggest == t_main ? (st.compute > st.weights && st.compute > st.kv ? "compute" : "memory bandwidth")
              : biggest == st.cpu_layers ? (w.offload == Offload::experts ? "the CPU's experts in host memory" : "the CPU's layers in host memory")
              : biggest == st.moe ? "MoE kernels' fixed cost"
              : biggest == st.tp  ? "tensor-parallel all-reduces"
              : biggest == st.ep  ? "the expert-parallel dispatch and combine"
                                  : k_host_bound;
    if (host_paced) t.bound = k_host_bound;
    if (w.requests && w.output_tokens) {
      const double replicas = d(w.gpus) / model_par;
      const double prefill_share = prefill_rate > 0 ? prompt / prefill_rate : 0.0;  // GPU time of one prompt
      const double per_request = pipelined_host ? prefill_share + *w.output_tokens * (decode_tpot / b + host_per_sequence)
                                                : std::max(prefill_share + *w.output_tokens * decode_tpot / b, *w.output_tokens * host_per_sequence);
      t.requests_per_second = split.on ? split.requests_per_second : replicas / per_request;
      t.input_time_share = split.on ? split.prefill_replicas / split.replicas : prefill_share / per_request;
      t.job_seconds = *w.requests / *t.requests_per_second;
    }
  }
  return t;
}

}  // namespace gpuadvise::perf_detail

namespace gpuadvise {

using perf_detail::d;

double forward_elementwise_bytes_per_token(const ModelSpec& m, std::int64_t seq_len, bool fused, bool flash_attention) {
  // A prompt's forward (method.md §8.3): the same kernels as a training forward (§8.2), each layer's in 16 bits,
  // and a MoE layer's permutation of each token into its k experts' copies and back (read h, write k·h; read k·h,
  // write h).
  return perf_detail::layer_elementwise_bytes(perf_detail::layer_shape(m, seq_len), fused, flash_attention) * d(m.layers + m.encoder_layers) +
         perf_detail::moe_permutation_bytes(m);
}

double routed_expert_elementwise_bytes_per_token(const ModelSpec& m, bool fused) {
  // The part of forward_elementwise_bytes_per_token that runs where the routed experts sit: their activation over
  // k x expert_ffn channels (a layer's bytes less those of the same layer without them) and the permutations
  // (method.md §8.3).
  if (!m.is_moe()) return 0.0;
  const perf_detail::LayerElementwise layer = perf_detail::layer_shape(m, 1);
  perf_detail::LayerElementwise without = layer;
  without.ffn -= d(m.experts_per_token * m.expert_ffn);
  const double act = perf_detail::layer_elementwise_bytes(layer, fused, true) - perf_detail::layer_elementwise_bytes(without, fused, true);
  return act * d(m.layers - m.dense_layers) + perf_detail::moe_permutation_bytes(m);
}

}  // namespace gpuadvise
