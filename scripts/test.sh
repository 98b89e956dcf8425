#!/usr/bin/env bash
# Installs what is missing, builds with warnings as errors, runs the tests, then runs them again under
# AddressSanitizer and UndefinedBehaviorSanitizer. With the published measurements beside the checkout
# (../shared/fidelity), also checks the estimates against them.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "test: checking the Debian packages it needs" >&2
./scripts/setup.sh
jobs=$(nproc)
echo "test: building with warnings as errors and running the tests ($jobs jobs)" >&2

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DGPUADVISE_WARNINGS_AS_ERRORS=ON -DGPUADVISE_BUILD_TESTS=ON >/dev/null
cmake --build build -j "$jobs"
(cd build && ctest --output-on-failure --no-tests=error -j "$jobs")

if [ -x ../shared/tools/fidelity ] && [ -f ../shared/fidelity/cases.jsonl ]; then
  echo "fidelity against the published measurements (language-model memory, vision memory, language-model throughput):"
  ../shared/tools/fidelity --bin build/gpuadvise --domain llm --max-median 7 --max-p90 18 --min-within 85 --max-under 3 | tail -n 1
  ../shared/tools/fidelity --bin build/gpuadvise --domain vision --max-median 9 --max-p90 22 --min-within 75 --max-under 3 | tail -n 1
  if [ -f ../shared/fidelity/time-cases.jsonl ]; then
    ../shared/tools/fidelity --bin build/gpuadvise --cases ../shared/fidelity/time-cases.jsonl --domain llm --max-median 20 --max-p90 50 \
      | tail -n 1
    ../shared/tools/fidelity --bin build/gpuadvise --cases ../shared/fidelity/time-cases.jsonl --domain vision --max-median 10 --max-p90 30 \
      | tail -n 1
  fi
fi

if [ "${GPUADVISE_SKIP_SANITIZERS:-0}" != "1" ]; then
  echo "test: building and running the tests again under AddressSanitizer and UBSan" >&2
  cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DGPUADVISE_WARNINGS_AS_ERRORS=ON -DGPUADVISE_BUILD_TESTS=ON \
    "-DGPUADVISE_SANITIZE=address;undefined" >/dev/null
  cmake --build build-asan -j "$jobs"
  (cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --output-on-failure --no-tests=error -j "$jobs")
fi

# A short fuzz pass of every reader and the whole pipeline (clang, libFuzzer, ASan + UBSan); docs/testing.md.
if [ "${GPUADVISE_SKIP_FUZZ:-0}" != "1" ]; then
  echo "test: a short fuzz pass (clang, libFuzzer)" >&2
  ./scripts/fuzz.sh "${GPUADVISE_FUZZ_SECONDS:-20}"
fi
