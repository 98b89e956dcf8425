#!/usr/bin/env bash
# Installs what is missing and builds build/gpuadvise (Release).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DGPUADVISE_BUILD_TESTS=OFF >/dev/null
cmake --build build -j "$(nproc)" >/dev/null
