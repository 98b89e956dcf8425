// Hostile inputs (docs/testing.md, "Security"): user text cannot become code, a shell word of its own, a forged
// line or a spreadsheet formula; files are read within limits; measurements that contradict themselves or their
// estimate are refused; nothing is removed before the input is known good.
#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "gpuadvise/escape.hpp"
#include "helpers.hpp"

using namespace gpuadvise;

namespace {
const std::string k_hostile = "nightly\nimport os; os.system(\"id > pwned\")\n#";
const std::string k_spoof = "a\x1b[2Jcleared\nPASS  everything ... all checks passed";

std::string temp_file(const std::string& name, const std::string& text) {
  const std::string path = "/tmp/gpuadvise-security-" + std::to_string(::getpid()) + "-" + name;
  std::ofstream(path) << text;
  return path;
}

bool has_line_starting(const std::string& text, const std::string& prefix) {
  std::size_t start = 0;
  while (start < text.size()) {
    if (text.compare(start, prefix.size(), prefix) == 0) return true;
    const auto nl = text.find('\n', start);
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  return false;
}
}  // namespace

TEST_CASE("security: each format's escaping, worked by hand", "[security]") {
  CHECK(printable("ok name") == "ok name");
  CHECK(printable("a\x1b[2Jb\nc") == "a\\x1b[2Jb\\nc");
  CHECK(printable("\xe2\x80\xae" "evil") == "\\u202eevil");  // U+202E, right-to-left override
  CHECK(printable("caf\xc3\xa9") == "caf\xc3\xa9");          // é stays
  CHECK(printable("bad\xff") == "bad\\xff");                  // not UTF-8
  CHECK(markdown_text("a|b`c[x](javascript:y)<img>") == "a\\|b\\`c\\[x\\](javascript:y)&lt;img&gt;");
  CHECK(csv_text("=HYPERLINK(\"x\")") == "\"'=HYPERLINK(\"\"x\"\")\"");
  CHECK(csv_text("-2+3") == "\"'-2+3\"");
  CHECK(csv_text("plain, text") == "\"plain, text\"");
  CHECK(shell_word("meta-llama/Llama-3.1-8B") == "meta-llama/Llama-3.1-8B");
  CHECK(shell_word("a b'c;$(id)") == "'a b'\\''c;$(id)'");
  CHECK(shell_word("") == "''");
  CHECK(python_literal("say \"hi\"\\\n") == "\"say \\\"hi\\\"\\\\\\x0a\"");
  CHECK(python_literal("\xe2\x80\xae\xf0\x9f\x98\x80") == "\"\\u202e\\U0001f600\"");
  // split_shell_words is shell_word's inverse.
  for (const std::string& word : {std::string("plain"), std::string("a b'c;$(id)"), k_hostile, std::string("")}) {
    const auto words = split_shell_words("--name " + shell_word(word) + " --model 7B");
    REQUIRE(words);
    REQUIRE(words->size() == 4);
    CHECK((*words)[1] == word);
  }
  CHECK_FALSE(split_shell_words("--name 'open"));
}

TEST_CASE("security: a workload's name never becomes a statement of the probe script", "[security][probe]") {
  const std::string file = temp_file("probe.json", R"({"name": "nightly\nimport os; os.system(\"id > pwned\")\n#", "model": "llama-3.1-8b", "mode": "lora"})");
  const auto r = test::run({"probe", "--workload", file});
  REQUIRE(r.code == 0);
  CHECK_FALSE(has_line_starting(r.out, "import os"));
  CHECK(r.out.find("import os") == r.out.find("ESTIMATE_ARGS = ") + std::string("ESTIMATE_ARGS = \"--mode lora --model llama-3.1-8b --name 'nightly\\x0a").size());
  // Every line that names the user's text is the one literal assignment.
  std::size_t lines_with_name = 0;
  for (std::size_t start = 0; start < r.out.size();) {
    const auto nl = r.out.find('\n', start);
    const std::string line = r.out.substr(start, nl - start);
    if (line.find("nightly") != std::string::npos) {
      ++lines_with_name;
      CHECK(line.rfind("ESTIMATE_ARGS = \"", 0) == 0);
    }
    start = nl == std::string::npos ? r.out.size() : nl + 1;
  }
  CHECK(lines_with_name == 1);
  std::filesystem::remove(file);
}

TEST_CASE("security: a check's name cannot clear the screen or forge a PASS line in any format", "[security][check]") {
  const std::string file = temp_file("check.json", nlohmann::json{{"name", k_spoof}, {"model", "7B"}}.dump());
  const auto table = test::run({"check", "--workload", file, "--gpu", "h100-sxm-80gb"});
  CHECK(table.code == 0);
  CHECK(table.out.find('\x1b') == std::string::npos);
  CHECK_FALSE(has_line_starting(table.out, "PASS  everything"));
  CHECK(table.out.find("a\\x1b[2Jcleared\\nPASS  everything") != std::string::npos);
  const auto md = test::run({"check", "--workload", file, "--gpu", "h100-sxm-80gb", "--format", "markdown"});
  CHECK(md.out.find('\x1b') == std::string::npos);
  CHECK_FALSE(has_line_starting(md.out, "PASS"));
  const std::string formula = temp_file("formula.json", R"J({"name": "=HYPERLINK(\"http://x\",\"y\")", "model": "7B"})J");
  const auto csv = test::run({"check", "--workload", formula, "--gpu", "h100-sxm-80gb", "--format", "csv"});
  CHECK(csv.out.find(",=HYPERLINK") == std::string::npos);
  CHECK(csv.out.find("\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\"") != std::string::npos);
  const auto json = test::run({"check", "--workload", file, "--gpu", "h100-sxm-80gb", "--format", "json"});
  CHECK(json.out.find(k_spoof) == std::string::npos);  // JSON escapes it: the parsed value is the name itself
  CHECK(json.json().dump().find("\\u001b[2Jcleared\\nPASS") != std::string::npos);
  std::filesystem::remove(file);
  std::filesystem::remove(formula);
}

TEST_CASE("security: files are read as regular files within 64 MiB, stdin too", "[security][files]") {
  const auto dev = test::run({"--workload", "/dev/zero"});
  CHECK(dev.code == 2);
  CHECK(dev.err.find("not a regular file") != std::string::npos);
  const std::string fifo = "/tmp/gpuadvise-security-fifo-" + std::to_string(::getpid());
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const auto f = test::run({"--catalog", fifo});  // never opened: a FIFO with no writer would block forever
  CHECK(f.code == 2);
  CHECK(f.err.find("not a regular file") != std::string::npos);
  std::filesystem::remove(fifo);
  const std::string sparse = "/tmp/gpuadvise-security-sparse-" + std::to_string(::getpid()) + ".json";
  { std::ofstream(sparse) << ""; }
  std::filesystem::resize_file(sparse, (std::uintmax_t{64} << 20) + 1);
  const auto big = test::run({"--workload", sparse});
  CHECK(big.code == 2);
  CHECK(big.err.find("larger than 64 MiB") != std::string::npos);
  std::filesystem::remove(sparse);
  const auto in = test::run({"--workload", "-"}, std::string((std::size_t{64} << 20) + 2, ' '));
  CHECK(in.code == 2);
  CHECK(in.err.find("'stdin' is larger than 64 MiB") != std::string::npos);
  setenv("GPUADVISE_CATALOG", "/nonexistent/gpus.json", 1);
  const auto missing = test::run({"--model", "7B"});
  unsetenv("GPUADVISE_CATALOG");
  CHECK(missing.code == 2);
  CHECK(missing.err.find("GPUADVISE_CATALOG: no such file '/nonexistent/gpus.json'") != std::string::npos);
}

TEST_CASE("security: inputs outside physics are bad input naming the field", "[security][bounds]") {
  const std::string config = temp_file("config.json", R"({"model_type": "deepseek_v3", "hidden_size": 7168, "intermediate_size": 18432,
    "moe_intermediate_size": 2048, "num_hidden_layers": 61, "num_attention_heads": 128, "num_key_value_heads": 128, "vocab_size": 129280,
    "max_position_embeddings": 163840, "q_lora_rank": 1536, "kv_lora_rank": 512, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64,
    "v_head_dim": 128, "n_routed_experts": 256, "num_experts_per_tok": 8, "n_shared_experts": 1e12, "first_k_dense_replace": 3})");
  const auto shared = test::run({"--model", config});
  CHECK(shared.code == 2);
  CHECK(shared.err.find("'n_shared_experts'") != std::string::npos);
  std::filesystem::remove(config);
  const auto price = test::run({"--model", "7B", "--price", "h100-sxm-80gb=1e308"});
  CHECK(price.code == 2);
  const std::string prices = temp_file("prices.json", R"({"h100-sxm-80gb": 1e308})");
  const auto file = test::run({"--model", "7B", "--prices", prices});
  CHECK(file.code == 2);
  CHECK(file.err.find(".h100-sxm-80gb: expected USD per GPU-hour, more than 0 and at most 1000") != std::string::npos);
  std::filesystem::remove(prices);
  // A catalogue GPU with no bandwidth or no compute does no work: refused, not ranked.
  std::ifstream in(test::fixture("catalog_two_gpus.json"));
  nlohmann::json cat = nlohmann::json::parse(in);
  cat["gpus"][0]["memory_bandwidth_gb_per_s"] = 0;
  const std::string zero = temp_file("catalog.json", cat.dump());
  const auto ranked = test::run({"--model", "7B", "--catalog", zero});
  CHECK(ranked.code == 2);
  CHECK(ranked.err.find("memory_bandwidth_gb_per_s: expected more than 0") != std::string::npos);
  cat["gpus"][0]["memory_bandwidth_gb_per_s"] = 1000;
  cat["gpus"][0]["id"] = "evil id,\"x\"";
  std::ofstream(zero) << cat.dump();
  const auto id = test::run({"--model", "7B", "--catalog", zero});
  CHECK(id.code == 2);
  CHECK(id.err.find(".id: expected lower-case letters") != std::string::npos);
  std::filesystem::remove(zero);
  // Values the messages promised, enforced: no inf, no 300-digit figure.
  for (const std::vector<std::string>& args : {std::vector<std::string>{"--mode", "finetune", "--tokens", "1B", "--mfu", "1e-300"},
                                              {"--mode", "finetune", "--tokens", "1B", "--checkpoint-every", "1e-300s"},
                                              {"--mode", "inference", "--requests", "1e-300", "--output-tokens", "100"},
                                              {"--mode", "finetune", "--dataset-tokens", "1e16", "--epochs", "1e6"}}) {
    auto full = args;
    full.insert(full.begin(), {"--model", "7B"});
    const auto r = test::run(full);
    INFO(args[4] << ": " << r.err);
    CHECK(r.code == 2);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  }
}

TEST_CASE("security: calibration refuses a measurement that lies, and --reset validates first", "[security][calibrate]") {
  const std::string dir = "/tmp/gpuadvise-security-cal-" + std::to_string(::getpid());
  const std::string file = dir + "/calibration.json";
  std::filesystem::create_directories(dir);
  setenv("GPUADVISE_CALIBRATION", file.c_str(), 1);
  const std::string stored = R"({"corrections": [{"gpu": "a100-sxm-80gb", "framework": "hf", "training": true, "memory_factor": 1.1, "speed_factor": 0.9}]})";
  std::ofstream(file) << stored;
  auto probe = [](const std::string& args, double alloc, double reserved, double device) {
    return fmt::format(R"({{"schema": "gpuadvise-probe/1", "estimate_args": "{}", "gpu_name": "NVIDIA A100-SXM4-80GB", "measured": {{)"
                       R"("max_memory_allocated_bytes": {:.0f}, "max_memory_reserved_bytes": {:.0f}, "device_used_bytes": {:.0f}, "step_seconds": 1,)"
                       R"( "unit": "tokens", "per_second": 1000}}}})",
                       args, alloc, reserved, device);
  };
  // 1 GB allocated, 0 reserved, 0 on the device: no allocator reports that.
  const auto lie = test::run({"calibrate", "-", "--save"}, probe("--model llama-3.1-8b --mode finetune", 1e9, 0, 0));
  CHECK(lie.code == 2);
  CHECK(lie.err.find("max_memory_reserved_bytes") != std::string::npos);
  // Consistent, but a fifth of the estimate of a 170 GB full fine-tune: another workload, refused (not clamped).
  const auto far = test::run({"calibrate", "-", "--save"}, probe("--model llama-3.1-8b --mode finetune", 1e9, 1e9, 2e9));
  CHECK(far.code == 2);
  CHECK(far.err.find("refused") != std::string::npos);
  // Flags that are not the workload's are refused: a result file cannot run --help, -q or --catalog.
  for (const char* args : {"--help", "-q --model 7B", "--model 7B --catalog /etc/passwd"}) {
    const auto r = test::run({"calibrate", "-"}, probe(args, 1e10, 1.1e10, 1.2e10));
    INFO(args);
    CHECK(r.code == 2);
    CHECK(r.err.find("estimate_args") != std::string::npos);
  }
  // --reset with a bad file: the file is refused and the stored corrections are still there.
  const auto reset = test::run({"calibrate", "-", "--reset"}, "{\"schema\": \"other\"}");
  CHECK(reset.code == 2);
  CHECK(std::filesystem::exists(file));
  std::ifstream kept(file);
  CHECK(std::string(std::istreambuf_iterator<char>(kept), {}) == stored);
  // The 170 GB full fine-tune on an 80 GB A100 still fails its check.
  CHECK(test::run({"check", "--model", "llama-3.1-8b", "--mode", "finetune", "--gpu", "a100-sxm-80gb", "--max-gpus", "1"}).code == 1);
  unsetenv("GPUADVISE_CALIBRATION");
  std::filesystem::remove_all(dir);
}

TEST_CASE("security: launch hints quote a model path as one shell word", "[security][hints]") {
  const std::string dir = "/tmp/gpuadvise security $(id) " + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  const std::string config = dir + "/config.json";
  std::ofstream(config) << R"({"model_type": "llama", "hidden_size": 2048, "intermediate_size": 8192, "num_hidden_layers": 16,
    "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 128256, "max_position_embeddings": 8192})";
  const auto r = test::run({"--model", config, "--mode", "inference", "--format", "json"});
  REQUIRE(r.code == 0);
  const auto j = r.json();
  const std::string vllm = j["ranking"][0]["launch_hints"]["vllm"].get<std::string>();
  CHECK(vllm.rfind("vllm serve '" + dir + "' ", 0) == 0);
  const auto words = split_shell_words(vllm);
  REQUIRE(words);
  CHECK((*words)[2] == dir);
  std::filesystem::remove_all(dir);
}

TEST_CASE("security: every ranked row's JSON plan, given back to estimate and check, reproduces the row", "[security][plan]") {
  // The plan carries every setting the planner chose (layout, EP, savers, batch, precision, VAE tiling): a
  // script that feeds it back gets the same memory, time and verdict.
  const std::vector<std::vector<std::string>> asks{{"--model", "mixtral-8x7b", "--mode", "finetune", "--tokens", "1B"},
                                                   {"--model", "llama-3.1-8b", "--mode", "lora", "--tokens", "100M"},
                                                   {"--model", "llama-3.1-70b", "--mode", "inference", "--requests", "10k", "--output-tokens", "200"}};
  std::size_t rows = 0;
  for (const auto& ask : asks) {
    auto rank = ask;
    rank.insert(rank.end(), {"--format", "json"});
    const auto ranking = test::run(rank).json();
    for (const auto& row : ranking["ranking"]) {
      if (!row["fits"].get<bool>()) continue;
      const auto& p = row["plan"];
      const std::string gpu = row["gpu"].is_object() ? row["gpu"]["id"].get<std::string>() : row["gpu"].get<std::string>();
      std::vector<std::string> plan{"--gpu", gpu, "--gpus", std::to_string(p["gpus"].get<int>()), "--tp", std::to_string(p["tp"].get<int>()), "--pp",
                                    std::to_string(p["pp"].get<int>()), "--precision", p["precision"].get<std::string>(), "--batch",
                                    std::to_string(p["micro_batch"].get<int>())};
      if (ask[3] != "inference")
        plan.insert(plan.end(), {"--sharding", p["sharding"].get<std::string>(), "--offload", p["offload"].get<std::string>(), "--gradient-checkpointing",
                                 p["gradient_checkpointing"].get<std::string>(), "--grad-accum", std::to_string(p["grad_accum"].get<int>())});
      if (p["ep"].get<int>() > 1) plan.insert(plan.end(), {"--ep", std::to_string(p["ep"].get<int>())});
      if (p["virtual_stages"].get<int>() > 1) plan.insert(plan.end(), {"--virtual-stages", std::to_string(p["virtual_stages"].get<int>())});
      if (p["nodes"].get<int>() > 1) plan.insert(plan.end(), {"--nodes", std::to_string(p["nodes"].get<int>())});
      auto est = ask;
      est.insert(est.begin(), "estimate");
      est.insert(est.end(), plan.begin(), plan.end());
      est.insert(est.end(), {"--format", "json"});
      const auto e = test::run(est);
      INFO(gpu << ": " << e.err);
      REQUIRE(e.code == 0);
      const auto j = e.json();
      CHECK(j["memory"]["device_peak_bytes"].get<double>() == Approx(row["memory"]["device_peak_bytes"].get<double>()));
      if (row["time"]["job_seconds"].is_number())
        CHECK(j["time"]["job_seconds"].get<double>() == Approx(row["time"]["job_seconds"].get<double>()));
      auto chk = est;
      chk.front() = "check";
      chk.resize(chk.size() - 2);
      CHECK(test::run(chk).code == 0);  // the ranking said it fits; check with the same plan agrees
      ++rows;
    }
  }
  CHECK(rows >= 20);
}

TEST_CASE("security: check streams its results, and bad input anywhere in the file writes no partial answer", "[security][check]") {
  // Three workloads, the third with a typo: nothing reaches stdout in any format, the error names the field.
  const std::string file = R"([{"model": "llama-3.1-8b", "mode": "lora"}, {"model": "llama-3.1-8b", "mode": "lora", "batch": 2},
                               {"model": "llama-3.1-8b", "mode": "lora", "bach": 2}])";
  for (const char* format : {"table", "json", "csv", "markdown"}) {
    INFO(format);
    const auto r = test::run({"check", "--workload", "-", "--gpu", "h100-sxm-80gb", "--format", format}, file);
    CHECK(r.code == 2);
    CHECK(r.out.empty());
    CHECK(r.err.find("stdin[2].bach: unknown field 'bach'") != std::string::npos);
  }
  // The same file without the typo: one row per workload and GPU in file order, the totals after the results,
  // and every line of a lone unnamed workload labelled "workload" (its failures too).
  const std::string good = R"([{"model": "llama-3.1-8b", "mode": "lora"}, {"model": "llama-3.1-8b", "mode": "lora", "batch": 2}])";
  const auto j = test::run({"check", "--workload", "-", "--gpu", "h100-sxm-80gb", "--gpu", "rtx-4090-24gb", "--format", "json"}, good);
  REQUIRE(j.code == 1);  // 8B LoRA in bf16 does not fit a 24 GB card
  const auto doc = j.json();
  REQUIRE(doc["results"].size() == 4);
  CHECK(doc["results"][0]["workload"] == "workload[0]");
  CHECK(doc["results"][3]["workload"] == "workload[1]");
  CHECK(doc["checks"] == 4);
  CHECK(doc["failed"] == 2);
  CHECK(doc["passed"] == false);
  const auto lone = test::run({"check", "--model", "llama-3.1-8b", "--mode", "lora", "--gpu", "rtx-4090-24gb"});
  CHECK(lone.code == 1);
  CHECK(lone.out.find("FAIL  workload on rtx-4090-24gb") != std::string::npos);
  CHECK(lone.out.find("workload[0]") == std::string::npos);
  CHECK(lone.out.find("0 of 1 checks passed") != std::string::npos);
}
