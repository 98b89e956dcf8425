#pragma once
// Model architecture: the numbers of a Hugging Face config.json that decide parameters, memory and
// FLOPs. Parameter counting follows docs/method.md §1 (Megatron-LM theoretical_memory_usage.py).
#include <cstdint>
#include <string>
#include <optional>
#include <vector>

#include "gpuadvise/vision.hpp"
#include "gpuadvise/workload.hpp"

namespace gpuadvise {

enum class Architecture { decoder, encoder, encoder_decoder };

struct ModelSpec {
  std::string id;
  std::string family;   // llama, mistral, mixtral, qwen, qwen2, gemma, gemma2, phi, phi3, gpt2, gpt_neox, ...
  std::string source;   // where the numbers come from
  std::string checkpoint_format;  // config.json's quantization_config.quant_method ("fp8", "awq", "gptq"); empty: 16-bit weights
  std::optional<Precision> checkpoint_precision;  // what its weights are stored at (fp8, int4, int8, fp4); none: unknown or 16-bit
  std::string local_path;  // the config.json or snapshot folder it was read from on disk ("" for a preset or a size)
  Architecture architecture = Architecture::decoder;
  std::int64_t layers = 0;          // decoder layers (encoder layers for an encoder)
  std::int64_t encoder_layers = 0;  // encoder-decoder only
  std::int64_t hidden = 0;
  std::int64_t heads = 0;
  std::int64_t kv_heads = 0;
  std::int64_t head_dim = 0;
  std::int64_t ffn = 0;           // MLP intermediate size (per projection)
  std::int64_t vocab = 0;
  std::int64_t context = 0;       // maximum positions
  bool tied_embeddings = false;
  bool gated_mlp = true;          // SwiGLU/GeGLU: 3 matrices
  bool qkv_bias = false;
  bool linear_bias = false;       // every linear layer has a bias (GPT-2, BERT, Falcon-7B with bias ...)
  bool layer_norm = false;        // LayerNorm (weight+bias) instead of RMSNorm
  std::int64_t norms_per_layer = 2;
  bool parallel_attention = false;  // attention and MLP read the same normalised input (GPT-J, Falcon, Phi)
  bool learned_positions = false;
  std::int64_t type_vocab = 0;    // BERT token types
  bool embedding_norm = false;    // BERT, BLOOM
  bool pooler = false;            // BERT pooler + classification head
  std::int64_t num_labels = 0;
  // Mixture of experts.
  std::int64_t experts = 0, experts_per_token = 0, shared_experts = 0;
  std::int64_t expert_ffn = 0, shared_expert_ffn = 0;
  std::int64_t dense_layers = 0;  // leading layers with a dense MLP (DeepSeek first_k_dense_replace)
  // Multi-head latent attention (DeepSeek-V2/V3).
  std::int64_t q_lora_rank = 0, kv_lora_rank = 0, qk_nope_head_dim = 0, qk_rope_head_dim = 0, v_head_dim = 0;
  // Sliding-window attention: window and the share of layers that use it.
  std::int64_t sliding_window = 0;
  double sliding_fraction = 0.0;
  bool relative_attention_bias = false;  // T5
  // A bare size ("7B") is that many parameters exactly: the generic shape decides activations and the
  // KV cache, this decides the parameter count.
  double exact_params = 0;
  // A multimodal checkpoint's vision tower and projector (method.md §1.5): counted in the weights of every pass,
  // kept at 16 bits; the image tokens' activations and the tower's compute per image are not modelled.
  double vision_tower_params = 0;
  // Vision models carry their architecture here instead of the transformer fields above.
  std::optional<VisionArch> vision;
  std::vector<std::string> notes;

  bool is_moe() const { return experts > 0; }
  bool is_mla() const { return kv_lora_rank > 0; }
  bool operator==(const ModelSpec&) const = default;
};

struct ParamCounts {
  double total = 0;        // every parameter
  double active = 0;       // used per token (MoE: routed experts replaced by the active ones)
  double linear = 0;       // in the transformer layers' projection matrices (quantisable)
  double embedding = 0;    // token (+ position/type) embeddings
  double head = 0;         // untied output projection (0 when tied)
  double other = 0;        // norms, biases, routers, pooler
  double largest_layer = 0;  // the biggest transformer layer (ZeRO-3 live parameters)
  double per_layer_linear = 0;  // average per layer (dense decoders: exact)
  double routed_experts = 0;    // MoE: parameters of the routed experts, all layers (expert parallelism splits them)
  double largest_layer_routed = 0;  // the routed-expert share of the largest layer
};

ParamCounts count_params(const ModelSpec& m);
// The weights a decoder token multiplies (docs/method.md §8.1): the active parameters less the embedding table, which
// each token reads as a gather (no FLOPs), with the output projection's V·h counted whether or not it is tied to the
// table. `head`: the share of that which is the output projection, run only on the positions whose logits are taken.
// Encoders and encoder-decoders keep the active count.
struct MatmulWeights {
  double per_token = 0, head = 0;
};
MatmulWeights matmul_weights(const ParamCounts& pc, const ModelSpec& m);
// The routed-expert parameters a GPU does not hold when the experts split `expert_split` ways beyond the tp·pp split
// (expert_shards: ep, or ep/tp folded; method.md §3.4): all but 1/expert_split of them.
inline double experts_elsewhere(const ParamCounts& pc, double expert_split) { return pc.routed_experts * (1.0 - 1.0 / expert_split); }

// Attention projections in one layer: Wq, Wk, Wv, Wo (+ biases). docs/method.md §1.1
double attention_params(const ModelSpec& m);
// MLP of one dense layer. docs/method.md §1.1
double dense_mlp_params(const ModelSpec& m, std::int64_t ffn);

// KV-cache elements per token, summed over layers (2·L·g·d; MLA: L·(kv_lora_rank + rope dim)).
// Sliding-window layers are counted at `tokens` capped to their window by the caller.
double kv_elements_per_token(const ModelSpec& m);

// Generic decoder shape of a given size (a bare "7B"): docs/method.md §1.4.
ModelSpec generic_decoder(double params, const std::string& label);

}  // namespace gpuadvise
