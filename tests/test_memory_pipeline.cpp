// Pipeline-parallel memory (method.md §4.2): which stage peaks, and what its micro-batches in flight keep.
#include <catch2/catch.hpp>

#include "gpuadvise/memory.hpp"
#include "helpers.hpp"

using namespace gpuadvise;
using test::wl;

TEST_CASE("memory: the interleaved schedule's first stage holds 1 + (p-1)/(p·v) times the activations", "[memory]") {
  // Megatron-LM theoretical_memory_usage.py, interleaved_schedule_memory_penalty: p = 4, v = 5 gives 1.15, on what
  // the in-flight micro-batches keep; the embedding output and the final norm's input (2 x 4,096 tokens x 8,192 / 2
  // per rank x 2 B = 67,108,864 B) are one micro-batch's on either schedule. The first stage is the peak here: the last
  // holds ((v − 1)·p + 1)/(p·v) = 17/20 of the layers' worth with the logits of 128,256 / 2 entries per token.
  auto w = wl({{"model", "llama-3-70b"}, {"mode", "finetune"}, {"seq_len", "4096"}, {"gpus", "8"}, {"tp", "2"}, {"pp", "4"}, {"framework", "megatron"}});
  const auto m = test::model(w.model);
  const double edges = 2.0 * 4096.0 * 8192.0 / 2.0 * 2.0;
  const double plain = estimate_memory(w, m, nullptr).activations;
  w.virtual_stages = 5;
  const MemoryEstimate interleaved = estimate_memory(w, m, nullptr);
  CHECK(interleaved.activations == Approx((plain - edges) * 1.15 + edges));
  CHECK(interleaved.logits == 0.0);  // on the last stage only, which peaks lower
}

TEST_CASE("memory: a pipeline's peak stage, the first with its micro-batches in flight or the last with the logits", "[memory]") {
  // gpt-oss-120b (36 layers, 201,088-entry vocabulary) at micro-batch 4 x 4,096 tokens over 4 stages: the first stage
  // keeps 4 micro-batches of 9 layers, the last one micro-batch of 9 (1/p of the layers' worth) and the logits. Without
  // a pipeline both are one GPU's.
  auto w = wl({{"model", "gpt-oss-120b"}, {"mode", "train"}, {"precision", "bf16"}, {"seq_len", "4096"}, {"batch", "4"}, {"framework", "megatron"},
               {"gpus", "64"}, {"pp", "4"}, {"ep", "8"}, {"sharding", "zero1"}});
  const auto m = test::model(w.model);
  const MemoryEstimate piped = estimate_memory(w, m, nullptr);
  w.pp = 1;
  w.ep = 64;
  const MemoryEstimate whole = estimate_memory(w, m, nullptr);
  const double edges = 2.0 * 16384.0 * 2880.0 * 2.0;  // embedding output and final norm input, one micro-batch
  const double layers = whole.activations - edges;
  CHECK(piped.logits == 0.0);
  CHECK(piped.activations == Approx(layers + edges));  // the first stage: 4 micro-batches x 9 layers = the 36 layers' worth
  // With full recomputation the stages keep only each layer's input (36 x 16,384 tokens x 2,880 x 2 B = 3,397,386,240 B
  // on the first), and the last stage, a quarter of that with the logits, is the peak.
  w.checkpointing = Checkpointing::full;
  const MemoryEstimate recomputed_whole = estimate_memory(w, m, nullptr);
  w.pp = 4;
  w.ep = 8;
  const MemoryEstimate last = estimate_memory(w, m, nullptr);
  const double inputs = 36.0 * 16384.0 * 2880.0 * 2.0;
  CHECK(last.logits == Approx(recomputed_whole.logits));
  CHECK(last.logits > 0.75 * inputs);
  CHECK(last.activations == Approx(recomputed_whole.activations - 0.75 * inputs));
}
