#!/usr/bin/env bash
# Builds the libFuzzer harnesses with clang under AddressSanitizer and UBSan and runs each for SECONDS
# (default 20) from its seed corpus (tests/fixtures, tests/fuzz/seeds). A crash, a hang, a sanitizer report
# or an internal error (exit 3 of the pipeline) fails the run; libFuzzer leaves the input as crash-*/timeout-*
# in build-fuzz/findings. docs/testing.md says how to run it longer.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-20}
# FUZZ_PROFILE=throughput, for docs/testing.md's ten-million-execution runs: UBSan only (aborting on the first
# report), libFuzzer's coverage without comparison tracing and its plain schedule, built in build-fuzz-fast; the
# pipeline harness runs about 1,400 inputs per second there against about 100 under ASan. FUZZ_TARGETS picks
# harnesses; FUZZ_RUNS stops each after that many executions (SECONDS still bounds it).
# Example: FUZZ_PROFILE=throughput FUZZ_TARGETS=pipeline FUZZ_RUNS=10000000 ./scripts/fuzz.sh 36000
dir=build-fuzz san="address;undefined" type=RelWithDebInfo flags="" extra=()
if [ "${FUZZ_PROFILE:-sanitizers}" = throughput ]; then
  dir=build-fuzz-fast san=undefined type=Release flags=-fno-sanitize-coverage=trace-cmp extra=(-entropic=0)
fi
[ -n "${FUZZ_RUNS:-}" ] && extra+=("-runs=$FUZZ_RUNS")
read -r -a targets <<< "${FUZZ_TARGETS:-workload config catalog units pipeline output}"
./scripts/setup.sh clang libclang-rt-14-dev
cmake -S . -B "$dir" -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE="$type" -DGPUADVISE_FUZZ=ON -DGPUADVISE_BUILD_TESTS=ON \
  "-DGPUADVISE_SANITIZE=$san" "-DCMAKE_CXX_FLAGS=$flags" >/dev/null
cmake --build "$dir" -j "$(nproc)" $(printf -- '--target fuzz_%s ' "${targets[@]}") >/dev/null
mkdir -p build-fuzz/findings
seeds() {
  case "$1" in
    workload) echo tests/fixtures/workloads ;;
    config) echo tests/fixtures/models tests/fixtures/bad ../shared/fidelity/models ;;
    catalog) echo tests/fixtures/catalog_two_gpus.json tests/fixtures/catalog_golden.json tests/fixtures/bad ;;
    *) echo "tests/fuzz/seeds/$1" ;;
  esac
}
for t in "${targets[@]}"; do
  corpus="build-fuzz/corpus/$t"
  mkdir -p "$corpus"
  for s in $(seeds "$t"); do
    [ -e "$s" ] || continue
    if [ -d "$s" ]; then cp -n "$s"/* "$corpus"/ 2>/dev/null || true; else cp -n "$s" "$corpus"/; fi
  done
  log="build-fuzz/findings/$t.log"
  if ! ./"$dir"/tests/fuzz_"$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=4096 "${extra[@]}" \
      -artifact_prefix="build-fuzz/findings/$t-" "$corpus" >"$log" 2>&1; then
    echo "fuzz: $t found a problem (see $log):" >&2
    tail -n 30 "$log" >&2
    exit 1
  fi
  echo "fuzz: $t: $(grep -Eo 'Done [0-9]+ runs in [0-9]+ second' "$log" | tail -n 1), no finding"
done
