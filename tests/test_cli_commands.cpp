// The command line's other commands: probe and calibrate, the catalogue listing and user catalogues, shell
// completions and the man page, --gpu local, sweep, the presets' listing and CSV from every command.
#include <catch2/catch.hpp>
#include <fstream>
#include <filesystem>
#include <set>
#include <sstream>
#include <unistd.h>

#include <fmt/format.h>

#include "gpuadvise/framework.hpp"
#include "helpers.hpp"
#include "support.hpp"

TEST_CASE("probe: the script measures the estimate's exact shapes and writes what calibrate reads", "[cli][probe]") {
  // Llama 3.1 8B LoRA rank 8 on q and v, batch 2 x 2,048 with checkpointing: the config carries the preset's
  // shape, the batch is the workload's, and the result keys are the ones calibrate reads.
  const auto r = test::run({"probe", "--model", "llama-3.1-8b", "--mode", "lora", "--lora-rank", "8", "--lora-targets", "q,v", "--batch", "2",
                            "--seq-len", "2048", "--gradient-checkpointing"});
  REQUIRE(r.code == 0);
  for (const char* line : {"hidden_size=4096, intermediate_size=14336, num_hidden_layers=32, num_attention_heads=32, num_key_value_heads=8",
                           "vocab_size=128256", "BATCH, SEQ = 2, 2048", "model.gradient_checkpointing_enable()",
                           "LoraConfig(r=8, lora_alpha=16, target_modules=['q_proj', 'v_proj']", "torch.cuda.max_memory_allocated()",
                           "ESTIMATE_ARGS = \"--batch 2 --gradient-checkpointing full --lora-rank 8 --lora-targets q,v --mode lora --model llama-3.1-8b --seq-len 2048\"", "'estimate_args': ESTIMATE_ARGS"}) {
    INFO(line);
    CHECK(r.out.find(line) != std::string::npos);
  }
  // Vision: a timm classifier with the batch and image size given.
  const auto v = test::run({"probe", "--model", "resnet-50", "--mode", "train", "--batch", "64", "--image-size", "176"});
  REQUIRE(v.code == 0);
  CHECK(v.out.find("timm.create_model(\"resnet50\", pretrained=False, num_classes=1000)") != std::string::npos);
  CHECK(v.out.find("BATCH, H, W = 64, 176, 176") != std::string::npos);
  // A diffusion model: its denoiser from the published shape, latents of the image size, the pipeline's steps.
  const auto flux = test::run({"probe", "--model", "flux-1-dev", "--mode", "inference", "--image-size", "1024", "--steps", "28"});
  REQUIRE(flux.code == 0);
  CHECK(flux.out.find("FluxTransformer2DModel(num_layers=19, num_single_layers=38") != std::string::npos);
  CHECK(flux.out.find("BATCH, H, W = 1, 1024, 1024") != std::string::npos);
  CHECK(flux.out.find("STEPS_DENOISE = 28") != std::string::npos);
  // What it cannot build it says, naming the setting.
  CHECK(test::run({"probe", "--model", "llama-3.1-8b", "--mode", "qlora"}).err.find("--mode: the probe builds random weights") != std::string::npos);
  CHECK(test::run({"probe", "--model", "yolov8-n", "--mode", "train"}).code == 2);
}

TEST_CASE("calibrate: a probe's measurement beside the estimate, saved as a correction every later answer states", "[cli][calibrate]") {
  // A probe of Llama 3.1 8B LoRA on an H100 that measured a tensor peak 5 % above the estimate and 20 % more
  // tokens/s: the correction is those two ratios, stored for (h100-sxm-80gb, hf, training) and applied with a note.
  const std::string dir = "/tmp/gpuadvise-test-calibration-" + std::to_string(::getpid());
  const std::string file = dir + "/calibration.json";
  setenv("GPUADVISE_CALIBRATION", file.c_str(), 1);
  const std::vector<std::string> est{"estimate", "--model", "llama-3.1-8b", "--mode", "lora", "--batch", "2", "--seq-len", "2048", "--gpu",
                                     "h100-sxm-80gb", "--format", "json"};
  const auto before = test::run(est).json();
  const double peak = before["memory"]["tensor_peak_bytes"].get<double>();
  const double tps = before["time"]["train_tokens_per_second_per_gpu"].get<double>();
  const std::string probe = fmt::format(
      R"({{"schema": "gpuadvise-probe/1", "estimate_args": "--batch 2 --mode lora --model llama-3.1-8b --seq-len 2048", "gpu_name": "NVIDIA H100 80GB HBM3",)"
      R"( "measured": {{"max_memory_allocated_bytes": {:.0f}, "max_memory_reserved_bytes": {:.0f}, "device_used_bytes": {:.0f}, "step_seconds": 0.5,)"
      R"( "unit": "tokens", "per_second": {:.3f}}}}})",
      peak * 1.05, peak * 1.1, peak * 1.15, tps * 1.2);
  const auto cal = test::run({"calibrate", "-", "--save", "--format", "json"}, probe);
  INFO(cal.err);
  REQUIRE(cal.code == 0);
  const auto first = nlohmann::json::parse(cal.out.substr(0, cal.out.find("saved to")));
  CHECK(first["gpu"] == "h100-sxm-80gb");
  CHECK(first["correction"]["memory_factor"].get<double>() == Approx(1.05));
  CHECK(first["correction"]["speed_factor"].get<double>() == Approx(1.2));
  const auto after = test::run(est).json();
  CHECK(after["memory"]["tensor_peak_bytes"].get<double>() == Approx(peak * 1.05).epsilon(0.001));
  CHECK(after["time"]["train_tokens_per_second_per_gpu"].get<double>() == Approx(tps * 1.2));
  bool said = false;
  for (const auto& n : after["notes"]) said = said || n.get<std::string>().find("corrected by your calibration") != std::string::npos;
  CHECK(said);
  // Other GPUs and inference are untouched; --reset removes the file.
  const auto other = test::run({"estimate", "--model", "llama-3.1-8b", "--mode", "lora", "--batch", "2", "--seq-len", "2048", "--gpu",
                                "a100-sxm-80gb", "--format", "json"});
  const nlohmann::json other_json = other.json();
  REQUIRE(other_json["notes"].is_array());
  for (const auto& n : other_json["notes"]) CHECK(n.get<std::string>().find("calibration") == std::string::npos);
  CHECK(test::run({"calibrate", "--reset"}).code == 0);
  CHECK(test::run(est).json()["memory"]["tensor_peak_bytes"].get<double>() == Approx(peak));
  // A result file that is not a probe's is bad input naming the field.
  const auto bad = test::run({"calibrate", "-"}, R"({"schema": "something else"})");
  CHECK(bad.code == 2);
  CHECK(bad.err.find("stdin.schema") != std::string::npos);
  unsetenv("GPUADVISE_CALIBRATION");
  std::filesystem::remove_all(dir);
}

TEST_CASE("gpus: filters and sorts as sky show-gpus does, and refuses a typo", "[cli][gpus]") {
  const auto amd = test::run({"gpus", "--vendor", "AMD", "--sort", "memory", "--format", "json"});
  REQUIRE(amd.code == 0);
  const auto j = amd.json();
  REQUIRE(j["gpus"].size() >= 2);
  double last = 1e18;
  for (const auto& g : j["gpus"]) {
    CHECK(g["vendor"] == "AMD");
    const double mem = g["memory"]["capacity_bytes"].get<double>();
    CHECK(mem <= last);
    last = mem;
  }
  const auto big = test::run({"gpus", "--min-memory", "150", "--format", "json"});
  REQUIRE(big.code == 0);
  const auto bj = big.json();
  REQUIRE_FALSE(bj["gpus"].empty());
  for (const auto& g : bj["gpus"]) CHECK(g["memory"]["capacity_bytes"].get<double>() >= 150e9);
  CHECK(test::run({"gpus", "--vendor", "nvdia"}).err.find("valid: nvidia, amd, intel") != std::string::npos);
  CHECK(test::run({"gpus", "--sort", "speed"}).code == 2);
  CHECK(test::run({"gpus", "--provider", "nobody"}).code == 2);
}

TEST_CASE("completions, man page and the CLI reference come from the option definitions", "[cli][ecosystem]") {
  const auto bash = test::run({"completions", "bash"});
  REQUIRE(bash.code == 0);
  for (const char* word : {"complete -F _gpuadvise gpuadvise", "estimate|check|fit", "--seq-len", "--min-headroom", "h100-sxm-80gb", "llama-3.1-8b"}) {
    INFO(word);
    CHECK(bash.out.find(word) != std::string::npos);
  }
  const auto zsh = test::run({"completions", "zsh"});
  REQUIRE(zsh.code == 0);
  CHECK(zsh.out.rfind("#compdef gpuadvise", 0) == 0);
  const auto fish = test::run({"completions", "fish"});
  REQUIRE(fish.code == 0);
  CHECK(fish.out.find("__fish_seen_subcommand_from estimate' -l batch -r") != std::string::npos);
  CHECK(test::run({"completions", "powershell"}).code == 2);
  // Every value a completion offers is one the parser accepts: an estimate with it never says "unknown".
  for (const auto& [flag, values] : gpuadvise::cli::flag_choices()) {
    if (flag.rfind("--", 0) != 0 || flag == "--format" || flag == "--units" || flag == "--color") continue;  // checked below
    const bool ranking = flag == "--rank-by";
    const bool catalog = flag == "--sort" || flag == "--kind";
    const bool sweep = flag == "--vary" || flag == "--metric";
    const bool fit = flag == "--maximize";
    for (const auto& v : values) {
      std::vector<std::string> args = catalog ? std::vector<std::string>{flag == "--sort" ? "gpus" : "models", flag, v}
                                      : sweep ? std::vector<std::string>{"sweep", "--model", "7B", "--vary", flag == "--vary" ? v : "batch", "--metric",
                                                                         flag == "--metric" ? v : "memory", "--from", "1", "--to", "2"}
                                      : fit ? std::vector<std::string>{"fit", "--model", "7B", "--gpu", "h100-sxm-80gb", flag, v}
                                      : ranking ? std::vector<std::string>{"--model", "7B", flag, v}
                                                : std::vector<std::string>{"estimate", "--model", "7B", "--gpu", "h100-sxm-80gb", flag, v};
      const auto r = test::run(args);
      INFO(flag << " " << v << ": " << r.err);
      CHECK(r.err.find("unknown") == std::string::npos);
    }
  }
  for (const char* f : {"--format", "--units", "--color"})
    for (const auto& v : gpuadvise::cli::choices_of(f)) CHECK(test::run({"gpus", f, v}).code == 0);
  CHECK(test::run({"manpage", "--format", "markdwn"}).code == 2);
  const auto man = test::run({"manpage"});
  REQUIRE(man.code == 0);
  CHECK(man.out.find(".TH GPUADVISE 1") != std::string::npos);
  for (const char* sub : {"COMMAND: estimate", "COMMAND: check", "COMMAND: probe", "COMMAND: calibrate", ".SH EXIT STATUS"}) {
    INFO(sub);
    CHECK(man.out.find(sub) != std::string::npos);
  }
  // docs/cli.md is this output: regenerate it with `gpuadvise manpage --format markdown > docs/cli.md`.
  const auto ref = test::run({"manpage", "--format", "markdown"});
  REQUIRE(ref.code == 0);
  std::ifstream f(std::string(GPUADVISE_SOURCE_DIR) + "/docs/cli.md");
  REQUIRE(f.good());
  std::stringstream committed;
  committed << f.rdbuf();
  CHECK(committed.str() == ref.out);
}

TEST_CASE("cli: --gpu local reads the machine's GPU from nvidia-smi, and says so when there is none", "[cli][local]") {
  const std::string old_path = std::getenv("PATH") ? std::getenv("PATH") : "";
  // No nvidia-smi on PATH: one clear line, exit 2.
  setenv("PATH", "/nonexistent", 1);
  const auto none = test::run({"estimate", "--model", "7B", "--gpu", "local"});
  CHECK(none.code == 2);
  CHECK(none.err.find("--gpu: local needs nvidia-smi") != std::string::npos);
  // A machine whose nvidia-smi names an H100 (the name it prints maps to the catalogue's id).
  const std::string dir = "/tmp/gpuadvise-test-smi-" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  {
    std::ofstream f(dir + "/nvidia-smi");
    f << "#!/bin/sh\necho 'NVIDIA H100 80GB HBM3'\n";
  }
  std::filesystem::permissions(dir + "/nvidia-smi", std::filesystem::perms::owner_all);
  setenv("PATH", (dir + ":/usr/bin:/bin").c_str(), 1);
  const auto found = test::run({"estimate", "--model", "7B", "--gpu", "local", "--format", "json"});
  setenv("PATH", old_path.c_str(), 1);
  std::filesystem::remove_all(dir);
  REQUIRE(found.code == 0);
  CHECK(found.json()["gpu"]["id"] == "h100-sxm-80gb");
}

TEST_CASE("cli: a user catalogue adds a GPU or replaces one by id, and a broken one is bad input naming it", "[cli][catalog]") {
  // A copy of the bundled RTX 4090 entry under a new id, and the H100 SXM with a price of one's own.
  const std::string path = "/tmp/gpuadvise-test-user-gpus-" + std::to_string(::getpid()) + ".json";
  const auto bundled = test::run({"gpus", "--format", "json"}).json();
  nlohmann::json mine = nlohmann::json::array();
  for (const auto& g : bundled["gpus"]) {
    if (g["id"] == "rtx-4090-24gb") {
      auto copy = g;
      copy["id"] = "my-rtx-4090";
      mine.push_back(copy);
    }
  }
  REQUIRE(mine.size() == 1);
  {
    std::ofstream f(path);
    f << nlohmann::json{{"schema_version", 1}, {"catalog_version", "mine"}, {"gpus", mine}}.dump();
  }
  setenv("GPUADVISE_CATALOG", path.c_str(), 1);
  const auto listed = test::run({"gpus", "--format", "json"});
  const auto est = test::run({"estimate", "--model", "7B", "--gpu", "my-rtx-4090", "--format", "json"});
  {
    std::ofstream f(path);
    f << R"({"schema_version": 1})";
  }
  const auto broken = test::run({"gpus"});
  unsetenv("GPUADVISE_CATALOG");
  std::filesystem::remove(path);
  REQUIRE(listed.code == 0);
  CHECK(listed.json()["gpus"].size() == bundled["gpus"].size() + 1);
  REQUIRE(est.code == 0);
  CHECK(est.json()["gpu"]["id"] == "my-rtx-4090");
  CHECK(broken.code == 2);
  CHECK(broken.err.find("catalog_version") != std::string::npos);
}

TEST_CASE("sweep: one setting over a range, each GPU's capacity marked and where it stops fitting said", "[cli][sweep]") {
  // With full activation checkpointing, as the ranking would run it on the 4090 (without it no length fits there).
  const std::vector<std::string> base{"sweep", "--model", "llama-3.1-8b", "--mode", "lora", "--vary", "seq-len", "--from", "1024", "--to",
                                      "32768", "--points", "6", "--gpu", "rtx-4090-24gb", "--gpu", "h100-sxm-80gb", "--gradient-checkpointing"};
  auto with = [&](std::vector<std::string> extra) {
    auto a = base;
    a.insert(a.end(), extra.begin(), extra.end());
    return test::run(a);
  };
  const auto json = with({"--format", "json"});
  REQUIRE(json.code == 0);
  const auto j = json.json();
  REQUIRE(j["points"].size() == 6);  // 1024, 2048, ..., 32768: doubling
  CHECK(j["points"][1]["value"] == 2048);
  // Each point is the estimate at that value: the same device peak as estimate gives.
  const auto one = test::run({"estimate", "--model", "llama-3.1-8b", "--mode", "lora", "--seq-len", "4096", "--gpu", "h100-sxm-80gb", "--gradient-checkpointing",
                              "--format", "json"});
  CHECK(j["points"][2]["gpus"][1]["device_peak_bytes"] == one.json()["memory"]["device_peak_bytes"]);
  // The table names, per GPU, the last value that fits and the first that does not.
  const auto table = with({});
  REQUIRE(table.code == 0);
  std::string last_fit_4090;
  for (const auto& p : j["points"])
    if (p["gpus"][0]["fits"].get<bool>()) last_fit_4090 = std::to_string(p["value"].get<int>());
  REQUIRE_FALSE(last_fit_4090.empty());
  CHECK(table.out.find("rtx-4090-24gb: fits up to --seq-len " + last_fit_4090) != std::string::npos);
  const auto csv = with({"--format", "csv"});
  REQUIRE(csv.code == 0);
  CHECK(std::count(csv.out.begin(), csv.out.end(), '\n') == 1 + 6 * 2);
  // A sequence length varied: nothing every point shares to say beyond what a tight point is.
  for (const auto& n : j["notes"]) CHECK(n.get<std::string>().rfind("tight:", 0) == 0);
  CHECK(test::run({"sweep", "--model", "7B", "--vary", "heads", "--from", "1", "--to", "2"}).code == 2);
  CHECK(test::run({"sweep", "--model", "7B", "--vary", "batch", "--from", "8", "--to", "2"}).code == 2);
  CHECK(test::run({"sweep", "--model", "7B", "--vary", "batch", "--batch", "4", "--from", "1", "--to", "8"}).code == 2);
}

TEST_CASE("sweep: a GPU count varied with no layout runs the ranking's plan at each count, a layout flag fixes one", "[cli][sweep]") {
  // A 7B full fine-tune holds 7e9 x 16 B = 112 GB of weights, gradients and Adam states, more than four RTX 5090s
  // hold with ZeRO-3 (28 GB each before activations and the step's temporaries): at each count the sweep runs the
  // planner's best layout of that many GPUs, as the ranking and check answer --gpus N alone (method.md §9).
  const auto swept = test::run({"sweep", "--model", "7B", "--mode", "finetune", "--gpu", "rtx-5090-32gb", "--vary", "gpus", "--from", "1", "--to", "4", "--format", "json"});
  REQUIRE(swept.code == 0);
  const auto j = swept.json();
  REQUIRE(j["notes"].size() == 1);
  CHECK(j["notes"][0].get<std::string>().find("best layout of that many GPUs") != std::string::npos);
  for (const auto& point : j["points"]) {
    const auto n = std::to_string(point["value"].get<int>());
    const auto at = point["gpus"][0];
    std::vector<std::string> args{"--model", "7B", "--mode", "finetune", "--gpu", "rtx-5090-32gb", "--format", "json"};
    if (n != "1") args.insert(args.end(), {"--gpus", n});
    else args.insert(args.end(), {"--max-gpus", "1"});
    const auto ranked = test::run(args);
    REQUIRE(ranked.code == 0);
    const auto row = ranked.json()["ranking"][0];
    CHECK(at["fits"] == row["fits"]);
    CHECK(at["layout"] == row["layout"]);
    CHECK(at["device_peak_bytes"].get<double>() == Approx(row["memory"]["device_peak_bytes"].get<double>()));
  }
  // One card with the optimizer states and parameters on the host, four with the optimizer states there.
  CHECK(j["points"][0]["gpus"][0]["layout"].get<std::string>().find("offload") != std::string::npos);
  CHECK(j["points"][2]["gpus"][0]["layout"].get<std::string>().find("optimizer offload") != std::string::npos);
  const auto sharded =
      test::run({"sweep", "--model", "7B", "--mode", "finetune", "--gpu", "rtx-5090-32gb", "--vary", "gpus", "--from", "1", "--to", "4", "--sharding", "zero3", "--format", "json"});
  REQUIRE(sharded.code == 0);
  const auto k = sharded.json();
  // The layout fixed, no search note; the one card that does not fit as given says what the ranking would add.
  REQUIRE(k["notes"].size() == 1);
  CHECK(k["notes"][0].get<std::string>().find("without activation checkpointing") != std::string::npos);
  CHECK(k["points"][2]["gpus"][0]["layout"].get<std::string>() == "4 GPUs: FSDP/ZeRO-3 over 4, micro-batch 1 x 32");
  CHECK(k["points"][2]["gpus"][0]["device_peak_bytes"].get<double>() < k["points"][1]["gpus"][0]["device_peak_bytes"].get<double>());
  const auto table = test::run({"sweep", "--model", "7B", "--mode", "finetune", "--gpu", "rtx-5090-32gb", "--vary", "gpus", "--from", "1", "--to", "4"});
  CHECK(table.out.find("rtx-5090-32gb: fits the whole range") != std::string::npos);
  // Where fitting starts at a count, the sweep says from which: Llama 3.1 70B in bf16 holds 70.55e9 x 2 B = 141 GB of
  // weights, more than one H100's 85.5 GB; tensor parallel 2 holds 70.6 GB on each.
  const auto moe = test::run({"sweep", "--model", "meta-llama/Llama-3.1-70B", "--gpu", "h100-sxm-80gb", "--vary", "gpus", "--from", "1", "--to", "4"});
  CHECK(moe.out.find("h100-sxm-80gb: fits from --gpus 2 on, not at 1") != std::string::npos);
}

TEST_CASE("cli: models filters by kind and family, and refuses an unknown one", "[cli][models]") {
  const auto gen = test::run({"models", "--kind", "generation", "--format", "json"});
  REQUIRE(gen.code == 0);
  const auto j = gen.json();
  REQUIRE(j["models"].size() == 6);  // Stable Diffusion 1.4 and 1.5, SDXL, FLUX.1-dev and -schnell, SD3 Medium
  const auto qwen = test::run({"models", "--family", "qwen2"});
  REQUIRE(qwen.code == 0);
  CHECK(qwen.out.find("qwen2.5-7b") != std::string::npos);
  CHECK(qwen.out.find("llama") == std::string::npos);
  CHECK(test::run({"models", "--family", "lama"}).err.find("--family: unknown family 'lama'") != std::string::npos);
  CHECK(test::run({"models", "--kind", "text"}).code == 2);
}

namespace {
// RFC 4180 fields of one CSV line (quoted fields may hold commas; "" is a quote).
std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char ch = line[i];
    if (quoted && ch == '"' && i + 1 < line.size() && line[i + 1] == '"') out.back() += '"', ++i;
    else if (ch == '"') quoted = !quoted;
    else if (ch == ',' && !quoted) out.emplace_back();
    else out.back() += ch;
  }
  return out;
}
std::vector<std::vector<std::string>> csv_rows(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::size_t start = 0;
  for (std::size_t end; (end = text.find('\n', start)) != std::string::npos; start = end + 1) rows.push_back(csv_fields(text.substr(start, end - start)));
  return rows;
}
}  // namespace

TEST_CASE("cli: every command writes CSV, one field count per row", "[cli][csv]") {
  const std::vector<std::vector<std::string>> commands{
      {"--model", "7B"},
      {"estimate", "--model", "llama-2-7b", "--seq-len", "4096", "--gpu", "h100-sxm-80gb"},
      {"check", "--model", "7B", "--gpu", "h100-sxm-80gb"},
      {"fit", "--model", "7B", "--gpu", "rtx-4090-24gb", "--maximize", "batch"},
      {"gpus"},
      {"gpus", "h100-sxm-80gb"},
      {"models"},
      {"sweep", "--model", "7B", "--vary", "batch", "--from", "1", "--to", "4", "--gpu", "h100-sxm-80gb"}};
  for (auto args : commands) {
    args.insert(args.end(), {"--format", "csv"});
    const auto r = test::run(args);
    INFO(args.front());
    REQUIRE(r.code == 0);
    const auto rows = csv_rows(r.out);
    REQUIRE(rows.size() >= 2);
    for (const auto& row : rows) CHECK(row.size() == rows.front().size());
  }
  // Llama-2-7B's KV cache: 2 (K, V) x 32 layers x 4096 width x 2 bytes = 512 KiB per token; 4096 tokens = 2 GiB.
  const auto est = csv_rows(test::run({"estimate", "--model", "llama-2-7b", "--seq-len", "4096", "--format", "csv"}).out);
  const auto kv = std::find_if(est.begin(), est.end(), [](const auto& row) { return row[1] == "kv_cache"; });
  REQUIRE(kv != est.end());
  CHECK((*kv)[2] == "2147483648");
  CHECK((*kv)[3] == "bytes");
  // gpus: the H100 SXM's 80 GiB as CUDA reports it (85,520,809,984 bytes, nvidia-smi's 81,559 MiB).
  const auto gpu = csv_rows(test::run({"gpus", "h100-sxm-80gb", "--format", "csv"}).out);
  REQUIRE(gpu.size() == 2);
  CHECK(gpu[0][6] == "capacity_bytes");
  CHECK(gpu[1][6] == "85520809984");
}

TEST_CASE("cli: estimate of a plan that does not fit gives its rate as hypothetical, and no job time or cost", "[cli][invariants]") {
  // Qwen3-30B-A3B on 8 H100s at EP 8 without sharding: the experts' optimizer states stay whole on each GPU
  // (one expert-data-parallel rank), 118.8 GB against 85.5. The contract's rate stays; hours and dollars do not.
  const std::vector<std::string> job{"estimate", "--model", "qwen3-30b-a3b", "--mode", "train", "--precision", "fp8", "--framework", "megatron",
                                     "--seq-len", "4096", "--gpu", "h100-sxm-80gb", "--gpus", "8", "--ep", "8", "--tokens", "1T"};
  auto with = [&](std::vector<std::string> tail) {
    std::vector<std::string> a = job;
    a.insert(a.end(), tail.begin(), tail.end());
    return test::run(a);
  };
  const auto j = with({"--format", "json"});
  REQUIRE(j.code == 0);
  const auto d = j.json();
  CHECK(d["fits"] == false);
  CHECK(d["time"]["train_tokens_per_second_per_gpu"].is_number());
  CHECK(d["time"]["job_seconds"].is_null());
  CHECK(d["cost"]["job_usd"].is_null());
  const auto t = with({});
  CHECK(t.out.find("were it to fit (it does not: no job time or cost)") != std::string::npos);
  CHECK(t.out.find("  job: ") == std::string::npos);
  CHECK(t.out.find("no job cost: the plan does not fit") != std::string::npos);
  // The same plan sharded (ZeRO-1 still leaves the experts' states whole) and at half the experts per GPU fits,
  // and then has its job time and cost.
  const auto fits = test::run({"estimate", "--model", "qwen3-30b-a3b", "--mode", "train", "--precision", "fp8", "--framework", "megatron", "--seq-len", "4096",
                               "--gpu", "h100-sxm-80gb", "--gpus", "16", "--pp", "2", "--ep", "8", "--sharding", "zero1", "--tokens", "1T", "--format", "json"});
  REQUIRE(fits.code == 0);
  const auto f = fits.json();
  REQUIRE(f["fits"] == true);
  CHECK(f["time"]["job_seconds"].is_number());
  CHECK(f["cost"]["job_usd"].is_number());
}

TEST_CASE("check: as given it says what the ranking would add, and with --max-gpus it names the savers it applied", "[check][fit][cli]") {
  // Llama 3.1 8B LoRA at 16,384 tokens on one H100: as given (no activation checkpointing) it needs about 138 GB and
  // fails, and names the plan the ranking picks on one H100 (full checkpointing, about 48 GB); with --max-gpus the check
  // runs the planner, passes with full checkpointing at about 48 GB, and its line names that saver.
  const std::vector<std::string> args{"check", "--model", "llama-3.1-8b", "--mode", "lora", "--seq-len", "16384", "--gpu", "h100-sxm-80gb"};
  const auto as_given = test::run(args);
  CHECK(as_given.code == 1);
  CHECK(as_given.out.find("note: workload on h100-sxm-80gb: as given it does not fit; the ranking's plan on one GPU does: single GPU, full checkpointing") !=
        std::string::npos);
  auto searched_args = args;
  searched_args.insert(searched_args.end(), {"--max-gpus", "8"});
  const auto searched = test::run(searched_args);
  CHECK(searched.code == 0);
  CHECK(searched.out.find("per GPU on single GPU, full checkpointing") != std::string::npos);
  CHECK(searched.out.find("as given") == std::string::npos);
}

TEST_CASE("fit: the concurrency fitted under latency targets meets them, as the estimate's does", "[fit][serving][cli]") {
  // Llama 3.1 8B under vLLM on an H100, 2,000 in / 200 out, --max-tpot-ms 20: the pool holds 202 sequences, but the
  // estimate keeps 34 in flight, the most that meet the target; fit --maximize concurrency said 202.
  const std::vector<std::string> job{"--model", "llama-3.1-8b", "--mode", "inference", "--framework", "vllm", "--gpu", "h100-sxm-80gb",
                                     "--input-tokens", "2000", "--output-tokens", "200", "--max-tpot-ms", "20"};
  auto with = [&](std::vector<std::string> head) {
    head.insert(head.end(), job.begin(), job.end());
    return test::run_json(head);
  };
  const auto fitted = with({"fit", "--maximize", "concurrency"});
  const auto estimated = with({"estimate", "--requests", "10000"});
  const double tpot = estimated["time"]["tpot_seconds"].get<double>();
  const double in_flight = estimated["time"]["decode_tokens_per_second"].get<double>() * tpot;
  CHECK(fitted["value"].get<double>() == Approx(in_flight).margin(0.5));
  CHECK(tpot <= 0.020);
  CHECK(fitted["limited_by"].get<std::string>().find("over --max-tpot-ms 20") != std::string::npos);
  // Without the target the pool bounds it.
  auto free_job = job;
  free_job.erase(free_job.end() - 2, free_job.end());
  free_job.insert(free_job.begin(), {"fit", "--maximize", "concurrency"});
  CHECK(test::run_json(free_job)["value"].get<int>() > fitted["value"].get<int>() * 3);
}

TEST_CASE("estimate and check name the ranking's own plan where the workload as given does not fit", "[check][estimate][cli]") {
  // Llama 3.1 8B fully fine-tuned in bf16 on one H100: as given its weights, gradients, fp32 master weights and Adam
  // states alone are 8.03e9 x (2 + 2 + 4 + 8) = 128 GB, more than the card; the ranking fits it on the one card with the
  // optimizer in host memory. estimate's note, check's note and the ranking's row name the same plan.
  const std::vector<std::string> job{"--model", "llama-3.1-8b", "--mode", "finetune", "--precision", "bf16"};
  const auto row = test::run_json(test::args(job, {"--only", "h100-sxm-80gb", "--max-gpus", "1"}))["ranking"][0];
  REQUIRE(row["fits"] == true);
  const std::string layout = row["layout"].get<std::string>();
  CHECK(layout.find("CPU offload") != std::string::npos);
  const std::string said = "as given it does not fit; the ranking's plan on one GPU does: " + layout;
  const auto est = test::run_json(test::args({"estimate"}, test::args(job, {"--gpu", "h100-sxm-80gb"})));
  CHECK(est["fits"] == false);
  CHECK(test::says(est["notes"], said));
  const auto chk = test::run(test::args({"check"}, test::args(job, {"--gpu", "h100-sxm-80gb"})));
  CHECK(chk.code == 1);
  CHECK(chk.out.find(said) != std::string::npos);
  // Where nothing fits on the card even with every saver, neither says so: Llama 3.1 405B on one RTX 4090.
  const auto none = test::run_json({"estimate", "--model", "llama-3.1-405b", "--mode", "finetune", "--gpu", "rtx-4090-24gb"});
  CHECK_FALSE(test::says(none["notes"], "the ranking's plan"));
}
