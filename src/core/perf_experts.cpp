// The routed experts of a training micro-batch: launched one by one from the host (method.md §8.2, "experts at
// the host's pace") and dispatched to their expert-parallel ranks by all-to-alls (§8.4).
#include "perf_common.hpp"

#include "gpuadvise/coefficients.hpp"
#include "gpuadvise/framework.hpp"

#include <algorithm>
#include <cmath>

namespace gpuadvise::perf_detail {

// Where Megatron runs the overlap, asked or not (transformer_config.py's assertions, and a second micro-batch).
static bool overlap_runs(const Workload& w, const ModelSpec& m) {
  const bool precision = w.precision == Precision::bf16 || w.precision == Precision::fp16 || w.precision == Precision::fp8;
  return m.is_moe() && w.ep > 1 && w.effective_framework() == Framework::megatron && w.checkpointing != Checkpointing::full &&
         (w.pp == 1 || w.virtual_stages > 1) && precision && w.grad_accum >= 2;
}

// A dropless MoE layer learns how many tokens each local expert got only on the host: Megatron's token
// dispatcher copies tokens_per_expert to the CPU and waits for it (the all-to-all splits and the grouped GEMM's
// m_splits need it), Hugging Face's eager layer tests each expert's mask. The GPU's queue is then empty, and the
// host issues the experts' work expert by expert (Transformer Engine's GroupedLinear quantises, launches and, in
// the backward, accumulates each expert's GEMMs in Python loops; Hugging Face's loop runs three projections per
// expert), so the experts take the longer of their GPU time and that host time; the rest of the layer runs at the
// GPU's pace. Returns the host time beyond the experts' GPU time per micro-batch on the most loaded stage.
// torchtitan's grouped_mm and the inference engines' fused MoE kernels launch one kernel for all experts.
double expert_host_seconds(const TimeBasis& in, double t_compute, double fpt) {
  const auto& [w, m, gpu, mem] = in.io;
  // A whole iteration captured in one CUDA graph replays the experts' kernels without the host (static shapes: the
  // recipes pad each expert to a capacity).
  if (!m.is_moe() || m.experts <= 0 || w.mfu || fpt <= 0 || w.full_cuda_graph || !framework_profile(w.effective_framework()).expert_host_loop) return 0.0;
  const bool recompute = w.checkpointing == Checkpointing::full;
  const double local = d(m.experts) / d(std::max<std::int64_t>(1, w.ep));
  // Forward and backward (coef::expert_host_s); a recomputed forward launches the forward's half again.
  const double host = d(m.layers - m.dense_layers) / in.pp * local * coef::expert_host_s.value * (recompute ? 1.5 : 1.0);
  // The experts' GPU time: their share of the step's FLOPs (2 per active routed weight and token per pass).
  const bool frozen = w.mode == Mode::lora || w.mode == Mode::qlora;
  const double passes = (frozen ? 2.0 : 3.0) + (recompute ? 1.0 : 0.0);
  const double routed_active = in.pc.routed_experts * d(m.experts_per_token) / d(m.experts);
  const double gpu_experts = t_compute * std::min(1.0, 2.0 * routed_active * passes / fpt);
  return std::max(0.0, host - gpu_experts);
}

// Expert parallelism: every MoE layer dispatches each token's hidden state to its k experts and combines the
// results (two all-to-alls forward, two backward), (ep−1)/ep of it leaving the GPU, exposed (DeepSpeed-MoE,
// GShard). An expert-parallel group is ep data-parallel ranks tp apart (Megatron's rank order), per_node/tp of them
// in a node, or, folded over tensor parallel (method.md §3.4), ep consecutive GPUs: what goes to the peers in the
// node crosses NVLink, what goes to the others the GPU's own NIC, both at once (method.md §8.4). Full activation
// recomputation reruns each layer's forward, its dispatch and combine included (Megatron's full granularity
// recomputes the whole TransformerLayer): six all-to-alls per layer instead of four.
double expert_all_to_all_seconds(const TimeBasis& in, double tokens_step) {
  const auto& [w, m, gpu, mem] = in.io;
  const double tp = in.tp, group = d(w.ep), stride = experts_folded(w) ? 1.0 : tp;
  const double moe_layers = d(m.layers - m.dense_layers) / in.pp;
  const double sent = tokens_step / tp * d(m.experts_per_token) * d(m.hidden) * 2.0;
  const double peers_in_node = std::clamp(std::floor(d(w.gpus_per_node()) / stride), 1.0, group);
  const double inside =
      peers_in_node > 1 ? sent * (peers_in_node - 1.0) / group / intra_node_bytes_per_s(gpu, static_cast<std::int64_t>(peers_in_node * stride)) : 0.0;
  const double net = inter_node_bytes_per_s(gpu);
  const double outside = group > peers_in_node ? (net > 0 ? sent * (group - peers_in_node) / group / net : 0.0) : 0.0;
  const double passes = w.checkpointing == Checkpointing::full ? 6.0 : 4.0;
  return passes * moe_layers * std::max(inside, outside);
}

// Expert parallelism over a serving engine's data-parallel ranks (--ep without attention data parallel; method.md §8.3):
// every MoE layer dispatches each token to the GPUs that hold its k experts and combines their outputs back, as
// DeepEP does for SGLang and vLLM (deepseek-ai/DeepEP README): decode steps in its low-latency kernels, one copy per
// routed expert, straight over RDMA; prompts in its normal kernels, one copy per node that holds any of the token's
// experts (E[distinct] = N·(1 − (1 − 1/N)^k) of the group's N nodes, routing taken as uniform), forwarded over
// NVLink inside it. The dispatch carries FP8 under an fp8 model (DeepEP's FP8 dispatch), the combine 16 bits. The
// copies to peers in the node cross NVLink, the rest the GPU's own NIC, both at once; the exchange is exposed
// (two-batch overlap, which can hide part of it, is not modelled). Seconds for `tokens` of one rank through one stage.
double serving_expert_exchange_seconds(const TimeBasis& in, double tokens, bool prompt) {
  const auto& [w, m, gpu, mem] = in.io;
  if (!m.is_moe() || !experts_over_serving_ranks(w)) return 0.0;
  const double tp = in.tp, group = d(w.ep), k = d(m.experts_per_token);
  const double peers = std::clamp(std::floor(d(w.gpus_per_node()) / tp), 1.0, group);  // the group's ranks in one node
  const double nodes = std::ceil(group / peers);
  const double remote = prompt ? nodes * (1.0 - std::pow(1.0 - 1.0 / nodes, k)) * (nodes - 1.0) / nodes : k * (group - peers) / group;
  const double local = k * (peers - 1.0) / group;
  const double copy_bytes = d(m.hidden) * ((w.precision == Precision::fp8 ? 1.0 : 2.0) + 2.0);  // dispatch + combine
  const double sent = tokens / tp * copy_bytes;
  const double net = inter_node_bytes_per_s(gpu);
  const double inside = local > 0 ? sent * local / intra_node_bytes_per_s(gpu, static_cast<std::int64_t>(peers * tp)) : 0.0;
  const double outside = remote > 0 ? (net > 0 ? sent * remote / net : 0.0) : 0.0;
  return d(m.layers - m.dense_layers) / in.pp * std::max(inside, outside);
}

// What the exchange costs a decode step of `step` seconds (`exchange` of them) and a prompt token.
Note expert_exchange_note(const TimeBasis& in, double exchange, double step) {
  const auto& [w, m, gpu, mem] = in.io;
  return Note::format("experts split over {} GPUs: each decode step dispatches and combines every token's {} expert copies ({}, 16-bit back; "
                      "DeepEP's low-latency kernels): {:.1f} ms of the {:.1f} ms step; a prompt sends one copy per node its experts sit on, "
                      "{:.1f} us a token (its normal kernels)",
                      w.ep, m.experts_per_token, w.precision == Precision::fp8 ? "FP8 out" : "16-bit out", exchange * 1e3, step * 1e3,
                      serving_expert_exchange_seconds(in, 1.0, true) * 1e6);
}

void note_expert_overlap(const TimeBasis& in, double a2a, double t_compute, TimeEstimate& t) {
  const auto& [w, m, gpu, mem] = in.io;
  if (!m.is_moe()) return;
  if (!w.ep_overlap) {  // not asked: say what it would hide where Megatron could run it and the all-to-alls weigh
    if (overlap_runs(w, m) && a2a > 0.1 * t_compute)
      t.notes.push_back(Note::format("the expert all-to-alls wait on the link, {:.0f}% of each micro-batch's compute: Megatron can run them beside "
                                     "another micro-batch's (--ep-overlap, its --overlap-moe-expert-parallel-comm)",
                                     100.0 * a2a / t_compute));
    return;
  }
  t.notes.push_back(expert_all_to_all_overlapped(w, m)
                        ? Note::format("--ep-overlap: {:.0f}% of the micro-batches run their expert all-to-alls beside another's compute "
                                       "(1F1B's steady state: {} micro-batches over {} pipeline stages)",
                                       100.0 * expert_overlap_share(w, m), w.grad_accum, w.pp)
                        : Note("--ep-overlap does not apply to this layout (it needs expert parallel 2 or more, an interleaved schedule where there "
                                       "are pipeline stages, no full recomputation and two or more micro-batches a step): the all-to-alls wait on the link"));
}

}  // namespace gpuadvise::perf_detail

namespace gpuadvise {

bool expert_all_to_all_overlapped(const Workload& w, const ModelSpec& m) { return w.ep_overlap && perf_detail::overlap_runs(w, m); }

double expert_overlap_share(const Workload& w, const ModelSpec& m) {
  if (!expert_all_to_all_overlapped(w, m)) return 0.0;
  const double micro = perf_detail::d(w.grad_accum), stages = perf_detail::d(w.pp);
  return std::max(0.0, micro - stages) / micro;
}

}  // namespace gpuadvise
