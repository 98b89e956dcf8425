// Cost per completed job: docs/method.md §10.
#include "gpuadvise/cost.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace gpuadvise {

PriceChoice choose_price(const GpuSpec& g, const Workload& w, const CostOptions& opts) {
  PriceChoice p;
  if (w.owned) {
    p.basis = "owned";
    std::optional<double> purchase = g.purchase_usd;
    std::string src = "catalogue list price";
    if (auto it = opts.purchase_overrides.find(g.id); it != opts.purchase_overrides.end()) {
      purchase = it->second;
      src = "--purchase-price";
    }
    if (purchase) {
      const double life_hours = w.amortize_years * 8760.0 * w.utilization;
      p.usd_per_gpu_hour = *purchase / life_hours;
      p.provider = fmt::format("owned (${:.0f} over {:g} years at {:.0f}% use, {})", *purchase, w.amortize_years,
                               w.utilization * 100, src);
      p.date_seen = "";
    }
    return p;
  }
  if (auto it = opts.price_overrides.find(g.id); it != opts.price_overrides.end()) {
    p.usd_per_gpu_hour = it->second;
    p.provider = "user price";
    p.basis = "override";
    return p;
  }
  // The policy's offer (method.md §10): the cheapest; or the median, the middle offer or halfway between the two
  // middle ones of an even count (both named, with their sources; the older date).
  const std::vector<const PriceOffer*> offers = g.priced_offers(opts.provider);  // cheapest first
  if (offers.empty()) return p;
  const bool median = opts.price_policy == PricePolicy::median;
  const std::size_t n = offers.size();
  const PriceOffer &lo = *offers[median ? (n - 1) / 2 : 0], &hi = *offers[median ? n / 2 : 0];
  p.usd_per_gpu_hour = (*lo.usd_per_gpu_hour + *hi.usd_per_gpu_hour) / 2.0;
  p.provider = &lo == &hi ? lo.provider
                          : fmt::format("median of {} offers: {} ${:.2f} and {} ${:.2f}", n, lo.provider, *lo.usd_per_gpu_hour, hi.provider, *hi.usd_per_gpu_hour);
  p.date_seen = std::min(lo.date_seen, hi.date_seen);
  p.source = &lo == &hi ? lo.source : lo.source + "; " + hi.source;
  p.basis = "catalogue";
  p.policy = median ? "median" : "cheapest";
  return p;
}

JobCost estimate_cost(const Workload& w, const GpuSpec& g, const TimeEstimate& time, double params_total,
                      double trainable_params, const CostOptions& opts) {
  JobCost c;
  c.price = choose_price(g, w, opts);
  const double n = static_cast<double>(g.billed_gpus(w.gpus));  // the GPUs rented (a GB200 Superchip's two for one)
  if (n > static_cast<double>(w.gpus))
    c.notes.push_back(Note::format("billed for {:.0f} GPUs: this GPU rents by the Superchip (one Grace CPU and two GPUs), not alone", n));
  if (!c.price.usd_per_gpu_hour) {
    c.missing_price = w.owned ? "no purchase price known for this GPU (--purchase-price ID=USD)"
                              : "no price in the catalogue (--price ID=USD sets one)";
  }
  if (!time.job_seconds) return c;
  c.compute_hours = *time.job_seconds / 3600.0;
  c.setup_hours = w.setup_hours;
  // Every job starts once on all its GPUs: reschedule, reload and warm up, as after an interruption (coef::
  // restart_hours), so a plan of thousands of GPUs for minutes pays for its start (method.md §10).
  c.start_hours = k_restart_hours;
  if (is_training(w.mode)) {
    // Synchronous checkpoints of the model states (16-bit weights + fp32 master and Adam states for the
    // trainable parameters), each node writing its shards (PyTorch DCP, Megatron's distributed checkpoints) up
    // to what the storage sustains (method.md §10).
    const double ckpt_bytes = params_total * 2.0 + trainable_params * 12.0;
    const double nodes = static_cast<double>(std::max<std::int64_t>(1, w.nodes));
    const double write_hours = ckpt_bytes / std::min(nodes * k_checkpoint_write_bytes_per_s, coef::checkpoint_storage_bytes_per_s.value) / 3600.0;
    const double interruptions_per_hour = k_interruptions_per_gpu_hour * static_cast<double>(w.gpus);  // the GPUs it runs on
    // Without --checkpoint-every: hourly, or Young's optimal interval sqrt(2 x write time x mean time between
    // interruptions) where the job is interrupted more often than that pays for.
    c.checkpoint_every_hours = w.checkpoint_every_hours.value_or(std::min(1.0, std::sqrt(2.0 * write_hours / interruptions_per_hour)));
    const double writes = std::floor(c.compute_hours / c.checkpoint_every_hours);
    c.checkpoint_hours = writes * write_hours;
    // Young/Daly: each interruption loses on average half an interval plus a restart.
    c.expected_interruptions = interruptions_per_hour * c.compute_hours;
    c.rework_hours = c.expected_interruptions * (c.checkpoint_every_hours / 2.0 + k_restart_hours);
  }
  c.wall_hours = c.compute_hours + c.start_hours + c.setup_hours + c.checkpoint_hours + c.rework_hours;
  c.gpu_hours = c.wall_hours * n;
  if (!c.price.usd_per_gpu_hour) return c;
  c.compute_usd = *c.price.usd_per_gpu_hour * n * c.compute_hours;
  double extras = *c.price.usd_per_gpu_hour * n * (c.start_hours + c.setup_hours + c.checkpoint_hours + c.rework_hours) + w.storage_usd +
                  w.egress_usd;
  if (w.owned) {
    c.amortization_usd = *c.price.usd_per_gpu_hour * c.gpu_hours;
    if (g.board_power_w) {
      // Energy at board power for the billed hours (an upper bound: training draws 60-90 % of it).
      c.energy_usd = *g.board_power_w / 1000.0 * c.gpu_hours * w.power_usd_per_kwh;
      extras += *c.energy_usd;
    } else {
      c.notes.push_back("board power unknown: energy not included");
    }
  }
  c.extras_usd = extras;
  c.total_usd = *c.compute_usd + extras;
  if (!is_training(w.mode) && w.images && *w.images > 0) c.usd_per_thousand_images = *c.total_usd / *w.images * 1000.0;
  if (!is_training(w.mode) && w.requests && w.output_tokens) {
    c.usd_per_million_output_tokens = *c.total_usd / (*w.requests * *w.output_tokens) * 1e6;
    if (time.input_time_share && w.input_tokens && *w.input_tokens > 0) {
      c.usd_per_million_input_tokens = *c.total_usd * *time.input_time_share / (*w.requests * *w.input_tokens) * 1e6;
      c.usd_per_million_output_tokens_apart = *c.total_usd * (1.0 - *time.input_time_share) / (*w.requests * *w.output_tokens) * 1e6;
    }
  }
  return c;
}

int usd_decimals(double usd) {
  const double v = std::abs(usd);
  if (v >= 100) return 0;
  if (v >= 1) return 2;
  if (v >= 0.01 || v == 0) return 3;
  return std::min(12, 1 - static_cast<int>(std::floor(std::log10(v))));
}

std::string usd_text(double usd) { return fmt::format("${:.{}f}", usd, usd_decimals(usd)); }

}  // namespace gpuadvise
