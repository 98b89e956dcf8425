#pragma once
// Ranking every catalogue GPU for a workload: fit, smallest GPU count and layout, memory, headroom,
// time and cost. docs/method.md §9.
#include <array>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuadvise/cost.hpp"
#include "gpuadvise/gpu.hpp"
#include "gpuadvise/memory.hpp"
#include "gpuadvise/model.hpp"
#include "gpuadvise/note.hpp"
#include "gpuadvise/perf.hpp"
#include "gpuadvise/system.hpp"
#include "gpuadvise/video.hpp"
#include "gpuadvise/workload.hpp"

namespace gpuadvise {

// value: cost of the completed job with a job size, else cost per unit of work (per million training or
// output tokens, per thousand images, per stream-hour); cost: the job's (or hour's) bill; time: the fastest;
// gpus: fewest GPUs, then the lowest hourly price; headroom: most free memory per GPU.
enum class RankBy { value, cost, time, gpus, headroom };

struct RankOptions {
  std::optional<RankBy> rank_by;          // default: value
  CostOptions cost;                       // price overrides, provider, purchase prices
  std::vector<std::string> only_gpus;     // empty: the whole catalogue
  std::int64_t max_gpus = 64;
  bool max_gpus_given = false;            // --max-gpus (or the defaults file) set it: every order searches that far
  std::optional<double> deadline_seconds; // drop GPUs whose job takes longer
  std::optional<double> budget_usd;       // drop GPUs whose job costs more
  double min_headroom_pct = 5;            // a plan with less free memory per GPU is tight, not a fit
  // The margin llama.cpp's offload counts (-ngl, --n-cpu-moe) leave free where the planner settles them: check's own
  // (5 % unless --min-headroom), which plans at no margin of its own; unset, min_headroom_pct.
  std::optional<double> offload_margin_pct;
};

// One point of a GPU's cost-time frontier: a plan that no other plan beats on both time and cost.
struct FrontierPoint {
  std::int64_t gpus = 1, nodes = 1;
  std::string layout;
  std::optional<double> hours, usd;        // the completed job (with a job size)
  std::optional<double> value_usd;         // cost per unit of work (without one)
  std::optional<double> rate;              // its work per second (the unit of value_usd), where known
};

// One point of a serving plan's throughput-interactivity front (method.md §8.3, `serving_front`): a layout on this
// GPU (one replica; disaggregated, the plan's replicas) at a concurrency, its output tokens per second per GPU and
// per user (1 / TPOT).
struct ServingPoint {
  std::int64_t gpus = 1, tp = 1, pp = 1, concurrency = 1;
  double tokens_per_second_per_gpu = 0, tokens_per_second_per_user = 0, tpot_seconds = 0;
  std::optional<double> ttft_seconds, requests_per_second;  // per replica
};

struct Candidate {
  const GpuSpec* gpu = nullptr;
  bool supported = true;            // precision/software usable on this GPU
  bool fits = false;                // at the chosen layout
  bool fits_single = false;         // on one GPU, as asked
  std::int64_t gpus = 1;            // the chosen count (smallest that fits)
  std::string layout;               // "single GPU", "FSDP (ZeRO-3) x 4", "tensor parallel x 2"
  bool tight = false;               // fits, but with less free memory than --min-headroom
  bool described = true;            // notes, facts and system needs written (the planner writes them for its choice only)
  std::int64_t nodes = 1;
  std::string stage;                // how far the search went: one GPU, one node, several nodes, CPU offload
  LinkPlan links;
  std::optional<double> value_usd;  // the value order's figure: USD per job or per unit of work
  std::string_view value_unit;      // static text: "job", "M training tokens", "M output tokens", "k images", "stream-hour"
  std::string unranked;             // why the value is unknown (no price, no throughput)
  std::vector<FrontierPoint> frontier;
  std::vector<ServingPoint> serving_front;  // a serving engine's plan: what other concurrencies and TP degrees trade
  PlanShape planned;                // the layout, savers, batch and precision chosen (the rest is the workload as asked)
  MemoryEstimate memory;
  TimeEstimate time;
  double headroom_bytes = 0;        // capacity − device peak per GPU
  JobCost cost;
  std::string why;                  // why this count and layout
  Note fit_reason;                  // why it does not fit, in the engine's own terms (empty when it fits)
  double latency_miss = 0;          // fits in memory but misses --max-tpot-ms/--max-ttft-ms by this factor at one sequence (0: met)
  // --streams: the pipeline's capacity per GPU (shared and never changed once planned: most rows have none, and a
  // row holds a pointer instead of 220 bytes)
  std::shared_ptr<const VideoPlan> video;
  SystemNeeds system;               // host memory, CPU cores, checkpoint and disk (method.md §13)
  Notes notes;  // about this plan
  // About the GPU itself, the same in every plan (server chassis, nominal capacity, no price): `estimate` and
  // JSON show them with the notes; the ranking table leaves them to its why-not lines and `gpus ID`.
  Notes facts;

  std::optional<double> usd_per_gpu_hour() const { return cost.price.usd_per_gpu_hour; }
  std::optional<double> usd_per_hour() const {
    const double billed = static_cast<double>(gpu ? gpu->billed_gpus(gpus) : gpus);
    return cost.price.usd_per_gpu_hour ? std::optional<double>(*cost.price.usd_per_gpu_hour * billed) : std::nullopt;
  }
};

// A GPU type that fits but misses --deadline or --budget: why, and the closest plan found (the fastest for a
// deadline, the cheapest for a budget), so a user sees how far it is.
struct Dropped {
  std::string gpu;
  std::string reason;
  std::int64_t gpus = 0;               // the closest plan's GPUs
  std::string layout;                  // and its layout
  std::optional<double> wall_hours;    // its billed wall time, unknown without a throughput
  std::optional<double> job_usd;       // its job cost, unknown without a price
  bool over_budget = false;            // dropped by --budget (else by --deadline)
  // The closest plan was judged: its cost is known for a budget, its time for a deadline.
  bool has_plan() const { return over_budget ? job_usd.has_value() : wall_hours.has_value(); }
};

// The table's opening lines: best value, fastest, cheapest single card to buy or rent, each with its reason.
struct Recommendation {
  std::string label, gpu, reason;
};

struct Ranking {
  std::vector<Candidate> rows;
  RankBy order = RankBy::value;
  std::string order_text;
  std::vector<Dropped> dropped;  // filtered out by --deadline or --budget
  Notes notes;
  bool has_job = false;          // a job size was given
  std::string job_size_hint;     // the flags that size this kind of job: --tokens, --requests with --output-tokens, --images
  std::vector<Recommendation> recommendations;
  std::vector<Candidate> cpu_rows;  // CPU instances beside the GPUs (add_cpu_rows), never among `rows`
  PricePolicy price_policy = PricePolicy::cheapest;  // which catalogue offer prices a GPU, as asked (the footer says it)
};

// The flags that give a job size for this model and mode ("--tokens N", "--requests N --output-tokens O",
// "--images N --epochs E"), for hints and errors.
std::string job_size_flags(const Workload& w, const ModelSpec& m);

// Evaluates one GPU at the workload's own layout (what `estimate --gpu` shows).
Candidate evaluate(const Workload& w, const ModelSpec& m, const GpuSpec& g, const CostOptions& cost = {});
// A plan that does not fit has no job time or cost (its price stays): what `estimate` shows of it, beside the
// rates it would run at (the ranking withholds those too).
void withhold_job(Candidate& c);

// The plan an engineer would pick (method.md §9): memory savers on one GPU first (activation checkpointing,
// micro-batches with gradient accumulation), then more GPUs in one node (data parallel, ZeRO-1/2/3, tensor
// and pipeline parallel), then more nodes where a network joins them (tensor parallel never across), CPU
// offload last. The best plan by the order at the smallest count that fits, or the cheapest that meets
// --deadline, or the fastest within --budget.
Candidate plan(const Workload& w, const ModelSpec& m, const GpuSpec& g, const RankOptions& opts, RankBy order);
// A GPU count given without a layout (--gpus N, none of --tp, --pp, --cp, --ep, --virtual-stages, --sharding,
// --offload, --nodes): the planner searches the layouts of exactly N GPUs instead of running them data parallel
// (method.md §9). A workload built without its input (no origins) keeps the layout it holds.
bool count_without_layout(const Workload& w);
// The settings that fix a layout (the keys of a workload's input).
inline constexpr std::array<const char*, 8> k_layout_keys{"tp", "pp", "cp", "ep", "virtual_stages", "sharding", "offload", "nodes"};

Ranking rank_gpus(const Workload& w, const ModelSpec& m, const GpuCatalog& catalog, const RankOptions& opts);

// A job's duration as every output writes it: minutes under an hour, hours under three days, then days.
std::string duration_text(double seconds);

// The CPU as an option (method.md §16): each CPU instance of `cpus` planned as one device into `r.cpu_rows`, and
// "on a CPU" among the recommendations for the cheapest that fits and finishes the job within value_target_hours.
// Not offered for video streams, NVIDIA-only engines or a multi-GPU layout given; with devices named (--gpu,
// --only), only the CPU instances among them. The rows point into `cpus`, which must outlive them.
void add_cpu_rows(Ranking& r, const Workload& w, const ModelSpec& m, const GpuCatalog& cpus, const RankOptions& opts);

std::string to_string(RankBy r);
// The value figure of a candidate (USD per job, or per unit of work without a job size); empty and a reason
// when the price or the throughput is unknown.
std::optional<double> value_of(const Candidate& c, std::string_view& unit, std::string& why_unknown);

}  // namespace gpuadvise
