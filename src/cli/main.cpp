#include <iostream>

#include "app.hpp"

int main(int argc, char** argv) { return gpuadvise::cli::run(argc, argv, std::cin, std::cout, std::cerr); }
