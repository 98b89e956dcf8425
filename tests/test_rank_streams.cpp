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
  // A GPU whose decode capacity is unknown (no NVDEC count in the catalogue: the RTX 3090) leaves decode out of its
  // streams per GPU: its value is unknown and it never ranks first. The plan's own GPUs drop no frames.
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

TEST_CASE("rank streams: NVDEC engines decode at their architecture's per-engine rate for the codec", "[advice][video]") {
  // NVIDIA's Blackwell and Blackwell Ultra datasheets: 7 NVDEC per HGX B200 and B300 GPU; the A100 whitepaper: 1 NVDEC in
  // the V100. The Turing anchor: a T4's 38 full-HD streams over its 2 engines, 19 H.264 1080p30 streams per engine.
  // NVIDIA's NVDEC application note (SDK 13.0) gives per-engine 1080p rates: H.264 Turing 771, Blackwell 2,172 frames/s;
  // HEVC Turing 1,316, Blackwell 1,872; Ada 903 H.264; Hopper and GA100 as Turing. So 1080p30 H.264 on a B200 or
  // B300: 7 x 19 x 2172/771 = 374.68 streams; 4K at 30 fps has 4x the pixels: 93.67; HEVC: 7 x 19 x 1872/771 = 322.93;
  // an H100 (7 engines, Turing's NVDEC): 7 x 19 = 133; an L4 (4 engines, Ada): 4 x 19 x 903/771 = 89.01; a V100
  // (not in the table: the Turing anchor): 19.
  auto decode = [](const char* gpu, const char* resolution, const char* codec = "h264") {
    const auto r = test::run({"--model", "yolov8-s", "--mode", "inference", "--streams", "100", "--resolution", resolution, "--codec", codec, "--gpu", gpu,
                              "--format", "json"});
    REQUIRE(r.code == 0);
    const auto j = r.json();
    REQUIRE(j["ranking"].size() == 1);
    return j["ranking"][0]["video"]["decode_streams_per_gpu"];
  };
  CHECK(decode("b200-hgx-180gb", "1080p").get<double>() == Approx(7.0 * 19.0 * 2172.0 / 771.0));
  CHECK(decode("b300-hgx-288gb", "1080p").get<double>() == Approx(374.68).epsilon(1e-4));
  CHECK(decode("b200-hgx-180gb", "4k").get<double>() == Approx(93.67).epsilon(1e-4));
  CHECK(decode("b200-hgx-180gb", "1080p", "hevc").get<double>() == Approx(322.93).epsilon(1e-4));
  CHECK(decode("h100-sxm-80gb", "1080p").get<double>() == Approx(133.0));
  CHECK(decode("l4-24gb", "1080p").get<double>() == Approx(89.01).epsilon(1e-4));
  CHECK(decode("v100-sxm2-16gb", "1080p").get<double>() == Approx(19.0));
  // AV1: Ada's 1,018 frames/s on an L4, 4 x 19 x 1018/771 = 100.34; the note's capability table gives Turing, GA100 and
  // Hopper no AV1 decode, so an H100 decodes none (the frames would fall to the CPU).
  CHECK(decode("l4-24gb", "1080p", "av1").get<double>() == Approx(100.34).epsilon(1e-4));
  CHECK(decode("h100-sxm-80gb", "1080p", "av1").get<double>() == 0.0);
  CHECK(decode("rtx-3090-24gb", "1080p").is_null());
}

TEST_CASE("ranking: an image job gets no word about sequences and serving engines", "[vision][ranking]") {
  // The one-sequence note is a language model's (its decode reads the weights once a step for one sequence); an
  // image job batches its frames itself and has no --concurrency or --framework vllm.
  for (const char* model : {"resnet-50", "sdxl-base-1.0"}) {
    const auto j = test::run_json({"--model", model, "--mode", "inference", "--images", "1e6", "--format", "json"});
    CHECK(j["notes"].dump().find("one sequence at a time") == std::string::npos);
  }
  const auto llm = test::run_json({"--model", "8B", "--mode", "inference", "--requests", "1000", "--input-tokens", "100", "--output-tokens", "100", "--format", "json"});
  CHECK(llm["notes"].dump().find("one sequence at a time") != std::string::npos);
}
