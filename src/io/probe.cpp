// The measurement script of `gpuadvise probe` (docs/method.md §15).
#include "gpuadvise/probe.hpp"

#include <fmt/format.h>

#include "gpuadvise/error.hpp"
#include "gpuadvise/escape.hpp"

namespace gpuadvise {

namespace {

// Every value that came from the user (the estimate's flags, a config's model_type) enters the script as a
// Python string literal (escape.hpp): never in a comment, never as code.
std::string py_str(const std::string& s) { return python_literal(s); }

// transformers config fields for the decoder families whose configs share Llama's names.
std::string decoder_config(const ModelSpec& m) {
  std::string type = m.family.empty() ? "llama" : m.family;
  if (type == "gpt2") {
    return fmt::format("AutoConfig.for_model(\"gpt2\", n_embd={}, n_layer={}, n_head={}, vocab_size={}, n_positions={})", m.hidden, m.layers, m.heads,
                       m.vocab, m.context > 0 ? m.context : 1024);
  }
  static const char* llama_like[] = {"llama", "mistral", "mixtral", "qwen2", "qwen3", "gemma", "gemma2", "phi3", "qwen2_moe"};
  bool ok = false;
  for (const char* t : llama_like) ok = ok || type == t;
  if (m.architecture != Architecture::decoder) ok = false;
  if (!ok)
    throw InputError("--model: the probe builds Llama-style decoders (llama, mistral, mixtral, qwen2, qwen3, gemma, gemma2, phi3) and GPT-2; " +
                     m.id + " is " + (type.empty() ? "another family" : "'" + type + "'"));
  std::string cfg = fmt::format(
      "AutoConfig.for_model({}, hidden_size={}, intermediate_size={}, num_hidden_layers={}, num_attention_heads={}, num_key_value_heads={}, "
      "head_dim={}, vocab_size={}, max_position_embeddings={}, tie_word_embeddings={}",
      py_str(type), m.hidden, m.is_moe() ? m.expert_ffn : m.ffn, m.layers, m.heads, m.kv_heads > 0 ? m.kv_heads : m.heads, m.head_dim, m.vocab,
      m.context > 0 ? m.context : 4096, m.tied_embeddings ? "True" : "False");
  if (m.is_moe()) cfg += fmt::format(", num_local_experts={}, num_experts_per_tok={}", m.experts, m.experts_per_token);
  return cfg + ")";
}

// timm names of the classification presets.
std::string timm_name(const ModelSpec& m) {
  static const std::pair<const char*, const char*> names[] = {
      {"resnet-18", "resnet18"},         {"resnet-34", "resnet34"},         {"resnet-50", "resnet50"},     {"resnet-101", "resnet101"},
      {"resnet-152", "resnet152"},       {"vit-b-16", "vit_base_patch16_224"}, {"vit-l-16", "vit_large_patch16_224"},
      {"vit-h-14", "vit_huge_patch14_224"}, {"convnext-tiny", "convnext_tiny"}, {"convnext-base", "convnext_base"}, {"convnext-large", "convnext_large"},
      {"efficientnet-b0", "efficientnet_b0"}, {"efficientnet-b4", "efficientnet_b4"}, {"swin-t", "swin_tiny_patch4_window7_224"},
      {"swin-b", "swin_base_patch4_window7_224"}};
  for (const auto& [id, name] : names)
    if (m.id == id) return name;
  throw InputError("--model: the probe builds timm classifiers (resnet, vit, convnext, efficientnet, swin presets) among vision models; " + m.id +
                   " needs its framework's own training script (detectron2, MMDetection, Ultralytics, diffusers)");
}

const char* dtype_of(Precision p) {
  switch (p) {
    case Precision::fp32:
    case Precision::tf32: return "torch.float32";
    case Precision::fp16: return "torch.float16";
    default: return "torch.bfloat16";
  }
}

// The script's opening: what it measures, the imports, the step count and the precision.
std::string probe_header(const Workload& w, const std::string& estimate_args, int steps) {
  std::string s;
  s += "#!/usr/bin/env python3\n";
  s += "# Written by `gpuadvise probe` (docs/method.md §15). It measures, on this machine's first GPU, what this estimate\n";
  s += "# predicts: the estimate whose flags are ESTIMATE_ARGS below (gpuadvise estimate ESTIMATE_ARGS).\n";
  s += "# Random weights from the model's shape and a synthetic batch of the exact shape; no download, no data.\n";
  s += "# Then: gpuadvise calibrate probe_result.json\n";
  s += "import json, sys, time\nimport torch\n\n";
  s += "ESTIMATE_ARGS = " + py_str(estimate_args) + "\n";
  s += fmt::format("STEPS = {}\nOUT = sys.argv[1] if len(sys.argv) > 1 else \"probe_result.json\"\n", steps);
  s += "assert torch.cuda.is_available(), 'the probe needs a CUDA or ROCm GPU'\ndev = torch.device('cuda')\n";
  s += fmt::format("DTYPE = {}\n", dtype_of(w.precision));
  s += "torch.backends.cuda.matmul.allow_tf32 = " + std::string(w.precision == Precision::tf32 ? "True" : "False") + "\n";
  s += "torch.backends.cudnn.allow_tf32 = True  # PyTorch's default for convolutions\n\n";
  return s;
}

// A diffusion denoiser built by diffusers from its published shape with random weights; latents and text
// embeddings of the exact shape stand in for the VAE and text encoders (as with cached latents).
std::string probe_denoiser(const Workload& w, const ModelSpec& m, bool training) {
  std::string s;
  const std::int64_t batch = w.batch;
  const auto& a = *m.vision;
  const std::int64_t width = w.image_width.value_or(a.ref_w), height = w.image_height.value_or(a.ref_h);
  const std::int64_t steps_n = !training && w.steps ? *w.steps : a.default_steps;
  s += fmt::format("BATCH, H, W = {}, {}, {}\n", batch, height, width);
  if (m.id == "flux-1-dev") {
    s += "from diffusers import FluxTransformer2DModel\n";
    s += "model = FluxTransformer2DModel(num_layers=19, num_single_layers=38, attention_head_dim=128, num_attention_heads=24, "
         "joint_attention_dim=4096, pooled_projection_dim=768, guidance_embeds=True, in_channels=64).to(dev, DTYPE)\n";
    s += "T = (H // 16) * (W // 16)\n";
    s += "inputs = dict(hidden_states=torch.randn(BATCH, T, 64, device=dev, dtype=DTYPE), encoder_hidden_states=torch.randn(BATCH, 512, 4096, "
         "device=dev, dtype=DTYPE), pooled_projections=torch.randn(BATCH, 768, device=dev, dtype=DTYPE), timestep=torch.full((BATCH,), 0.5, "
         "device=dev), img_ids=torch.zeros(T, 3, device=dev), txt_ids=torch.zeros(512, 3, device=dev), guidance=torch.full((BATCH,), 3.5, device=dev))\n";
    s += "CFG = 1\n";
  } else if (m.id == "sdxl-base-1.0" || m.id == "stable-diffusion-v1-4") {
    const bool xl = m.id == "sdxl-base-1.0";
    s += "from diffusers import UNet2DConditionModel\n";
    if (xl)
      s += "model = UNet2DConditionModel(sample_size=128, block_out_channels=(320, 640, 1280), layers_per_block=2, "
           "down_block_types=('DownBlock2D', 'CrossAttnDownBlock2D', 'CrossAttnDownBlock2D'), up_block_types=('CrossAttnUpBlock2D', "
           "'CrossAttnUpBlock2D', 'UpBlock2D'), transformer_layers_per_block=(1, 2, 10), attention_head_dim=(5, 10, 20), cross_attention_dim=2048, "
           "use_linear_projection=True, addition_embed_type='text_time', addition_time_embed_dim=256, "
           "projection_class_embeddings_input_dim=2816).to(dev, DTYPE)\n";
    else s += "model = UNet2DConditionModel(sample_size=64, cross_attention_dim=768, attention_head_dim=8).to(dev, DTYPE)\n";
    s += fmt::format("CFG = {}\n", a.cfg && !training ? 2 : 1);
    std::string inputs = "inputs = dict(sample=torch.randn(BATCH * CFG, 4, H // 8, W // 8, device=dev, dtype=DTYPE), timestep=torch.full((BATCH * CFG,), 500, "
                         "device=dev), encoder_hidden_states=torch.randn(BATCH * CFG, 77, ";
    inputs.append(xl ? "2048" : "768").append(", device=dev, dtype=DTYPE)");
    if (xl)
      inputs.append(", added_cond_kwargs={'text_embeds': torch.randn(BATCH * CFG, 1280, device=dev, dtype=DTYPE), 'time_ids': torch.randn(BATCH * CFG, 6, "
                    "device=dev, dtype=DTYPE)}");
    inputs.append(")\n");
    s += inputs;
  } else {
    throw InputError("--model: the probe builds FLUX.1-dev, SDXL and Stable Diffusion 1.x denoisers; " + m.id + " is not one of them");
  }
  s += "UNIT = 'images'\nPER_STEP = BATCH\n";
  if (training) {
    if (w.checkpointing != Checkpointing::none) s += "model.enable_gradient_checkpointing()\n";
    if (w.mode == Mode::lora) {
      s += "from peft import LoraConfig, get_peft_model\n";
      s += fmt::format("model = get_peft_model(model, LoraConfig(r={}, lora_alpha={}, target_modules=['to_q', 'to_k', 'to_v', 'to_out.0']))\n",
                       w.lora_rank, w.lora_rank);
    }
    s += "model.train()\nopt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-5)\n";
    s += "def step():\n    out = model(**inputs).sample\n    loss = out.float().pow(2).mean()\n    loss.backward()\n    opt.step()\n"
         "    opt.zero_grad(set_to_none=True)\n";
  } else {
    s += fmt::format("model.eval()\nSTEPS_DENOISE = {}\n", steps_n);
    s += "def step():\n    with torch.inference_mode():\n        for _ in range(STEPS_DENOISE):\n            model(**inputs)\n";
  }
  return s;
}

// A timm image model on a synthetic batch.
std::string probe_image_model(const Workload& w, const ModelSpec& m, bool training) {
  std::string s;
  const std::int64_t batch = w.batch;
  const std::string name = timm_name(m);
  const std::int64_t width = w.image_width.value_or(m.vision->ref_w), height = w.image_height.value_or(m.vision->ref_h);
  s += "import timm\n";
  s += fmt::format("model = timm.create_model({}, pretrained=False, num_classes={}).to(dev)\n", py_str(name), w.classes.value_or(1000));
  s += fmt::format("BATCH, H, W = {}, {}, {}\n", batch, height, width);
  s += "x = torch.randn(BATCH, 3, H, W, device=dev)\ny = torch.randint(0, model.num_classes, (BATCH,), device=dev)\n";
  s += "UNIT = 'images'\nPER_STEP = BATCH\n";
  if (training) {
    s += "model.train()\nopt = torch.optim.AdamW(model.parameters(), lr=1e-4)\n";
    s += "def step():\n    with torch.autocast('cuda', dtype=DTYPE, enabled=DTYPE != torch.float32):\n";
    s += "        loss = torch.nn.functional.cross_entropy(model(x), y)\n    loss.backward()\n    opt.step()\n    opt.zero_grad(set_to_none=True)\n";
  } else {
    s += "model.eval()\n";
    s += "def step():\n    with torch.inference_mode(), torch.autocast('cuda', dtype=DTYPE, enabled=DTYPE != torch.float32):\n        model(x)\n";
  }
  return s;
}

// A language model's training step: checkpointing, LoRA adapters (PEFT), the optimizer, a synthetic batch.
std::string probe_language_training(const Workload& w, bool autocast) {
  std::string s;
  if (w.checkpointing != Checkpointing::none) s += "model.gradient_checkpointing_enable()\nmodel.config.use_cache = False\n";
  if (w.mode == Mode::lora) {
    const LoraTargets& t = w.lora_targets;
    std::string targets;
    auto add = [&](bool on, const char* name) {
      if (on) targets += std::string(targets.empty() ? "" : ", ") + "'" + name + "'";
    };
    add(t.q, "q_proj");
    add(t.k, "k_proj");
    add(t.v, "v_proj");
    add(t.o, "o_proj");
    add(t.gate, "gate_proj");
    add(t.up, "up_proj");
    add(t.down, "down_proj");
    s += "from peft import LoraConfig, get_peft_model\n";
    s += fmt::format("model = get_peft_model(model, LoraConfig(r={}, lora_alpha={}, target_modules=[{}], lora_dropout=0.0))\n", w.lora_rank,
                     2 * w.lora_rank, targets);
    s += "if hasattr(model, 'enable_input_require_grads'): model.enable_input_require_grads()\n";
  }
  s += "model.train()\n";
  if (w.optimizer == Optimizer::adamw_8bit) s += "import bitsandbytes as bnb\nopt = bnb.optim.AdamW8bit([p for p in model.parameters() if p.requires_grad], lr=1e-5)\n";
  else if (w.optimizer == Optimizer::sgd || w.optimizer == Optimizer::sgd_momentum)
    s += fmt::format("opt = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=1e-5, momentum={})\n",
                     w.optimizer == Optimizer::sgd_momentum ? "0.9" : "0.0");
  else s += "opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-5)\n";
  s += "ids = torch.randint(0, config.vocab_size, (BATCH, SEQ), device=dev)\n";
  s += "UNIT = 'tokens'\nPER_STEP = BATCH * SEQ\n";
  s += fmt::format("def step():\n    with torch.autocast('cuda', dtype=DTYPE, enabled={}):\n", autocast ? "True" : "False");
  s += "        loss = model(input_ids=ids, labels=ids).loss\n    loss.backward()\n    opt.step()\n    opt.zero_grad(set_to_none=True)\n";
  return s;
}

// A language model from its config with random weights, then its training step or a generate() call.
std::string probe_language_model(const Workload& w, const ModelSpec& m, const MemoryEstimate& predicted, bool training) {
  std::string s;
  const std::int64_t batch = w.batch;
  const std::int64_t seq = predicted.seq_len;
  s += "from transformers import AutoConfig, AutoModelForCausalLM\n";
  s += "config = " + decoder_config(m) + "\n";
  // Mixed precision as the default profile runs it: a full fine-tune keeps fp32 parameters under autocast
  // (Hugging Face AMP); LoRA a 16-bit base under autocast; --master-weights none and inference 16-bit
  // parameters throughout.
  const bool low = w.precision != Precision::fp32 && w.precision != Precision::tf32;
  const bool amp_fp32 = training && w.mode != Mode::lora && w.effective_master_weights() == MasterWeights::fp32 && low;
  const bool autocast = training && low && (amp_fp32 || w.mode == Mode::lora);
  s += fmt::format("model = AutoModelForCausalLM.from_config(config, torch_dtype={}, attn_implementation={}).to(dev)\n",
                   amp_fp32 ? "torch.float32" : "DTYPE", w.flash_attention ? "'sdpa'" : "'eager'");
  s += fmt::format("BATCH, SEQ = {}, {}\n", batch, seq);
  if (training) {
    s += probe_language_training(w, autocast);
  } else {
    const std::int64_t out_tokens = w.output_tokens ? static_cast<std::int64_t>(*w.output_tokens) : std::max<std::int64_t>(1, seq / 4);
    const std::int64_t prompt = std::max<std::int64_t>(1, seq - out_tokens);
    s += "model.eval()\n";
    s += fmt::format("PROMPT, NEW = {}, {}\n", prompt, out_tokens);
    s += "ids = torch.randint(0, config.vocab_size, (BATCH, PROMPT), device=dev)\n";
    s += "UNIT = 'output tokens'\nPER_STEP = BATCH * NEW\n";
    s += "def step():\n    with torch.inference_mode():\n        model.generate(ids, max_new_tokens=NEW, min_new_tokens=NEW, do_sample=False)\n";
  }
  return s;
}

// Warm up, time the steps, and write the measurement beside the prediction.
std::string probe_measure(const MemoryEstimate& predicted) {
  std::string s;

  s += "\n# Warm up once, then time STEPS steps.\nstep(); torch.cuda.synchronize()\ntorch.cuda.reset_peak_memory_stats()\n";
  s += "t0 = time.perf_counter()\nfor _ in range(STEPS):\n    step()\ntorch.cuda.synchronize()\nsecs = (time.perf_counter() - t0) / STEPS\n";
  s += "free, total = torch.cuda.mem_get_info()\n";
  s += "result = {\n";
  s += "    'schema': 'gpuadvise-probe/1',\n";
  s += "    'estimate_args': ESTIMATE_ARGS,\n";
  s += "    'gpu_name': torch.cuda.get_device_name(0),\n";
  s += "    'torch': torch.__version__,\n";
  s += "    'measured': {\n";
  s += "        'max_memory_allocated_bytes': torch.cuda.max_memory_allocated(),\n";
  s += "        'max_memory_reserved_bytes': torch.cuda.max_memory_reserved(),\n";
  s += "        'device_used_bytes': total - free,\n";
  s += "        'step_seconds': secs,\n";
  s += "        'unit': UNIT,\n";
  s += "        'per_second': PER_STEP / secs,\n";
  s += "    },\n";
  s += fmt::format("    'predicted': {{'tensor_peak_bytes': {:.0f}, 'device_peak_bytes': {:.0f}}},\n", predicted.tensor_peak, predicted.device_peak);
  s += "}\n";
  s += "json.dump(result, open(OUT, 'w'), indent=2)\nprint(json.dumps(result['measured'], indent=2))\n";
  return s;
}

}  // namespace

std::string probe_script(const Workload& w, const ModelSpec& m, const MemoryEstimate& predicted, const std::string& estimate_args, int steps) {
  const bool training = is_training(w.mode);
  if (w.mode == Mode::qlora)
    throw InputError("--mode: the probe builds random weights, and QLoRA quantises a checkpoint as it loads (from_pretrained with "
                     "BitsAndBytesConfig): measure --mode lora, or run your QLoRA script with torch.cuda.max_memory_allocated()");
  if (w.gpus > 1) throw InputError("--gpus: the probe measures one GPU; run it per rank under your launcher for a multi-GPU plan");
  if (is_quantised_weights(w.precision))
    throw InputError("--precision: the probe runs fp32, tf32, fp16 or bf16 (quantised formats need their engine's loader)");
  std::string s = probe_header(w, estimate_args, steps);
  if (m.vision && m.vision->task == "generation") s += probe_denoiser(w, m, training);
  else if (m.vision) s += probe_image_model(w, m, training);
  else s += probe_language_model(w, m, predicted, training);
  return s + probe_measure(predicted);
}

}  // namespace gpuadvise
