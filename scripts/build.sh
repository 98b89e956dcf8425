#!/usr/bin/env bash
# Installs what is missing and builds build/gpuadvise (Release).
set -euo pipefail
cd "$(dirname "$0")/.."
# Each step says what it does on stderr (stdout stays the program's): a first build takes a few minutes.
echo "build: checking the Debian packages it needs" >&2
./scripts/setup.sh
echo "build: configuring (cmake, Release)" >&2
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DGPUADVISE_BUILD_TESTS=OFF >/dev/null
echo "build: compiling with $(nproc) jobs (a few minutes the first time)" >&2
cmake --build build -j "$(nproc)" >/dev/null
echo "build: done: build/gpuadvise" >&2
