#pragma once
// A GPU of the catalogue: memory, bandwidth, dense peak throughput per precision, interconnect,
// software stack, prices. Every value keeps its source in data/gpus.json; unknowns stay empty.
#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuadvise/workload.hpp"

namespace gpuadvise {

enum class Segment { consumer, workstation, datacenter_pcie, datacenter_module, edge };
std::string to_string(Segment s);

// Dense peak TFLOPS (TOPS for int8) per precision key, in the catalogue's order; each may be unknown (null in
// the catalogue). A fixed table: every GPU has the same keys, and estimates look them up by key.
struct DenseTflops {
  static constexpr std::array<std::string_view, 7> keys{"fp32", "tf32", "fp16", "bf16", "fp8", "int8", "fp4"};
  std::array<std::optional<double>, 7> values{};
  // Where a key sits in `keys`; -1 for any other key. Compared as literals (no library call): the estimator
  // asks for a peak several times per evaluation.
  static constexpr int index_of(std::string_view key) {
    if (key.size() == 3) return key == "fp8" ? 4 : key == "fp4" ? 6 : -1;
    if (key.size() == 4) return key == "bf16" ? 3 : key == "fp16" ? 2 : key == "fp32" ? 0 : key == "tf32" ? 1 : key == "int8" ? 5 : -1;
    return -1;
  }
  // The entry of one of `keys`; empty for any other key.
  std::optional<double> get(std::string_view key) const {
    const int i = index_of(key);
    return i < 0 ? std::nullopt : values[static_cast<std::size_t>(i)];
  }
  bool operator==(const DenseTflops&) const = default;
};
static_assert([] {
  for (std::size_t i = 0; i < DenseTflops::keys.size(); ++i)
    if (DenseTflops::index_of(DenseTflops::keys[i]) != static_cast<int>(i)) return false;
  return true;
}(), "DenseTflops::index_of must follow DenseTflops::keys");

struct PriceOffer {
  std::string provider;
  std::optional<double> usd_per_gpu_hour;
  std::string date_seen;
  std::string source;
  std::string note;
  bool operator==(const PriceOffer&) const = default;
};

// Where a GPU lives: the server it comes in and how it talks to the others (data/gpus.json "node",
// servers.md Table 1a). Unknowns stay empty.
struct NodeSpec {
  std::optional<int> gpus_per_node;         // GPUs in one common server (HGX/OAM boards: 8; GH200 cloud nodes: 1)
  int fast_link_gpus = 0;                   // GPUs one NVLink/xGMI/scale-up fabric joins (bridged pairs: 2; none: 0)
  std::optional<bool> pcie_p2p;             // PCIe peer-to-peer with the stock driver
  std::optional<double> network_gbit_per_gpu;  // between nodes, Gb/s per GPU; 0: none (no multi-node plans)
  std::string network;                      // what that network is
  std::optional<double> host_ram_gb;        // host memory of such a node (bounds CPU offload)
  std::string source;
  bool operator==(const NodeSpec&) const = default;
};

// The widest server (an HGX/OAM baseboard of 8); a node wider than it is a rack-scale NVLink domain, whose compute
// trays hold 4 GPUs and their own host each (NVL72: 18 trays).
inline constexpr int k_server_gpus = 8;
inline constexpr int k_tray_gpus = 4;

struct GpuSpec {
  std::string id, vendor, name, architecture, form_factor, memory_type;
  Segment segment = Segment::datacenter_module;
  double nominal_memory_gb = 0;
  std::int64_t memory_bytes = 0;     // total as CUDA/ROCm reports it (or nominal, see capacity_basis)
  std::string capacity_basis;        // "reported" or "nominal"
  std::optional<double> bandwidth_gb_per_s;
  DenseTflops dense_tflops;
  std::string interconnect;          // "NVLink 4", "none", ...
  std::optional<double> interconnect_gb_per_s;  // per GPU; 0 = none
  std::optional<int> pcie_gen;
  // A link to the host's memory other than PCIe, both directions together (GH200's NVLink-C2C to its Grace CPU:
  // 900 GB/s); unset: the GPU's PCIe.
  std::optional<double> host_link_gb_per_s;
  std::optional<double> board_power_w;
  // The SM clock a power-capped card holds under sustained tensor load, as a share of the boost clock its
  // published peaks assume (the T4 at 70 W: about 900 of 1,590 MHz): every compute peak scales by it, the memory
  // bandwidth does not (method.md §8.2). Unknown (null) for the rest: their peaks stand as published.
  std::optional<double> sustained_clock_share;
  // Streaming multiprocessors (AMD: compute units) and their boost clock: what limits a kernel whose bytes in
  // flight per multiprocessor are few (Little's law; method.md §8.3). Unknown (null) where not sourced.
  std::optional<int> multiprocessors;
  std::optional<double> boost_clock_mhz;
  std::string stack;                 // cuda, rocm, synapseai
  std::optional<std::string> compute_capability;
  std::optional<std::string> gfx_target;
  bool needs_server_chassis = false;
  std::optional<int> nvdec_engines;
  // The vendor's published H.264 1080p30 decode streams for the whole card, where there is one.
  std::optional<double> decode_streams_1080p30;
  NodeSpec node;
  bool fp8 = false, fp4 = false;     // tensor units take these formats (a peak may still be unknown)
  std::optional<double> purchase_usd;  // list price of one GPU (owned-hardware costing), when sourced
  std::vector<PriceOffer> prices;
  std::map<std::string, std::string> sources;
  std::vector<std::string> uncertain;
  std::string notes;

  bool has_nvlink() const { return interconnect_gb_per_s.value_or(0) > 0; }
  // A CPU instance of data/cpus.json (method.md §16), planned as one device beside the GPUs.
  bool is_cpu() const { return stack == "cpu"; }
  // GPUs in one node: the catalogue's figure, else the usual for the segment (8 in a server, 4 in a
  // workstation or desktop); node_size_assumed() says which.
  int gpus_per_node() const;
  bool node_size_assumed() const { return !node.gpus_per_node.has_value(); }
  // Plans may span nodes only where a network between them is known.
  bool multi_node() const { return node.network_gbit_per_gpu.value_or(0) > 0; }
  // A node wider than a server: an NVL72 rack, one NVLink domain of compute trays, each with its own host.
  bool rack_scale() const { return gpus_per_node() > k_server_gpus; }
  // The GPUs a plan on `gpus` of them rents: a rack-scale node's come by the Superchip, one Grace and two GPUs
  // (Spheron prices the GB200 per Superchip and rents no single GPU), so a one-GPU plan bills two.
  std::int64_t billed_gpus(std::int64_t gpus) const { return rack_scale() ? std::max<std::int64_t>(gpus, 2) : gpus; }
  // Dense peak FLOP/s for a compute precision; empty when the GPU lacks it or it is unknown.
  std::optional<double> peak_flops(std::string_view key) const;
  // The first offer of a provider whose name contains `provider` (any case), priced or not; nullptr if none.
  const PriceOffer* offer_from(const std::string& provider) const;
  bool offered_by(const std::string& provider) const { return offer_from(provider) != nullptr; }
  // One fast link (NVLink/NVSwitch, xGMI, a bridge, Gaudi's scale-up RoCE) joins every GPU of a group of
  // this size inside a node.
  bool fast_link_joins(std::int64_t group) const { return has_nvlink() && group <= std::max(1, node.fast_link_gpus); }
  // The lowest on-demand price with a number, if any.
  const PriceOffer* cheapest_offer(const std::string& provider = "") const;
  // The offers with a price (of `provider` where given), cheapest first.
  std::vector<const PriceOffer*> priced_offers(const std::string& provider = "") const;
  // CUDA compute capability as a number (8.0, 9.0 ...), 0 when not a CUDA GPU.
  double cc() const;
  bool operator==(const GpuSpec&) const = default;
};

struct GpuCatalog {
  std::string version;
  std::vector<GpuSpec> gpus;
  const GpuSpec* find(const std::string& id) const;
  // An id as people write it: any case, spaces or underscores, nvidia-smi and SkyPilot names ("H100",
  // "A100-80GB", "NVIDIA GeForce RTX 4090", "RTXPRO6000"); nullptr when nothing matches.
  const GpuSpec* resolve(const std::string& name) const;
  std::vector<std::string> ids() const;
};

}  // namespace gpuadvise
