// Vision presets of data/models.json (and user model catalogues): the architecture a vision or image-generation
// model's memory and time are counted from (docs/method.md §12).
#include "catalog_vision.hpp"

#include <algorithm>

namespace gpuadvise::jsonio {

namespace {
// An image-generation pipeline: its parts' parameters, guidance, latent channels and default steps, and the
// denoiser's shape: a UNet's levels or a diffusion transformer's blocks.
void parse_diffusion(Obj&& d, VisionArch& a, const std::string& where) {
  a.denoiser_params = d.num("denoiser_params");
  a.text_encoder_params = d.num("text_encoder_params");
  if (d.has("fp32_text_encoder_params")) a.fp32_text_encoder_params = d.num("fp32_text_encoder_params");
  if (a.fp32_text_encoder_params < 0 || a.fp32_text_encoder_params > a.text_encoder_params)
    throw InputError(where + ".diffusion.fp32_text_encoder_params: expected a count from 0 to text_encoder_params");
  a.vae_params = d.num("vae_params");
  a.cfg = d.boolean("cfg");
  a.latent_channels = d.integer("latent_channels", 0, 1e6);
  a.default_steps = d.integer("steps", 0, 1e6);
  if (d.has("levels")) {
    const json& lv = d.raw("levels");
    if (!lv.is_array()) throw InputError(where + ".diffusion.levels: expected an array of [channels, transformer layers, heads]");
    for (const auto& l : lv) {
      if (!l.is_array() || l.size() != 3 || !l[0].is_number_integer() || !l[1].is_number_integer() || !l[2].is_number_integer() ||
          l[0].get<std::int64_t>() < 1 || l[0].get<std::int64_t>() > 65536 || l[1].get<std::int64_t>() < 0 || l[1].get<std::int64_t>() > 1000 ||
          l[2].get<std::int64_t>() < 1 || l[2].get<std::int64_t>() > 1024)
        throw InputError(where + ".diffusion.levels: expected [channels, transformer layers, heads] as whole numbers (channels 1-65536, layers 0-1000, heads 1-1024)");
      a.levels.push_back({l[0].get<std::int64_t>(), l[1].get<std::int64_t>(), l[2].get<std::int64_t>()});
    }
  }
  if (d.has("dit")) {
    Obj t(d.raw("dit"), where + ".diffusion.dit");
    a.dit_blocks = t.integer("blocks", 0, 1e6);
    a.dit_hidden = t.integer("hidden", 0, 1e6);
    a.dit_heads = t.integer("heads", 0, 1e6);
    a.dit_text_tokens = t.integer("text_tokens", 0, 1e6);
    if (t.has("t5_tokens")) {  // T5's share of them: diffusers' max_sequence_length, its default and its limit
      a.dit_t5_tokens = t.integer("t5_tokens", 1, static_cast<double>(a.dit_text_tokens));
      a.dit_t5_max_tokens = t.integer("t5_max_tokens", static_cast<double>(a.dit_t5_tokens), 1e6);
    }
    if (t.has("double_blocks")) a.dit_double_blocks = t.integer("double_blocks", 0, static_cast<double>(a.dit_blocks));
    a.dit_qk_norm = t.has("qk_norm") && t.boolean("qk_norm");  // q/k RMSNorm in the joint attention
    a.dit_rope = t.has("rope") && t.boolean("rope");           // rotary embedding
    t.done();
  }
  d.done();
}

}  // namespace

VisionArch parse_vision(const json& j, const std::string& where) {
  Obj o(j, where);
  VisionArch a;
  auto one_of = [&](const std::string& key, const std::vector<std::string>& valid) {
    const std::string v = o.str(key);
    if (std::find(valid.begin(), valid.end(), v) == valid.end())
      throw InputError(where + "." + key + ": unknown value '" + v + "' (valid: " + join(valid, ", ") + ")");
    return v;
  };
  a.task = one_of("task", {"classification", "detection", "instance-segmentation", "keypoints", "panoptic", "segmentation", "generation"});
  a.backbone = one_of("backbone", {"resnet18", "resnet34", "resnet50", "resnet101", "resnet152", "resnext101-32x8d", "resnext101-32x4d",
                                   "resnext101-64x4d", "resnext152-32x8d", "vit", "swin-t", "swin-s", "swin-b", "convnext-t", "convnext-b", "convnext-l", "efficientnet-b0",
                                   "efficientnet-b4", "mit-b0", "mit-b5", "unet2d", "cspdarknet", "generic", "unet", "dit"});
  a.neck = o.has("neck") ? one_of("neck", {"none", "fpn", "c4", "dc5", "dilated8"}) : "none";
  a.head = o.has("head") ? one_of("head", {"cls", "rpn", "rpn-box", "fast-box", "retinanet", "detr", "mask", "keypoint", "panoptic", "yolo", "seg"}) : "cls";
  if (o.has("cascade_stages")) a.cascade_stages = o.integer("cascade_stages", 0, 1e6);
  if (o.has("box_convs")) a.box_convs = o.integer("box_convs", 0, 1e6);
  if (o.has("mask_convs")) a.mask_convs = o.integer("mask_convs", 0, 1e6);
  if (o.has("classes")) a.classes = o.integer("classes", 0, 1e6);
  if (o.has("dconv")) a.dconv = o.boolean("dconv");
  if (o.has("gn")) a.gn = o.boolean("gn");
  if (o.has("syncbn")) a.syncbn = o.boolean("syncbn");
  if (o.has("scratch")) a.scratch = o.boolean("scratch");
  if (o.has("params")) a.params = o.num("params");
  if (o.has("gmacs")) a.gmacs = o.num("gmacs");
  if (o.has("gflops")) {
    a.gmacs = o.num("gflops");
    a.flops_unit = "flops";
  }
  // [width, height] in positive whole pixels.
  auto size_pair = [&](const std::string& key, std::int64_t& w, std::int64_t& h) {
    if (!o.has(key)) return;
    const json& r = o.raw(key);
    if (!r.is_array() || r.size() != 2 || !r[0].is_number_integer() || !r[1].is_number_integer() || r[0].get<std::int64_t>() < 1 ||
        r[1].get<std::int64_t>() < 1)
      throw InputError(where + "." + key + ": expected [width, height] in pixels");
    w = r[0].get<std::int64_t>();
    h = r[1].get<std::int64_t>();
  };
  size_pair("ref_size", a.ref_w, a.ref_h);
  size_pair("train_max_size", a.train_max_w, a.train_max_h);
  if (o.has("vit")) {
    Obj v(o.raw("vit"), where + ".vit");
    a.vit_layers = v.integer("layers", 0, 1e6);
    a.vit_hidden = v.integer("hidden", 0, 1e6);
    a.vit_heads = v.integer("heads", 0, 1e6);
    a.vit_mlp = v.integer("mlp", 0, 1e6);
    a.patch = v.integer("patch", 0, 1e6);
    v.done();
  }
  if (o.has("diffusion")) parse_diffusion(Obj(o.raw("diffusion"), where + ".diffusion"), a, where);
  if (o.has("width_mult")) a.width_mult = o.num("width_mult");
  if (o.has("depth_mult")) a.depth_mult = o.num("depth_mult");
  if (o.has("yolo")) a.yolo_family = one_of("yolo", {"v5", "v5-p6", "v8", "v11", "x", "v6-rep", "v6-bep", "v7-tiny", "v7", "v7-x", "v7-w6", "v7-e6"});
  if (o.has("max_channels")) a.max_channels = o.num("max_channels");
  if (o.has("hidden_ratio")) a.hidden_ratio = o.num("hidden_ratio");
  if (o.has("note")) (void)o.str("note");
  o.done();
  if (a.backbone == "vit" && a.vit_layers <= 0) throw InputError(where + ".vit: a ViT needs layers, hidden, heads, mlp and patch");
  if (a.backbone == "cspdarknet" && a.yolo_family.empty())
    throw InputError(where + ".yolo: a cspdarknet backbone needs its family (valid: v5, v5-p6, v8, v11, x, v6-rep, v6-bep, v7-tiny, v7, v7-x, v7-w6, v7-e6)");
  if (a.backbone == "generic" && a.gmacs <= 0) throw InputError(where + ".gmacs: a generic backbone needs its published compute");
  return a;
}

}  // namespace gpuadvise::jsonio
