// The links a plan's collectives use and what they achieve: docs/method.md §8.4.
#include <algorithm>
#include <cmath>
#include <iterator>
#include <fmt/format.h>

#include "gpuadvise/coefficients.hpp"
#include "gpuadvise/perf.hpp"
#include "perf_common.hpp"

namespace gpuadvise {

// Achieved collective bandwidth per GPU inside one node (NCCL bus bandwidth, method.md §8.4): 80 % of the
// one-way figure of the fast link (NVLink/NVSwitch, xGMI, Gaudi's scale-up RoCE; the catalogue figure is both
// directions: an H100 SXM pair measured 749 of 900 GB/s, [NCCL1264]) when the whole group sits in one
// fast-link domain (bridges join pairs only), else PCIe at 16 GB/s per direction per generation step from
// gen 3. Without PCIe peer-to-peer (GeForce cards on the stock driver) every transfer is staged through
// host memory: two PCIe crossings, half the rate.
double intra_node_bytes_per_s(const GpuSpec& g, std::int64_t group) {
  double pcie = std::ldexp(16e9, std::max(0, g.pcie_gen.value_or(4) - 3));  // 16e9 x 2^(gen - 3), exactly
  if (g.node.pcie_p2p == false) pcie /= 2.0;
  const double one_way = g.fast_link_joins(group) ? std::max(pcie, *g.interconnect_gb_per_s * 1e9 / 2.0) : pcie;
  return one_way * coef::link_efficiency.value;
}

// Between nodes: the network per GPU (rail-optimised NICs, one per GPU on HGX/OAM nodes) at what NCCL reaches
// per NIC (coef::network_efficiency); 0 when the catalogue knows none.
double inter_node_bytes_per_s(const GpuSpec& g) { return g.node.network_gbit_per_gpu.value_or(0) / 8.0 * 1e9 * coef::network_efficiency.value; }

// The bus bandwidth of a ring collective (all-reduce, reduce-scatter, all-gather) over a group with `in_node`
// of its GPUs in each of several nodes (method.md §8.4). NCCL runs a ring per channel and a channel per NIC;
// each ring leaves every node once, so everything a node sends to the next goes over the NICs of the group's
// GPUs in it (rails: every GPU drives its own NIC, and the other groups of the layout use theirs at the same
// time): in_node x the network per GPU, or the node's own links if they are slower. Eight 400 Gb/s rails carry
// 376 GB/s, about NVSwitch's achieved rate: an all-reduce over two HGX H100 nodes runs as fast as inside one.
double ring_bytes_per_s_across_nodes(const GpuSpec& g, std::int64_t in_node) {
  return std::min(intra_node_bytes_per_s(g, in_node), static_cast<double>(std::max<std::int64_t>(1, in_node)) * inter_node_bytes_per_s(g));
}

void perf_detail::append_link_name(fmt::memory_buffer& out, const GpuSpec& g, Link link) {
  auto to = std::back_inserter(out);
  switch (link) {
    case Link::none: return;
    case Link::fast: fmt::format_to(to, "{} ({:.0f} GB/s)", g.interconnect, g.interconnect_gb_per_s.value_or(0)); return;
    case Link::pcie: fmt::format_to(to, "PCIe {}.0{}", g.pcie_gen.value_or(4), g.node.pcie_p2p == false ? " via host memory (no P2P)" : ""); return;
    case Link::network: fmt::format_to(to, "{} ({:.0f} Gb/s per GPU)", g.node.network, g.node.network_gbit_per_gpu.value_or(0)); return;
  }
}

std::string link_name(const GpuSpec& g, Link link) {
  fmt::memory_buffer b;
  perf_detail::append_link_name(b, g, link);
  return fmt::to_string(b);
}

namespace {
// NCCL's latency model (src/graph/tuning.cc, Simple protocol; method.md §8.4): a base per collective, then a hop
// per ring step, the network's where the step leaves a node. A ring all-gather or reduce-scatter takes n−1 steps
// (nodes−1 of them across nodes), an all-reduce twice that, or a tree's 2·(ranks per node − 1 + log2 nodes).
void set_dp_latency(LinkPlan& l, std::int64_t dp, std::int64_t dp_in_node, bool fast) {
  if (dp <= 1) return;
  const double base = coef::nccl_base_latency_s.value, net = coef::nccl_hop_network_s.value;
  const double intra = fast ? coef::nccl_hop_nvlink_s.value : coef::nccl_hop_pcie_s.value;
  const std::int64_t nodes = dp > dp_in_node ? (dp + dp_in_node - 1) / dp_in_node : 1;
  const double steps = static_cast<double>(dp - 1), across = static_cast<double>(nodes - 1);
  const double ring = (steps - across) * intra + across * net;
  l.dp_gather_latency_s = base + ring;
  const double ppn = static_cast<double>(std::min(dp, dp_in_node));
  l.dp_allreduce_latency_s = base + 2.0 * std::min(ring, (ppn - 1.0) * intra + std::log2(static_cast<double>(nodes)) * net);
}

// A workload's or a plan's layout: both have the same layout fields.
template <class Layout>
LinkPlan links_of(const GpuSpec& g, const Layout& w) {
  LinkPlan l;
  const std::int64_t per_node = w.gpus_per_node();
  auto intra = [&](std::int64_t group) { return g.fast_link_joins(group) ? Link::fast : Link::pcie; };
  l.tp_bytes_per_s = intra_node_bytes_per_s(g, w.tp);
  if (w.tp > 1) l.tp_link = intra(w.tp);
  l.dp_bytes_per_s = intra_node_bytes_per_s(g, per_node);
  if (w.gpus > 1 && w.replica_ranks() > 1) l.dp_link = intra(per_node);
  // Megatron's rank order puts context parallel right after tensor parallel: a ring of cp GPUs tp apart, inside a
  // node while tp·cp fits one, else over each GPU's own NIC.
  if (w.cp > 1) {
    const bool in_node = w.tp * w.cp <= per_node;
    l.cp_bytes_per_s = in_node ? intra_node_bytes_per_s(g, w.tp * w.cp) : inter_node_bytes_per_s(g);
    l.cp_link = in_node ? intra(w.tp * w.cp) : Link::network;
  }
  l.pp_bytes_per_s = l.dp_bytes_per_s;
  l.expert_dp_bytes_per_s = l.dp_bytes_per_s;
  if (w.pp > 1) l.pp_link = intra(per_node);
  if (w.nodes > 1) {
    // Megatron's rank order (tensor parallel fastest, then data parallel, then pipeline): a data-parallel group
    // has per_node / tp of its ranks in each node and leaves the node once tp x dp exceeds it; pipeline stages
    // sit in different nodes, each boundary a send from every tensor-parallel rank over its own NIC.
    const double net = inter_node_bytes_per_s(g);
    const std::int64_t dp = w.replica_ranks();
    const std::int64_t dp_in_node = std::clamp<std::int64_t>(per_node / std::max<std::int64_t>(1, w.tp), 1, dp);
    if (dp > dp_in_node) {
      l.dp_bytes_per_s = net > 0 ? ring_bytes_per_s_across_nodes(g, dp_in_node) : 0.0;
      l.dp_link = Link::network;
    }
    // Expert parallel groups are consecutive data-parallel ranks, so the ranks holding the same experts are
    // every ep-th one: dp_in_node / ep of them in a node (at least one), across nodes once dp / ep exceeds it.
    const std::int64_t ep = expert_shards(w);
    const std::int64_t edp = std::max<std::int64_t>(1, dp / ep), edp_in_node = std::max<std::int64_t>(1, dp_in_node / ep);
    l.expert_dp_bytes_per_s = edp > edp_in_node ? (net > 0 ? ring_bytes_per_s_across_nodes(g, edp_in_node) : 0.0) : l.dp_bytes_per_s;
    if (w.pp > 1) {
      l.pp_bytes_per_s = net > 0 ? std::min(l.pp_bytes_per_s, net) : 0.0;
      l.pp_link = Link::network;
    }
    set_dp_latency(l, dp, dp_in_node, g.fast_link_joins(std::min(dp_in_node, per_node)));
  } else {
    set_dp_latency(l, w.replica_ranks(), w.replica_ranks(), g.fast_link_joins(per_node));
  }
  return l;
}
}  // namespace

LinkPlan plan_links(const GpuSpec& g, const Workload& w) { return links_of(g, w); }
LinkPlan plan_links(const GpuSpec& g, const PlanShape& p) { return links_of(g, p); }

}  // namespace gpuadvise
