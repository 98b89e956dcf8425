// The value grammar every flag and workload field shares (src/core/values.cpp).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "gpuadvise/error.hpp"
#include "gpuadvise/workload.hpp"
#include "helpers.hpp"

using namespace gpuadvise;

TEST_CASE("values: counts take k, M, B, T (a sequence length's k is 1,024), durations take units and compounds", "[values]") {
  CHECK(*parse_suffixed("1k") == 1000);
  CHECK(*parse_suffixed("4k", true) == 4096);
  CHECK(*parse_suffixed("32K", true) == 32768);
  CHECK(*parse_suffixed("2.5M") == 2.5e6);
  CHECK(*parse_suffixed("1e3") == 1000);
  CHECK_FALSE(parse_suffixed("4kk"));
  CHECK_FALSE(parse_suffixed(""));
  CHECK(parse_duration("1h30m", "--deadline") == 5400);
  CHECK(parse_duration("2d12h", "--deadline") == 216000);
  CHECK(parse_duration("90m", "--deadline") == 5400);
  CHECK(parse_duration("1.5", "--deadline") == 5400);  // bare hours
  for (const char* bad : {"30m1h", "1hh", "h", "1x", "-5m", "1e308d"})
    CHECK_THROWS_AS(parse_duration(bad, "--deadline"), InputError);
  // Through the command line: the workload reads them, an error echoes the value and names the flag.
  const auto r = test::run({"estimate", "--model", "llama-3.1-8b", "--mode", "inference", "--seq-len", "4k", "--batch", "1k", "--format", "json"});
  REQUIRE(r.code == 0);
  const auto doc = r.json();
  CHECK(doc["workload"]["seq_len"] == 4096);
  CHECK(doc["workload"]["batch"] == 1000);
  const auto bad = test::run({"--model", "7B", "--seq-len", "4kk"});
  CHECK(bad.code == 2);
  CHECK(bad.err.find("--seq-len") != std::string::npos);
  CHECK(bad.err.find("'4kk'") != std::string::npos);
  const auto setup = test::run({"--model", "7B", "--mode", "train", "--tokens", "1B", "--setup-hours", "30m", "--only", "h100-sxm-80gb", "--format", "json"});
  REQUIRE(setup.code == 0);
  const auto s = setup.json();
  CHECK(s["ranking"][0]["cost"]["hours"]["setup"].get<double>() == Approx(0.5));
  CHECK(test::run({"--model", "7B", "--max-gpus", "1k", "--mode", "train", "--tokens", "1B", "--only", "h100-sxm-80gb"}).code == 0);
}

TEST_CASE("values: -V prints the version, and a flag given twice keeps the last value while repeatable flags keep every one", "[values][cli]") {
  const auto v = test::run({"-V"});
  CHECK(v.code == 0);
  CHECK(v.out.rfind("gpuadvise ", 0) == 0);
  const auto twice = test::run({"--model", "7B", "--model", "13B", "--format", "json"});
  REQUIRE(twice.code == 0);
  const auto doc = twice.json();
  CHECK(doc["model"]["id"] == "13B");
  const auto two = test::run({"--model", "7B", "--gpu", "h100-sxm-80gb", "--gpu", "a100-sxm-80gb", "--format", "json"});
  REQUIRE(two.code == 0);
  const auto rows = two.json();
  CHECK(rows["ranking"].size() == 2);
}

TEST_CASE("values: bare gpuadvise prints a short usage and ranks nothing", "[values][cli]") {
  const auto r = test::run({});
  CHECK(r.code == 0);
  CHECK(r.out.rfind("Usage: gpuadvise --model MODEL", 0) == 0);
  CHECK(r.out.find("Examples:") != std::string::npos);
  CHECK(r.out.find("best value") == std::string::npos);
}

TEST_CASE("values: a deadline or a budget without a job size is bad input naming the flags that size this job", "[values][cli]") {
  const auto train = test::run({"--model", "7B", "--mode", "train", "--deadline", "3d"});
  CHECK(train.code == 2);
  CHECK(train.err.find("--deadline: needs a job size to check against: add --tokens N") != std::string::npos);
  const auto vision = test::run({"--model", "resnet-50", "--mode", "train", "--budget", "100"});
  CHECK(vision.code == 2);
  CHECK(vision.err.find("add --images N --epochs E") != std::string::npos);
  // Without either, the hint names the flags of this kind of job.
  const auto gen = test::run({"--model", "flux-1-dev", "--mode", "inference"});
  CHECK(gen.out.find("No job size given: add --images N for time and cost per job.") != std::string::npos);
}

TEST_CASE("values: a locale that is not UTF-8 gets ASCII text, one column per shortened cell, and JSON stays UTF-8", "[values][cli]") {
  setenv("COLUMNS", "120", 1);
  setenv("LC_ALL", "C", 1);
  const auto ascii = test::run({"--model", "7B", "--mode", "finetune", "--tokens", "1B"});
  const auto json = test::run({"--model", "7B", "--mode", "finetune", "--tokens", "1B", "--format", "json"});
  setenv("LC_ALL", "C.UTF-8", 1);
  const auto utf8 = test::run({"--model", "7B", "--mode", "finetune", "--tokens", "1B"});
  unsetenv("COLUMNS");
  REQUIRE(ascii.code == 0);
  CHECK(std::none_of(ascii.out.begin(), ascii.out.end(), [](char ch) { return static_cast<unsigned char>(ch) >= 0x80; }));
  CHECK(utf8.out.find("\u2026") != std::string::npos);
  // The ranking's first row keeps its columns: as many ASCII bytes as UTF-8 characters.
  auto first_row = [](const std::string& out) { return out.substr(out.find("\n  1  ") + 1, out.find('\n', out.find("\n  1  ") + 1) - out.find("\n  1  ") - 1); };
  const std::string a = first_row(ascii.out), u = first_row(utf8.out);
  CHECK(a.size() == static_cast<std::size_t>(std::count_if(u.begin(), u.end(), [](char ch) { return (static_cast<unsigned char>(ch) & 0xC0) != 0x80; })));
  CHECK(json.code == 0);
  CHECK_NOTHROW(json.json());
}

TEST_CASE("values: an unknown flag or a stray word is named as typed, with the flag it is part of, never the parser's own words", "[values][cli]") {
  const auto part = test::run({"estimate", "--model", "7B", "--checkpointing", "full"});
  CHECK(part.code == 2);
  CHECK(part.err == "gpuadvise: error: unknown flag '--checkpointing'; did you mean '--gradient-checkpointing'? (see --help)\n");
  const auto typo = test::run({"--model", "7B", "--bacth", "2"});
  CHECK(typo.err == "gpuadvise: error: unknown flag '--bacth'; did you mean '--batch'? (see --help)\n");
  const auto stray = test::run({"estimate", "--model", "7B", "stray"});
  CHECK(stray.code == 2);
  CHECK(stray.err == "gpuadvise: error: unexpected argument 'stray' (see --help)\n");
  CHECK(test::run({"estimat", "--model", "7B"}).err.find("unexpected argument 'estimat'; did you mean 'estimate'?") != std::string::npos);
  for (const auto* r : {&part, &typo, &stray}) CHECK(r->err.find("not expected") == std::string::npos);
}

TEST_CASE("values: a defaults file sets units, colour, headroom, GPUs, provider and prices where no flag is given, and a bad one is one line", "[values][cli][defaults]") {
  const auto dir = std::filesystem::temp_directory_path() / ("gpuadvise-defaults-test-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "config.json").string();
  const std::string own = std::getenv("GPUADVISE_CONFIG");  // test_main's empty file
  auto with = [&](const std::string& json, std::vector<std::string> args) {
    std::ofstream(path) << json;
    setenv("GPUADVISE_CONFIG", path.c_str(), 1);
    auto r = test::run(args);
    setenv("GPUADVISE_CONFIG", own.c_str(), 1);
    return r;
  };
  const std::vector<std::string> job{"--model", "7B", "--mode", "finetune", "--tokens", "1B", "--only", "h100-sxm-80gb", "--format", "json"};
  // A price of one's own: 7B full fine-tune on two H100s, the job's GPU-hours at $1.00 instead of the catalogue's.
  const auto plain = test::run(job), priced = with(R"({"prices": {"h100-sxm-80gb": 1.0}, "max_gpus": 8})", job);
  REQUIRE(priced.code == 0);
  const auto a = plain.json(), b = priced.json();
  CHECK(b["ranking"][0]["cost"]["price"]["usd_per_gpu_hour"] == 1.0);
  CHECK(a["ranking"][0]["cost"]["price"]["usd_per_gpu_hour"] != 1.0);
  // A flag beats the file: --price, --units.
  auto flagged = job;
  flagged.insert(flagged.end(), {"--price", "h100-sxm-80gb=2.5"});
  const auto f = with(R"({"prices": {"h100-sxm-80gb": 1.0}})", flagged);
  const auto fj = f.json();
  CHECK(fj["ranking"][0]["cost"]["price"]["usd_per_gpu_hour"] == 2.5);
  // The price policy: the file's median prices the MI300X at its middle offer ($2.39, test_cost), --price-policy beats it.
  const std::vector<std::string> mi300x{"--model", "7B", "--only", "mi300x-192gb", "--format", "json"};
  auto policy_price = [](const test::Run& r) { return r.json()["ranking"][0]["cost"]["price"]["usd_per_gpu_hour"].get<double>(); };
  CHECK(policy_price(with(R"({"price_policy": "median"})", mi300x)) == Approx(2.39));
  CHECK(with(R"({"price_policy": "median"})", mi300x).json()["ranking"][0]["cost"]["price"]["policy"] == "median");
  auto cheapest = mi300x;
  cheapest.insert(cheapest.end(), {"--price-policy", "cheapest"});
  CHECK(policy_price(with(R"({"price_policy": "median"})", cheapest)) == Approx(1.50));
  CHECK(with(R"({"price_policy": "medain"})", {"gpus"}).err == "gpuadvise: error: " + path + ".price_policy: expected one of cheapest, median, got \"medain\"\n");
  CHECK(with(R"({"units": "gib"})", {"estimate", "--model", "7B", "--gpu", "h100-sxm-80gb"}).out.find(" GiB") != std::string::npos);
  CHECK(with(R"({"units": "gib"})", {"estimate", "--model", "7B", "--gpu", "h100-sxm-80gb", "--units", "gb"}).out.find(" GiB") == std::string::npos);
  CHECK(with(R"({"color": "always"})", {"gpus"}).out.find("\x1b[") == std::string::npos);  // the catalogue list has no colour
  CHECK(with(R"({"color": "always"})", {"--model", "7B"}).out.find("\x1b[") != std::string::npos);
  // Bad input: one line naming the key and what it accepts, exit 2.
  const auto unknown = with(R"({"unit": "gib"})", {"gpus"});
  CHECK(unknown.code == 2);
  CHECK(unknown.err == "gpuadvise: error: " + path + ".unit: unknown key (valid: provider, price_policy, units, color, min_headroom, max_gpus, prices)\n");
  const auto bad = with(R"({"max_gpus": 0})", {"gpus"});
  CHECK(bad.err == "gpuadvise: error: " + path + ".max_gpus: expected an integer from 1 to 32,768, got 0\n");
  CHECK(with(R"({"min_headroom": 100})", {"gpus"}).code == 2);
  CHECK(with(R"({"prices": {"h100-sxm-80gbb": 2}})", {"--model", "7B"}).err.find("unknown GPU 'h100-sxm-80gbb'") != std::string::npos);
  CHECK(with("{bad", {"gpus"}).code == 2);
  setenv("GPUADVISE_CONFIG", (dir / "missing.json").string().c_str(), 1);
  const auto missing = test::run({"gpus"});
  setenv("GPUADVISE_CONFIG", own.c_str(), 1);
  CHECK(missing.code == 2);
  CHECK(missing.err.find("GPUADVISE_CONFIG: no such file") != std::string::npos);
  std::filesystem::remove_all(dir);
}
