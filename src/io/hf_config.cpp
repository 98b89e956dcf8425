// Hugging Face config.json files (and preset configs) to a model shape: every supported model_type, with the
// checks that refuse shapes no model can have (method.md §1).
#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <optional>
#include <utility>

#include "gpuadvise/bounds.hpp"
#include "gpuadvise/catalog.hpp"
#include "json_read.hpp"

namespace gpuadvise {

using namespace jsonio;

// A config.json whose shape no model can have is bad input, with the key that breaks it (docs/method.md §1.3).
void check_config_shape(const ModelSpec& m, const std::string& origin) {
  auto bound = [&](const char* key, std::int64_t v, std::int64_t hi) {
    if (v > hi) throw InputError(origin + ": field '" + key + "' = " + std::to_string(v) + " is beyond any model (at most " + std::to_string(hi) + ")");
  };
  bound("num_hidden_layers", m.layers + m.encoder_layers, 10000);
  bound("hidden_size", m.hidden, 1000000);
  bound("num_attention_heads", m.heads, 65536);
  bound("head_dim", m.head_dim, 4096);
  bound("intermediate_size", std::max(m.ffn, m.expert_ffn), 10000000);
  bound("vocab_size", m.vocab, 100000000);
  bound("max_position_embeddings", m.context, 100000000);
  bound("num_local_experts", m.experts, 65536);
  // Every field a product is formed of (memory.cpp's layer shape multiplies widths by counts in 64-bit
  // integers): bounded here so that no product of two of them can overflow (bounds.hpp).
  bound("num_experts_per_tok", m.experts_per_token, 65536);
  bound("moe_intermediate_size", m.expert_ffn, 10000000);
  bound("n_shared_experts", m.shared_experts, static_cast<std::int64_t>(k_max_shared_experts));
  bound("shared_expert_intermediate_size", m.shared_expert_ffn, 10000000);
  bound("q_lora_rank", m.q_lora_rank, static_cast<std::int64_t>(k_max_attention_lora_rank));
  bound("kv_lora_rank", m.kv_lora_rank, static_cast<std::int64_t>(k_max_attention_lora_rank));
  bound("qk_nope_head_dim", m.qk_nope_head_dim, 4096);
  bound("qk_rope_head_dim", m.qk_rope_head_dim, 4096);
  bound("v_head_dim", m.v_head_dim, 4096);
  bound("first_k_dense_replace", m.dense_layers, 10000);
  bound("sliding_window", m.sliding_window, 100000000);
  if (m.kv_heads < 1 || m.kv_heads > m.heads)
    throw InputError(origin + ": field 'num_key_value_heads' = " + std::to_string(m.kv_heads) + " must be from 1 to num_attention_heads (" +
                     std::to_string(m.heads) + ")");
  if (!m.is_mla() && m.heads % m.kv_heads != 0)
    throw InputError(origin + ": field 'num_key_value_heads' = " + std::to_string(m.kv_heads) + " must divide num_attention_heads (" +
                     std::to_string(m.heads) + "): each KV head serves a whole group of query heads");
  if (m.experts_per_token > m.experts)
    throw InputError(origin + ": field 'num_experts_per_tok' = " + std::to_string(m.experts_per_token) + " exceeds the " +
                     std::to_string(m.experts) + " experts");
}

// The precision a pre-quantised checkpoint stores its weights at, from its quantization_config: fp8 blocks
// (DeepSeek-V3, fbgemm_fp8), AWQ and GPTQ at their bits (4 unless 8), MXFP4 (gpt-oss), llm-compressor's
// compressed-tensors by its weights' num_bits and type (float 8: FP8, float 4: NVFP4, int 4 or 8), NVIDIA
// ModelOpt by its quant_algo (FP8, NVFP4, W4A16_AWQ); none when the format says nothing this reads.
namespace {
std::optional<Precision> stored_precision(const nlohmann::json& q, const std::string& method) {
  auto number = [](const nlohmann::json& o, const char* key) { return o.contains(key) && o[key].is_number_integer() ? o[key].get<std::int64_t>() : 0; };
  auto text = [](const nlohmann::json& o, const char* key) { return o.contains(key) && o[key].is_string() ? lower(o[key].get<std::string>()) : std::string(); };
  if (method == "fp8" || method == "fbgemm_fp8") return Precision::fp8;
  if (method == "mxfp4") return Precision::fp4;
  if (method == "awq" || method == "gptq") return number(q, "bits") == 8 ? Precision::int8 : Precision::int4;
  if (method == "modelopt") {
    const std::string algo = text(q, "quant_algo");
    if (algo == "fp8") return Precision::fp8;
    if (algo == "nvfp4") return Precision::fp4;
    if (algo == "w4a16_awq") return Precision::int4;
    return std::nullopt;
  }
  if (method == "compressed-tensors" && q.contains("config_groups") && q["config_groups"].is_object())
    for (const auto& [name, group] : q["config_groups"].items()) {
      if (!group.is_object() || !group.contains("weights") || !group["weights"].is_object()) continue;
      const auto& wq = group["weights"];
      const std::int64_t bits = number(wq, "num_bits");
      const std::string type = text(wq, "type");
      const bool fp = type == "float";
      if (!fp && type != "int") return std::nullopt;
      if (bits == 8) return fp ? Precision::fp8 : Precision::int8;
      if (bits == 4) return fp ? Precision::fp4 : Precision::int4;
      return std::nullopt;
    }
  return std::nullopt;
}
}  // namespace

ModelSpec parse_hf_config_unguarded(std::string_view text, const std::string& origin, const std::string& id) {
  return parse_hf_config_json(parse_json(text, origin), origin, id);
}

// A config already parsed (a preset's embedded config: no second serialisation and parse at every start).
namespace {

// Every model_type read below, for the errors that list them.
constexpr const char* k_model_types = "llama, llama4, mistral, mistral3, mixtral, qwen, qwen2, qwen2_moe, qwen2_vl, qwen2_5_vl, qwen3, qwen3_moe, qwen3_vl, qwen3_vl_moe, olmoe, gpt_oss, glm4_moe, gemma, gemma2, gemma3, gemma3_text, llava, phi, phi3, starcoder2, cohere, gpt2, gpt_neox, gpt_bigcode, falcon, bloom, mpt, bert, roberta, t5, mt5, umt5, deepseek_v2, deepseek_v3";

// Llama-style fields every such family shares.
void llama_like(ModelSpec& m, const json& c, const std::string& origin, bool tied_default) {
  m.layers = geti(c, {"num_hidden_layers"}, origin);
  m.hidden = geti(c, {"hidden_size"}, origin);
  m.heads = geti(c, {"num_attention_heads"}, origin);
  m.kv_heads = geti(c, {"num_key_value_heads"}, origin, m.heads);
  m.head_dim = geti(c, {"head_dim"}, origin, m.heads > 0 ? m.hidden / m.heads : 0);
  m.ffn = geti(c, {"intermediate_size"}, origin);
  m.vocab = geti(c, {"vocab_size"}, origin);
  m.context = geti(c, {"max_position_embeddings"}, origin, 4096);
  m.tied_embeddings = getb(c, "tie_word_embeddings", tied_default);
  m.qkv_bias = getb(c, "attention_bias", false);
  m.gated_mlp = true;
}

// GPT-style families: LayerNorm, two-matrix GeLU MLP, multi-head attention (callers adjust the rest).
void classic(ModelSpec& m, const json& c, const std::string& origin, const std::vector<std::string>& layers, const std::vector<std::string>& hidden,
             const std::vector<std::string>& heads, const std::vector<std::string>& ffn, std::int64_t ffn_mult, const std::vector<std::string>& context,
             std::int64_t context_default, bool tied_default) {
  m.layers = geti(c, layers, origin);
  m.hidden = geti(c, hidden, origin);
  m.heads = geti(c, heads, origin);
  if (m.heads <= 0) throw InputError(origin + ": field '" + heads.front() + "' must be positive");
  m.kv_heads = m.heads;
  m.head_dim = m.hidden / m.heads;
  m.ffn = ffn.empty() ? ffn_mult * m.hidden : geti(c, ffn, origin, ffn_mult * m.hidden);
  m.vocab = geti(c, {"vocab_size"}, origin);
  m.context = geti(c, context, origin, context_default);
  m.tied_embeddings = getb(c, "tie_word_embeddings", tied_default);
  m.gated_mlp = false;
  m.layer_norm = true;
}

// Llama-style decoders (RMSNorm, SwiGLU, grouped-query attention), with sliding windows and MoE where the family has them.
void read_llama_family(ModelSpec& m, const json& c, const std::string& origin, const std::string& type) {
  llama_like(m, c, origin, type == "gemma" || type == "gemma2" || type == "gemma3_text");
  if (type == "qwen2" || type == "qwen2_moe") m.qkv_bias = true;
  if (type == "gemma2" || type == "gemma3_text") m.norms_per_layer = 4;
  const std::int64_t window = geti(c, {"sliding_window"}, origin, 0);
  if (window > 0 && (type == "mistral" || type == "gemma2" || type == "gemma3_text" || type == "mixtral" || type == "qwen2" ||
                     type == "phi3")) {
    bool use = true;
    if (type == "qwen2") use = getb(c, "use_sliding_window", false);
    if (use) {
      m.sliding_window = window;
      m.sliding_fraction = type == "gemma2" ? 0.5 : (type == "gemma3_text" ? 5.0 / 6.0 : 1.0);
    }
  }
  if (type == "gpt_oss") {
    // GPT-OSS (transformers' GptOssConfig): biases on the attention projections (attention_bias, default true),
    // layer_types alternating sliding_attention (a window of sliding_window) and full_attention, half and half
    // when the list is absent, as the config class fills it in.
    m.qkv_bias = getb(c, "attention_bias", true);
    const std::int64_t gpt_window = geti(c, {"sliding_window"}, origin, 0);
    if (gpt_window > 0 && m.layers > 0) {
      double sliding = 0.5 * static_cast<double>(m.layers);
      if (const auto lt = c.find("layer_types"); lt != c.end() && lt->is_array()) {
        sliding = 0;
        for (const auto& t : *lt)
          if (t.is_string() && t.get<std::string>() == "sliding_attention") sliding += 1.0;
      }
      m.sliding_window = gpt_window;
      m.sliding_fraction = std::min(1.0, sliding / static_cast<double>(m.layers));
    }
  }
  if (type == "olmoe" || type == "gpt_oss") {
    // OLMoE and GPT-OSS: every MLP routes over num_experts (num_local_experts) experts of intermediate_size.
    m.experts = geti(c, {"num_local_experts", "num_experts"}, origin);
    m.experts_per_token = geti(c, {"num_experts_per_tok", "experts_per_token"}, origin);
    m.expert_ffn = m.ffn;
  }
  if (type == "mixtral" || type == "qwen2_moe" || type == "qwen3_moe") {
    m.experts = geti(c, {"num_local_experts", "num_experts"}, origin);
    m.experts_per_token = geti(c, {"num_experts_per_tok"}, origin, 2);
    m.expert_ffn = geti(c, {"moe_intermediate_size"}, origin, m.ffn);
    if (type == "qwen2_moe") {
      m.shared_experts = 1;
      m.shared_expert_ffn = geti(c, {"shared_expert_intermediate_size"}, origin, 0);
    }
    // Qwen3-MoE (Qwen3-30B-A3B, 235B-A22B): routed experts only, every layer sparse unless listed in
    // mlp_only_layers (dense MLPs of intermediate_size), none in the released configs.
    if (type == "qwen3_moe" && c.contains("mlp_only_layers") && c["mlp_only_layers"].is_array())
      m.dense_layers = static_cast<std::int64_t>(c["mlp_only_layers"].size());
  }
}

// Llama 4's language model (transformers' Llama4TextConfig): every interleave_moe_layer_step-th layer routes over
// num_local_experts experts of intermediate_size beside a shared expert of the same width (Scout: every layer, 16
// experts; Maverick: every other layer, 128), the others a dense MLP of intermediate_size_mlp. The RoPE layers
// attend within chunks of attention_chunk_size (no_rope_layers: 1 for RoPE, every fourth layer global by default),
// read as a sliding window of that size (an upper bound on their keys and their KV cache).
void read_llama4_text(ModelSpec& m, const json& c, const std::string& origin) {
  llama_like(m, c, origin, false);
  m.ffn = geti(c, {"intermediate_size_mlp"}, origin, 16384);
  m.experts = geti(c, {"num_local_experts"}, origin, 16);
  m.experts_per_token = geti(c, {"num_experts_per_tok"}, origin, 1);
  m.expert_ffn = geti(c, {"intermediate_size"}, origin);
  m.shared_experts = 1;
  m.shared_expert_ffn = m.expert_ffn;
  const std::int64_t step = std::max<std::int64_t>(1, geti(c, {"interleave_moe_layer_step"}, origin, 1));
  m.dense_layers = m.layers - m.layers / step;
  if (const std::int64_t chunk = geti(c, {"attention_chunk_size"}, origin, 0); chunk > 0 && m.layers > 0) {
    double rope = 0.75 * static_cast<double>(m.layers);
    if (const auto nr = c.find("no_rope_layers"); nr != c.end() && nr->is_array() && !nr->empty()) {
      rope = 0;
      for (const auto& v : *nr)
        if (v.is_number_integer() && v.get<std::int64_t>() == 1) rope += 1.0;
    }
    m.sliding_window = chunk;
    m.sliding_fraction = std::min(1.0, rope / static_cast<double>(m.layers));
  }
}

// DeepSeek-V2/V3: multi-head latent attention and routed plus shared experts.
void read_deepseek(ModelSpec& m, const json& c, const std::string& origin) {
  llama_like(m, c, origin, false);
  m.q_lora_rank = geti(c, {"q_lora_rank"}, origin, 0);
  m.kv_lora_rank = geti(c, {"kv_lora_rank"}, origin);
  m.qk_nope_head_dim = geti(c, {"qk_nope_head_dim"}, origin);
  m.qk_rope_head_dim = geti(c, {"qk_rope_head_dim"}, origin);
  m.v_head_dim = geti(c, {"v_head_dim"}, origin);
  m.head_dim = m.qk_nope_head_dim + m.qk_rope_head_dim;
  m.experts = geti(c, {"n_routed_experts"}, origin, 0);
  m.experts_per_token = geti(c, {"num_experts_per_tok"}, origin, 0);
  m.expert_ffn = geti(c, {"moe_intermediate_size"}, origin, 0);
  m.shared_experts = geti(c, {"n_shared_experts"}, origin, 0);
  m.shared_expert_ffn = m.expert_ffn;
  m.dense_layers = geti(c, {"first_k_dense_replace"}, origin, 0);
}

// GLM-4.5/4.6 (glm4_moe): grouped-query attention with biases, first_k_dense_replace dense layers, then routed
// plus shared experts of moe_intermediate_size, as DeepSeek-V3 lays them out.
void read_glm4_moe(ModelSpec& m, const json& c, const std::string& origin) {
  llama_like(m, c, origin, false);
  m.experts = geti(c, {"n_routed_experts", "num_experts"}, origin);
  m.experts_per_token = geti(c, {"num_experts_per_tok"}, origin);
  m.expert_ffn = geti(c, {"moe_intermediate_size"}, origin);
  m.shared_experts = geti(c, {"n_shared_experts"}, origin, 0);
  m.shared_expert_ffn = m.expert_ffn;
  m.dense_layers = geti(c, {"first_k_dense_replace"}, origin, 0);
}

// The GPT-style and encoder families: Qwen (v1), Phi, GPT-2, GPT-NeoX, Falcon, BLOOM, MPT, BERT; false for another type.
bool read_classic_family(ModelSpec& m, const json& c, const std::string& origin, const std::string& type, const std::string& arch) {
  if (type == "qwen") {
    // Qwen (v1): intermediate_size is twice each SwiGLU projection's width; c_attn has a bias.
    m.layers = geti(c, {"num_hidden_layers"}, origin);
    m.hidden = geti(c, {"hidden_size"}, origin);
    m.heads = geti(c, {"num_attention_heads"}, origin);
    m.kv_heads = m.heads;
    m.head_dim = geti(c, {"kv_channels"}, origin, m.hidden / std::max<std::int64_t>(1, m.heads));
    m.ffn = geti(c, {"intermediate_size"}, origin) / 2;
    m.vocab = geti(c, {"vocab_size"}, origin);
    m.context = geti(c, {"seq_length", "max_position_embeddings"}, origin, 2048);
    m.tied_embeddings = getb(c, "tie_word_embeddings", false);
    m.qkv_bias = true;
  } else if (type == "phi") {
    classic(m, c, origin, {"num_hidden_layers"}, {"hidden_size"}, {"num_attention_heads"}, {"intermediate_size"}, 4, {"max_position_embeddings"}, 2048,
            false);
    m.kv_heads = geti(c, {"num_key_value_heads"}, origin, m.heads);
    m.linear_bias = true;
    m.norms_per_layer = 1;
    m.parallel_attention = true;
  } else if (type == "gpt2" || type == "gpt_bigcode") {
    classic(m, c, origin, {"n_layer", "num_hidden_layers"}, {"n_embd", "hidden_size"}, {"n_head", "num_attention_heads"}, {"n_inner"}, 4,
            {"n_positions", "n_ctx"}, 1024, true);
    if (type == "gpt_bigcode" && getb(c, "multi_query", true)) m.kv_heads = 1;
    m.linear_bias = true;
    m.learned_positions = true;
  } else if (type == "gpt_neox") {
    classic(m, c, origin, {"num_hidden_layers"}, {"hidden_size"}, {"num_attention_heads"}, {"intermediate_size"}, 4, {"max_position_embeddings"}, 2048,
            false);
    m.linear_bias = true;
    m.parallel_attention = getb(c, "use_parallel_residual", true);
  } else if (type == "falcon" || type == "refinedweb" || type == "refinedwebmodel") {
    classic(m, c, origin, {"num_hidden_layers", "n_layer"}, {"hidden_size"}, {"num_attention_heads", "n_head"}, {"ffn_hidden_size"}, 4,
            {"max_position_embeddings"}, 2048, true);
    const bool new_arch = getb(c, "new_decoder_architecture", false);
    if (new_arch) m.kv_heads = geti(c, {"num_kv_heads", "n_head_kv"}, origin, m.heads);
    else m.kv_heads = getb(c, "multi_query", true) ? 1 : m.heads;
    m.linear_bias = getb(c, "bias", false);
    m.parallel_attention = getb(c, "parallel_attn", true);
    m.norms_per_layer = new_arch ? 2 : (m.parallel_attention ? 1 : 2);
  } else if (type == "bloom") {
    classic(m, c, origin, {"n_layer", "num_hidden_layers"}, {"hidden_size", "n_embed"}, {"n_head", "num_attention_heads"}, {}, 4, {"seq_length"}, 2048,
            true);
    m.linear_bias = true;
    m.embedding_norm = true;
  } else if (type == "mpt") {
    classic(m, c, origin, {"n_layers"}, {"d_model"}, {"n_heads"}, {}, geti(c, {"expansion_ratio"}, origin, 4), {"max_seq_len"}, 2048, true);
    m.linear_bias = !getb(c, "no_bias", true);
    m.layer_norm = !getb(c, "no_bias", true);
    m.learned_positions = getb(c, "learned_pos_emb", true);
  } else if (type == "bert" || type == "roberta") {
    classic(m, c, origin, {"num_hidden_layers"}, {"hidden_size"}, {"num_attention_heads"}, {"intermediate_size"}, 4, {"max_position_embeddings"}, 512,
            true);
    m.architecture = Architecture::encoder;
    m.type_vocab = geti(c, {"type_vocab_size"}, origin, 2);
    m.tied_embeddings = true;
    m.linear_bias = true;
    m.learned_positions = true;
    m.embedding_norm = true;
    m.pooler = true;
    if (arch.find("ForSequenceClassification") != std::string::npos) m.num_labels = geti(c, {"num_labels"}, origin, 2);
  } else {
    return false;
  }
  return true;
}

// T5 and mT5: encoder-decoder with relative attention bias.
void read_t5(ModelSpec& m, const json& c, const std::string& origin, const std::string& type) {
  m.architecture = Architecture::encoder_decoder;
  m.hidden = geti(c, {"d_model"}, origin);
  m.heads = geti(c, {"num_heads"}, origin);
  m.kv_heads = m.heads;
  m.head_dim = geti(c, {"d_kv"}, origin, m.hidden / std::max<std::int64_t>(1, m.heads));
  m.ffn = geti(c, {"d_ff"}, origin);
  m.encoder_layers = geti(c, {"num_layers"}, origin);
  m.layers = geti(c, {"num_decoder_layers"}, origin, m.encoder_layers);
  m.vocab = geti(c, {"vocab_size"}, origin);
  m.context = 512;
  std::string ff = "relu";
  if (c.contains("feed_forward_proj") && c["feed_forward_proj"].is_string()) ff = c["feed_forward_proj"].get<std::string>();
  m.gated_mlp = ff.rfind("gated", 0) == 0;
  m.tied_embeddings = getb(c, "tie_word_embeddings", type == "t5");
  m.relative_attention_bias = true;
}

// A multimodal checkpoint's language model: its text_config (Gemma 3, Llama 4, Mistral Small 3.1, LLaVA, Qwen3-VL),
// or the top level (Qwen2-VL, Qwen2.5-VL), of the text type the wrapper implies where the text part names none.
// Gemma 3's wrappers list only what differs from Gemma3TextConfig's defaults: its vocabulary (262,208) and context
// (131,072) are filled in from them.
// The language-model type each multimodal wrapper implies where its text part names none; none for a type that is
// not a wrapper.
std::optional<std::string> wrapped_text_type(const std::string& type) {
  static const std::pair<const char*, const char*> k_wrappers[] = {{"gemma3", "gemma3_text"}, {"llama4", "llama4_text"}, {"mistral3", "mistral"},
                                                                   {"llava", "llama"},        {"qwen2_vl", "qwen2"},       {"qwen2_5_vl", "qwen2"},
                                                                   {"qwen3_vl", "qwen3"},     {"qwen3_vl_moe", "qwen3_moe"}};
  for (const auto& [wrapper, text] : k_wrappers)
    if (type == wrapper) return std::string(text);
  return std::nullopt;
}

std::string text_type_of(const std::string& wrapper, const json& text) {
  std::string t = text.contains("model_type") && text["model_type"].is_string() ? lower(text["model_type"].get<std::string>()) : std::string();
  if (t.empty() || t == wrapper) return *wrapped_text_type(wrapper);
  if (t == "qwen3_vl_text") return "qwen3";
  if (t == "qwen3_vl_moe_text") return "qwen3_moe";
  if (t == "qwen2_vl_text" || t == "qwen2_5_vl_text") return "qwen2";
  return t;
}

// The vision tower as a ViT of its vision_config (method.md §1.5): per layer 4·h² for attention and 2·h·i for the
// MLP (3·h·i where hidden_act is silu: the gated MLPs of Pixtral and Qwen2.5-VL), the patch embedding 3·p²·h, the
// position table (image/p)²·h where image_size is given, and a projector of h × the language model's width.
double vision_tower_params(const json& v, std::int64_t text_hidden, const std::string& file) {
  const std::string origin = file + ".vision_config";
  const double layers = static_cast<double>(geti(v, {"num_hidden_layers", "depth"}, origin, 0));
  const double h = static_cast<double>(geti(v, {"hidden_size", "embed_dim"}, origin, 0));
  const double i = static_cast<double>(geti(v, {"intermediate_size"}, origin, static_cast<std::int64_t>(4.0 * h)));
  const double p = static_cast<double>(geti(v, {"patch_size"}, origin, 14)), image = static_cast<double>(geti(v, {"image_size"}, origin, 0));
  if (layers <= 0 || h <= 0 || layers > 10000 || h > 1e6 || i > 1e7 || p <= 0 || p > 1e4 || image > 1e6)
    throw InputError(origin + ": num_hidden_layers (or depth), hidden_size, intermediate_size, patch_size and image_size must be positive and of "
                              "a vision model's size");
  const bool gated = v.contains("hidden_act") && v["hidden_act"].is_string() && v["hidden_act"].get<std::string>() == "silu";
  const double positions = image > 0 ? std::floor(image / p) * std::floor(image / p) : 0.0;
  return layers * (4.0 * h * h + (gated ? 3.0 : 2.0) * h * i) + 3.0 * p * p * h + positions * h + h * static_cast<double>(text_hidden);
}

bool multimodal(const std::string& type) { return wrapped_text_type(type).has_value(); }

}  // namespace

ModelSpec jsonio::parse_hf_config_json(const json& c, const std::string& origin, const std::string& id) {
  if (!c.is_object()) throw InputError(origin + ": expected a JSON object (a Hugging Face config.json)");
  std::string type;
  if (c.contains("model_type") && c["model_type"].is_string()) type = lower(c["model_type"].get<std::string>());
  if (type.empty()) throw InputError(origin + ": missing field 'model_type' (valid: " + k_model_types + ")");
  if (multimodal(type)) {
    const bool nested = c.contains("text_config") && c["text_config"].is_object();
    json text = nested ? c["text_config"] : c;
    text["model_type"] = text_type_of(type, text);
    if (multimodal(text["model_type"].get<std::string>()))  // one wrapper, one language model: no nesting to follow
      throw InputError(origin + ".text_config: model_type '" + text["model_type"].get<std::string>() + "' is a multimodal wrapper, not a language model");
    if (text["model_type"] == "gemma3_text") {
      if (!text.contains("vocab_size")) text["vocab_size"] = 262208;
      if (!text.contains("max_position_embeddings")) text["max_position_embeddings"] = 131072;
    }
    if (!text.contains("quantization_config") && c.contains("quantization_config")) text["quantization_config"] = c["quantization_config"];
    ModelSpec lm = parse_hf_config_json(text, nested ? origin + ".text_config" : origin, id);
    lm.family = type;
    lm.source = origin;
    if (const auto v = c.find("vision_config"); v != c.end() && v->is_object()) lm.vision_tower_params = vision_tower_params(*v, lm.hidden, origin);
    lm.notes.push_back(fmt::format("a multimodal checkpoint ({}): its language model and its vision tower's {:.2f}B parameters are counted; the image "
                                   "tokens' activations and the tower's compute per image are not",
                                   type, lm.vision_tower_params / 1e9));
    return lm;
  }
  ModelSpec m;
  m.id = id;
  m.family = type;
  m.source = origin;
  std::string arch;
  if (c.contains("architectures") && c["architectures"].is_array() && !c["architectures"].empty() && c["architectures"][0].is_string())
    arch = c["architectures"][0].get<std::string>();
  if (type == "llama" || type == "mistral" || type == "mixtral" || type == "qwen2" || type == "qwen2_moe" || type == "gemma" || type == "gemma2" ||
      type == "gemma3_text" || type == "phi3" || type == "qwen3" || type == "qwen3_moe" || type == "starcoder2" || type == "cohere" ||
      type == "olmoe" || type == "gpt_oss")
    read_llama_family(m, c, origin, type);
  else if (type == "glm4_moe") read_glm4_moe(m, c, origin);
  else if (type == "llama4_text") read_llama4_text(m, c, origin);
  else if (type == "deepseek_v3" || type == "deepseek_v2") read_deepseek(m, c, origin);
  else if (type == "t5" || type == "mt5" || type == "umt5") read_t5(m, c, origin, type);
  else if (!read_classic_family(m, c, origin, type, arch))
    throw InputError(origin + ": model_type '" + type + "' is not supported (valid: " + k_model_types + ")");
  if (m.hidden <= 0 || m.heads <= 0 || m.layers <= 0 || m.vocab <= 0 || m.head_dim <= 0)
    throw InputError(origin + ": hidden size, heads, layers, head_dim and vocab_size must be positive");
  check_config_shape(m, origin);
  // A pre-quantised checkpoint names its format (DeepSeek-V3 ships fp8 blocks; AWQ and GPTQ repositories their
  // own): serving engines read it from there (launch hints).
  if (const auto q = c.find("quantization_config"); q != c.end() && q->is_object())
    if (const auto qm = q->find("quant_method"); qm != q->end() && qm->is_string()) {
      m.checkpoint_format = lower(qm->get<std::string>());
      m.checkpoint_precision = stored_precision(*q, m.checkpoint_format);
    }
  return m;
}

ModelSpec parse_hf_config(std::string_view text, const std::string& origin, const std::string& id) {
  return json_guard(origin, [&] { return parse_hf_config_unguarded(text, origin, id); });
}

}  // namespace gpuadvise
