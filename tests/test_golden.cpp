// Golden tests of the CLI's outputs, pinned to a frozen fixture catalogue so that catalogue updates never
// break them. Regenerate with: GPUADVISE_UPDATE_GOLDEN=1 ctest -R golden  (then review the diff).
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "helpers.hpp"

namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> split_args(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream is(line);
  std::string word;
  while (is >> word) out.push_back(word);
  return out;
}

// JSON compared structurally, numbers within a relative 1e-6 (last-bit differences between compilers).
bool same_json(const nlohmann::json& a, const nlohmann::json& b, std::string& where) {
  if (a.is_number() && b.is_number()) {
    const double x = a.get<double>(), y = b.get<double>();
    if (std::fabs(x - y) <= 1e-6 * std::max(std::fabs(x), std::fabs(y)) + 1e-12) return true;
    where += " (" + a.dump() + " vs " + b.dump() + ")";
    return false;
  }
  if (a.type() != b.type()) return false;
  if (a.is_object()) {
    if (a.size() != b.size()) return false;
    for (auto it = a.begin(); it != a.end(); ++it) {
      if (!b.contains(it.key())) { where += "/" + it.key() + " (missing)"; return false; }
      std::string w = where + "/" + it.key();
      if (!same_json(it.value(), b[it.key()], w)) { where = w; return false; }
    }
    return true;
  }
  if (a.is_array()) {
    if (a.size() != b.size()) { where += " (array sizes differ)"; return false; }
    for (std::size_t i = 0; i < a.size(); ++i) {
      std::string w = where + "/" + std::to_string(i);
      if (!same_json(a[i], b[i], w)) { where = w; return false; }
    }
    return true;
  }
  return a == b;
}

}  // namespace

TEST_CASE("golden: CLI outputs against the frozen fixture catalogue", "[golden]") {
  const fs::path root = fs::path(GPUADVISE_SOURCE_DIR) / "tests" / "golden";
  const bool update = std::getenv("GPUADVISE_UPDATE_GOLDEN") != nullptr;
  std::size_t cases = 0;
  for (const auto& dir : fs::directory_iterator(root)) {
    if (!dir.is_directory()) continue;
    ++cases;
    auto args = split_args(slurp(dir.path() / "args"));
    args.push_back("--catalog");
    args.push_back(test::fixture("catalog_golden.json"));
    const auto r = test::run(args);
    const fs::path expected = dir.path() / "stdout";
    INFO(dir.path().filename().string());
    if (update) {
      std::ofstream(expected, std::ios::binary) << r.out;
      std::ofstream(dir.path() / "exit_code") << r.code << "\n";
      continue;
    }
    // A case without its expected output is a failure, not a new snapshot (GPUADVISE_UPDATE_GOLDEN=1 writes them).
    REQUIRE(fs::exists(expected));
    CHECK(std::to_string(r.code) + "\n" == slurp(dir.path() / "exit_code"));
    const std::string want = slurp(expected);
    if (!want.empty() && want[0] == '{') {
      std::string where;
      const bool same = same_json(nlohmann::json::parse(want), nlohmann::json::parse(r.out), where);
      INFO("first difference at " << where);
      CHECK(same);
    } else {
      CHECK(r.out == want);
    }
  }
  CHECK(cases >= 5);
}
