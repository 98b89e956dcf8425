// Where the catalogue has no figure for a term of the time model, the answer says what it leaves out or that the rate is
// unknown (never an invented peak).
#include <catch2/catch.hpp>

#include <string>

#include "helpers.hpp"

TEST_CASE("vision: a CNN on a GPU without an fp32 peak says its rate leaves the vector-core work out", "[vision][time]") {
  // perf_vision.cpp adds the convolutions' elementwise work at the fp32 (CUDA-core) peak (coef conv_cuda_share);
  // where the catalogue has no such peak the term cannot be worked and the note says the rate is an upper bound.
  auto has_note = [](const char* gpu) {
    const auto r = test::run_json({"estimate", "--model", "resnet-50", "--mode", "train", "--gpu", gpu});
    return test::says(r["notes"], "no fp32 (vector-core) peak");
  };
  CHECK(has_note("gaudi3-128gb"));
  CHECK_FALSE(has_note("h100-sxm-80gb"));
}
