#!/usr/bin/env bash
# docs/performance.md: start-up of gpuadvise beside a bare program that links the same libraries and prints a
# line (gpuadvise_bare), the library's speed (gpuadvise_bench) and a 10,000-workload `check`.
# Usage: scripts/perf.sh [BUILD_DIR] [RUNS]   (after cmake --build BUILD_DIR)
set -euo pipefail
build=${1:-build}
runs=${2:-200}
mean_ms() {  # mean wall time of a command over $runs runs, in ms
  local start end
  start=$(date +%s%N)
  for ((i = 0; i < runs; i++)); do "$@" > /dev/null 2>&1 || true; done
  end=$(date +%s%N)
  awk -v a="$start" -v b="$end" -v n="$runs" 'BEGIN { printf "%.2f", (b - a) / n / 1e6 }'
}
bare=$(mean_ms "$build/gpuadvise_bare")
head=$(mean_ms "$build/gpuadvise" --model 7B --precision bf16 --mode finetune)
est=$(mean_ms "$build/gpuadvise" estimate --model 7B --gpu h100-sxm-80gb)
ver=$(mean_ms "$build/gpuadvise" --version)
echo "start-up over $runs runs (mean wall ms):"
echo "  bare program (same libraries, prints a line)     $bare"
echo "  gpuadvise --version                              $ver"
echo "  gpuadvise estimate --model 7B --gpu h100-sxm-80gb  $est"
echo "  gpuadvise --model 7B --precision bf16 --mode finetune  $head  ($(awk -v h="$head" -v b="$bare" 'BEGIN { printf "%.2f", h / b }')x the bare program)"
"$build/gpuadvise_bench" 1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
{
  echo "["
  for ((i = 0; i < 10000; i++)); do
    models=(7B 13B llama-3.1-8b qwen2.5-7b); modes=(inference lora qlora finetune)
    printf '{"name":"w%d","model":"%s","mode":"%s","precision":"bf16","seq_len":%d,"batch":%d}%s\n' \
      "$i" "${models[i % 4]}" "${modes[i % 4]}" $((1024 * (1 + i % 4))) $((1 + i % 3)) "$([ $i -lt 9999 ] && echo ,)"
  done
  echo "]"
} > "$work/w10k.json"
start=$(date +%s%N)
"$build/gpuadvise" check --workload "$work/w10k.json" --gpu h100-sxm-80gb -q || true
end=$(date +%s%N)
echo "check of 10,000 workloads on one GPU: $(( (end - start) / 1000000 )) ms"
