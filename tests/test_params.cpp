// Parameter counts and KV-cache sizes against published figures (docs/method.md §1).
#include <catch2/catch.hpp>

#include "gpuadvise/memory.hpp"
#include <fstream>

#include "helpers.hpp"

using namespace gpuadvise;

TEST_CASE("params: dense decoders match their published sizes", "[params]") {
  // Meta model cards: Llama-2-7B 6.74B, Llama-3.1-8B 8.03B, Llama-3.1-70B 70.6B, Llama-3.1-405B 405.9B.
  CHECK(count_params(test::model("llama-2-7b")).total / 1e9 == Approx(6.738).epsilon(0.001));
  CHECK(count_params(test::model("llama-3.1-8b")).total / 1e9 == Approx(8.030).epsilon(0.001));
  CHECK(count_params(test::model("llama-3.1-70b")).total / 1e9 == Approx(70.55).epsilon(0.002));
  CHECK(count_params(test::model("llama-3.1-405b")).total / 1e9 == Approx(405.85).epsilon(0.002));
  // Qwen2.5 model cards: 7.61B (QKV bias), 32.5B; GQA and 152k vocabulary.
  CHECK(count_params(test::model("qwen2.5-7b")).total / 1e9 == Approx(7.615).epsilon(0.002));
  CHECK(count_params(test::model("qwen2.5-32b")).total / 1e9 == Approx(32.76).epsilon(0.003));
  // Gemma-2-9B: 9.24B with tied embeddings and four norms per layer (head_dim 256 != h/a).
  CHECK(count_params(test::model("gemma-2-9b")).total / 1e9 == Approx(9.24).epsilon(0.003));
  // GPT-2 124M (learned positions, tied head).
  CHECK(count_params(test::model("gpt2")).total / 1e6 == Approx(124.4).epsilon(0.002));
  // BERT-large 335M.
  CHECK(count_params(test::model("bert-large-uncased")).total / 1e6 == Approx(335.1).epsilon(0.003));
}

TEST_CASE("params: mixture of experts keeps every expert resident, computes with the active ones", "[params]") {
  // Mistral AI: Mixtral-8x7B has 46.7B parameters and uses 12.9B per token.
  const auto mix = count_params(test::model("mixtral-8x7b"));
  CHECK(mix.total / 1e9 == Approx(46.70).epsilon(0.002));
  CHECK(mix.active / 1e9 == Approx(12.88).epsilon(0.003));
  // DeepSeek-V3 technical report: 671B total, 37B activated (MLA attention, 1 shared + 256 routed experts).
  const auto ds = count_params(test::model("deepseek-v3"));
  CHECK(ds.total / 1e9 == Approx(671.0).epsilon(0.002));
  CHECK(ds.active / 1e9 == Approx(37.6).epsilon(0.01));
}

TEST_CASE("kv cache: bytes per token follow 2·L·g·d·bytes", "[kv]") {
  // Llama-2-7B: 2 x 32 layers x 32 heads x 128 x 2 bytes = 512 KiB per token (vLLM paper §2 for OPT-13B's
  // analogue: 800 KB); Llama-3.1-8B with 8 KV heads: 128 KiB.
  CHECK(kv_elements_per_token(test::model("llama-2-7b")) * 2.0 == 512.0 * 1024);
  CHECK(kv_elements_per_token(test::model("llama-3.1-8b")) * 2.0 == 128.0 * 1024);
  CHECK(kv_elements_per_token(test::model("llama-2-13b")) * 2.0 == 800.0 * 1024);
  // DeepSeek-V3 caches the MLA latent: (512 + 64) x 61 layers x 2 bytes = 68.6 KiB.
  CHECK(kv_elements_per_token(test::model("deepseek-v3")) * 2.0 / 1024 == Approx(68.625));
}

TEST_CASE("params: every Hugging Face config of the fixtures reads", "[params][config]") {
  const char* files[] = {"bert-large-uncased", "bloomz-7b1", "codellama-34b", "falcon-40b", "falcon-7b", "gemma-2b", "gemma-7b",
                         "llama-13b", "llama-2-70b", "llama-3.1-405b", "mistral-7b-v0.1", "mpt-7b-llmfoundry-2048", "mt0-xxl",
                         "phi-1.5", "phi-2", "qwen-7b", "stablelm-base-alpha-3b", "tinyllama-1.1b"};
  for (const char* f : files) {
    INFO(f);
    const auto m = resolve_model(test::fixture(std::string("models/") + f + ".json"), test::models(), [](const std::string& p) {
      std::ifstream in(p);
      std::stringstream ss;
      ss << in.rdbuf();
      return std::optional<std::string>(ss.str());
    });
    CHECK(count_params(m).total > 1e8);
  }
  // Published sizes of a few of them: Falcon-7B 6.92B (multi-query), BLOOMZ-7B1 7.07B, mt0-xxl 12.9B, Phi-1.5 1.42B.
  auto load = [](const std::string& f) {
    return resolve_model(test::fixture("models/" + f + ".json"), test::models(), [](const std::string& p) {
      std::ifstream in(p);
      std::stringstream ss;
      ss << in.rdbuf();
      return std::optional<std::string>(ss.str());
    });
  };
  CHECK(count_params(load("falcon-7b")).total / 1e9 == Approx(6.92).epsilon(0.01));
  CHECK(count_params(load("bloomz-7b1")).total / 1e9 == Approx(7.07).epsilon(0.01));
  CHECK(count_params(load("mt0-xxl")).total / 1e9 == Approx(12.92).epsilon(0.01));
  CHECK(count_params(load("phi-1.5")).total / 1e9 == Approx(1.418).epsilon(0.005));
}

TEST_CASE("params: a bare size is that many parameters exactly", "[params]") {
  const auto m = resolve_model("7B", test::models(), [](const std::string&) { return std::nullopt; });
  CHECK(count_params(m).total == 7e9);
  CHECK(m.hidden == 4096);
  // method.md §1.4: h = 4096 (L = h/128 aspect), f = 11008, L = round((7e9 - 2·32000·4096) / 202.4M) = 33.
  CHECK(m.layers == 33);
}

TEST_CASE("params: a bare size's heads are a multiple of 8 from 16 heads up so tensor parallel divides them", "[params][generic]") {
  // method.md §1.4. 70B: 12·h³/128 + 64,000·h = 7e10 gives h = 9,075, 70.9 heads of 128, rounded to 72 (h 9,216);
  // 405B: h = 16,252, 127.0 heads, rounded to 128 (h 16,384, Llama 3 405B's width). 7B stays at 32 heads (h 4,096),
  // 8B's 34.0 heads become 32; 0.35B's 11 heads (under 16) stay as they are.
  CHECK(generic_decoder(70e9, "70B").heads == 72);
  CHECK(generic_decoder(70e9, "70B").hidden == 9216);
  CHECK(generic_decoder(405e9, "405B").heads == 128);
  CHECK(generic_decoder(405e9, "405B").hidden == 16384);
  CHECK(generic_decoder(7e9, "7B").heads == 32);
  CHECK(generic_decoder(8e9, "8B").heads == 32);
  CHECK(generic_decoder(0.35e9, "0.35B").heads == 11);
  // The total stays the size asked, and tensor parallel 8 is accepted where 127 heads refused it.
  CHECK(count_params(generic_decoder(405e9, "405B")).total == Approx(405e9));
  const auto r = test::run({"estimate", "--model", "405B", "--framework", "megatron", "--mode", "train", "--gpu", "h100-sxm-80gb",
                            "--gpus", "64", "--tp", "8", "--pp", "8"});
  CHECK(r.code == 0);
  CHECK(r.err.empty());
}
