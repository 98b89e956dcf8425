// What runs where (issue: a support matrix that holds): precisions per GPU generation, a serving engine's share
// against the weights, the layouts adapters and 4-bit layers allow.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "gpuadvise/catalog.hpp"
#include "gpuadvise/global_batch.hpp"
#include "gpuadvise/memory.hpp"
#include "gpuadvise/model.hpp"
#include "gpuadvise/ranking.hpp"
#include "helpers.hpp"

using namespace gpuadvise;
using test::wl;

TEST_CASE("support: a serving engine's share never hides weights larger than it: device is at least tensor + runtime", "[advice][serving]") {
  // Llama 3.1 70B in bf16 under vLLM on a 24 GB card: 141 GB of weights, 0.6 GB of profiled activations (vLLM's
  // 2,048-token profile on a card under 70 GiB) and 1.1 GB of runtime need 142.8 GB on the device, not vLLM's
  // 0.9 x 25.8 = 23.2 GB share (reported on its own).
  const auto m = test::model("llama-3.1-70b");
  const auto& g = *test::gpus().find("rtx-4090-24gb");
  const auto w = wl({{"model", "llama-3.1-70b"}, {"mode", "inference"}, {"framework", "vllm"}});
  const auto e = estimate_memory(w, m, &g);
  REQUIRE(e.vllm);
  CHECK(e.vllm->budget_bytes == Approx(0.9 * static_cast<double>(g.memory_bytes)));
  CHECK(e.device_peak == Approx(e.tensor_peak + e.runtime));
  CHECK(e.device_peak / 1e9 == Approx(142.8).margin(0.1));
}

TEST_CASE("support: fp8 before Ampere is not supported, on Ampere it runs in bf16", "[advice][support]") {
  // No kernel takes fp8 weights below compute capability 8.0 (V100 7.0, T4 7.5); an A100 (8.0) keeps fp8 weights
  // and computes in bf16; an H100 (9.0) has fp8 tensor cores.
  const auto m = test::model("llama-3.1-8b");
  const auto w = wl({{"model", "llama-3.1-8b"}, {"mode", "inference"}, {"precision", "fp8"}});
  for (const char* id : {"v100-sxm2-32gb", "t4-16gb"}) {
    INFO(id);
    const PrecisionSupport ps = precision_support(w, *test::gpus().find(id));
    CHECK_FALSE(ps.supported);
    CHECK(ps.note.text().find("fp8 needs compute capability 8.0+") != std::string::npos);
  }
  const PrecisionSupport a100 = precision_support(w, *test::gpus().find("a100-sxm-80gb"));
  CHECK(a100.supported);
  CHECK(a100.compute_key == "bf16");
  CHECK(precision_support(w, *test::gpus().find("h100-sxm-80gb")).compute_key == "fp8");
  // FLUX on a T4 (no bf16): fp16, but with its T5 text encoder in fp32 (method.md §12.4), said where the row is dropped.
  const auto flux = test::run({"--model", "flux-1-dev", "--mode", "inference", "--only", "t4-16gb"});
  REQUIRE(flux.code == 0);
  CHECK(flux.out.find("use fp16, with the T5 text encoder in fp32") != std::string::npos);
}

TEST_CASE("support: QLoRA's 4-bit layers have no tensor parallelism, and PEFT adapters outside Megatron split by data only", "[advice][support]") {
  // A layout asked with tensor parallel is not supported, with the reason; the planner never offers one.
  const auto m = test::model("llama-3.1-70b");
  const auto& g = *test::gpus().find("rtx-4090-24gb");
  const Candidate c = evaluate(wl({{"model", "llama-3.1-70b"}, {"mode", "qlora"}, {"gpus", "2"}, {"tp", "2"}}), m, g);
  CHECK_FALSE(c.supported);
  REQUIRE_FALSE(c.notes.empty());
  CHECK(c.notes.front().text().find("no tensor parallelism") != std::string::npos);
  for (const char* mode : {"qlora", "lora"}) {
    INFO(mode);
    const Ranking r = rank_gpus(wl({{"model", "llama-3.1-70b"}, {"mode", mode}, {"tokens", "100M"}}), m, test::gpus(), RankOptions{});
    for (const Candidate& row : r.rows) {
      INFO(row.gpu->id << ": " << row.layout);
      CHECK(row.planned.tp == 1);
      CHECK(row.planned.pp == 1);
    }
  }
  // Sharded QLoRA stores the 4-bit weights in the model's 16-bit dtype so FSDP can flatten them (PEFT's FSDP-QLoRA
  // guide: bnb_4bit_quant_storage); one GPU needs no such setting.
  const auto sharded = test::run_json({"estimate", "--model", "llama-3.1-70b", "--mode", "qlora", "--gpu", "rtx-4090-24gb", "--gpus", "8", "--sharding",
                                       "zero3", "--gradient-checkpointing", "--double-quant"});
  std::string peft;
  for (const auto& n : sharded["launch_hints"]["notes"])
    if (n.get<std::string>().rfind("PEFT:", 0) == 0) peft = n.get<std::string>();
  CHECK(peft.find("bnb_4bit_quant_storage=torch.bfloat16") != std::string::npos);
  CHECK(peft.find("bnb_4bit_use_double_quant=True") != std::string::npos);
  CHECK(peft.find("torch_dtype=torch.bfloat16") != std::string::npos);
  const auto one = test::run_json({"estimate", "--model", "llama-3.1-8b", "--mode", "qlora", "--gpu", "rtx-4090-24gb"});
  for (const auto& n : one["launch_hints"]["notes"]) CHECK(n.get<std::string>().find("quant_storage") == std::string::npos);
}

TEST_CASE("support: the one-card line names a card that runs the job alone in an ordinary computer, at the price it is costed at", "[advice][support]") {
  auto one_card = [](std::vector<std::string> args) {
    args.insert(args.end(), {"--format", "json"});
    const auto r = test::run(args);
    REQUIRE(r.code == 0);
    const auto doc = r.json();
    for (const auto& rec : doc["recommendations"])
      if (rec["label"] == "one card") return std::make_pair(rec["gpu"].get<std::string>(), rec["reason"].get<std::string>());
    return std::make_pair(std::string(), std::string());
  };
  // 70B QLoRA: a Jetson's 64 GB hold it, but an edge module is no training card.
  const auto qlora = one_card({"--model", "llama-3.1-70b", "--mode", "qlora"});
  CHECK(qlora.first.find("jetson") == std::string::npos);
  CHECK_FALSE(qlora.first.empty());
  // Ranked by time the rows spread over several GPUs, but the cheapest card that runs it alone is still named:
  // a 24 GB RTX 3090 holds a 7B LoRA with the savers the search applies on one card (checkpointing), as the
  // classic single-card recipe runs it, though not as asked (no checkpointing).
  const auto fast = one_card({"--model", "7B", "--mode", "lora", "--tokens", "100M", "--rank-by", "time"});
  CHECK(fast.first == "rtx-3090-24gb");
  const auto alone = test::run_json({"--model", "7B", "--mode", "lora", "--tokens", "100M", "--only", "rtx-3090-24gb", "--max-gpus", "1", "--format", "json"});
  CHECK(alone["ranking"][0]["fits"] == true);
  CHECK(alone["ranking"][0]["plan"]["gradient_checkpointing"] != "none");
  // Owned hardware is costed at its amortised rate, not rented.
  const auto owned = one_card({"--model", "7B", "--mode", "lora", "--owned"});
  CHECK(owned.second.find("owned (amortised)") != std::string::npos);
  CHECK(owned.second.find("to rent") == std::string::npos);
  // The price to buy is the one the answer costs with: --purchase-price where given ($1,800 over 3 years at 50 %
  // use: 1800 / 13,140 h = $0.137/h), not the catalogue's.
  const auto given = one_card({"--model", "7B", "--mode", "lora", "--owned", "--purchase-price", "rtx-4090-24gb=1800", "--only", "rtx-4090-24gb"});
  CHECK(given.second.find("$0.137/h owned (amortised), about $1800 to buy") != std::string::npos);
  // A job of requests is a data-centre job: a Jetson Orin NX holds a 7B model (15.0 of 16 GB) and costs least per
  // hour owned, but serves 1M requests of 500 + 200 tokens in over a year; the one card is a card, not an edge module.
  const auto serving = one_card({"--model", "7B", "--mode", "inference", "--owned", "--requests", "1M", "--input-tokens", "500", "--output-tokens", "200"});
  CHECK_FALSE(serving.first.empty());
  CHECK(serving.first.find("jetson") == std::string::npos);
  // Llama 3.1 70B Q4_K_M (about 40 GB) on two RTX 3090s split by layers: the pair runs it, one 24 GB card does not,
  // so a count given alone names no single card.
  const auto pair = one_card({"--model", "llama-3.1-70b", "--precision", "q4_k_m", "--engine", "llamacpp", "--gpus", "2", "--gpu", "rtx-3090-24gb"});
  CHECK(pair.first.empty());
  // Cameras are what an edge module is for: one video stream names the cheapest module that runs it. Four streams of
  // YOLOv8-m are more than any Jetson sustains alone (an Orin Nano: 1, an AGX Orin: 3), so the one card is a card
  // that runs all four (memory alone is not the job).
  const auto camera = one_card({"--model", "yolov8-m", "--mode", "inference", "--streams", "1", "--owned"});
  CHECK(camera.first.rfind("jetson-", 0) == 0);
  const auto cameras = one_card({"--model", "yolov8-m", "--mode", "inference", "--streams", "4", "--owned"});
  CHECK(cameras.first.find("jetson") == std::string::npos);
  CHECK(cameras.second.find("the cheapest single card that runs every stream") != std::string::npos);
}

TEST_CASE("support: qwen3_moe configs are read: Qwen3-30B-A3B is 30.5B parameters with 3.35B active per token", "[advice][support][params]") {
  // Qwen3-30B-A3B's config.json: 48 layers, hidden 2,048, 32 query heads and 4 KV heads of 128, 128 experts of
  // 768 with 8 per token, untied embeddings of 151,936. Per layer: attention 2,048 x 4,096 x 2 + 2,048 x 512 x 2
  // = 18.87M, experts 128 x 3 x 2,048 x 768 = 603.98M, router 2,048 x 128 = 0.26M; the model 48 x 623.11M +
  // 2 x 311.16M of embeddings = 30.53B; active 48 x (18.87M + 8 x 4.72M + 0.26M) + 622.3M = 3.35B (Qwen: 30.5B
  // total, 3.3B activated).
  const auto dir = std::filesystem::temp_directory_path() / "gpuadvise-qwen3-moe-test";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "config.json") << R"({"architectures": ["Qwen3MoeForCausalLM"], "head_dim": 128, "hidden_size": 2048, "intermediate_size": 6144,
    "max_position_embeddings": 40960, "mlp_only_layers": [], "model_type": "qwen3_moe", "moe_intermediate_size": 768, "num_attention_heads": 32,
    "num_experts": 128, "num_experts_per_tok": 8, "num_hidden_layers": 48, "num_key_value_heads": 4, "tie_word_embeddings": false,
    "vocab_size": 151936})";
  const auto r = test::run({"estimate", "--model", (dir / "config.json").string(), "--mode", "inference", "--format", "json"});
  std::filesystem::remove_all(dir);
  REQUIRE(r.code == 0);
  const auto doc = r.json();
  const auto& model = doc["model"];
  const double attention = 2048.0 * 4096 * 2 + 2048.0 * 512 * 2, expert = 3.0 * 2048 * 768, router = 2048.0 * 128, embed = 151936.0 * 2048;
  CHECK(model["params"].get<double>() == Approx(48 * (attention + 128 * expert + router) + 2 * embed).epsilon(1e-4));
  CHECK(model["params_active"].get<double>() == Approx(48 * (attention + 8 * expert + router) + 2 * embed).epsilon(1e-3));
  CHECK(model["params"].get<double>() / 1e9 == Approx(30.53).epsilon(0.002));
  CHECK(model["experts"] == 128);
}

TEST_CASE("support: gpt_oss configs are read: GPT-OSS-120B is 116.79B parameters with 5.71B active, half its layers windowed", "[support][params]") {
  // openai/gpt-oss-120b's config.json (transformers' GptOssConfig): 36 layers, hidden 2,880, 64 query heads and 8 KV
  // heads of 64, attention biases, 128 experts of 2,880 with 4 per token, untied embeddings of 201,088. Per layer:
  // attention 2,880 x 4,096 x 2 + 2,880 x 512 x 2 = 26,542,080 plus 5,120 q/k/v biases; experts 128 x 3 x 2,880^2 =
  // 3,185,049,600; router 2,880 x 128 = 368,640; two norms 5,760: 3,211,971,200. The model: 36 x that + 2 x
  // 579,133,440 embeddings + 2,880 = 116,789,232,960 (OpenAI: 116.8B, 5.1B active without the embeddings); active
  // 36 x (26,547,200 + 4 x 24,883,200 + 374,400) + 1,158,269,760 = 5,710,628,160.
  const std::string cfg = R"({"architectures": ["GptOssForCausalLM"], "attention_bias": true, "head_dim": 64, "hidden_size": 2880,
    "intermediate_size": 2880, "max_position_embeddings": 131072, "model_type": "gpt_oss", "num_attention_heads": 64, "num_experts_per_tok": 4,
    "num_hidden_layers": 36, "num_key_value_heads": 8, "num_local_experts": 128, "sliding_window": 128, "tie_word_embeddings": false,
    "vocab_size": 201088, "quantization_config": {"quant_method": "mxfp4"}})";
  const ModelSpec m = parse_hf_config(cfg, "gpt-oss-120b/config.json", "gpt-oss-120b");
  const ParamCounts pc = count_params(m);
  CHECK(pc.total == 116789232960.0);
  CHECK(pc.active == 5710628160.0);
  CHECK(m.experts == 128);
  CHECK(m.experts_per_token == 4);
  // No layer_types: the config class alternates sliding and full attention, so half the layers hold 128 tokens.
  CHECK(m.sliding_window == 128);
  CHECK(m.sliding_fraction == 0.5);
  CHECK(m.checkpoint_format == "mxfp4");
  // A layer_types list is counted as given.
  const ModelSpec all_full = parse_hf_config(
      R"({"model_type": "gpt_oss", "hidden_size": 64, "intermediate_size": 64, "num_hidden_layers": 4, "num_attention_heads": 4, "num_key_value_heads": 2,
          "head_dim": 16, "vocab_size": 128, "num_local_experts": 4, "num_experts_per_tok": 2, "sliding_window": 8,
          "layer_types": ["full_attention", "full_attention", "sliding_attention", "full_attention"]})",
      "tiny/config.json", "tiny");
  CHECK(all_full.sliding_fraction == 0.25);
  // A gpt_oss config without its expert counts is bad input naming the field.
  CHECK_THROWS_WITH(parse_hf_config(R"({"model_type": "gpt_oss", "hidden_size": 64, "intermediate_size": 64, "num_hidden_layers": 4,
      "num_attention_heads": 4, "head_dim": 16, "vocab_size": 128, "num_experts_per_tok": 2})", "x/config.json", "x"),
                    Catch::Contains("num_local_experts"));
}

TEST_CASE("support: olmoe and glm4_moe configs are read: OLMoE-1B-7B 6.92B (1.28B active), GLM-4.5 with 3 dense layers and a shared expert", "[support][params]") {
  // allenai/OLMoE-1B-7B-0924: 16 layers, hidden 2,048, 16 heads of 128, 64 experts of 1,024 with 8 per token,
  // untied 50,304 embeddings. Per layer: attention 4 x 2,048^2 = 16,777,216, experts 64 x 3 x 2,048 x 1,024 =
  // 402,653,184, router 131,072, norms 4,096: 419,565,568; the model 16 x that + 2 x 103,022,592 + 2,048 =
  // 6,919,096,320 (OLMoE: 6.9B total, 1.3B active); active 16 x (16,777,216 + 8 x 6,291,456 + 135,168) +
  // 206,047,232 = 1,281,951,744.
  const ModelSpec olmoe = parse_hf_config(R"({"model_type": "olmoe", "hidden_size": 2048, "intermediate_size": 1024, "num_hidden_layers": 16,
      "num_attention_heads": 16, "num_key_value_heads": 16, "num_experts": 64, "num_experts_per_tok": 8, "vocab_size": 50304,
      "max_position_embeddings": 4096, "tie_word_embeddings": false})", "olmoe/config.json", "olmoe");
  CHECK(count_params(olmoe).total == 6919096320.0);
  CHECK(count_params(olmoe).active == 1281951744.0);
  // GLM-4.5 (zai-org/GLM-4.5): 92 layers, hidden 5,120, 96 query heads and 8 KV heads of 128 with biases, the first 3
  // layers dense (12,288), then 160 routed experts of 1,536 with 8 per token and 1 shared expert. Attention per
  // layer 5,120 x 12,288 x 2 + 5,120 x 1,024 x 2 + 14,336 biases = 136,329,216; a dense MLP 3 x 5,120 x 12,288 =
  // 188,743,680; an expert 3 x 5,120 x 1,536 = 23,592,960; router 819,200; norms 10,240.
  const ModelSpec glm = parse_hf_config(R"({"model_type": "glm4_moe", "attention_bias": true, "first_k_dense_replace": 3, "head_dim": 128,
      "hidden_size": 5120, "intermediate_size": 12288, "max_position_embeddings": 131072, "moe_intermediate_size": 1536, "n_routed_experts": 160,
      "n_shared_experts": 1, "num_attention_heads": 96, "num_experts_per_tok": 8, "num_hidden_layers": 92, "num_key_value_heads": 8,
      "tie_word_embeddings": false, "vocab_size": 151552})", "glm/config.json", "glm-4.5");
  CHECK(glm.dense_layers == 3);
  const double attn = 136329216.0, dense = 188743680.0, expert = 23592960.0, other = 819200.0 + 10240.0, embed = 2.0 * 151552 * 5120;
  const ParamCounts g = count_params(glm);
  CHECK(g.total == Approx(3 * (attn + dense + 10240.0) + 89 * (attn + 161 * expert + other) + embed + 5120).epsilon(1e-12));
  CHECK(g.active == Approx(3 * (attn + dense + 10240.0) + 89 * (attn + 9 * expert + other) + embed + 5120).epsilon(1e-12));
  CHECK(g.total / 1e9 == Approx(352.8).epsilon(0.001));  // ZhipuAI: 355B with the next-token-prediction layer, 32B active
  CHECK(g.active / 1e9 == Approx(33.6).epsilon(0.003));
}

TEST_CASE("support: fit keeps the ranking's margin and says which savers it did not apply", "[advice][support][fit]") {
  // Llama 3.1 8B LoRA on an H100 as given (no checkpointing): 9,280 tokens fill the card to 0.0 GB free; with
  // the default 5 % margin (4.27 GB of 85.5) the largest is 8,698 tokens.
  auto fit = [](std::vector<std::string> more) {
    std::vector<std::string> a{"fit", "--model", "llama-3.1-8b", "--mode", "lora", "--gpu", "h100-sxm-80gb", "--maximize", "seq-len", "--format", "json"};
    a.insert(a.end(), more.begin(), more.end());
    const auto r = test::run(a);
    REQUIRE(r.code == 0);
    return r.json();
  };
  const auto tight = fit({"--min-headroom", "0"});
  CHECK(tight["value"] == 9280);
  const auto kept = fit({});
  CHECK(kept["value"] == 8698);
  CHECK(kept["min_headroom_pct"] == 5);
  CHECK(kept["headroom_bytes"].get<double>() >= 0.05 * kept["capacity_bytes"].get<double>());
  CHECK(kept["as_given"].get<std::string>().find("without activation checkpointing") != std::string::npos);
  CHECK(fit({"--gradient-checkpointing", "full"})["as_given"].is_null());
}

TEST_CASE("support: invariants hold over sampled workloads: no speed without a fit, device at least tensor, the choice on its frontier", "[advice][support][property]") {
  // A deterministic sample across models, modes, lengths, batches and job sizes, ranked over the whole catalogue.
  const std::vector<std::string> models{"gpt2", "llama-3.2-1b", "llama-3.1-8b", "mistral-7b", "llama-3.1-70b", "mixtral-8x7b", "qwen2.5-72b", "llama-3.1-405b"};
  const std::vector<std::string> modes{"train", "finetune", "lora", "qlora", "inference"};
  const std::vector<std::string> seqs{"512", "2048", "8192"}, batches{"1", "4"}, sizes{"", "1B", "100B"};
  std::uint64_t state = 20261202;
  auto pick = [&](std::size_t n) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<std::size_t>((state >> 33) % n);
  };
  std::size_t rows = 0;
  for (int i = 0; i < 200; ++i) {
    const std::string model = models[pick(models.size())], mode = modes[pick(modes.size())], size = sizes[pick(sizes.size())];
    std::vector<std::pair<const char*, std::string>> kv{{"model", model}, {"mode", mode}, {"seq_len", seqs[pick(seqs.size())]}, {"batch", batches[pick(batches.size())]}};
    if (!size.empty()) {
      if (mode == "inference") {
        kv.push_back({"requests", "10000"});
        kv.push_back({"output_tokens", "256"});
      } else {
        kv.push_back({"tokens", size});
      }
    }
    RawWorkload raw;
    for (const auto& [k, v] : kv) raw[k] = RawValue{v, std::string("--") + k};
    Workload w = build_workload(raw);
    const ModelSpec m = test::model(model);
    w = with_global_batch(w, m);
    RankOptions opts;
    if (w.has_job_size()) opts.max_gpus = 4096;
    const Ranking r = rank_gpus(w, m, test::gpus(), opts);
    for (const Candidate& c : r.rows) {
      INFO(model << " " << mode << " on " << c.gpu->id << ": " << c.layout);
      CHECK(c.memory.device_peak >= c.memory.tensor_peak);
      if (!c.fits) {
        CHECK_FALSE(c.time.job_seconds);
        CHECK_FALSE(c.time.train_tokens_per_second_per_gpu);
        CHECK_FALSE(c.time.decode_tokens_per_second);
        CHECK_FALSE(c.cost.total_usd);
        CHECK_FALSE(c.value_usd);
      }
      if (c.fits && c.cost.total_usd && c.time.job_seconds)
        for (const FrontierPoint& f : c.frontier) {
          if (!f.usd || !f.hours) continue;
          CHECK_FALSE((*f.usd < *c.cost.total_usd * (1 - 1e-9) && *f.hours < c.cost.wall_hours * (1 - 1e-9)));
        }
      ++rows;
    }
  }
  CHECK(rows >= 200 * 30);
}

TEST_CASE("support: launch hints run as written: the engine's own command, weights read the way it can read them", "[advice][support][hints]") {
  auto hints = [](std::vector<std::string> args) {
    args.insert(args.end(), {"--format", "json"});
    const auto r = test::run(args);
    REQUIRE(r.code == 0);
    const auto doc = r.json();
    return doc["ranking"][0]["launch_hints"];
  };
  auto has = [](const nlohmann::json& notes, const std::string& s) {
    return std::any_of(notes.begin(), notes.end(), [&](const nlohmann::json& n) { return n.get<std::string>().find(s) != std::string::npos; });
  };
  // llama.cpp: a llama-server command, layer split over the two cards, no vLLM line.
  const auto gguf = hints({"--model", "llama-3.1-70b", "--mode", "inference", "--framework", "llama.cpp", "--precision", "q4_k_m", "--only", "rtx-3090-24gb"});
  CHECK(gguf["vllm"].is_null());
  CHECK(gguf["server"].get<std::string>().rfind("llama-server -m ", 0) == 0);
  CHECK(gguf["server"].get<std::string>().find("--split-mode layer") != std::string::npos);
  // int4 from the 16-bit repository: quantised as it loads (bitsandbytes), not --quantization awq.
  const auto int4 = hints({"--model", "llama-3.1-70b", "--mode", "inference", "--allow-quantization", "--framework", "vllm", "--only", "rtx-6000-ada-48gb"});
  CHECK(int4["vllm"].get<std::string>().find("--quantization bitsandbytes") != std::string::npos);
  CHECK(int4["vllm"].get<std::string>().find("awq") == std::string::npos);
  // fp8 of the 16-bit 405B over 8 H100s: online quantisation would load 2 x 405.9e9 / 8 = 101 GB per GPU first.
  const auto fp8 = hints({"--model", "llama-3.1-405b", "--mode", "inference", "--precision", "fp8", "--framework", "vllm", "--only", "h100-sxm-80gb"});
  CHECK(has(fp8["notes"], "loads the 16-bit weights first (101 GB per GPU"));
  // SGLang over two nodes: one tensor-parallel group of 16, each node started with its rank; DeepSeek-V3's fp8
  // checkpoint is read as it is.
  const auto sgl = hints({"--model", "deepseek-v3", "--mode", "inference", "--precision", "fp8", "--framework", "sglang", "--only", "h100-sxm-80gb"});
  const std::string server = sgl["server"].get<std::string>();
  CHECK(server.find("--tp 16 ") != std::string::npos);
  CHECK(server.find("--nnodes 2 --node-rank $NODE_RANK --dist-init-addr $HEAD:5000") != std::string::npos);
  CHECK(server.find("--quantization") == std::string::npos);
  CHECK(has(sgl["notes"], "pre-quantised (fp8)"));
  // The same layout given to estimate (--gpus 16 --nodes 2): the same multi-node flags.
  const auto given = test::run({"estimate", "--model", "deepseek-v3", "--mode", "inference", "--precision", "fp8", "--framework", "sglang", "--gpu",
                                "h100-sxm-80gb", "--gpus", "16", "--nodes", "2", "--tp", "8", "--pp", "2", "--format", "json"});
  REQUIRE(given.code == 0);
  const auto given_doc = given.json();
  CHECK(given_doc["launch_hints"]["server"].get<std::string>().find("--nnodes 2 --node-rank $NODE_RANK --dist-init-addr $HEAD:5000") != std::string::npos);
  // Expert parallelism in each engine's words: vLLM spreads the experts over its tensor-parallel GPUs, SGLang and
  // TensorRT-LLM take the degree; a Megatron plan whose EP folds over TP sets expert TP to 1 (method.md §3.4).
  auto served = [&](const char* engine) {
    const auto r = test::run({"estimate", "--model", "deepseek-v3", "--mode", "inference", "--precision", "fp8", "--framework", engine, "--gpu", "h200-sxm-141gb",
                              "--gpus", "8", "--tp", "8", "--ep", "8", "--format", "json"});
    REQUIRE(r.code == 0);
    const auto h = r.json()["launch_hints"];
    return (h["vllm"].is_string() ? h["vllm"] : h["server"]).get<std::string>();
  };
  CHECK(served("vllm").find(" --enable-expert-parallel") != std::string::npos);
  CHECK(served("sglang").find(" --ep-size 8") != std::string::npos);
  CHECK(served("trtllm").find(" --ep_size 8") != std::string::npos);
  const auto folded = hints({"--model", "qwen3-30b-a3b", "--mode", "train", "--only", "h100-sxm-80gb", "--gpus", "16", "--tp", "2", "--pp", "2", "--ep", "8", "--batch", "2",
                             "--sharding", "zero1", "--gradient-checkpointing", "selective", "--tokens", "100B", "--global-batch", "512", "--seq-len", "4096"});
  // Launched as Megatron-LM's pretrain_gpt.py with its layout and batch (Hugging Face's Trainer has no TP, PP or EP).
  CHECK(folded["torchrun"].get<std::string>().find(" pretrain_gpt.py --tensor-model-parallel-size 2 --pipeline-model-parallel-size 2 --expert-model-parallel-size 8 "
                                                   "--expert-tensor-parallel-size 1 --moe-token-dispatcher-type alltoall --sequence-parallel --micro-batch-size 2 --global-batch-size 512 --seq-length "
                                                   "4096 --bf16 --use-distributed-optimizer --recompute-granularity selective") != std::string::npos);
  CHECK((folded["hf_trainer_args"].is_null() && folded["deepspeed_config"].is_null()));
}

TEST_CASE("support: bundled presets answer to the Hugging Face repository ids they were read from, -Instruct variants included", "[advice][support][models]") {
  const std::vector<std::pair<std::string, std::string>> names{{"mistralai/Mixtral-8x7B-v0.1", "mixtral-8x7b"},
                                                               {"mistralai/Mixtral-8x7B-Instruct-v0.1", "mixtral-8x7b"},
                                                               {"black-forest-labs/FLUX.1-dev", "flux-1-dev"},
                                                               {"stabilityai/stable-diffusion-xl-base-1.0", "sdxl-base-1.0"},
                                                               {"deepseek-ai/DeepSeek-V3", "deepseek-v3"}};
  for (const auto& [repo, id] : names) {
    INFO(repo);
    const auto r = test::run({"estimate", "--model", repo, "--mode", "inference", "--format", "json"});
    REQUIRE(r.code == 0);
    const auto doc = r.json();
    CHECK(doc["model"]["id"] == id);
  }
  const auto unknown = test::run({"estimate", "--model", "nobody/nothing"});
  CHECK(unknown.code == 2);
}

TEST_CASE("support: models --family is case-insensitive and takes the families its help names (yolo, resnet)", "[advice][support][models]") {
  auto ids = [](const char* family) {
    const auto r = test::run({"models", "--family", family, "--format", "json"});
    REQUIRE(r.code == 0);
    const auto doc = r.json();
    std::vector<std::string> out;
    for (const auto& m : doc["models"]) out.push_back(m["id"].get<std::string>());
    return out;
  };
  const auto yolo = ids("yolo");
  REQUIRE_FALSE(yolo.empty());
  for (const auto& id : yolo) CHECK(id.rfind("yolo", 0) == 0);
  CHECK(ids("Llama") == ids("llama"));
  CHECK_FALSE(ids("resnet").empty());
  CHECK(test::run({"models", "--family", "nothing"}).code == 2);
}

TEST_CASE("serving: several GPUs at --tp 1 are copies of the model, and a model too big for one says how to split it", "[serving]") {
  // Llama 3.1 70B in bf16 (141 GB of weights) on two H100s: two copies do not fit; --tp 2 does, and the note says so.
  const std::vector<std::string> base{"estimate", "--model", "llama-3.1-70b", "--mode", "inference", "--framework", "vllm", "--gpu", "h100-sxm-80gb", "--gpus", "2", "--format", "json"};
  const auto copies = test::run_json(base);
  CHECK(copies["fits"] == false);
  bool said = false;
  for (const auto& n : copies["notes"]) said = said || n.get<std::string>().find("2 GPUs at --tp 1 are 2 copies of the model") == 0;
  CHECK(said);
  auto split = base;
  split.insert(split.end(), {"--tp", "2"});
  CHECK(test::run_json(split)["fits"] == true);
}

TEST_CASE("support: every NVIDIA card since Ampere has a TF32 rate, and fp32 convolutions run on it", "[support][vision]") {
  // Tensor cores since compute capability 8.0 run TF32 at half their BF16 rate (A100 156 of 312, RTX 4090 82.6 of
  // 165.2); PyTorch runs fp32 convolutions there by default (cudnn.allow_tf32). A card without the rate would be
  // timed on its CUDA cores: the RTX 3090 then trained ResNet-50 in fp32 faster than the RTX 4090 (747 vs 696
  // images/s), where Lambda measured 513 and 721.
  for (const auto& g : test::gpus().gpus) {
    if (g.stack != "cuda" || !g.compute_capability || std::stod(*g.compute_capability) < 8.0) continue;
    INFO(g.id);
    REQUIRE(g.peak_flops("tf32"));
    REQUIRE(g.peak_flops("bf16"));
    CHECK(*g.peak_flops("tf32") == Approx(*g.peak_flops("bf16") / 2.0).epsilon(0.03));  // B200 1,100 of 2,250, L40S 183 of 362
  }
  const ModelSpec m = test::model("resnet-50");
  const Workload w = wl({{"model", "resnet-50"}, {"mode", "train"}, {"precision", "fp32"}, {"batch", "256"}});
  const auto* r3090 = test::gpus().find("rtx-3090-24gb");
  const auto* r4090 = test::gpus().find("rtx-4090-24gb");
  const auto t3090 = estimate_time(w, m, *r3090, estimate_memory(w, m, r3090));
  const auto t4090 = estimate_time(w, m, *r4090, estimate_memory(w, m, r4090));
  CHECK(t3090.compute_key == "tf32");
  REQUIRE(t3090.images_per_second);
  REQUIRE(t4090.images_per_second);
  CHECK(*t4090.images_per_second / *t3090.images_per_second > 1.2);  // Lambda: 721 / 513 = 1.41
}

TEST_CASE("support: inference without --precision serves a pre-quantised checkpoint in its own format", "[advice][support][precision]") {
  // DeepSeek-V3's config.json names FP8 blocks (quantization_config.quant_method "fp8") and the engines load it so:
  // the same job as --precision fp8, weights of one byte each over the 8 GPUs of an HGX H200 (671.03B / 8 = 83.9 GB
  // and the embeddings). An AWQ repository (hugging-quants' Llama 3.1 8B AWQ INT4 config) serves at int4. Asked
  // precisions, training and engines with formats of their own keep what they were given.
  auto run = [](std::vector<std::string> args) {
    args.insert(args.end(), {"--format", "json"});
    const auto r = test::run(args);
    REQUIRE(r.code == 0);
    return r.json();
  };
  const std::vector<std::string> v3{"estimate", "--model", "deepseek-v3", "--mode", "inference", "--gpu", "h200-sxm-141gb", "--gpus", "8", "--tp", "8"};
  const auto shipped = run(v3);
  CHECK(shipped["workload"]["precision"] == "fp8");
  CHECK(shipped["workload"]["precision_from_checkpoint"] == true);
  auto asked = v3;
  asked.insert(asked.end(), {"--precision", "fp8"});
  const auto fp8 = run(asked);
  CHECK(fp8["workload"]["precision_from_checkpoint"] == false);
  const double weights = shipped["memory"]["components"]["weights"].get<double>();
  CHECK(weights == Approx(fp8["memory"]["components"]["weights"].get<double>()));
  CHECK(weights == Approx(671.03e9 / 8.0).epsilon(0.01));
  CHECK(shipped["fits"] == true);
  CHECK(fp8["fits"] == true);
  auto bf16 = v3;
  bf16.insert(bf16.end(), {"--precision", "bf16"});
  CHECK(run(bf16)["workload"]["precision"] == "bf16");
  const auto lora = run({"estimate", "--model", "deepseek-v3", "--mode", "lora", "--gpu", "h200-sxm-141gb"});
  CHECK(lora["workload"]["precision"] == "bf16");
  const auto awq = run({"estimate", "--model", test::fixture("models/llama-3.1-8b-awq-int4.json"), "--mode", "inference", "--framework", "vllm", "--gpu", "l4-24gb"});
  CHECK(awq["workload"]["precision"] == "int4");
  CHECK(awq["workload"]["precision_from_checkpoint"] == true);
  const auto gguf = run({"estimate", "--model", "deepseek-v3", "--mode", "inference", "--framework", "llamacpp", "--gpu", "h200-sxm-141gb", "--gpus", "8"});
  CHECK(gguf["workload"]["precision_from_checkpoint"] == false);
  // llm-compressor's compressed-tensors (RedHat's FP8 Llama 3.1 8B: weights float, 8 bits), NVIDIA ModelOpt's NVFP4
  // (quant_algo), an 8-bit GPTQ repository: fp8, fp4 and int8.
  for (const auto& [file, precision] : std::vector<std::pair<std::string, std::string>>{
           {"models/llama-3.1-8b-fp8-compressed-tensors.json", "fp8"}, {"models/llama-3.1-8b-nvfp4-modelopt.json", "fp4"}, {"models/llama-3.1-8b-gptq-int8.json", "int8"}}) {
    INFO(file);
    const auto j = run({"estimate", "--model", test::fixture(file), "--mode", "inference", "--framework", "vllm", "--gpu", "b200-hgx-180gb"});
    CHECK(j["workload"]["precision"] == precision);
  }
}

TEST_CASE("support: a fastest training plan whose share is a vendor's projection says so", "[advice][support]") {
  // Gaudi 3's training share is Intel's launch projection (efficiency.cpp), not a measurement: named fastest for
  // the README's 7B fine-tune beside an H100, the line says so; an H100 named fastest (measured shares) carries no
  // such words.
  auto fastest = [](const std::vector<std::string>& args) {
    const auto j = test::run_json(args);  // held: a range-for over a temporary's member would dangle
    for (const auto& rec : j["recommendations"])
      if (rec["label"] == "fastest") return rec["gpu"].get<std::string>() + " " + rec["reason"].get<std::string>();
    return std::string();
  };
  const auto readme = fastest({"--model", "7B", "--precision", "bf16", "--mode", "finetune", "--only", "gaudi3-128gb,h100-sxm-80gb"});
  REQUIRE(readme.rfind("gaudi3-128gb", 0) == 0);
  CHECK(readme.find("its training share is the vendor's projection, not a measurement") != std::string::npos);
  const auto h100 = fastest({"--model", "7B", "--precision", "bf16", "--mode", "finetune", "--gpu", "h100-sxm-80gb"});
  CHECK(h100.find("projection") == std::string::npos);
}

TEST_CASE("support: torchtitan and torchtune shard with FSDP2 only: no ZeRO-1, and the planner's data-parallel dimension is FSDP", "[advice][support]") {
  // torchtitan's parallelisms are FSDP2 (ZeRO-3; HSDP replicates FSDP groups), TP, PP, CP and EP: a ZeRO-1 layout
  // asked is refused with the reason, and its pick for Llama 3.1 70B over 4,096 H100s puts FSDP beside tensor
  // parallel, where Megatron's would be ZeRO-1 (the distributed optimizer).
  const auto asked = test::run({"estimate", "--model", "llama-3.1-8b", "--mode", "train", "--framework", "torchtitan", "--gpu", "h100-sxm-80gb", "--gpus",
                                "8", "--sharding", "zero1"});
  REQUIRE(asked.code == 0);
  CHECK(asked.out.find("cannot run as asked") != std::string::npos);
  CHECK(asked.out.find("torchtitan and torchtune shard with FSDP2 only") != std::string::npos);
  CHECK(asked.out.find("were it to run as asked (it cannot: no job time or cost)") != std::string::npos);
  for (const char* fw : {"torchtitan", "megatron"}) {
    INFO(fw);
    const auto j = test::run_json({"--model", "llama-3.1-70b", "--mode", "train", "--framework", fw, "--seq-len", "8192", "--tokens", "15T", "--gpu",
                                   "h100-sxm-80gb", "--max-gpus", "4096"});
    const std::string layout = j["ranking"][0]["layout"].get<std::string>();
    CHECK((layout.find("ZeRO-1") == std::string::npos) == (std::string(fw) == "torchtitan"));
  }
}
