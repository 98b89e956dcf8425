// The global batch of a training job (docs/method.md §9.1; include/gpuadvise/global_batch.hpp).
#include "gpuadvise/global_batch.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string_view>

#include "gpuadvise/error.hpp"

#include "gpuadvise/coefficients.hpp"
#include "gpuadvise/memory.hpp"

namespace gpuadvise {

double law_batch_tokens(double params, double tokens) { return 0.2920 * std::pow(6.0 * params * tokens, 0.3271); }

bool reach_global_batch(Workload& w, std::int64_t micro_batch) {
  if (!w.global_batch) return true;
  const std::int64_t dp = w.data_parallel(), total = *w.global_batch;
  if (dp > total) return false;
  const std::int64_t per_rank = (total + dp - 1) / dp;  // sequences each data-parallel rank steps with
  w.batch = std::clamp<std::int64_t>(micro_batch, 1, per_rank);
  w.grad_accum = (per_rank + w.batch - 1) / w.batch;
  return true;
}

void read_global_batch(Workload& w, const RawValue& v, double max_sequences) {
  std::string text = v.value;
  for (const char* suffix : {"tokens", "tok"}) {
    const std::string_view sv(suffix);
    if (text.size() > sv.size() && std::equal(sv.rbegin(), sv.rend(), text.rbegin(), [](char a, char b) { return a == std::tolower(static_cast<unsigned char>(b)); })) {
      text.resize(text.size() - sv.size());
      while (!text.empty() && text.back() == ' ') text.pop_back();
      w.global_batch_tokens = parse_count(text, v.origin + " (tokens)", max_sequences * 1e6);
      w.global_batch = 1;  // settled into sequences by with_global_batch
      return;
    }
  }
  const double n = parse_count(text, v.origin, max_sequences);
  if (n < 1 || n != std::floor(n))
    throw InputError(v.origin + ": expected a whole number of sequences from 1, or tokens with a suffix (4Mtok), got '" + v.value + "'");
  w.global_batch = static_cast<std::int64_t>(n);
}

namespace {
// An image job trained without --batch steps with its task's recipe batch, unless --global-batch gives one: 256
// images to classify (ResNet's ImageNet recipe), 16 to detect or segment (detectron2, MMDetection, Ultralytics),
// each data-parallel rank taking its whole share at once (the savers shrink it with accumulation where memory
// asks: method.md §9.1). Image generation and jobs without --images keep their batch.
Workload with_image_batch(Workload w, const ModelSpec& m) {
  if (m.vision->task == "generation" || w.grad_accum != 1 || !w.images) return w;
  if (!w.global_batch && !w.batch_given) {
    const bool classify = m.vision->task == "classification";
    w.global_batch = static_cast<std::int64_t>((classify ? coef::classification_global_batch : coef::detection_global_batch).value);
    w.global_batch_from_recipe = true;
  }
  if (w.global_batch && !reach_global_batch(w, w.batch_given ? w.batch : *w.global_batch)) {
    w.batch = 1;  // more data-parallel ranks than images per step: one each
    w.grad_accum = 1;
  }
  return w;
}
}  // namespace

Workload with_global_batch(Workload w, const ModelSpec& m) {
  if (!is_training(w.mode)) return w;
  if (m.vision) return with_image_batch(std::move(w), m);
  if (w.global_batch_tokens) {
    // Tokens per step, in sequences of the job's length (at least one).
    const double seq = static_cast<double>(std::max<std::int64_t>(1, effective_seq_len(w, m)));
    w.global_batch = static_cast<std::int64_t>(std::max(1.0, std::round(*w.global_batch_tokens / seq)));
  }
  if (!w.global_batch && w.mode == Mode::train && w.grad_accum == 1) {
    const std::int64_t seq = effective_seq_len(w, m);
    if (w.steps && !w.tokens && !w.dataset_tokens) return w;  // --steps sizes the job by the batch
    const std::optional<double> tokens = w.job_tokens(seq);
    if (!tokens || seq <= 0) return w;
    const double per_token = count_params(m).active;
    const double sequences = std::round(law_batch_tokens(per_token, *tokens) / static_cast<double>(seq));
    w.global_batch = static_cast<std::int64_t>(std::clamp(sequences, 1.0, 1e9));
    w.global_batch_from_law = true;
  }
  // Fine-tuning steps with the recipes' global batch (or the batch asked, if larger), so adding data-parallel GPUs
  // does not change what the optimizer sees; with or without a job size, so the rate per token the ranking prices
  // is the rate the job runs at (the optimizer step amortised over the same accumulation).
  if (!w.global_batch && w.mode != Mode::train && w.grad_accum == 1 && !(w.steps && !w.tokens && !w.dataset_tokens)) {
    w.global_batch = std::max<std::int64_t>(w.batch, static_cast<std::int64_t>(coef::finetune_global_batch.value));
    w.global_batch_from_recipe = true;
  }
  if (w.global_batch && !reach_global_batch(w, w.batch)) {
    // The layout asked has more data-parallel ranks than sequences: one sequence per rank and step.
    w.batch = 1;
    w.grad_accum = 1;
  }
  return w;
}

}  // namespace gpuadvise
