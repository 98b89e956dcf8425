#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

int main(int argc, char* argv[]) {
  // Outputs are compared byte for byte: a terminal width from the shell running the tests must not change
  // the tables (the width test sets COLUMNS itself).
  unsetenv("COLUMNS");
  // And UTF-8 text whatever the locale the tests run in (the ASCII test sets LC_ALL itself).
  setenv("LC_ALL", "C.UTF-8", 1);
  // Nor may a defaults file in the home of whoever runs them: an empty one of the tests' own (the defaults test
  // points GPUADVISE_CONFIG at its files itself).
  // One per process: CTest runs the tests in parallel processes.
  const std::string defaults = (std::filesystem::temp_directory_path() / ("gpuadvise-tests-config-" + std::to_string(getpid()) + ".json")).string();
  std::ofstream(defaults) << "{}";
  setenv("GPUADVISE_CONFIG", defaults.c_str(), 1);
  const int status = Catch::Session().run(argc, argv);
  std::filesystem::remove(defaults);
  return status;
}
