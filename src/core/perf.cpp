// Time model: docs/method.md §8.
#include "gpuadvise/perf.hpp"

#include "gpuadvise/coefficients.hpp"
#include "gpuadvise/efficiency.hpp"
#include "gpuadvise/framework.hpp"
#include "gpuadvise/vision_model.hpp"
#include "perf_common.hpp"
#include "layer_offload.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace gpuadvise {

namespace {
using perf_detail::d;

// Achievable utilisation of the hardware FLOPs of dense training (method.md §8.2): the family's share of the
// dense peak (efficiency.cpp's table, from public results per architecture family), FP8 quoted against the
// FP8 peak ~0.25 ([MOSAIC] 14-30%), fp32 without tensor cores at 0.65 of the (low) fp32 peak.
double matmul_efficiency_for(const GpuSpec& g, std::string_view key) {
  // FP8 GEMMs (Transformer Engine) reach the family's 16-bit share of their doubled peak (NeMo 24.07 Llama 2 7B
  // SFT on H100: 749 TFLOP/s per GPU model-wide, 38 % of the FP8 peak, with the attention and the elementwise
  // work at 16 bits and timed beside them); fp32 without tensor cores 0.65 of the fp32 peak, the CUDA-core share
  // of the vision model (perf_vision.cpp; BERT-large V100 fp32 rows in tests/data/llm_small_time.jsonl: -18..0 %).
  if (key == "fp32") return coef::fp32_cuda_core_share.value;
  return family_efficiency(gpu_family(g)).matmul_efficiency;
}

// What communication and idle time add to a training step, and over which links. Written straight into the note's
// text: the planner scores every layout that fits and keeps one.
Note communication_note(double share, const LinkPlan& links, const GpuSpec& gpu, bool offload) {
  fmt::memory_buffer text;
  fmt::format_to(std::back_inserter(text), "communication and idle time add {:.0f}% to each step (", 100.0 * share);
  const char* sep = "";
  auto over = [&](const char* what, Link link) {
    text.append(std::string_view(sep));
    text.append(std::string_view(what));
    perf_detail::append_link_name(text, gpu, link);
    sep = "; ";
  };
  if (links.tp_link != Link::none) over("tensor parallel over ", links.tp_link);
  if (links.cp_link != Link::none) over("context parallel over ", links.cp_link);
  if (links.dp_link != Link::none) over("data parallel over ", links.dp_link);
  if (links.pp_link != Link::none) over("pipeline over ", links.pp_link);
  // Host memory over the GPU's own link to its CPU (peer-to-peer between GPUs does not matter here).
  if (offload)
    fmt::format_to(std::back_inserter(text), "{}CPU offload over {}{}", sep, perf_detail::host_link_name(gpu),
                   gpu.host_link_gb_per_s && gpu.segment != Segment::edge ? fmt::format(" ({:.0f} GB/s)", *gpu.host_link_gb_per_s) : "");  // GH200: its Grace CPU
  text.push_back(')');
  return Note(fmt::to_string(text));
}

}  // namespace

namespace {
using perf_detail::TimeBasis;

// Seconds per training token on one GPU before communication (method.md §8.2): the matmul FLOPs at the family's
// achieved share of the dense peak, attention at its own share, the memory-bound elementwise traffic at 80 % of
// the peak bandwidth and QLoRA's dequantisation. `streamed`: the weight-streaming part of it (what a larger
// micro-batch amortises).
double training_seconds_per_token(const TimeBasis& in, double fpt, double tokens_step, double& streamed) {
  const auto& [w, m, gpu, mem] = in.io;
  const ParamCounts& pc = in.pc;
  const PrecisionSupport& ps = in.ps;
  const auto& peak = in.peak;
  const double bw_bytes = gpu.bandwidth_gb_per_s.value_or(0) * 1e9 * coef::streaming_bandwidth_share.value;
  const double attn = train_attention_flops_per_token(w, m, mem.seq_len);
  const double e_mm = matmul_efficiency_for(gpu, ps.compute_key);
  const FrameworkProfile& fw = framework_profile(w.effective_framework());
  double e_attn = perf_detail::flash_attention_share(d(m.head_dim));  // fused attention's share of the matmul share
  if (gpu_family(gpu) == GpuFamily::hopper) e_attn *= fw.hopper_attention_speedup;
  // FP8 training quantises the projections only; the attention runs in 16 bits.
  double attn_peak = *peak;
  if (ps.compute_key == "fp8") attn_peak = gpu.peak_flops("bf16").value_or(*peak / 2.0);
  double token_s = (fpt - attn) / (*peak * e_mm) + attn / (attn_peak * e_mm * e_attn);
  if (bw_bytes > 0) {
    const bool fused = w.compile || fw.fused_elementwise;
    token_s += train_elementwise_bytes_per_token(w, m, mem.seq_len, fused) / bw_bytes;
    streamed = perf_detail::weight_streaming_seconds_per_token(in, tokens_step, *peak * e_mm, bw_bytes);
    token_s += streamed;
    if (w.mode == Mode::qlora)  // the forward, the backward and a recomputed forward, spread over the micro-batch's tokens
      token_s += perf_detail::nf4_dequant_seconds(pc.linear, w.checkpointing == Checkpointing::full ? 3.0 : 2.0, bw_bytes) / tokens_step;
  }
  return token_s;
}

// The data-parallel layout of a training step, as the communication and the optimizer step see it.
struct TrainingLayout {
  LinkPlan links;
  bool adapters;
  double dp, accum, ep, local_params, grad_params, grad_bytes;  // the gradients a rank reduces: parameters and bytes
};

TrainingLayout training_layout(const TimeBasis& in) {
  const auto& [w, m, gpu, mem] = in.io;
  const ParamCounts& pc = in.pc;
  const double model_par = in.model_par;
  // Communication (method.md §8.4, NCCL ring costs) on the links the plan uses (plan_links).
  const LinkPlan links = plan_links(gpu, w);
  const bool adapters = w.mode == Mode::lora || w.mode == Mode::qlora;
  const double dp = d(w.replica_ranks());  // the ranks that reduce their gradients together (x context parallel)
  const double accum = d(w.grad_accum);
  // Expert parallelism: each rank holds 1/ep of the routed experts, so it reduces (and gathers) only those (folded
  // over tensor parallel: whole experts, the split beyond tp·pp is ep/tp; method.md §3.4).
  const double ep = m.is_moe() ? d(expert_shards(w)) : 1.0;
  const double local_params = pc.total - experts_elsewhere(pc, ep);
  // Gradients reduce in their buffer's precision: fp32 main grads under Megatron-LM's defaults and torchtitan's
  // reduce_dtype, 16-bit under ZeRO/FSDP with Hugging Face and Megatron-Bridge's benchmarks (--grad-dtype); adapters in 16 bits.
  const double grad_params = (adapters ? mem.params_trainable : local_params) / model_par;
  return TrainingLayout{links, adapters, dp, accum, ep, local_params, grad_params, grad_params * (adapters ? 2.0 : mem.grad_element_bytes)};
}

// Communication the compute does not hide, and the compute it slows, per micro-batch (method.md §8.4, NCCL ring
// costs, on the links the plan uses): data parallel or ZeRO/FSDP collectives, tensor-parallel all-reduces,
// expert-parallel all-to-alls (a2a seconds of them per micro-batch), context-parallel rings (fpt: the training FLOPs
// per token, of which attention can hide the rings).
double exposed_communication(const TimeBasis& in, const TrainingLayout& lay, double t_compute, double tokens_step, double fpt, double a2a) {
  const auto& [w, m, gpu, mem] = in.io;
  const double tp = in.tp, pp = in.pp, model_par = in.model_par;
  const LinkPlan& links = lay.links;
  const double dp = lay.dp, accum = lay.accum, ep = lay.ep, local_params = lay.local_params, grad_bytes = lay.grad_bytes;
  double exposed = 0;
  if (dp > 1) {
    // A ring over n ranks moves (n−1)/n of the bytes per rank per pass. With expert parallelism the routed
    // experts a rank holds are shared by dp/ep ranks only, on their own (sparser) group's links.
    const double expert_share = ep > 1 ? in.pc.routed_experts / ep / local_params : 0.0;
    const double edp = dp / ep;
    auto ring_seconds = [&](double bytes, double share) {
      const double dense = (1.0 - share) * bytes * (dp - 1.0) / dp / links.dp_bytes_per_s;
      return edp > 1 ? dense + share * bytes * (edp - 1.0) / edp / links.expert_dp_bytes_per_s : dense;
    };
    const double grad_share = lay.adapters ? 0.0 : expert_share;  // adapters: only their own gradients
    if (w.sharding == Sharding::zero3) {
      // FSDP/ZeRO-3 all-gathers the weights for the forward and again for the backward (the frozen base
      // too: LoRA under FSDP gathers the whole model) and reduce-scatters the gradients, every micro-batch
      // ([ZERO] §7: 1.5x the all-reduce volume for full training); prefetching hides it behind compute.
      // 16-bit weights, FP8 where Megatron keeps and gathers them so (--fp8-param-gather), 4-bit under QLoRA.
      const double gathered = w.mode == Mode::qlora ? 0.5 : fp8_params_gathered(w, m) ? 1.0 : 2.0;
      const double weight_bytes = local_params * gathered / model_par;
      // The forward's gathers overlap the forward and the backward's gathers and reduce-scatters the
      // backward, so the whole compute can hide it (recomputation reuses the backward's gathered unit).
      // Each transformer block is a unit: two all-gathers and a reduce-scatter per block, each paying NCCL's
      // latency, which grows with the ranks of the ring (FSDP over thousands of GPUs is latency-bound).
      const double latency = 3.0 * d(m.layers) / pp * links.dp_gather_latency_s;
      exposed += perf_detail::overlapped_cost(ring_seconds(2.0 * weight_bytes, expert_share) + ring_seconds(grad_bytes, grad_share) + latency, t_compute);
    } else {
      // Data parallel and ZeRO-1/2: one all-reduce (or reduce-scatter + all-gather) of the gradients per
      // optimizer step, overlapped with the last micro-batch's backward (about 2/3 of it).
      // The gradients go in buckets of max(4e7, 1e6·dp) parameters (Megatron-LM's default, larger with more
      // ranks so the collectives stay bandwidth-bound), each an all-reduce, or a reduce-scatter and an all-gather
      // with ZeRO-1/2, paying NCCL's latency.
      const double bucket = std::max(coef::dp_bucket_params.value, coef::dp_bucket_params_per_rank.value * dp);
      const double buckets = std::ceil(lay.grad_params / bucket);
      const double latency = buckets * (w.sharding == Sharding::none ? links.dp_allreduce_latency_s : 2.0 * links.dp_gather_latency_s);
      exposed += perf_detail::overlapped_cost(ring_seconds(2.0 * grad_bytes, grad_share) + latency, coef::dp_overlap_window.value * t_compute) / accum;
      // ZeRO-2 keeps only its shard of the gradients, so it cannot accumulate them whole: every micro-batch
      // reduce-scatters its own beside its backward (DeepSpeed's stage 2 reduces at every micro-step; Megatron-FSDP's
      // optim_grads "RS communication groups on all microbatches", mcore_fsdp_adapter.py), the step's all-gather once.
      if (w.sharding == Sharding::zero2 && accum > 1)
        exposed += (1.0 - 1.0 / accum) * perf_detail::overlapped_cost(ring_seconds(grad_bytes, grad_share) + buckets * links.dp_gather_latency_s,
                                                                      coef::dp_overlap_window.value * t_compute);
    }
  }
  const bool folded = m.is_moe() && experts_folded(w);
  // The attention's share of the compute: beside the linear layers (tensor parallel) or beside itself (context parallel).
  const double attention_share = w.tp > 1 || w.cp > 1 ? train_attention_flops_per_token(w, m, mem.seq_len) / fpt : 0.0;
  if (w.tp > 1) {
    // Tensor parallel: 4 all-reduces of b·s·h 16-bit activations per layer (2 forward, 2 backward), exposed. Experts
    // folded over tensor parallel are whole on each GPU: a MoE layer's experts need none, its attention 2.
    const double act = tokens_step * d(m.hidden) * 2.0;
    const double all_reduces = 4.0 * d(m.layers) - (folded ? 2.0 * d(m.layers - m.dense_layers) : 0.0);
    // Each collective also pays its latency (a small all-reduce's over NVLink or PCIe, as a decode step's; method.md §8.4).
    const double latency = gpu.fast_link_joins(w.tp) ? coef::tp_allreduce_latency_nvlink_s.value : coef::tp_allreduce_latency_pcie_s.value;
    const double tp_comm = all_reduces / pp * (2.0 * (tp - 1.0) / tp * act / links.tp_bytes_per_s + latency);
    // With --tp-comm-overlap each collective runs beside the GEMM it feeds or follows: the linear layers' share of
    // the compute hides them, slowed as any overlapped compute is.
    exposed += tp_comm_overlapped(w, m, gpu) ? perf_detail::overlapped_cost(tp_comm, t_compute * (1.0 - attention_share)) : tp_comm;
  }
  if (w.cp > 1 && links.cp_bytes_per_s > 0) {
    // Context parallelism (ring attention; Megatron/Transformer Engine's p2p CP): each layer passes every GPU's
    // key and value chunk round the ring of cp GPUs, cp−1 sends forward and, in the backward, the chunks again with
    // their gradients: 3·(cp−1) sends of b·s/cp·2·g·d 16-bit values, each beside the attention of the chunk in
    // hand (the attention's share of the step can hide it).
    const double cp = d(w.cp);
    const double chunk = tokens_step * 2.0 * d(m.kv_heads * m.head_dim) * 2.0;
    const double ring = 3.0 * (cp - 1.0) * chunk * d(m.layers) / pp / links.cp_bytes_per_s;
    const double attention = t_compute * attention_share;
    exposed += perf_detail::overlapped_cost(ring, attention);
  }
  if (m.is_moe() && w.ep > 1) {
    // The all-to-alls wait on the link, unless Megatron's batch-level overlap runs them beside another
    // micro-batch's compute (1F1B's steady state), slowing it as any collective does (method.md §8.4).
    const double share = expert_overlap_share(w, m);
    exposed += (1.0 - share) * a2a + share * perf_detail::overlapped_cost(a2a, t_compute);
  }
  return exposed;
}

// The optimizer step, memory-bound, per micro-batch (method.md §8.2), with a note when it is a large share.
double optimizer_step_seconds(const TimeBasis& in, const TrainingLayout& lay, double t_compute, TimeEstimate& t) {
  const auto& [w, m, gpu, mem] = in.io;
  const double model_par = in.model_par;
  const bool adapters = lay.adapters;
  const double dp = lay.dp, accum = lay.accum, local_params = lay.local_params;
  double t_opt = 0;
  const bool on_gpu = w.offload == Offload::none || w.offload == Offload::activations;  // the states stay on the GPU
  if (on_gpu && gpu.bandwidth_gb_per_s && !w.mfu) {  // a given --mfu is end to end: it holds the step
    // The optimizer step is bound by memory traffic: AdamW with fp32 master weights reads the master copy,
    // the gradient and both moments and writes them back with the 16-bit copy, about 30 bytes per local
    // parameter (fused multi-tensor AdamW at 80 % of peak bandwidth), once per optimizer step. Small
    // batches pay it on few tokens (method.md §8.2).
    const double opt_bytes = perf_detail::optimizer_step_bytes(w.optimizer);
    const double shards = w.sharding == Sharding::none ? 1.0 : dp;
    const double local = (adapters ? mem.params_trainable : local_params) / (model_par * shards);
    t_opt = local * opt_bytes / (*gpu.bandwidth_gb_per_s * 1e9 * coef::streaming_bandwidth_share.value) / accum;
    if (t_opt > 0.1 * t_compute)
      t.notes.push_back(Note::format("the optimizer step (memory-bound, about {:.0f} bytes per parameter) adds {:.0f}% to each micro-batch: "
                                    "more tokens per step (--batch, --grad-accum) amortise it",
                                    opt_bytes, 100.0 * t_opt / t_compute));
  }
  return t_opt;
}

// Megatron-Core's CPU offload of activations (method.md §4.5), per micro-batch: the offloaded layers' activations
// cross the GPU's own host link (PCIe, or NVLink-C2C on a Grace superchip) to host memory during the forward, a third
// of the compute (2 of its 6 FLOPs per parameter and token), and back during the backward, the other two thirds, on
// Transformer Engine's side stream beside the compute: only what outlasts each pass shows.
double activation_offload_seconds(const TimeBasis& in, double t_compute, TimeEstimate& t) {
  const auto& [w, m, gpu, mem] = in.io;
  if (mem.host_activations <= 0) return 0.0;
  const double move = mem.host_activations / perf_detail::host_to_device_bytes_per_s(gpu);
  const double forward = t_compute / 3.0, backward = t_compute - forward;
  const double exposed = std::max(0.0, move - forward) + std::max(0.0, move - backward);
  t.notes.push_back(Note::format("CPU offload of activations: {} layers' {:.1f} GB per micro-batch cross {} each way, {:.0f} ms against a {:.0f} ms "
                                 "forward{}", activation_offload_layers(w, m), mem.host_activations / 1e9, perf_detail::host_link_name(gpu),
                                 move * 1e3, forward * 1e3,
                                 exposed > 0 ? fmt::format(": {:.0f}% added to each micro-batch", 100.0 * exposed / t_compute)
                                             : std::string(": hidden behind the compute")));
  return exposed;
}

// CPU offload (ZeRO-Offload), per micro-batch: 16-bit gradients down and parameters up over PCIe each optimizer
// step (formulas §3.3) and the Adam update on the CPU (about 1e9 parameters/s assumed for DeepSpeed's CPU-Adam).
// With the parameters in host memory too (ZeRO-Infinity, arXiv:2104.07857 §4) every micro-batch loads each GPU's
// share of the 16-bit weights over PCIe for the forward, the backward and a recomputed forward (the frozen base of
// an adapter run too) and writes its gradients back; prefetching runs it beside the compute (`fetched`: its exposed
// part, paid per micro-batch). Host transfers cross the GPU's own host link (PCIe, GH200's NVLink-C2C).
double offload_seconds(const TimeBasis& in, const TrainingLayout& lay, double t_compute, double& fetched, TimeEstimate& t) {
  const auto& [w, m, gpu, mem] = in.io;
  fetched = 0;
  if (w.offload == Offload::none) return 0.0;
  if (w.offload == Offload::activations) return activation_offload_seconds(in, t_compute, t);
  const double shards = w.sharding == Sharding::none ? 1.0 : lay.dp;
  const double local = (lay.adapters ? mem.params_trainable : in.pc.total) / (in.model_par * shards);
  const double pcie = perf_detail::host_to_device_bytes_per_s(gpu);
  const double step = (4.0 * local / pcie + local / coef::cpu_adam_params_per_s.value) / lay.accum;
  if (w.offload == Offload::optimizer_params) {
    const double passes = 2.0 + (w.checkpointing == Checkpointing::full ? 1.0 : 0.0);
    fetched = perf_detail::overlapped_cost((passes * 2.0 * in.pc.total / (in.model_par * shards) + 2.0 * local) / pcie, t_compute);
  }
  const std::string link = perf_detail::host_link_name(gpu);
  t.notes.push_back(w.offload == Offload::optimizer_params
                        ? Note::format("CPU offload: the weights cross {} every micro-batch and the optimizer step waits on the CPU (slow; a last resort)", link)
                        : Note::format("CPU offload: the optimizer step waits on {} transfers and the CPU (slow; a last resort)", link));
  return step + fetched;
}

TimeEstimate training_time(const TimeBasis& in, TimeEstimate t) {
  const auto& [w, m, gpu, mem] = in.io;
  const PrecisionSupport& ps = in.ps;
  const auto& peak = in.peak;
  const double s = in.s, pp = in.pp, model_par = in.model_par;
  if (!peak) {
    t.notes.push_back(Note::format("no {} peak in the catalogue: training time unknown", ps.compute_key));
    return t;
  }
  // Time per token from the hardware up (method.md §8.2): the matmul FLOPs at the family's achieved share
  // of the dense peak, plus the memory-bound elementwise traffic at 80 % of the peak bandwidth (it is what
  // makes small models and bandwidth-poor cards reach a smaller share of their peak), plus QLoRA's
  // dequantisation of every 4-bit weight before each use. A given --mfu replaces all of it.
  const double fpt = train_flops_per_token(w, m, mem.seq_len);
  t.train_flops_per_token = fpt;
  // The tokens one GPU runs per micro-batch: context parallelism splits each sequence over cp GPUs (the attention
  // of each token still spans the whole sequence: fpt counts it at the full length).
  const double tokens_step = d(w.batch) * s / d(w.cp);
  double streamed_per_token = 0;
  const double token_s = training_seconds_per_token(in, fpt, tokens_step, streamed_per_token);
  const double mfu = w.mfu.value_or(fpt / (*peak * token_s));
  // One micro-batch of `batch` sequences runs through a model-parallel group of tp·pp GPUs; each GPU does
  // 1/(tp·pp) of its FLOPs.
  const double t_compute = tokens_step * fpt / (model_par * *peak * mfu);
  const TrainingLayout lay = training_layout(in);
  const LinkPlan& links = lay.links;
  const double accum = lay.accum;
  if (w.nodes > 1 && inter_node_bytes_per_s(gpu) <= 0) {
    t.notes.push_back(Note::format("{} nodes, but no network between nodes of this GPU is known ({}): training time unknown", w.nodes,
                                  gpu.node.network.empty() ? "not in the catalogue" : gpu.node.network));
    return t;
  }
  const double a2a = m.is_moe() && w.ep > 1 ? perf_detail::expert_all_to_all_seconds(in, tokens_step) : 0.0;  // per micro-batch
  const double exposed = exposed_communication(in, lay, t_compute, tokens_step, fpt, a2a);
  perf_detail::note_expert_overlap(in, a2a, t_compute, t);
  const double expert_host = perf_detail::expert_host_seconds(in, t_compute, fpt);
  double stage_time = t_compute + exposed + expert_host;
  const double bubble = w.pp > 1 ? pipeline_bubble(w.pp, accum, chunk_shrink(m.layers + m.encoder_layers, w.pp, w.virtual_stages)) : 0.0;
  if (w.pp > 1) {
    // Pipeline: each stage boundary sends b·s·h activations forward and their gradients back, and the
    // schedule idles (p−1)/(m+p−1) of the step with m micro-batches per step ([GPIPE], 1F1B). Megatron's
    // interleaved schedule gives each stage v chunks: the bubble shrinks to (p−1)/(v·m+p−1) and the sends grow
    // v-fold ([NARA] §2.2.2), but run beside the compute (overlap_p2p_comm, which Megatron-LM turns off only for
    // the non-interleaved schedule: arguments.py), so only what outlasts the compute shows.
    const double v = d(std::max<std::int64_t>(1, w.virtual_stages));
    const double act = tokens_step * d(m.hidden) * 2.0;
    if (links.pp_bytes_per_s > 0) {
      const double sends = 2.0 * v * act / links.pp_bytes_per_s;
      stage_time += v > 1 ? std::max(0.0, sends - t_compute) : sends;
    }
    stage_time /= (1.0 - bubble);
    if (bubble > 0.1 && w.virtual_stages > 1)
      t.notes.push_back(Note::format("pipeline bubble: {:.0f}% of each step idle with {} micro-batches over {} stages of {} interleaved chunks",
                                    100.0 * bubble, w.grad_accum, w.pp, w.virtual_stages));
    else if (bubble > 0.1)
      t.notes.push_back(Note::format("pipeline bubble: {:.0f}% of each step idle with {} micro-batches over {} stages",
                                    100.0 * bubble, w.grad_accum, w.pp));
  }
  const double t_opt = optimizer_step_seconds(in, lay, t_compute, t);
  double weights_fetched = 0;  // per micro-batch, what a larger micro-batch amortises
  stage_time += offload_seconds(in, lay, t_compute, weights_fetched, t);
  const double comm = stage_time - t_compute - expert_host / (1.0 - bubble);
  if (expert_host > 0.1 * t_compute)
    t.notes.push_back(Note::format("MoE experts at the host's pace: launching the {:.0f} local experts of each MoE layer one by one adds {:.0f}% to each "
                                  "micro-batch; more expert parallelism (--ep: fewer experts per GPU) or a larger micro-batch (--batch) amortises it",
                                  d(m.experts) / d(std::max<std::int64_t>(1, w.ep)), 100.0 * expert_host / t_compute));
  // Host dispatch (method.md §8.2): an eager framework launches every layer's kernels from the host, the forward's
  // and the backward's (and the recomputed forward's), at its per-layer host time per pass, the same trait that
  // bounds its decode; the GPU runs them as they come, so a micro-batch takes at least that long. Small models at
  // small micro-batches are bound by it. A given --mfu is end to end: it holds the step.
  const double passes = 2.0 + (w.checkpointing == Checkpointing::full ? 1.0 : 0.0);
  // A whole iteration in one CUDA graph (--full-cuda-graph) launches nothing from the host per layer.
  const double host = w.full_cuda_graph ? 0.0 : d(m.layers + m.encoder_layers) / pp * framework_profile(w.effective_framework()).layer_overhead_s * passes;
  const bool on_cpu = gpu.is_cpu() && !w.mfu, host_bound = !w.mfu && !on_cpu && host > stage_time;  // a CPU's cores dispatch and compute (§16)
  const double gpu_stage_time = stage_time;
  if (on_cpu) stage_time += host;
  if (host_bound) {
    t.notes.push_back(Note::format("host-bound: launching each layer's kernels takes about {:.1f} ms per micro-batch, longer than the GPU's "
                                  "{:.1f} ms; a larger micro-batch (--batch) runs at almost the same time per micro-batch",
                                  host * 1e3, stage_time * 1e3));
    stage_time = host;
  }
  // What a larger micro-batch would amortise: the host's excess, the experts' launches, the weights streamed.
  const double fixed =
      (host_bound ? host - gpu_stage_time : on_cpu ? host : 0.0) + expert_host + streamed_per_token * tokens_step / model_par + weights_fetched;
  stage_time += t_opt;
  // Per GPU: the micro-batch's tokens over the tp·pp GPUs that carry it, at the pace of the most loaded stage (an
  // uneven split idles the lighter stages).
  const double tps = tokens_step / d(w.tp * w.pp) / stage_time;
  if (comm > 0.1 * t_compute) t.notes.push_back(communication_note(comm / t_compute, links, gpu, w.offload != Offload::none));
  t.utilization = mfu;
  t.fixed_share = w.mfu ? 0.0 : std::clamp(fixed / stage_time, 0.0, 1.0);
  t.train_tokens_per_second_per_gpu = tps;
  t.bound = host_bound || expert_host > std::max(0.25 * t_compute, comm) ? k_host_bound : comm > 0.25 * t_compute ? "communication" : "compute";
  if (auto tokens = w.job_tokens(mem.seq_len)) t.job_seconds = *tokens / (tps * d(w.gpus));
  return t;
}

TimeEstimate estimate_time_point(const Workload& w, const ModelSpec& m, const GpuSpec& gpu, const MemoryEstimate& mem) {
  if (m.vision) return perf_detail::estimate_vision_time(w, m, gpu);
  TimeEstimate t;
  const PrecisionSupport ps = precision_support(w, gpu);
  t.compute_key = ps.compute_key;
  if (!ps.note.empty()) t.notes.push_back(ps.note);
  // Training's pipeline runs at the pace of its most loaded stage (Llama 3 405B's 126 layers over 16 stages hold
  // 8 on the largest; the last stage also runs the output projection and the loss: pipeline_pace_split).
  const ParamCounts pc = count_params(m);
  const double pp = is_training(w.mode) ? pipeline_pace_split(m, pc, w.pp) : d(w.pp);
  const TimeBasis in{{w, m, gpu, mem}, ps, gpu.peak_flops(ps.compute_key), d(mem.seq_len), pc, d(w.tp), pp, d(w.tp) * pp};
  return is_training(w.mode) ? training_time(in, std::move(t)) : perf_detail::inference_time(in, std::move(t));
}

}  // namespace

bool megatron_runs(const Workload& w, const ModelSpec& m) {
  const Framework f = w.effective_framework();
  const bool split = w.tp > 1 || w.pp > 1 || w.ep > 1 || w.cp > 1;
  return is_training(w.mode) && !m.vision && (f == Framework::megatron || (split && f != Framework::torchtitan && f != Framework::torchtune)) &&
         w.optimizer != Optimizer::adamw_8bit && w.optimizer != Optimizer::adafactor && w.offload != Offload::optimizer_params;
}

bool tp_comm_overlapped(const Workload& w, const ModelSpec& m, const GpuSpec& gpu) {
  return megatron_runs(w, m) && w.tp > 1 && !m.is_moe() && gpu.stack == "cuda" && gpu.fast_link_joins(w.tp);
}

namespace {
// Full FP8 training or fine-tuning run by Megatron-LM: its weights are FP8 parameters or a cache beside 16-bit ones.
bool megatron_full_fp8(const Workload& w, const ModelSpec& m) {
  return (w.mode == Mode::train || w.mode == Mode::finetune) && w.precision == Precision::fp8 && megatron_runs(w, m);
}
// Sharded, the optimizer offloaded, or one data-parallel rank (the distributed optimizer over it is plain Adam).
bool fp8_param_gather_allowed(const Workload& w) {
  return w.sharding != Sharding::none || w.offload == Offload::optimizer || w.data_parallel() == 1;
}
}  // namespace

bool fp8_params_gathered(const Workload& w, const ModelSpec& m) { return megatron_full_fp8(w, m) && fp8_param_gather_allowed(w); }

bool fp8_weight_cache(const Workload& w, const ModelSpec& m) { return megatron_full_fp8(w, m) && !fp8_param_gather_allowed(w); }

double pipeline_bubble(std::int64_t stages, double micro_batches, double virtual_stages) {
  if (stages < 2) return 0.0;
  const double p = d(stages), v = std::max(1.0, virtual_stages);
  return (p - 1.0) / (v * micro_batches + p - 1.0);
}

TimeEstimate estimate_time(const Workload& w, const ModelSpec& m, const GpuSpec& gpu, const MemoryEstimate& mem) {
  TimeEstimate t = estimate_time_point(w, m, gpu, mem);
  // The band (method.md §8.5): the family's spread on the utilisation (wider where it is a prior), widened
  // by exposed communication (link efficiency varies with message sizes and topology) and, for decode, the
  // engine's host overheads.
  const GpuFamily family = gpu_family(gpu);
  const FamilyEfficiency& fam = family_efficiency(family);
  double spread = w.mfu ? coef::band_mfu_given.value : fam.spread;
  // What drives the width, in words: the main driver (null: the family's utilisation) and what widens it.
  const char* driver = w.mfu ? "the utilisation given (--mfu)" : nullptr;
  const char* widened = "";
  if (t.bound == "communication") {
    spread += coef::band_exposed_communication.value;
    widened = "; exposed communication";
  } else if (t.train_tokens_per_second_per_gpu && t.bound == k_host_bound) {
    spread = std::max(spread, coef::band_host_bound.value);
    driver = m.is_moe() && framework_profile(w.effective_framework()).expert_host_loop
                 ? "the host's launches per local expert of each MoE layer (fitted on one Megatron-Bridge row)"
                 : "the framework's host time per layer (fitted on its decode rows; two passes per training micro-batch is a prior)";
  }
  TimeEstimate::Band band;
  double value = 0;
  if (t.train_tokens_per_second_per_gpu) {
    band.metric = "train_tokens_per_second_per_gpu";
    value = *t.train_tokens_per_second_per_gpu;
  } else if (t.images_per_second) {
    band.metric = "images_per_second";
    value = *t.images_per_second;
    spread = std::max(spread, coef::band_images.value);
    if (!w.mfu) {
      driver = m.vision && m.vision->task == "generation"
                   ? "the denoiser's tensor share, its element passes, its kernels and the host's eager dispatch (method.md §12.4; 40 held-out rows of nine sources: median 11 %, 90th percentile 25 %)"
                   : "the convolutions' and CUDA-core shares and the feature-map traffic (method.md §12.3; 48 held-out rows of timm and Lambda: median 12 %, 90th percentile 23 %)";
      widened = "";
    }
  } else if (t.decode_tokens_per_second) {
    band.metric = "decode_tokens_per_second";
    value = *t.decode_tokens_per_second;
    spread = t.bound == "memory bandwidth" ? coef::band_decode_bandwidth.value : coef::band_decode_overheads.value;
    driver = t.bound == "memory bandwidth" ? "the achieved share of peak bandwidth"
             : t.bound == "MoE kernels' fixed cost" ? "the fused MoE kernels' fixed cost per layer (fitted on one engine's row; engine versions differ several-fold)"
             : t.bound == "tensor-parallel all-reduces" ? "the all-reduce latency per layer"
             : t.bound == "the CPU's layers in host memory" || t.bound == "the CPU's experts in host memory" ? "the host's memory bandwidth (its channels and DDR speed: the estimate takes a desktop's two DDR5-5600 channels, a server socket's eight DDR5-4800)"
                                                        : "the engine's per-layer host and kernel overheads";
    widened = m.is_moe() && t.bound != "MoE kernels' fixed cost" ? "; the experts a batch touches" : "";
  }
  // Serving through ROCm (method.md §8.5): the estimate is AMD's tuned build (AITER, tuned MoE configs); an untuned
  // or regressed build of the same engine runs up to band_rocm_engine_builds times slower, the band's low end.
  const bool rocm_serving = t.decode_tokens_per_second && gpu.stack == "rocm" && framework_profile(w.effective_framework()).kv_pool;
  if (value > 0) {
    band.low = value / std::max(1.0 + spread, rocm_serving ? coef::band_rocm_engine_builds.value : 0.0);
    band.high = value * (1.0 + spread);
    const char* build = rocm_serving ? "; below, the ROCm build (AITER off, untuned MoE configs or a regressed release: up to 2.1x slower)" : "";
    band.drivers = driver ? Note::format("{}{}{}", driver, widened, build)
                          : Note::format("the {} utilisation ({}){}{}", to_string(family), fam.basis, widened, build);
    t.band = band;
  }
  return t;
}

}  // namespace gpuadvise
