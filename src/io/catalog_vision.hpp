#pragma once
// Vision presets of the model catalogue (io layer, internal): catalog.cpp reads a model's "vision" object with it.
#include <string>

#include "gpuadvise/vision.hpp"
#include "json_read.hpp"

namespace gpuadvise::jsonio {
// Throws InputError naming `where` and the key for anything outside the schema (docs/method.md §12).
VisionArch parse_vision(const json& j, const std::string& where);
}  // namespace gpuadvise::jsonio
