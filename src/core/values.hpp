#pragma once
// The value grammar every flag and workload field shares (values.cpp): numbers, counts with k/M/B/T suffixes,
// durations such as 90m or 1h30m. Internal to core; the public parsers are declared in workload.hpp.
#include <optional>
#include <string>

namespace gpuadvise {

// A plain decimal number (no hex, no inf or nan); throws InputError naming `origin` and `what`.
double parse_number(const std::string& text, const std::string& origin, const std::string& what);
// A limit with thousands separators: 1048576 -> "1,048,576".
std::string fmt_limit(double x);

}  // namespace gpuadvise
