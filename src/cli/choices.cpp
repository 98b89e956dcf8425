// The values each enumerated flag takes: one list for the check that refuses a typo and for the shell
// completions (docs.cpp). The workload's come from the library's parsers (workload_choices).
#include <algorithm>
#include <cctype>

#include "gpuadvise/error.hpp"
#include "gpuadvise/workload.hpp"
#include "support.hpp"

namespace gpuadvise::cli {

const std::vector<std::pair<std::string, std::vector<std::string>>>& flag_choices() {
  static const auto all = [] {
    std::vector<std::pair<std::string, std::vector<std::string>>> c{
        {"--format", {"table", "json", "markdown", "csv"}},
        {"--units", {"gb", "gib"}},
        {"--color", {"auto", "always", "never"}},
        {"--rank-by", {"value", "cost", "time", "gpus", "headroom"}},
        {"--price-policy", {"cheapest", "median"}},
        {"--maximize", {"batch", "seq-len", "concurrency"}},
        {"--sort", {"memory", "bandwidth", "bf16", "price", "id"}},
        {"--kind", {"language", "vision", "generation"}},
        {"--vary", {"seq-len", "batch", "concurrency", "lora-rank", "gpus", "image-size"}},
        {"--metric", {"memory", "time", "cost"}},
        {"shell", {"bash", "zsh", "fish"}},  // completions SHELL
        {"manpage --format", {"roff", "markdown"}},
    };
    for (auto& w : workload_choices()) c.push_back(std::move(w));
    return c;
  }();
  return all;
}

const std::vector<std::string>& choices_of(std::string_view flag) {
  const auto& all = flag_choices();
  const auto it = std::find_if(all.begin(), all.end(), [&](const auto& c) { return c.first == flag; });
  static const std::vector<std::string> none;
  return it == all.end() ? none : it->second;
}

bool is_choice(std::string_view flag, const std::string& value) {
  const auto& c = choices_of(flag);
  return std::find(c.begin(), c.end(), value) != c.end();
}

std::string lower(std::string s) {
  for (auto& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

std::string choices_text(std::string_view flag) { return join(choices_of(flag), ", "); }

}  // namespace gpuadvise::cli
