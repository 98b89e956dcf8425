// The JSON of a plan's fronts (docs/output-json.md): the cost-time frontier of a GPU's plans (method.md §9) and a
// serving plan's throughput-interactivity front (method.md §8.3).
#include "json_write.hpp"
#include "report_json_detail.hpp"

namespace gpuadvise::detail {

void write_frontier(JsonWriter& o, const std::vector<FrontierPoint>& frontier) {
  o.begin_array();
  for (const auto& f : frontier) {
    o.begin_object();
    o.member("gpus", f.gpus);
    o.member("nodes", f.nodes);
    o.member("layout", f.layout);
    o.member("hours", f.hours);
    o.member("usd", f.usd);
    o.member("value_usd", f.value_usd);
    o.member("rate", f.rate);  // work per second, in value.unit's work (tokens, images)
    o.end_object();
  }
  o.end_array();
}

void write_serving_front(JsonWriter& o, const std::vector<ServingPoint>& front) {
  o.begin_array();
  for (const ServingPoint& s : front) {
    o.begin_object();
    o.member("gpus", s.gpus);
    o.member("tp", s.tp);
    o.member("pp", s.pp);
    o.member("concurrency", s.concurrency);
    o.member("tokens_per_second_per_gpu", s.tokens_per_second_per_gpu);
    o.member("tokens_per_second_per_user", s.tokens_per_second_per_user);
    o.member("tpot_seconds", s.tpot_seconds);
    o.member("ttft_seconds", s.ttft_seconds);
    o.member("requests_per_second", s.requests_per_second);
    o.end_object();
  }
  o.end_array();
}

}  // namespace gpuadvise::detail
