#pragma once
// What ranking.cpp (the order, the recommendations), planner.cpp (the layouts searched per GPU) and
// evaluate.cpp (one layout on one GPU) share; internal to core.
#include <optional>
#include <string>
#include <cstdint>
#include <deque>
#include <vector>

#include "gpuadvise/ranking.hpp"

namespace gpuadvise::ranking_detail {

// The sequences a serving engine runs at once unless told (its own default: vLLM's max_num_seqs, SGLang's
// max_running_requests, TensorRT-LLM's max_batch_size; method.md §8.3), on this GPU with this pool.
double engine_max_seqs(const MemoryEstimate& mem, const GpuSpec& g);

// The plan's work per second and its unit: images (every GPU), training tokens (every GPU) or output tokens
// (every replica); empty when the throughput is unknown.
struct WorkRate {
  std::optional<double> per_second;
  std::string_view unit;  // as value_of names it (static text)
  double scale = 1e6;
};

WorkRate work_rate(const Candidate& c);
// Fits without a margin problem first (0), then tight plans (1), then what does not fit (2).
inline int tier(const Candidate& c) { return c.fits ? (c.tight ? 1 : 0) : 2; }
// The figure the order sorts by (lower is better), for a plan that fits.
double score(const Candidate& c, RankBy order);
// The choice among the plans that fit one GPU (plan_choice.cpp, method.md §9). The plans no other plan beats
// on both time and cost (with a job size), else the best value per GPU count, for the JSON's frontier.
std::vector<FrontierPoint> frontier_of(std::vector<const Candidate*> plans);
// What the value band compares: the job's dollars, or its GPU-hours where the GPU has no price; empty without a
// known job time.
std::optional<double> band_cost(const Candidate& c);
// Best value with a job size, among plans of one GPU or the rows of a ranking: the cheapest plan that finishes
// within value_target_hours, if it costs at most value_cost_slack more than the cheapest; else the fastest plan
// within that slack. Nullptr where no plan has a known time.
const Candidate* pick_in_value_band(const std::vector<const Candidate*>& pool);
// The plan the order asks for: `by` is the order it was chosen by (a deadline picks by cost, a budget by time);
// `in_band` when best value chose from its band (the fastest plan within value_cost_slack of the cheapest).
struct Pick {
  const Candidate* plan = nullptr;
  RankBy by = RankBy::value;
  bool in_band = false;
};
Pick pick_plan(const std::vector<const Candidate*>& pool, std::int64_t first_fit, bool job, RankBy order, const RankOptions& opts);
// Whether counts of n GPUs and more could change the choice, given the plans found below n (the first fit at
// first_fit, 0 while nothing fits).
bool search_further(const std::vector<Candidate>& fits, std::int64_t n, std::int64_t first_fit, bool job, RankBy order, const RankOptions& opts);
bool meets_deadline(const Candidate& c, const RankOptions& o);
// The most GPUs the search tries on g: --max-gpus, or one node where the catalogue knows no network between them.
std::int64_t search_reach(const GpuSpec& g, const RankOptions& o);
bool within_budget(const Candidate& c, const RankOptions& o);
// A plan that fits but misses --deadline or --budget (an unknown time or cost never passes): why, with the plan.
std::optional<Dropped> missed_limit(const Candidate& c, const RankOptions& o);
// The tensors' memory of the layouts one ranking tries, shared by its GPUs: the same layouts come up on most of
// them, and only the runtime, the reserve, a serving pool and the band depend on the GPU (memory.hpp). Keyed by the
// plan's shape, the rest of the workload being the ranking's own; language models only.
// An open-addressing table (linear probing over slots holding a hash and an entry's index): the screen asks it for
// every layout, and a node-based map's pointer chase was a quarter of the screen's time. Entries live in a deque,
// so a reference stays valid while others are added.
class TensorMemo {
 public:
  const TensorMemory& of(const PlanShape& shape, const Workload& w, const ModelSpec& m);
  static std::size_t hash(const PlanShape& s);

 private:
  struct Slot {
    std::size_t hash = 0;
    std::uint32_t entry = 0;  // index + 1 into entries_; 0 while empty
  };
  void grow();
  std::vector<Slot> slots_;
  std::deque<std::pair<PlanShape, TensorMemory>> entries_;
};

// The plan of one GPU (`plan`), its layouts' tensor memory shared through `memo` when one is given.
Candidate plan_with(const Workload& w, const ModelSpec& m, const GpuSpec& g, const RankOptions& opts, RankBy order, TensorMemo* memo);

// Whether a layout runs on a GPU at all (screen.cpp): its precision, QLoRA without tensor parallelism, TensorRT on
// CUDA only; with `notes`, why not and what falls back to what.
bool layout_supported(const Workload& w, const ModelSpec& m, const GpuSpec& g, Notes* notes);
// The numeric screen (screen.cpp): assess_fit's verdict (runs and fits) from the memo's tensors and the GPU's
// runtime and reserve alone. Empty where the verdict needs more than that (a serving engine's pool, a vision
// model, a local correction, GPUs spread over nodes not given): assess_fit decides those.
std::optional<bool> screen_fit(const Workload& w, const ModelSpec& m, const GpuSpec& g, const CostOptions& cost, TensorMemo& memo);

// One layout on one GPU in three steps (`evaluate` runs all three). `assess_fit` writes the memory and the verdict
// into `c`, resetting what an earlier layout left there (the planner screens layouts in one reused candidate),
// and returns the user's local correction for this GPU if there is one; `score_layout` adds the layout text,
// time and cost, what choosing among the layouts that fit reads; `describe_layout` adds the GPU's notes and
// facts, the system needs and the cost's notes, for the one kept.
const LocalCorrection* assess_fit(Candidate& c, const Workload& w, const ModelSpec& m, const GpuSpec& g, const CostOptions& cost,
                                  TensorMemo* memo = nullptr);
// The two later steps rebuild the plan's workload from `asked`, the workload the first step was given before its
// layout and savers were set (`PlanShape::applied_to`).
void score_layout(Candidate& c, const Workload& asked, const ModelSpec& m, const GpuSpec& g, const CostOptions& cost, const LocalCorrection* k);
// A plan that does not fit runs at no speed and has no job cost or value to compare (method.md §9): its time and
// cost are cleared, the GPU's price kept (a fact about the GPU). Every ranked, checked or swept row passes here;
// `estimate` keeps the figures of the layout it was given beside its verdict.
void withhold_unfit(Candidate& c);
// An edge module's offload is in the memory its GPU uses: the headroom both leave, and no fit past it (system.cpp).
void edge_shared_memory(Candidate& c, const Workload& w, const GpuSpec& g);
// The plan in words ("4 GPUs: tensor parallel 2 + ZeRO-1 over 2, full checkpointing"; layout_text.cpp): the planner
// writes one for every layout that fits. `one`: a single device ("one instance" for a CPU, method.md §16).
std::string layout_text(const Workload& w, const ModelSpec& m, const char* one = "single GPU");
// Nothing for a candidate already described.
void describe_layout(Candidate& c, const Workload& asked, const ModelSpec& m, const GpuSpec& g, const CostOptions& cost);
// The sequences of a serving workload's length (--input-tokens + --output-tokens, else the max model length) a
// serving engine's KV-cache pool runs at once (method.md §6.2); 0 without a pool.
double pool_sequences(const MemoryEstimate& mem, const Workload& w, const ModelSpec& m);
// A serving engine's plan, the front of output tokens per second per GPU against tokens per second per user
// (serving_front.cpp, method.md §8.3): one replica of the plan's layout and of each tensor-parallel degree inside a
// node that fits, at concurrencies 1, 2, 4, ... up to what the pool holds (the engine's 256 sequences, or the
// concurrency asked if more); the points no other beats on both. Empty for other workloads.
std::vector<ServingPoint> serving_front(const Workload& w, const ModelSpec& m, const GpuSpec& g, const CostOptions& cost);
// Why the planner chose this count and layout, in one line.
// `others_fit`: some plan without CPU offload fits too (the offload was chosen over it, not for want of one).
std::string describe_choice(const Candidate& chosen, const Candidate& single, std::size_t fitting, RankBy order, const RankOptions& o,
                            bool in_band = false, bool others_fit = false);

}  // namespace gpuadvise::ranking_detail
