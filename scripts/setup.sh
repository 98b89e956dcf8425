#!/usr/bin/env bash
# Installs the Debian packages gpuadvise builds and tests with, when any is missing (run as root).
set -euo pipefail
# Extra packages may be named on the command line (scripts/fuzz.sh adds clang and its fuzzer runtime).
# lld links gpuadvise with its hot code laid out first (cmake/GpuadviseCodeOrder.cmake).
packages=(g++ cmake make lld libcli11-dev nlohmann-json3-dev libfmt-dev libspdlog-dev catch2 python3 python3-jsonschema python3-yaml universal-ctags "$@")
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
