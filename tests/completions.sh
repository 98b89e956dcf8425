#!/bin/bash
# The bash completion script completes what the command line accepts: enum values, GPU ids after `gpus`, shells
# after `completions`, the man page's formats, providers (docs/cli.md). Usage: completions.sh PATH/TO/gpuadvise
set -u
bin=$1
source <("$bin" completions bash) || exit 1
fails=0
expect() {  # expect WORD COMP_WORDS...: completing the last word offers WORD
  local want=$1; shift
  COMP_WORDS=("$@"); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); COMPREPLY=()
  _gpuadvise
  if ! printf '%s\n' "${COMPREPLY[@]}" | grep -qx -- "$want"; then
    echo "FAIL: '${*}' does not offer '$want' (offers: ${COMPREPLY[*]:0:12})"; fails=1
  fi
}
expect lora gpuadvise --mode ""
expect bf16 gpuadvise estimate --precision b
expect zero3 gpuadvise --sharding ""
expect markdown gpuadvise fit --format m
expect roff gpuadvise manpage --format ""
expect h100-sxm-80gb gpuadvise gpus h100-s
expect fish gpuadvise completions ""
expect lambda gpuadvise --provider la
expect amd gpuadvise gpus --vendor ""
expect seq-len gpuadvise sweep --vary s
expect time gpuadvise --rank-by t
expect llama-3.1-8b gpuadvise --model llama-3.1-8
expect --min-headroom gpuadvise check --min-h
expect estimate gpuadvise est
exit $fails
