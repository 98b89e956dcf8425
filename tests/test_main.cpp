#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdlib>

int main(int argc, char* argv[]) {
  // Outputs are compared byte for byte: a terminal width from the shell running the tests must not change
  // the tables (the width test sets COLUMNS itself).
  unsetenv("COLUMNS");
  // And UTF-8 text whatever the locale the tests run in (the ASCII test sets LC_ALL itself).
  setenv("LC_ALL", "C.UTF-8", 1);
  return Catch::Session().run(argc, argv);
}
