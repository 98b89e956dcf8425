// A serving plan's throughput-interactivity front (method.md §8.3): what the GPU gives in output tokens per second
// per GPU against what each user sees (tokens per second, 1 / TPOT), over the concurrencies and the
// tensor-parallel degrees of one replica (disaggregated: of the plan's replicas), as NVIDIA's aiconfigurator and
// the engines' benchmark sweeps show it.
#include <algorithm>
#include <vector>

#include "gpuadvise/memory.hpp"
#include "gpuadvise/perf.hpp"
#include "layout_space.hpp"
#include "ranking_common.hpp"

namespace gpuadvise {

namespace {
// The points of one replica's layout at concurrencies 1, 2, 4, ... up to what its pool runs at once.
void layout_points(Workload p, const ModelSpec& m, const GpuSpec& g, const CostOptions& cost, double asked, std::vector<ServingPoint>& out) {
  p.batch = 1;
  Candidate c;
  const LocalCorrection* k = ranking_detail::assess_fit(c, p, m, g, cost);
  if (!c.fits || !c.memory.vllm) return;
  const auto cap = static_cast<std::int64_t>(std::min(ranking_detail::pool_sequences(c.memory, p, m), std::max(ranking_detail::engine_max_seqs(c.memory, g), asked)));
  const double speed = k ? k->speed_factor : 1.0;  // a local correction scales the speed, as score_layout does
  for (std::int64_t doubled = 1; cap >= 1; doubled *= 2) {
    const std::int64_t b = std::min(doubled, cap);
    p.batch = b;
    const TimeEstimate t = estimate_time(p, m, g, c.memory);
    if (!t.tpot_seconds || *t.tpot_seconds <= 0 || !t.decode_tokens_per_second) return;
    ServingPoint s;
    s.gpus = p.gpus;
    s.tp = p.tp;
    s.pp = p.pp;
    s.concurrency = b;
    s.tpot_seconds = *t.tpot_seconds / speed;
    s.tokens_per_second_per_user = 1.0 / s.tpot_seconds;
    // A replica's output over its GPUs (disaggregated: the plan's output averaged over its replicas).
    const double replica_rate = *t.decode_tokens_per_second * speed;
    s.tokens_per_second_per_gpu = replica_rate / static_cast<double>(p.tp * p.pp);
    s.ttft_seconds = t.ttft_seconds;
    if (t.ttft_seconds) *s.ttft_seconds /= speed;
    if (p.output_tokens && *p.output_tokens > 0) s.requests_per_second = replica_rate / *p.output_tokens;
    out.push_back(s);
    if (b == cap) return;
  }
}
}  // namespace

std::vector<ServingPoint> ranking_detail::serving_front(const Workload& w, const ModelSpec& m, const GpuSpec& g, const CostOptions& cost) {
  std::vector<ServingPoint> points;
  if (is_training(w.mode) || m.vision || !framework_profile(w.effective_framework()).kv_pool) return points;
  const std::int64_t per_node = g.gpus_per_node();
  // Disaggregated serving splits replicas into pools: each layout at the plan's GPU count (two replicas or more).
  auto replica = [&](std::int64_t tp, std::int64_t pp) {
    Workload p = w;
    p.tp = tp;
    p.pp = pp;
    p.gpus = w.disaggregate && w.gpus % (tp * pp) == 0 ? w.gpus : tp * pp;
    p.nodes = std::max<std::int64_t>(1, (p.gpus + per_node - 1) / per_node);
    p.explain = false;
    return p;
  };
  // The plan's own layout, then one replica at each tensor-parallel degree inside a node.
  layout_points(replica(w.tp, w.pp), m, g, cost, static_cast<double>(w.batch), points);
  for (std::int64_t tp = 1; tp <= per_node; tp *= 2)
    if ((tp != w.tp || w.pp != 1) && layout_space::tp_divides(m, tp, false)) layout_points(replica(tp, 1), m, g, cost, static_cast<double>(w.batch), points);
  // The front: by speed per user, fastest first, each point kept only if it gives more per GPU than every faster one.
  std::sort(points.begin(), points.end(), [](const ServingPoint& a, const ServingPoint& b) {
    return a.tokens_per_second_per_user != b.tokens_per_second_per_user ? a.tokens_per_second_per_user > b.tokens_per_second_per_user
                                                                          : a.tokens_per_second_per_gpu > b.tokens_per_second_per_gpu;
  });
  std::vector<ServingPoint> front;
  for (const ServingPoint& s : points)
    if (front.empty() || s.tokens_per_second_per_gpu > front.back().tokens_per_second_per_gpu) front.push_back(s);
  return front;
}

}  // namespace gpuadvise
