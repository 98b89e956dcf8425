// Multimodal checkpoints read from config.json (src/io/hf_config.cpp, method.md §1.5): the language model from its
// text_config, the vision tower from its vision_config, and Llama 4's mixture of experts, worked by hand.
#include <catch2/catch.hpp>

#include <string>

#include "helpers.hpp"

namespace {
nlohmann::json model_of(const std::string& fixture) {
  return test::run_json({"estimate", "--model", test::fixture("models/" + fixture), "--mode", "inference", "--gpu", "h100-sxm-80gb", "--format", "json"})["model"];
}
}  // namespace

TEST_CASE("multimodal config: Gemma 3 27B is its gemma3_text language model plus a SigLIP tower", "[model][config]") {
  // After google/gemma-3-27b-it's config.json, whose text_config leaves the vocabulary (262,208) and context to
  // Gemma3TextConfig's defaults. Per layer: attention 5376 x 4096 x 2 + 2 x 5376 x 2048 = 66,060,288, gated MLP
  // 3 x 5376 x 21504 = 346,816,512, four RMSNorms 21,504; x 62 = 25,599,694,848; the tied embedding 262,208 x 5376 =
  // 1,409,630,208 and the final norm 5,376. The tower: 27 x (4 x 1152^2 + 2 x 1152 x 4304) = 411,070,464, patches
  // 3 x 14^2 x 1152 = 677,376, positions (896/14)^2 x 1152 = 4,718,592, projector 1152 x 5376 = 6,193,152.
  // 27,431,990,016 in all (the published safetensors hold 27.43B: q/k norms and SigLIP's biases are left out).
  const auto m = model_of("gemma-3-27b-it.json");
  CHECK(m["family"] == "gemma3");
  CHECK(m["vocab_size"] == 262208);
  CHECK(m["params"].get<double>() == 27431990016.0);
  CHECK(m["notes"].dump().find("vision tower's 0.42B parameters") != std::string::npos);
}

TEST_CASE("multimodal config: Llama 4 Scout routes every layer over 16 experts beside a shared one", "[model][config][moe]") {
  // Per layer: attention 2 x 5120^2 + 2 x 5120 x 1024 = 62,914,560, 16 experts of 3 x 5120 x 8192 = 125,829,120 and
  // a shared one alike, a router 16 x 5120 and two norms; x 48 = 105,700,884,480. Untied embedding and head
  // 2 x 202,048 x 5120, the final norm, and the tower 34 x (4 x 1408^2 + 2 x 1408 x 5632) + 3 x 14^2 x 1408 +
  // (336/14)^2 x 1408 + 1408 x 5120 = 817,693,184: 108,587,554,304 (Meta: 109B). Active: one expert and the shared
  // one a layer, 314,664,960 x 48 + the rest = 17,990,587,904 (Meta: 17B active, the tower aside).
  const auto m = model_of("llama-4-scout-17b-16e.json");
  CHECK(m["family"] == "llama4");
  CHECK(m["experts"] == 16);
  CHECK(m["params"].get<double>() == 108587554304.0);
  CHECK(m["params_active"].get<double>() == 17990587904.0);
}

TEST_CASE("multimodal config: a wrapper without a usable vision_config, or a text part it cannot read, is bad input", "[model][config][cli]") {
  const auto bad = test::run({"estimate", "--model", test::fixture("models/bad-multimodal-vision.json"), "--gpu", "h100-sxm-80gb"});
  CHECK(bad.code == 2);
  CHECK(bad.err.find("vision_config") != std::string::npos);
  const auto nested = test::run({"estimate", "--model", test::fixture("models/bad-multimodal-nested.json"), "--gpu", "h100-sxm-80gb"});
  CHECK(nested.code == 2);
  CHECK(nested.err.find("text_config: model_type 'llama4' is a multimodal wrapper") != std::string::npos);
}
