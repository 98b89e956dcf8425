// `gpuadvise gpus` and `gpuadvise models`: the catalogue and the presets, filtered and sorted.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <ctime>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "app.hpp"
#include "commands.hpp"
#include "gpuadvise/catalog.hpp"
#include "gpuadvise/error.hpp"
#include "gpuadvise/planning.hpp"
#include "gpuadvise/probe.hpp"
#include "gpuadvise/ranking.hpp"
#include "gpuadvise/report.hpp"

namespace gpuadvise::cli {

// Vendors, families and ids are matched case-insensitively (lower: choices.cpp).

int run_gpus(const GpusFlags& flags, const CommandContext& ctx) {
  check_format(ctx.of.format);
  const GpuCatalog cat = load_gpus(ctx.of, ctx.in, Provenance::kept);  // `gpus ID` prints each field's source
  // A family name that is no id (h100, a100, mi300): the GPUs whose ids it begins, as a list.
  GpuCatalog family = cat;
  std::erase_if(family.gpus, [&](const GpuSpec& g) { return g.id.rfind(lower(flags.gpu_id) + "-", 0) != 0; });
  const bool is_id = std::any_of(cat.gpus.begin(), cat.gpus.end(), [&](const GpuSpec& g) { return g.id == lower(flags.gpu_id); });
  if (!flags.gpu_id.empty() && !is_id && family.gpus.size() > 1) {
    (*ctx.out_ptr) << (ctx.of.format == "json" ? gpus_json(family) : ctx.of.format == "csv" ? gpus_csv(family) : ctx.md() ? gpus_markdown(family, ctx.style) : gpus_table(family, ctx.style));
  } else if (!flags.gpu_id.empty()) {
    const GpuSpec& g = gpu_for(flags.gpu_id, cat, "gpus");
    GpuCatalog one;
    one.gpus.push_back(g);
    (*ctx.out_ptr) << (ctx.of.format == "json" ? gpu_json(g) : ctx.of.format == "csv" ? gpus_csv(one) : ctx.md() ? gpu_detail_markdown(g, ctx.style) : gpu_detail_table(g, ctx.style));
  } else {
    GpuCatalog shown = cat;
    if (!flags.gpus_vendor.empty()) {
      std::vector<std::string> vendors;
      for (const auto& g : cat.gpus)
        if (std::find(vendors.begin(), vendors.end(), lower(g.vendor)) == vendors.end()) vendors.push_back(lower(g.vendor));
      if (std::find(vendors.begin(), vendors.end(), lower(flags.gpus_vendor)) == vendors.end())
        throw UserError{2, "--vendor: unknown vendor '" + flags.gpus_vendor + "' (valid: " + join(vendors, ", ") + ")"};
      std::erase_if(shown.gpus, [&](const GpuSpec& g) { return lower(g.vendor) != lower(flags.gpus_vendor); });
    }
    if (!flags.gpus_min_memory.empty()) {
      const double gb = flag_number(flags.gpus_min_memory, "--min-memory", "a size in GB from 0 to 10,000", 0, 10000);
      std::erase_if(shown.gpus, [&](const GpuSpec& g) { return static_cast<double>(g.memory_bytes) / 1e9 < gb; });
    }
    if (!flags.gpus_provider.empty()) {
      check_provider(flags.gpus_provider, cat);
      std::erase_if(shown.gpus, [&](const GpuSpec& g) { return !g.offered_by(flags.gpus_provider); });
    }
    if (!flags.gpus_sort.empty()) {
      auto key = [&](const GpuSpec& g) -> double {
        if (flags.gpus_sort == "memory") return -static_cast<double>(g.memory_bytes);
        if (flags.gpus_sort == "bandwidth") return -g.bandwidth_gb_per_s.value_or(0);
        if (flags.gpus_sort == "bf16") return -g.peak_flops("bf16").value_or(0);
        const PriceOffer* o = flags.gpus_provider.empty() ? g.cheapest_offer() : g.offer_from(flags.gpus_provider);
        return o && o->usd_per_gpu_hour ? *o->usd_per_gpu_hour : 1e18;  // price: cheapest first, unknown last
      };
      if (flags.gpus_sort == "id") std::stable_sort(shown.gpus.begin(), shown.gpus.end(), [](const GpuSpec& a, const GpuSpec& b) { return a.id < b.id; });
      else if (flags.gpus_sort == "memory" || flags.gpus_sort == "bandwidth" || flags.gpus_sort == "bf16" || flags.gpus_sort == "price")
        std::stable_sort(shown.gpus.begin(), shown.gpus.end(), [&](const GpuSpec& a, const GpuSpec& b) { return key(a) < key(b); });
      else throw UserError{2, "--sort: unknown value '" + flags.gpus_sort + "' (valid: " + choices_text("--sort") + ")"};
    }
    (*ctx.out_ptr) << (ctx.of.format == "json" ? gpus_json(shown) : ctx.of.format == "csv" ? gpus_csv(shown) : ctx.md() ? gpus_markdown(shown, ctx.style) : gpus_table(shown, ctx.style));
  }
  return 0;
}

int run_models(const ModelsFlags& flags, const CommandContext& ctx) {
  check_format(ctx.of.format);
  const ModelCatalog& cat = load_models();
  ModelCatalog shown = cat;
  if (!flags.models_kind.empty()) {
    if (!is_choice("--kind", flags.models_kind))
      throw UserError{2, "--kind: unknown value '" + flags.models_kind + "' (valid: " + choices_text("--kind") + ")"};
    std::erase_if(shown.models, [&](const ModelSpec& m) {
      const std::string kind = !m.vision ? "language" : m.vision->task == "generation" ? "generation" : "vision";
      return kind != flags.models_kind;
    });
  }
  if (!flags.models_family.empty()) {
    std::vector<std::string> families;
    for (const auto& m : cat.models)
      if (!m.family.empty() && std::find(families.begin(), families.end(), m.family) == families.end()) families.push_back(m.family);
    // Case-insensitive, and a family name people use matches the families and ids it begins (resnet: resnet50,
    // resnet101, ...; yolo: yolov8-n, yolo11-s, ...).
    const std::string want = lower(flags.models_family);
    auto matches = [&](const ModelSpec& m) { return lower(m.family).rfind(want, 0) == 0 || lower(m.id).rfind(want, 0) == 0; };
    if (std::none_of(cat.models.begin(), cat.models.end(), matches))
      throw UserError{2, "--family: unknown family '" + flags.models_family + "' (valid: " + join(families, ", ") + ", or the start of a preset id)"};
    std::erase_if(shown.models, [&](const ModelSpec& m) { return !matches(m); });
  }
  (*ctx.out_ptr) << (ctx.of.format == "json" ? models_json(shown) : ctx.of.format == "csv" ? models_csv(shown) : ctx.md() ? models_markdown(shown) : models_table(shown, ctx.style));
  return 0;
}

}  // namespace gpuadvise::cli
