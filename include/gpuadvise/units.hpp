#pragma once
// Units: every quantity is held in SI base units (bytes, seconds, FLOP/s, bytes/s, USD) and converted
// once, for display. GB = 1e9 bytes, GiB = 2^30 bytes.
#include <cstdint>

namespace gpuadvise {

inline constexpr double k_gb = 1e9;
inline constexpr double k_gib = 1073741824.0;
inline constexpr double k_mib = 1048576.0;
inline constexpr double k_kib = 1024.0;
inline constexpr double k_tera = 1e12;

}  // namespace gpuadvise
