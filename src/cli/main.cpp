#include <csignal>
#include <iostream>

#include "app.hpp"

int main(int argc, char** argv) {
  // A closed pipe is a write error (exit 3, one line), not a silent death by SIGPIPE.
  std::signal(SIGPIPE, SIG_IGN);
  const int code = gpuadvise::cli::run(argc, argv, std::cin, std::cout, std::cerr);
  // A full disk or a closed pipe must not look like success.
  std::cout.flush();
  if (!std::cout) {
    std::cerr << "gpuadvise: error: cannot write the output (disk full or pipe closed)\n";
    return code == 0 ? 3 : code;
  }
  return code;
}
