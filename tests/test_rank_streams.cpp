// The ranking's recommendation for video streams (method.md §9, §13): every plan carries the same frames, so how
// fast a plan is, is each frame's time through the pipeline.
#include <catch2/catch.hpp>

#include <string>

#include "helpers.hpp"

TEST_CASE("rank streams: 'fastest' is the shortest time per frame, not the images/s of GPUs beyond what the streams need", "[advice][video]") {
  // 100 streams of YOLOv8-m: a hundred Jetson Orin Nanos, one stream each, sum to the most images/s, and were named
  // the fastest; each of their frames takes longer than on any data-centre card.
  const auto r = test::run({"--model", "yolov8-m", "--mode", "inference", "--streams", "100", "--format", "json"});
  REQUIRE(r.code == 0);
  const auto j = r.json();
  std::string fastest;
  for (const auto& rec : j["recommendations"])
    if (rec["label"] == "fastest") fastest = rec["gpu"].get<std::string>() + ": " + rec["reason"].get<std::string>();
  INFO(fastest);
  CHECK(fastest.find("jetson") == std::string::npos);
  CHECK(fastest.find("ms per frame end to end") != std::string::npos);
  // A GPU whose decode capacity is unknown (no NVDEC count in the catalogue: the RTX 3090, the B200) leaves decode out
  // of its streams per GPU: its value is unknown and it never ranks first. The plan's own GPUs drop no frames.
  const auto& first = j["ranking"][0];
  CHECK_FALSE(first["video"]["decode_streams_per_gpu"].is_null());
  CHECK(first["video"]["frames_dropped_pct"].get<double>() == 0.0);
  for (const auto& row : j["ranking"])
    if (row["gpu"] == "rtx-3090-24gb") CHECK(row["value"]["usd"].is_null());
  // --rank-by time orders the rows by it: each row's latency no longer than the next's.
  const auto t = test::run({"--model", "yolov8-m", "--mode", "inference", "--streams", "100", "--rank-by", "time", "--format", "json"});
  REQUIRE(t.code == 0);
  const auto ranked = t.json();
  double last = 0;
  for (const auto& row : ranked["ranking"]) {
    if (!row["fits"].get<bool>() || row["video"].is_null() || row["video"]["decode_streams_per_gpu"].is_null()) break;  // unknowns after
    CHECK(row["video"]["latency_ms"].get<double>() >= last);
    last = row["video"]["latency_ms"].get<double>();
  }
  CHECK(last > 0);
}
