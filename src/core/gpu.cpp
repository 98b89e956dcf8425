#include "gpuadvise/gpu.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <limits>

namespace gpuadvise {

std::string to_string(Segment s) {
  switch (s) {
    case Segment::consumer: return "consumer";
    case Segment::workstation: return "workstation";
    case Segment::datacenter_pcie: return "datacenter-pcie";
    case Segment::datacenter_module: return "datacenter-module";
  }
  return "?";
}

std::optional<double> GpuSpec::peak_flops(const std::string& key) const {
  auto it = dense_tflops.find(key);
  if (it == dense_tflops.end() || !it->second) return std::nullopt;
  return *it->second * 1e12;
}

namespace {
bool contains_nocase(const std::string& hay, const std::string& needle) {
  auto lower = [](std::string x) {
    for (auto& ch : x) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return x;
  };
  return lower(hay).find(lower(needle)) != std::string::npos;
}
}  // namespace

bool GpuSpec::offered_by(const std::string& provider) const {
  for (const auto& p : prices)
    if (contains_nocase(p.provider, provider)) return true;
  return false;
}

const PriceOffer* GpuSpec::cheapest_offer(const std::string& provider) const {
  const PriceOffer* best = nullptr;
  for (const auto& p : prices) {
    if (!p.usd_per_gpu_hour) continue;
    if (!provider.empty() && !contains_nocase(p.provider, provider)) continue;
    if (!best || *p.usd_per_gpu_hour < *best->usd_per_gpu_hour) best = &p;
  }
  return best;
}

int GpuSpec::gpus_per_node() const {
  if (node.gpus_per_node) return std::max(1, *node.gpus_per_node);
  return segment == Segment::consumer || segment == Segment::workstation ? 4 : 8;
}

double GpuSpec::cc() const {
  if (stack != "cuda" || !compute_capability) return 0.0;
  return std::strtod(compute_capability->c_str(), nullptr);
}

const GpuSpec* GpuCatalog::find(const std::string& id) const {
  for (const auto& g : gpus)
    if (g.id == id) return &g;
  return nullptr;
}

std::vector<std::string> GpuCatalog::ids() const {
  std::vector<std::string> out;
  for (const auto& g : gpus) out.push_back(g.id);
  return out;
}

}  // namespace gpuadvise
