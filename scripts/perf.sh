#!/usr/bin/env bash
# docs/performance.md: start-up of gpuadvise beside a bare program that links the same libraries and prints a
# line (gpuadvise_bare), the library's speed (gpuadvise_bench) and a 10,000-workload `check`.
# Usage: scripts/perf.sh [BUILD_DIR] [RUNS]   (after cmake --build BUILD_DIR)
set -euo pipefail
build=${1:-build}
runs=${2:-200}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The two programs are timed as copies written the same way, one after the other: how a binary's file came into
# the page cache (written by the linker minutes ago, copied, or read back from disk) moves its start-up by up to
# 5 % here, which would otherwise fall on one program and not the other (docs/performance.md).
cp "$build/gpuadvise" "$build/gpuadvise_bare" "$work/"
bin=$work  # the copies timed below
# The four commands run interleaved (bare, --version, estimate, headline, bare, ...), each timed on its own with
# bash's clock (no extra process), so a slower stretch of a shared machine falls on all of them alike; the
# figure is each command's median over the runs, in ms.
declare -A times
commands=(bare version estimate headline)
run_one() {
  case $1 in
    bare) "$bin/gpuadvise_bare" ;;
    version) "$bin/gpuadvise" --version ;;
    estimate) "$bin/gpuadvise" estimate --model 7B --gpu h100-sxm-80gb ;;
    headline) "$bin/gpuadvise" --model 7B --precision bf16 --mode finetune ;;
  esac
}
for ((i = 0; i < runs; i++)); do
  for c in "${commands[@]}"; do
    start=$EPOCHREALTIME
    run_one "$c" > /dev/null 2>&1 || true
    end=$EPOCHREALTIME
    times[$c]+="$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", (b - a) * 1000 }') "
  done
done
median() { tr ' ' '\n' <<< "${times[$1]}" | grep . | sort -g | awk '{ v[NR] = $1 } END { printf "%.2f", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
bare=$(median bare)
ver=$(median version)
est=$(median estimate)
head=$(median headline)
echo "start-up, median of $runs interleaved runs (wall ms):"
echo "  bare program (same libraries, prints a line)     $bare"
echo "  gpuadvise --version                              $ver"
echo "  gpuadvise estimate --model 7B --gpu h100-sxm-80gb  $est"
echo "  gpuadvise --model 7B --precision bf16 --mode finetune  $head  ($(awk -v h="$head" -v b="$bare" 'BEGIN { printf "%.2f", h / b }')x the bare program)"
echo "start-up spawned directly (no shell), median of $runs interleaved runs, against the bare program:"
python3 "$(dirname "$0")/startup.py" "$runs" "$bin/gpuadvise_bare" "$bin/gpuadvise --version" \
  "$bin/gpuadvise estimate --model 7B --gpu h100-sxm-80gb" "$bin/gpuadvise --model 7B --precision bf16 --mode finetune"
"$build/gpuadvise_bench" 1
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
"$bin/gpuadvise" check --workload "$work/w10k.json" --gpu h100-sxm-80gb -q || true
end=$(date +%s%N)
echo "check of 10,000 workloads on one GPU: $(( (end - start) / 1000000 )) ms"
