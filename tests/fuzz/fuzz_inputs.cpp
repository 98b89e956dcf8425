// libFuzzer harnesses (docs/testing.md): each reader and the whole pipeline take any bytes and either
// succeed or throw InputError; anything else (another exception, a crash, a hang, a sanitizer report) is a
// finding. One source, one harness per GPUADVISE_FUZZ_TARGET.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "app.hpp"
#include "gpuadvise/catalog.hpp"
#include "gpuadvise/error.hpp"
#include "gpuadvise/workload.hpp"

namespace {

std::string_view as_text(const std::uint8_t* data, std::size_t size) { return {reinterpret_cast<const char*>(data), size}; }

#if defined(GPUADVISE_FUZZ_PIPELINE)
// Splits the input at NUL bytes into command-line arguments (at most 24).
std::vector<std::string> split_args(std::string_view text) {
  std::vector<std::string> args;
  std::size_t start = 0;
  while (start <= text.size() && args.size() < 24) {
    const std::size_t end = text.find('\0', start);
    args.emplace_back(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return args;
}
#endif

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = as_text(data, size);
  using namespace gpuadvise;
#if defined(GPUADVISE_FUZZ_WORKLOAD)
  try {
    for (const auto& raw : parse_workload_file(text, "fuzz.json")) (void)build_workload(raw);
  } catch (const InputError&) {
  }
#elif defined(GPUADVISE_FUZZ_CONFIG)
  try {
    (void)parse_hf_config(text, "config.json", "fuzz");
  } catch (const InputError&) {
  }
#elif defined(GPUADVISE_FUZZ_CATALOG)
  try {
    (void)parse_gpu_catalog(text, "catalog.json");
  } catch (const InputError&) {
  }
  try {
    (void)parse_model_catalog(text, "models.json");
  } catch (const InputError&) {
  }
#elif defined(GPUADVISE_FUZZ_UNITS)
  const std::string s(text);
  for (auto parse : {+[](const std::string& t) { return parse_count(t, "count"); }, +[](const std::string& t) { return parse_duration(t, "duration"); },
                     +[](const std::string& t) { return parse_decimal(t, "number", "a number"); }}) {
    try {
      (void)parse(s);
    } catch (const InputError&) {
    }
  }
#elif defined(GPUADVISE_FUZZ_PIPELINE)
  // The whole command line in-process: bytes split at NUL are the arguments; exit 3 (an internal error) is a
  // finding.
  std::vector<std::string> args = split_args(text);
  args.insert(args.begin(), "gpuadvise");
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  std::istringstream in;
  std::ostringstream out, err;
  const int code = cli::run(static_cast<int>(argv.size()), argv.data(), in, out, err);
  if (code != 0 && code != 1 && code != 2) std::abort();
#else
#error "define one GPUADVISE_FUZZ_* target"
#endif
  return 0;
}
