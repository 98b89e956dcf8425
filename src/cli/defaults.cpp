// The defaults file (README "Defaults"; config.json: $GPUADVISE_CONFIG, else $XDG_CONFIG_HOME/gpuadvise/config.json,
// else ~/.config/gpuadvise/config.json): each value applies where its flag was not given.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "commands.hpp"
#include "gpuadvise/catalog.hpp"

namespace gpuadvise::cli {

std::string defaults_path() { return config_path("GPUADVISE_CONFIG", "config.json"); }

void apply_defaults(const DefaultsTargets& t, const std::function<bool(const char*)>& given) {
  const std::string path = defaults_path();
  require_named_file("GPUADVISE_CONFIG", path, "a defaults file");
  const auto text = read_config_file(path, "defaults file", "unset GPUADVISE_CONFIG or fix the file");
  if (!text) return;
  const UserDefaults d = parse_defaults_file(*text, path);
  for (CostFlags* cf : t.costs) {
    if (d.provider && cf->provider.empty()) cf->provider = *d.provider;
    if (d.price_policy && cf->price_policy.empty()) cf->price_policy = *d.price_policy;
    cf->default_prices = d.prices;
  }
  if (d.max_gpus && t.rank->max_gpus.empty()) t.rank->max_gpus = std::to_string(*d.max_gpus);
  if (d.min_headroom) {
    const std::string pct = fmt::format("{:g}", *d.min_headroom);
    if (t.rank->min_headroom.empty()) t.rank->min_headroom = pct;
    if (t.fit->min_headroom.empty()) t.fit->min_headroom = pct;
  }
  if (d.units && !given("--units")) t.output->units = *d.units;
  if (d.color && !given("--color")) t.output->color = *d.color;
}

}  // namespace gpuadvise::cli
