// libFuzzer harnesses (docs/testing.md): each reader and the whole pipeline take any bytes and either
// succeed or throw InputError; anything else (another exception, a crash, a hang, a sanitizer report) is a
// finding. One source, one harness per GPUADVISE_FUZZ_TARGET.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "app.hpp"
#include "gpuadvise/catalog.hpp"
#include "gpuadvise/error.hpp"
#include "gpuadvise/escape.hpp"
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

#if defined(GPUADVISE_FUZZ_OUTPUT)
// One command in-process with a workload file on stdin whose name is the fuzzer's text; its stdout.
std::string run_named(std::string_view name, const std::vector<std::string>& args) {
  const std::string quoted = nlohmann::json(std::string(name)).dump(-1, ' ', true, nlohmann::json::error_handler_t::replace);
  std::string json = "{\"name\": " + quoted + ", \"model\": \"llama-3.1-8b\", \"mode\": \"lora\"}";
  std::vector<const char*> argv{"gpuadvise"};
  for (const auto& a : args) argv.push_back(a.c_str());
  std::istringstream in(json);
  std::ostringstream out, err;
  const int code = gpuadvise::cli::run(static_cast<int>(argv.size()), argv.data(), in, out, err);
  if (code != 0 && code != 1 && code != 2) std::abort();
  return code == 2 ? std::string() : out.str();
}

// The script's lines without the one that carries the user's text.
std::vector<std::string> other_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream s(text);
  for (std::string line; std::getline(s, line);)
    if (line.rfind("ESTIMATE_ARGS = ", 0) != 0) lines.push_back(line);
  return lines;
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
#elif defined(GPUADVISE_FUZZ_OUTPUT)
  // The escaping of every format and the probe writer and check renderer around it (docs/testing.md, "Security"):
  // no control character survives, a shell word splits back into the text, a Python literal is one printable
  // line, and a name changes no line of the probe script but its literal and adds no line to a check.
  for (const std::string& e : {printable(text), markdown_text(text), csv_text(text), python_literal(text)})
    for (char ch : e)
      if (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f) std::abort();
  const auto words = split_shell_words(shell_word(text));
  if (!words || words->size() != 1 || (*words)[0] != text) std::abort();
  static const std::vector<std::string> probe_args{"probe", "--workload", "-"}, check_args{"check", "--workload", "-", "--gpu", "h100-sxm-80gb"};
  static const std::vector<std::string> benign = other_lines(run_named("benign", probe_args));
  static const std::string benign_check = run_named("benign", check_args);
  const std::string script = run_named(text, probe_args);
  if (!script.empty() && other_lines(script) != benign) std::abort();
  const std::string checked = run_named(text, check_args);
  if (!checked.empty() && std::count(checked.begin(), checked.end(), '\n') != std::count(benign_check.begin(), benign_check.end(), '\n')) std::abort();
#else
#error "define one GPUADVISE_FUZZ_* target"
#endif
  return 0;
}
