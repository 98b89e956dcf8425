#include "gpuadvise/gpu.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <utility>
#include <limits>

namespace gpuadvise {

std::string to_string(Segment s) {
  switch (s) {
    case Segment::consumer: return "consumer";
    case Segment::workstation: return "workstation";
    case Segment::datacenter_pcie: return "datacenter-pcie";
    case Segment::datacenter_module: return "datacenter-module";
    case Segment::edge: return "edge";
  }
  return "?";
}

std::optional<double> GpuSpec::peak_flops(std::string_view key) const {
  const std::optional<double> tf = dense_tflops.get(key);
  if (!tf) return std::nullopt;
  return *tf * 1e12 * sustained_clock_share.value_or(1.0);  // a power-capped card's clock under load (gpu.hpp)
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

const PriceOffer* GpuSpec::offer_from(const std::string& provider) const {
  for (const auto& p : prices)
    if (contains_nocase(p.provider, provider)) return &p;
  return nullptr;
}

const PriceOffer* GpuSpec::cheapest_offer(const std::string& provider) const {
  const std::vector<const PriceOffer*> offers = priced_offers(provider);  // cheapest first, ties in catalogue order
  return offers.empty() ? nullptr : offers.front();
}

std::vector<const PriceOffer*> GpuSpec::priced_offers(const std::string& provider) const {
  std::vector<const PriceOffer*> priced;
  for (const auto& p : prices)
    if (p.usd_per_gpu_hour && (provider.empty() || contains_nocase(p.provider, provider))) priced.push_back(&p);
  std::stable_sort(priced.begin(), priced.end(), [](const PriceOffer* a, const PriceOffer* b) { return *a->usd_per_gpu_hour < *b->usd_per_gpu_hour; });
  return priced;
}

int GpuSpec::gpus_per_node() const {
  if (node.gpus_per_node) return std::max(1, *node.gpus_per_node);
  if (segment == Segment::edge) return 1;
  return segment == Segment::consumer || segment == Segment::workstation ? 4 : 8;
}

double GpuSpec::cc() const {
  if (stack != "cuda" || !compute_capability) return 0.0;
  // "8.9", "10.0", "12.0": read by hand (strtod is locale-aware and shows in the estimator's profile).
  double major = 0, minor = 0, scale = 1;
  const std::string& t = *compute_capability;
  std::size_t i = 0;
  for (; i < t.size() && t[i] >= '0' && t[i] <= '9'; ++i) major = major * 10 + (t[i] - '0');
  if (i < t.size() && t[i] == '.')
    for (++i; i < t.size() && t[i] >= '0' && t[i] <= '9'; ++i) {
      minor = minor * 10 + (t[i] - '0');
      scale *= 10;
    }
  return major + minor / scale;
}

const GpuSpec* GpuCatalog::find(const std::string& id) const {
  for (const auto& g : gpus)
    if (g.id == id) return &g;
  return nullptr;
}

namespace {

// Lower case, letters and digits only, without vendor and brand words: "NVIDIA GeForce RTX 4090" -> "rtx4090".
std::string normalise_gpu_name(const std::string& name) {
  std::string s;
  for (char ch : name)
    if (std::isalnum(static_cast<unsigned char>(ch))) s.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(ch))));
  for (const char* word : {"nvidia", "geforce", "tesla", "amd", "instinct", "intel", "radeon"}) {
    const std::string w = word;
    if (s.rfind(w, 0) == 0) s.erase(0, w.size());
  }
  return s;
}

// nvidia-smi, SkyPilot and everyday names of the catalogue's GPUs (normalised), where the id itself differs.
constexpr std::pair<const char*, const char*> k_gpu_aliases[] = {
    {"h100", "h100-sxm-80gb"},          {"h100sxm", "h100-sxm-80gb"},     {"h100sxm5", "h100-sxm-80gb"},
    {"h10080gbhbm3", "h100-sxm-80gb"},  {"h100pcie", "h100-pcie-80gb"},   {"h100nvl", "h100-nvl-94gb"},
    {"h200", "h200-sxm-141gb"},         {"h200sxm", "h200-sxm-141gb"},    {"h200nvl", "h200-nvl-141gb"},
    {"gh200", "gh200-96gb"},            {"gh200480gb", "gh200-96gb"},     {"b200", "b200-hgx-180gb"},
    {"b300", "b300-hgx-288gb"},         {"a100", "a100-sxm-40gb"},        {"a10040gb", "a100-sxm-40gb"},
    {"a100sxm440gb", "a100-sxm-40gb"},  {"a10080gb", "a100-sxm-80gb"},    {"a100sxm480gb", "a100-sxm-80gb"},
    {"a100pcie40gb", "a100-pcie-40gb"}, {"a100pcie80gb", "a100-pcie-80gb"}, {"a10080gbpcie", "a100-pcie-80gb"},
    {"l4", "l4-24gb"},                  {"l40s", "l40s-48gb"},            {"a10", "a10-24gb"},
    {"a10g", "a10g-24gb"},              {"t4", "t4-16gb"},                {"v100", "v100-sxm2-16gb"},
    {"v100sxm216gb", "v100-sxm2-16gb"}, {"v10032gb", "v100-sxm2-32gb"},   {"v100sxm232gb", "v100-sxm2-32gb"},
    {"v100pcie16gb", "v100-pcie-16gb"}, {"rtx4090", "rtx-4090-24gb"},     {"4090", "rtx-4090-24gb"},
    {"rtx5090", "rtx-5090-32gb"},       {"5090", "rtx-5090-32gb"},        {"rtx3090", "rtx-3090-24gb"},
    {"3090", "rtx-3090-24gb"},          {"rtxa6000", "rtx-a6000-48gb"},   {"a6000", "rtx-a6000-48gb"},
    {"rtx6000ada", "rtx-6000-ada-48gb"}, {"rtx6000adageneration", "rtx-6000-ada-48gb"}, {"6000ada", "rtx-6000-ada-48gb"},
    {"rtxpro6000", "rtx-pro-6000-blackwell-se-96gb"}, {"rtxpro6000blackwellserveredition", "rtx-pro-6000-blackwell-se-96gb"},
    {"rtxpro6000wk", "rtx-pro-6000-blackwell-ws-96gb"}, {"rtxpro6000blackwellworkstationedition", "rtx-pro-6000-blackwell-ws-96gb"},
    {"rtx4070tisuper", "rtx-4070-ti-super-16gb"}, {"mi300x", "mi300x-192gb"}, {"mi325x", "mi325x-256gb"},
    {"mi350x", "mi350x-288gb"},         {"mi355x", "mi355x-288gb"},       {"w7900", "radeon-pro-w7900-48gb"},
    {"prow7900", "radeon-pro-w7900-48gb"}, {"gaudi3", "gaudi3-128gb"},     {"hlgaudi3", "gaudi3-128gb"}};

}  // namespace

const GpuSpec* GpuCatalog::resolve(const std::string& name) const {
  if (const GpuSpec* g = find(name)) return g;
  const std::string n = normalise_gpu_name(name);
  if (n.empty()) return nullptr;
  for (const auto& g : gpus)
    if (normalise_gpu_name(g.id) == n) return &g;
  for (const auto& [alias, id] : k_gpu_aliases)
    if (n == alias) return find(id);
  return nullptr;
}

std::vector<std::string> GpuCatalog::ids() const {
  std::vector<std::string> out;
  for (const auto& g : gpus) out.push_back(g.id);
  return out;
}

}  // namespace gpuadvise
