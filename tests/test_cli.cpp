// The command line: exit codes, JSON keys of the contract, and one clear line for each bad input.
#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <filesystem>
#include <set>
#include <sstream>
#include <unistd.h>

#include <fmt/format.h>

#include "gpuadvise/framework.hpp"
#include "helpers.hpp"
#include "report_detail.hpp"


TEST_CASE("cli: --help and --version exit 0 on stdout", "[cli]") {
  auto h = test::run({"--help"});
  CHECK(h.code == 0);
  CHECK(h.out.find("Examples:") != std::string::npos);
  auto v = test::run({"--version"});
  CHECK(v.code == 0);
  CHECK(v.out.rfind("gpuadvise ", 0) == 0);
}

TEST_CASE("cli: the ranking lists the whole catalogue, as a table and as JSON", "[cli][rank]") {
  auto t = test::run({"--model", "7B", "--precision", "bf16", "--mode", "finetune", "--color", "never"});
  REQUIRE(t.code == 0);
  CHECK(t.out.find("h100-sxm-80gb") != std::string::npos);
  CHECK(t.out.find("\x1b[") == std::string::npos);
  auto j = test::run({"--model", "7B", "--precision", "bf16", "--mode", "finetune", "--format", "json"});
  REQUIRE(j.code == 0);
  const auto doc = j.json();
  CHECK(doc["schema_version"] == 1);
  CHECK(doc["ranking"].size() == test::gpus().gpus.size());
  CHECK(doc["ranking"][0]["fits"] == true);
  CHECK(doc["ranking"][0].contains("plan"));
  auto c = test::run({"--model", "7B", "--format", "csv"});
  CHECK(c.code == 0);
  CHECK(c.out.rfind("rank,gpu,fits", 0) == 0);
}

TEST_CASE("cli: nothing fits is still exit 0 and says so", "[cli][rank]") {
  // 405B parameters x 16 B of model states = 6.5 TB: more than 8 of the largest GPUs (8 x 288 GB) hold, and CPU
  // offload would need 405e9 x 24 B = 9.7 TB of host memory, more than any node of the catalogue has.
  auto r = test::run({"--model", "llama-3.1-405b", "--mode", "finetune", "--max-gpus", "8", "--color", "never"});
  CHECK(r.code == 0);
  CHECK(r.out.find("Nothing in the catalogue fits") != std::string::npos);
}

TEST_CASE("cli: estimate prints the contract's JSON keys", "[cli][estimate]") {
  auto r = test::run({"estimate", "--model", "llama-2-7b", "--mode", "inference", "--precision", "bf16", "--batch", "1",
                      "--seq-len", "4096", "--format", "json"});
  REQUIRE(r.code == 0);
  const auto j = r.json();
  const auto& c = j["memory"]["components"];
  CHECK(c["weights"].get<double>() == Approx(13.48e9).epsilon(0.001));
  CHECK(c["kv_cache"].get<std::int64_t>() == 2147483648LL);
  for (const char* k : {"weights", "gradients", "optimizer_states", "activations", "kv_cache", "runtime"}) CHECK(c.contains(k));
  CHECK(j["memory"]["device_peak_bytes"].get<double>() >= j["memory"]["tensor_peak_bytes"].get<double>());
  CHECK(j["memory"]["tensor_peak_bytes"].get<double>() > c["weights"].get<double>());
  CHECK(j["model"]["params"].get<double>() == Approx(6.738e9).epsilon(0.001));
}

TEST_CASE("cli: estimate with --gpu gives the verdict and times", "[cli][estimate]") {
  auto r = test::run({"estimate", "--model", "llama-3.1-8b", "--mode", "inference", "--gpu", "h100-sxm-80gb", "--format", "json"});
  REQUIRE(r.code == 0);
  const auto j = r.json();
  CHECK(j["fits"] == true);
  CHECK(j["time"]["decode_tokens_per_second"].get<double>() > 0);
  auto t = test::run({"estimate", "--model", "llama-3.1-8b", "--mode", "lora", "--gpu", "a100-sxm-80gb", "--explain", "--color", "never"});
  CHECK(t.code == 0);
  CHECK(t.out.find("source:") != std::string::npos);
}

TEST_CASE("cli: a workload file, from a path or stdin, with flags overriding it", "[cli][workload]") {
  const std::string file = R"({"model": "llama-3.1-8b", "mode": "inference", "seq_len": 1024, "batch": 2, "flash_attention": true})";
  auto r = test::run({"estimate", "--workload", "-", "--batch", "4", "--format", "json"}, file);
  REQUIRE(r.code == 0);
  CHECK(r.json()["workload"]["batch"] == 4);
  CHECK(r.json()["workload"]["seq_len"] == 1024);
}

TEST_CASE("cli: gpus lists the catalogue and shows one entry with its sources", "[cli][gpus]") {
  auto l = test::run({"gpus"});
  CHECK(l.code == 0);
  CHECK(l.out.find("mi300x-192gb") != std::string::npos);
  auto one = test::run({"gpus", "h100-sxm-80gb", "--format", "json"});
  REQUIRE(one.code == 0);
  CHECK(one.json()["gpu"]["memory"]["capacity_bytes"] == 85520809984LL);
  // A name with one match is its entry ("gpus H100" lists the family: the names test); a typo gets suggestions.
  CHECK(test::run({"gpus", "RTX-5090", "--format", "json"}).json()["gpu"]["id"] == "rtx-5090-32gb");
  auto bad = test::run({"gpus", "h100-sxm-8gb"});
  CHECK(bad.code == 2);
  CHECK(bad.err.find("did you mean") != std::string::npos);
}

namespace {
void bad_input(std::vector<std::string> args, const std::string& must_mention, const std::string& stdin_text = "") {
  INFO(must_mention);
  auto r = test::run(std::move(args), stdin_text);
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(r.err.find(must_mention) != std::string::npos);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);  // one line
}
}  // namespace

TEST_CASE("cli: bad input is one line naming the flag or field, exit 2", "[cli][errors]") {
  bad_input({"--mode", "finetuen"}, "--mode: unknown value 'finetuen' (valid: train, finetune");
  bad_input({"--precision", "bf17"}, "--precision");
  bad_input({"--batch", "0"}, "--batch: expected an integer from 1 to 1,048,576, got '0'");
  bad_input({"--batch", "-3"}, "--batch");
  bad_input({"--seq-len", "abc"}, "--seq-len");
  bad_input({"--gpus", "3", "--tp", "2"}, "--gpus");
  bad_input({"estimate", "--gpu", "h100-sxm-8gb"}, "did you mean 'h100-sxm-80gb'");
  bad_input({"--model", "llama-3.1-8"}, "did you mean");
  bad_input({"--model", "no/such/config.json"}, "--model: cannot read");
  bad_input({"--optimizer", "adam9"}, "--optimizer");
  bad_input({"--bacth", "2"}, "--batch");
  bad_input({"--format", "yaml"}, "--format");
  bad_input({"--workload", "-"}, "malformed JSON", "{\"batch\": 2,");
  bad_input({"--workload", "-"}, "stdin.bach: unknown field 'bach'", "{\"bach\": 2}");
  bad_input({"--workload", "-"}, "stdin.batch: expected an integer from 1 to 1,048,576", "{\"batch\": 0}");
  bad_input({"--model", test::fixture("bad/config_no_type.json")}, "model_type");
  bad_input({"--model", test::fixture("bad/config_bad_field.json")}, "num_hidden_layers");
  bad_input({"--catalog", test::fixture("bad/catalog_unknown_key.json")}, "unknown field 'memroy'");
  // The long fuzz run's finding: a capacity of 8.6e91 bytes was cast to a 64-bit integer (undefined).
  bad_input({"--catalog", test::fixture("bad/catalog_capacity_overflow.json")}, "capacity_bytes: expected a positive whole number of bytes up to 1e15");
  // Fuzz finding (catalog harness, 7.6M runs): a pcie_gen of 5.6e19 was cast to int (undefined behaviour).
  bad_input({"--catalog", test::fixture("bad/catalog_pcie_gen_overflow.json")}, "pcie_gen: expected a whole number from 1 to 8");
  // The compute capability is read as MAJOR.MINOR (what precision support and decoders key on): anything else is bad input.
  bad_input({"--catalog", test::fixture("bad/catalog_compute_capability.json")}, "software.compute_capability: expected MAJOR.MINOR");
  bad_input({"--catalog", test::fixture("bad/catalog_wrong_type.json")}, "memory.capacity_bytes: expected a number");
  bad_input({"--catalog", test::fixture("bad/catalog_missing.json")}, "missing field 'software'");
}

TEST_CASE("check: exit 0 when every assertion holds, 1 when one fails, 2 on bad input", "[cli][check]") {
  auto ok = test::run({"check", "--workload", test::fixture("workloads/fits.json"), "--gpu", "h100-sxm-80gb", "--min-headroom", "10"});
  CHECK(ok.code == 0);
  CHECK(ok.out.find("2 of 2 checks passed") != std::string::npos);
  auto no = test::run({"check", "--workload", test::fixture("workloads/does_not_fit.json"), "--gpu", "h100-sxm-80gb", "--gpu",
                       "a100-sxm-80gb"});
  CHECK(no.code == 1);
  CHECK(no.out.find("full-70b on h100-sxm-80gb: does not fit: needs") != std::string::npos);
  CHECK(no.out.find("full-70b on a100-sxm-80gb: does not fit") != std::string::npos);
  // With more GPUs allowed the same workload fits with FSDP, unless the cost cap is too low.
  auto sharded = test::run({"check", "--workload", test::fixture("workloads/does_not_fit.json"), "--gpu", "h100-sxm-80gb",
                            "--max-gpus", "32", "--format", "json"});
  CHECK(sharded.code == 0);
  CHECK(sharded.json()["results"][0]["gpus"].get<int>() > 1);
  auto cost = test::run({"check", "--workload", test::fixture("workloads/fits.json"), "--gpu", "h100-sxm-80gb", "--max-cost", "0.01"});
  CHECK(cost.code == 1);
  CHECK(cost.out.find("lora-8b-on-80gb on h100-sxm-80gb: job costs $") != std::string::npos);
  CHECK(cost.out.find("serve-8b on h100-sxm-80gb: --max-cost 0.01 cannot be checked: no job size") != std::string::npos);
  auto bad = test::run({"check", "--workload", test::fixture("workloads/bad_field.json"), "--gpu", "h100-sxm-80gb"});
  CHECK(bad.code == 2);
  CHECK(bad.err.find("unknown field 'bach'") != std::string::npos);
  auto bad_type = test::run({"check", "--workload", test::fixture("workloads/bad_type.json"), "--gpu", "h100-sxm-80gb"});
  CHECK(bad_type.code == 2);
  CHECK(bad_type.err.find("batch: expected an integer from 1 to 1,048,576, got 'lots'") != std::string::npos);
  auto no_gpu = test::run({"check", "--workload", test::fixture("workloads/fits.json")});
  CHECK(no_gpu.code == 2);
}

TEST_CASE("fit: the largest batch fits and one more does not", "[cli][fit]") {
  auto r = test::run({"fit", "--gpu", "rtx-4090-24gb", "--model", "llama-3.1-8b", "--mode", "qlora", "--precision", "bf16", "--seq-len",
                      "2048", "--gradient-checkpointing", "--maximize", "batch", "--format", "json"});
  REQUIRE(r.code == 0);
  const auto j = r.json();
  const auto b = j["value"].get<std::int64_t>();
  REQUIRE(b >= 1);
  CHECK(j["memory"]["device_peak_bytes"].get<double>() <= j["capacity_bytes"].get<double>());
  CHECK(j["next_device_peak_bytes"].get<double>() > j["capacity_bytes"].get<double>());
  // The estimate at batch + 1, run directly, does not fit.
  auto next = test::run({"estimate", "--gpu", "rtx-4090-24gb", "--model", "llama-3.1-8b", "--mode", "qlora", "--precision", "bf16",
                         "--seq-len", "2048", "--gradient-checkpointing", "--batch", std::to_string(b + 1), "--format", "json"});
  CHECK(next.json()["fits"] == false);
  auto s = test::run({"fit", "--gpu", "h100-sxm-80gb", "--model", "llama-3.1-8b", "--mode", "inference", "--maximize", "seq-len", "--format", "json"});
  CHECK(s.json()["value"].get<std::int64_t>() > 100000);
}

TEST_CASE("hints: vLLM flags for inference, a DeepSpeed config for ZeRO, SkyPilot resources", "[cli][hints]") {
  auto r = test::run({"estimate", "--model", "llama-3.1-70b", "--mode", "inference", "--gpus", "2", "--tp", "2", "--gpu", "h100-sxm-80gb",
                      "--seq-len", "8192", "--format", "json"});
  REQUIRE(r.code == 0);
  const auto h = r.json()["launch_hints"];
  CHECK(h["vllm"].get<std::string>().find("--tensor-parallel-size 2 --max-model-len 8192") != std::string::npos);
  CHECK(h["skypilot_task"].get<std::string>().find("accelerators: H100:2") != std::string::npos);
  auto t = test::run({"estimate", "--model", "llama-3.1-8b", "--mode", "finetune", "--gpus", "8", "--sharding", "zero2", "--gpu",
                      "a100-sxm-80gb", "--format", "json"});
  const auto ht = t.json()["launch_hints"];
  CHECK(ht["deepspeed_config"]["zero_optimization"]["stage"] == 2);
  CHECK(ht["deepspeed_config"]["zero_optimization"]["overlap_comm"] == true);
  CHECK(ht["deepspeed_config"]["gradient_accumulation_steps"] == 16);  // the recipes' 128 sequences over 8 ranks of 1
  CHECK(ht["hf_trainer_args"].get<std::string>().find("--per_device_train_batch_size 1 --bf16") != std::string::npos);
  // One GPU with the optimizer on the CPU: DeepSpeed's ZeRO-2 offload form, as ds_config.json holds it (JSON) and
  // on one line (the table).
  auto o = test::run({"estimate", "--model", "1B", "--mode", "finetune", "--offload", "optimizer", "--gpu", "rtx-4090-24gb", "--format", "json"});
  REQUIRE(o.code == 0);
  CHECK(o.json()["launch_hints"]["deepspeed_config"] ==
        nlohmann::json::parse(R"({"train_micro_batch_size_per_gpu": 1, "bf16": {"enabled": true},
                                  "zero_optimization": {"stage": 2, "offload_optimizer": {"device": "cpu", "pin_memory": true}}})"));
  auto line = test::run({"estimate", "--model", "1B", "--mode", "finetune", "--offload", "optimizer", "--gpu", "rtx-4090-24gb", "--hints", "--color", "never"});
  CHECK(line.out.find("DeepSpeed:  {\"train_micro_batch_size_per_gpu\": 1, \"bf16\": {\"enabled\": true}, \"zero_optimization\": {\"stage\": 2, "
                      "\"offload_optimizer\": {\"device\": \"cpu\", \"pin_memory\": true}}}\n") != std::string::npos);
}

TEST_CASE("cli: the workload schema names exactly the keys a workload file may hold", "[cli]") {
  std::ifstream in(std::string(GPUADVISE_SOURCE_DIR) + "/data/schema/workload.schema.json");
  REQUIRE(in.good());
  const auto schema = nlohmann::json::parse(in);
  std::set<std::string> in_schema;
  for (const auto& [k, v] : schema["oneOf"][0]["properties"].items()) in_schema.insert(k);
  const std::set<std::string> parsed(gpuadvise::workload_keys().begin(), gpuadvise::workload_keys().end());
  CHECK(in_schema == parsed);
}

TEST_CASE("cli: the workload schema names every framework, and every framework runs some kind of model", "[cli]") {
  std::ifstream in(std::string(GPUADVISE_SOURCE_DIR) + "/data/schema/workload.schema.json");
  REQUIRE(in.good());
  const auto schema = nlohmann::json::parse(in);
  // The single object and each entry of an array of them.
  const auto& single = schema["oneOf"][0]["properties"]["framework"]["enum"];
  const auto& listed = schema["oneOf"][1]["items"]["properties"]["framework"]["enum"];
  for (std::size_t i = 0; i < gpuadvise::k_framework_count; ++i) {
    const auto f = static_cast<gpuadvise::Framework>(i);
    const std::string name = gpuadvise::to_string(f);
    INFO(name);
    CHECK(std::find(single.begin(), single.end(), name) != single.end());
    CHECK(std::find(listed.begin(), listed.end(), name) != listed.end());
    bool runs = false;
    for (auto kind : {gpuadvise::ModelKind::language, gpuadvise::ModelKind::vision, gpuadvise::ModelKind::generation}) {
      const auto& v = gpuadvise::frameworks_for(kind);
      runs = runs || std::find(v.begin(), v.end(), f) != v.end();
    }
    CHECK(runs);
  }
}

TEST_CASE("cli: a framework of another kind of model is bad input naming the valid ones", "[cli]") {
  auto llm = test::run({"estimate", "--model", "7B", "--framework", "detectron2"});
  CHECK(llm.code == 2);
  CHECK(llm.err.find("--framework: detectron2 does not run a language model (valid for 7B: hf, vllm") != std::string::npos);
  auto det = test::run({"--model", "yolov8-m", "--framework", "vllm"});
  CHECK(det.code == 2);
  CHECK(det.err.find("valid for yolov8-m: pytorch, detectron2, mmdet, ultralytics, tensorrt") != std::string::npos);
  CHECK(test::run({"estimate", "--model", "stable-diffusion-v1-4", "--mode", "inference", "--framework", "diffusers"}).code == 0);
}

TEST_CASE("cli: GPU and model names as people write them", "[cli][names]") {
  // nvidia-smi and SkyPilot names, any case, spaces and underscores.
  for (const auto& [name, id] : std::vector<std::pair<std::string, std::string>>{{"H100", "h100-sxm-80gb"},
                                                                                 {"A100-80GB", "a100-sxm-80gb"},
                                                                                 {"NVIDIA GeForce RTX 4090", "rtx-4090-24gb"},
                                                                                 {"RTXPRO6000", "rtx-pro-6000-blackwell-se-96gb"},
                                                                                 {"MI300X", "mi300x-192gb"},
                                                                                 {"H100_SXM", "h100-sxm-80gb"}}) {
    const auto r = test::run({"estimate", "--model", "7B", "--gpu", name, "--format", "json"});
    INFO(name << ": " << r.err);
    REQUIRE(r.code == 0);
    CHECK(r.json()["gpu"]["id"] == id);
  }
  // Hugging Face repo ids map to the preset of the same shape (instruct and chat variants share it).
  for (const char* repo : {"meta-llama/Llama-3.1-8B", "meta-llama/Llama-3.1-8B-Instruct"}) {
    const auto r = test::run({"estimate", "--model", repo, "--format", "json"});
    REQUIRE(r.code == 0);
    CHECK(r.json()["model"]["id"] == "llama-3.1-8b");
  }
  // The repository a preset was read from resolves to it; one without a preset says what is close.
  const auto mistral = test::run({"estimate", "--model", "mistralai/Mistral-7B-v0.1", "--format", "json"});
  REQUIRE(mistral.code == 0);
  CHECK(mistral.json()["model"]["id"] == "mistral-7b");
  const auto unknown = test::run({"estimate", "--model", "meta-llama/Llama-3.1-9B"});
  CHECK(unknown.code == 2);
  CHECK(unknown.err.find("did you mean") != std::string::npos);
  // `gpus h100` lists the family; an id, or a name with one match, is that entry.
  const auto h100 = test::run({"gpus", "H100", "--format", "json"});
  REQUIRE(h100.code == 0);
  const auto listed = h100.json();
  std::set<std::string> family;
  for (const auto& g : listed["gpus"]) family.insert(g["id"].get<std::string>());
  CHECK(family == std::set<std::string>{"h100-sxm-80gb", "h100-pcie-80gb", "h100-nvl-94gb", "h100-sxm-96gb"});
  CHECK(test::run({"gpus", "rtx-4090"}).out.rfind("GeForce RTX 4090 (rtx-4090-24gb)", 0) == 0);
  CHECK(test::run({"gpus", "h100-sxm-80gb", "--format", "json"}).json()["gpu"]["id"] == "h100-sxm-80gb");
  // A snapshot folder: its config.json.
  const auto folder = test::run({"estimate", "--model", test::fixture("models/llama-3.1-8b-snapshot"), "--format", "json"});
  REQUIRE(folder.code == 0);
  CHECK(folder.json()["model"]["params"].get<double>() == Approx(8.03e9).epsilon(0.01));
  CHECK(folder.json()["model"]["id"] == "llama-3.1-8b-snapshot");
  // A Hugging Face cache snapshot goes by its repository, not its hash; a config.json by its folder.
  const auto cache = std::filesystem::temp_directory_path() / ("gpuadvise-hub-" + std::to_string(::getpid()));
  const auto snap = cache / "models--meta-llama--Llama-3.1-8B" / "snapshots" / "5206a32e0bd3067aef1ce90f5528ade7d866253f";
  std::filesystem::create_directories(snap);
  std::filesystem::copy_file(test::fixture("models/llama-3.1-8b.json"), snap / "config.json", std::filesystem::copy_options::overwrite_existing);
  for (const std::string& p : {snap.string(), snap.string() + "/", (snap / "config.json").string()}) {
    const auto r = test::run({"estimate", "--model", p, "--format", "json"});
    REQUIRE(r.code == 0);
    CHECK(r.json()["model"]["id"] == "meta-llama/Llama-3.1-8B");
  }
  std::filesystem::copy_file(test::fixture("models/llama-3.1-8b.json"), cache / "config.json", std::filesystem::copy_options::overwrite_existing);
  CHECK(test::run({"estimate", "--model", (cache / "config.json").string(), "--format", "json"}).json()["model"]["id"] == cache.filename().string());
  std::filesystem::remove_all(cache);
}

TEST_CASE("cli: --format markdown gives a table a CI comment can show, and -q leaves only the exit status", "[cli]") {
  const auto rank = test::run({"--model", "7B", "--mode", "finetune", "--format", "markdown"});
  REQUIRE(rank.code == 0);
  CHECK(rank.out.find("| # | GPU | fits | GPUs | layout |") != std::string::npos);
  CHECK(rank.out.find("|--:|---|") != std::string::npos);
  const auto chk = test::run({"check", "--model", "7B", "--gpu", "h100-sxm-80gb", "--format", "markdown"});
  REQUIRE(chk.code == 0);
  CHECK(chk.out.find("| ✅ pass | workload | `h100-sxm-80gb` |") != std::string::npos);
  const auto est = test::run({"estimate", "--model", "7B", "--gpu", "h100-sxm-80gb", "--format", "markdown"});
  REQUIRE(est.code == 0);
  CHECK(est.out.find("| weights | 14.00 |") != std::string::npos);
  // The lists, the sweep, one GPU's entry, fit and calibration are markdown tables too, pipes escaped; none is fenced.
  const auto gpus = test::run({"gpus", "--format", "markdown"});
  REQUIRE(gpus.code == 0);
  CHECK(gpus.out.find("| id | vendor | mem GB | TB/s | bf16 TF | fp8 TF | link GB/s | stack | $/GPU-h |") != std::string::npos);
  CHECK(gpus.out.find("| h100-sxm-80gb | NVIDIA | 85.5 |") != std::string::npos);
  const auto models = test::run({"models", "--format", "markdown"});
  CHECK(models.out.find("| id | family | params B | active B | shape |\n|---|---|---:|---:|---|") != std::string::npos);
  const auto sweep = test::run({"sweep", "--model", "7B", "--mode", "finetune", "--vary", "batch", "--from", "1", "--to", "2", "--format", "markdown"});
  CHECK(sweep.out.find("| --batch | h100-sxm-80gb |\n|---:|---:|\n| 1 |") != std::string::npos);
  CHECK(gpuadvise::detail::markdown_grid({{"a|b"}}, {{"x|y"}}) == "| a\\|b |\n|---|\n| x\\|y |\n");
  const auto one = test::run({"gpus", "h100-sxm-80gb", "--format", "markdown"});
  CHECK(one.out.find("| memory | 85520809984 bytes = 85.52 GB = 81559 MiB (reported), HBM3 80 GB nominal |") != std::string::npos);
  CHECK(one.out.find("| provider | USD/GPU-h | seen | source |\n|---|---:|---|---|\n| Lambda | $3.99 |") != std::string::npos);
  // An 8B LoRA fits an 80 GB card: the largest batch is the bold row, the next one does not fit.
  const auto fit = test::run({"fit", "--gpu", "h100-sxm-80gb", "--model", "llama-3.1-8b", "--mode", "lora", "--format", "markdown"});
  CHECK(fit.out.find("## Largest batch that fits `h100-sxm-80gb`") == 0);
  CHECK(fit.out.find("| batch | device peak (GB) | headroom (GB) | verdict |\n|--:|--:|--:|---|\n| **") != std::string::npos);
  const std::string probe =
      R"({"schema": "gpuadvise-probe/1", "estimate_args": "--batch 2 --mode lora --model llama-3.1-8b --seq-len 2048", "gpu_name": "NVIDIA H100 80GB HBM3",)"
      R"( "measured": {"max_memory_allocated_bytes": 3e10, "max_memory_reserved_bytes": 3.2e10, "device_used_bytes": 3.4e10, "step_seconds": 0.5,)"
      R"( "unit": "tokens", "per_second": 8000}})";
  const auto cal = test::run({"calibrate", "-", "--format", "markdown"}, probe);
  CHECK(cal.out.find("| quantity (GB) | measured | estimated | error | what |") != std::string::npos);
  CHECK(cal.out.find("| tensor peak | 30.00 | ") != std::string::npos);
  for (const auto* o : {&one, &fit, &cal}) CHECK(o->out.find("```") == std::string::npos);
  // -q: nothing on stdout; the exit status carries the answer (a 70B in bf16 does not fit one RTX 4090).
  const auto quiet_fail = test::run({"check", "--model", "70B", "--gpu", "rtx-4090-24gb", "-q"});
  CHECK(quiet_fail.code == 1);
  CHECK(quiet_fail.out.empty());
  const auto quiet_pass = test::run({"check", "--model", "7B", "--gpu", "h100-sxm-80gb", "--quiet"});
  CHECK(quiet_pass.code == 0);
  CHECK(quiet_pass.out.empty());
  // Errors still reach stderr under -q.
  const auto quiet_bad = test::run({"check", "--model", "7B", "--gpu", "no-such-gpu", "-q"});
  CHECK(quiet_bad.code == 2);
  CHECK_FALSE(quiet_bad.err.empty());
  CHECK(test::run({"--model", "7B", "--format", "yaml"}).err.find("valid: table, json, markdown, csv") != std::string::npos);
}

TEST_CASE("cli: estimate draws where the memory goes against the card and hides parts the workload lacks", "[cli][estimate]") {
  // Inference has no gradients or optimizer states: those rows are not printed; the bar ends at the capacity.
  const auto r = test::run({"estimate", "--model", "7B", "--gpu", "h100-sxm-80gb"});
  REQUIRE(r.code == 0);
  CHECK(r.out.find("\n  gradients ") == std::string::npos);
  CHECK(r.out.find("\n  optimizer states ") == std::string::npos);
  CHECK(r.out.find("  [WWWWWWWWK") != std::string::npos);  // 14 GB of weights is 8 of 50 cells of 85.5 GB
  CHECK(r.out.find("15.8 of 85.5 GB") != std::string::npos);
  // Over capacity: the capacity mark sits inside the bar.
  const auto over = test::run({"estimate", "--model", "70B", "--gpu", "rtx-4090-24gb"});
  REQUIRE(over.code == 0);
  const auto bar = over.out.substr(over.out.find("  ["), over.out.find(']', over.out.find("  [")) - over.out.find("  ["));
  CHECK(bar.find('|') < bar.size() - 1);
}

TEST_CASE("cli: repeated notes and reasons are said once, with the GPUs and the numbers' range", "[cli][rank]") {
  // One sequence a step (--global-batch 1), so that the optimizer step's note concerns many GPUs.
  auto r = test::run({"--model", "7B", "--precision", "bf16", "--mode", "finetune", "--global-batch", "1", "--wide", "--color", "never"});
  REQUIRE(r.code == 0);
  // Under "Why not:" and "Notes:", no two lines may be the same text once their numbers are masked.
  std::istringstream lines(r.out);
  std::set<std::string> seen;
  std::string section;
  for (std::string line; std::getline(lines, line);) {
    if (line == "Why not:" || line == "Notes:") section = line;
    if (section.empty() || line.rfind("  ", 0) != 0) continue;
    std::string masked;
    for (std::size_t i = 0; i < line.size(); ++i) {
      const bool alone = i == 0 || !(std::isalnum(static_cast<unsigned char>(line[i - 1])) || line[i - 1] == '-' || line[i - 1] == '.');
      if (alone && std::isdigit(static_cast<unsigned char>(line[i]))) {
        while (i + 1 < line.size() && (std::isdigit(static_cast<unsigned char>(line[i + 1])) || line[i + 1] == '.' || line[i + 1] == '%')) ++i;
        masked += '#';
      } else {
        masked += line[i];
      }
    }
    // Notes name their GPUs in a trailing parenthesis; reasons lead with them: compare the text alone.
    const std::string text = section == "Notes:" ? masked.substr(0, masked.rfind(" (")) : masked.substr(masked.find(": ") + 2);
    INFO(line);
    CHECK(seen.insert(section + text).second);
  }
  CHECK(r.out.find("no price (--price ID=USD sets one)") != std::string::npos);
  // The optimizer-step note ranges over the GPUs it concerns ("adds 11–32%"), said once.
  const auto at = r.out.find("the optimizer step (memory-bound");
  REQUIRE(at != std::string::npos);
  CHECK(r.out.find("the optimizer step (memory-bound", at + 1) == std::string::npos);
  CHECK(r.out.substr(at, 120).find("\u2013") != std::string::npos);
}

TEST_CASE("cli: --units gib prints memory in GiB, nvidia-smi's MiB beside the numbers people check", "[cli][units]") {
  // Llama-2-7B: 6.738e9 parameters x 2 bytes = 13.48e9 bytes = 12.55 GiB; the RTX 4090's 25,757,220,864 bytes
  // are the 24,564 MiB nvidia-smi reports.
  const auto gib = test::run({"estimate", "--model", "llama-2-7b", "--gpu", "rtx-4090-24gb", "--units", "gib", "--color", "never"});
  REQUIRE(gib.code == 0);
  CHECK(gib.out.find("weights                   12.6 GiB") != std::string::npos);
  CHECK(gib.out.find("24.0 GiB usable = 24564 MiB") != std::string::npos);
  const auto gb = test::run({"estimate", "--model", "llama-2-7b", "--gpu", "rtx-4090-24gb", "--color", "never"});
  CHECK(gb.out.find("weights                   13.5 GB") != std::string::npos);
  CHECK(gb.out.find("25.8 GB usable") != std::string::npos);
  const auto table = test::run({"--model", "7B", "--units", "gib", "--wide", "--color", "never"});
  CHECK(table.out.find("peak GiB") != std::string::npos);
  CHECK(test::run({"gpus", "--units", "gib"}).out.find("mem GiB") != std::string::npos);
  const auto bad = test::run({"--model", "7B", "--units", "tb"});
  CHECK(bad.code == 2);
  CHECK(bad.err.find("--units: unknown value 'tb' (valid: gb, gib)") != std::string::npos);
}

TEST_CASE("cli: the ranking draws each plan's peak against the usable memory", "[cli][rank]") {
  // 7B inference in bf16 on one H100: 15.8 of 85.5 GB = 18% = 1 of 8 cells. 70B (146 GB) on one RTX 4090 does
  // not fit: the bar is full and open-ended.
  const auto fits = test::run({"--model", "7B", "--only", "h100-sxm-80gb", "--wide", "--color", "never"});
  CHECK(fits.out.find("[#.......]") != std::string::npos);
  const auto over = test::run({"--model", "70B", "--only", "rtx-4090-24gb", "--max-gpus", "1", "--wide", "--color", "never"});
  CHECK(over.out.find("[########>") != std::string::npos);
}

TEST_CASE("cli: every --help placeholder names the kind of value, never TEXT", "[cli][help]") {
  for (const char* cmd : {"", "estimate", "check", "fit", "gpus", "models", "sweep", "probe", "calibrate", "completions", "manpage"}) {
    std::vector<std::string> args;
    if (*cmd) args.emplace_back(cmd);
    args.emplace_back("--help");
    const auto r = test::run(args);
    INFO(cmd);
    CHECK(r.code == 0);
    CHECK(r.out.find(" TEXT") == std::string::npos);
    CHECK(r.out.find(" INT") == std::string::npos);
  }
}

TEST_CASE("cli: every command's JSON opens with the same keys", "[cli][json]") {
  const std::vector<std::pair<std::vector<std::string>, std::string>> commands{
      {{"--model", "7B"}, "rank"},
      {{"estimate", "--model", "7B"}, "estimate"},
      {{"check", "--model", "7B", "--gpu", "h100-sxm-80gb"}, "check"},
      {{"fit", "--model", "7B", "--gpu", "rtx-4090-24gb"}, "fit"},
      {{"gpus"}, "gpus"},
      {{"gpus", "h100-sxm-80gb"}, "gpus"},
      {{"models"}, "models"},
      {{"sweep", "--model", "7B", "--vary", "batch", "--from", "1", "--to", "2"}, "sweep"}};
  for (auto [args, command] : commands) {
    args.insert(args.end(), {"--format", "json"});
    const auto r = test::run(args);
    INFO(args.front());
    REQUIRE(r.code == 0);
    const auto j = r.json();
    CHECK(j["schema_version"] == 1);
    CHECK(j["tool_version"].is_string());
    CHECK(j["command"] == command);
  }
}

TEST_CASE("cli: misspelt subcommands and GPU ids get a suggestion, whatever their case", "[cli][names]") {
  CHECK(test::run({"estimat"}).err.find("did you mean 'estimate'?") != std::string::npos);
  CHECK(test::run({"Estimate"}).err.find("did you mean 'estimate'?") != std::string::npos);
  CHECK(test::run({"gpu"}).err.find("did you mean 'gpus'?") != std::string::npos);
  // The first dash-separated word is kept: an A100 id, not the A10.
  const auto a100 = test::run({"estimate", "--gpu", "A100-80GBX"});
  CHECK(a100.code == 2);
  CHECK(a100.err.find("did you mean 'a100-") != std::string::npos);
  CHECK(a100.err.find("a10-24gb") == std::string::npos);
  // The ranking takes --gpu as --only, with the names nvidia-smi and SkyPilot print.
  const auto ranked = test::run({"--model", "7B", "--gpu", "H100", "--gpu", "A100-80GB", "--format", "json"});
  REQUIRE(ranked.code == 0);
  CHECK(ranked.json()["ranking"].size() == 2);
}

TEST_CASE("cli: a command line registers only the settings it gives, with the same answers and errors as a full registration", "[cli][names]") {
  // The alias of a setting, the = form and a bare flag with an optional value work when only they are registered.
  const auto engine = test::run({"--model", "7B", "--engine=vllm", "--format", "json"});
  REQUIRE(engine.code == 0);
  CHECK(engine.json()["workload"]["framework"] == "vllm");
  const auto recompute = test::run({"--model", "7B", "--mode", "finetune", "--gradient-checkpointing", "--format", "json"});
  REQUIRE(recompute.code == 0);
  CHECK(recompute.json()["workload"]["gradient_checkpointing"] == "full");
  // A misspelt setting is parsed again with every option: its message names it and suggests the right one.
  const auto typo = test::run({"--model", "7B", "--lora-rnk", "8"});
  CHECK(typo.code == 2);
  CHECK(typo.err.find("--lora-rnk") != std::string::npos);
  CHECK(typo.err.find("--lora-rank") != std::string::npos);
  // Help lists the settings the command line did not give.
  const auto help = test::run({"--model", "7B", "--help"});
  REQUIRE(help.code == 0);
  CHECK(help.out.find("--lora-targets") != std::string::npos);
  CHECK(help.out.find("--power-price") != std::string::npos);
}
