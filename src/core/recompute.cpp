// Megatron's selective recompute by module (--recompute-modules, its recompute_modules list; method.md §4.2): which
// parts of a layer drop their saved activations and run again in the backward.
#include "gpuadvise/error.hpp"
#include "gpuadvise/framework.hpp"
#include "gpuadvise/model.hpp"
#include "gpuadvise/workload.hpp"

#include <algorithm>
#include <cctype>

namespace gpuadvise {

RecomputeModules parse_recompute_modules(const RawValue& raw) {
  RecomputeModules r;
  std::string spec = raw.value;
  std::transform(spec.begin(), spec.end(), spec.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  std::replace(spec.begin(), spec.end(), ' ', ',');  // Megatron's own form is a space-separated list
  std::size_t start = 0;
  while (start < spec.size()) {
    std::size_t comma = spec.find(',', start);
    if (comma == std::string::npos) comma = spec.size();
    const std::string name = spec.substr(start, comma - start);
    start = comma + 1;
    if (name.empty()) continue;
    if (name == "core_attn") r.core_attn = true;
    else if (name == "layernorm") r.layernorm = true;
    else if (name == "mla_up_proj") r.mla_up_proj = true;
    else if (name == "moe_act") r.moe_act = true;
    else if (name == "mlp") r.mlp = true;
    else throw InputError(raw.origin + ": unknown module '" + name + "' (valid: a comma list of core_attn, layernorm, mla_up_proj, moe_act, mlp)");
  }
  if (r.spec().empty()) throw InputError(raw.origin + ": expected a comma list of core_attn, layernorm, mla_up_proj, moe_act, mlp");
  return r;
}

void apply_recompute_modules(Workload& w, const RawValue& raw) {
  w.recompute_modules = parse_recompute_modules(raw);
  if (w.checkpointing_given && w.checkpointing != Checkpointing::selective)
    throw InputError(raw.origin + ": recomputes modules selectively; --gradient-checkpointing must be selective or left out");
  w.checkpointing = Checkpointing::selective;
  w.checkpointing_given = true;
}

RecomputeModules recomputed_modules(const Workload& w, const ModelSpec& m) {
  if (w.checkpointing != Checkpointing::selective) return {};
  if (w.recompute_modules) return *w.recompute_modules;
  // Without a list: the attention core (Megatron's default, recompute_modules ["core_attn"]), and under Megatron with
  // multi-head latent attention its up-projections too, as every Megatron-Bridge DeepSeek-V3 recipe adds them.
  RecomputeModules r;
  r.core_attn = true;
  r.mla_up_proj = m.is_mla() && w.effective_framework() == Framework::megatron;
  return r;
}

std::string RecomputeModules::spec() const {
  std::string s;
  for (const auto& [on, name] : {std::pair{core_attn, "core_attn"}, {layernorm, "layernorm"}, {mla_up_proj, "mla_up_proj"}, {moe_act, "moe_act"}, {mlp, "mlp"}})
    if (on) s += (s.empty() ? "" : " ") + std::string(name);
  return s;
}

}  // namespace gpuadvise
