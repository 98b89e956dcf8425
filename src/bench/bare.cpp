// The start-up baseline of docs/performance.md: a bare program that links the same libraries as gpuadvise
// (fmt and spdlog shared, CLI11 and nlohmann/json headers) and prints one line.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

int main(int argc, char** argv) {
  CLI::App app{"bare"};
  CLI11_PARSE(app, argc, argv);
  spdlog::set_level(spdlog::level::warn);
  fmt::print("{}\n", nlohmann::json{{"ok", true}}.dump());
  return 0;
}
