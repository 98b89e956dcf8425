#pragma once
#include <iosfwd>

namespace gpuadvise::cli {

// Runs the command line; returns the exit status (0 ok, 1 a check failed, 2 bad input, 3 internal error).
int run(int argc, const char* const* argv, std::istream& in, std::ostream& out, std::ostream& err);

}  // namespace gpuadvise::cli
