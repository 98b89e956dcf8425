#!/usr/bin/env bash
# `cmake --install` lays out the binary, man page, completions, licence, docs and schemas under GNUInstallDirs,
# and where dpkg-deb exists `cpack -G DEB` builds a package holding them.
set -euo pipefail
build="$1"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" > /dev/null
for f in bin/gpuadvise share/man/man1/gpuadvise.1 share/bash-completion/completions/gpuadvise share/zsh/vendor-completions/_gpuadvise \
         share/fish/vendor_completions.d/gpuadvise.fish share/doc/gpuadvise/LICENSE share/doc/gpuadvise/method.md \
         share/doc/gpuadvise/cli.md share/gpuadvise/schema/rank.schema.json; do
  [ -s "$tmp/prefix/$f" ] || { echo "install tree: missing $f" >&2; exit 1; }
done
"$tmp/prefix/bin/gpuadvise" --version > /dev/null
bash -n "$tmp/prefix/share/bash-completion/completions/gpuadvise"
if command -v dpkg-deb > /dev/null && command -v cpack > /dev/null; then
  (cd "$tmp" && cpack -G DEB --config "$build/CPackConfig.cmake" -B "$tmp/pkg" > /dev/null 2>&1)
  deb=$(ls "$tmp"/pkg/*.deb)
  listing=$(dpkg-deb -c "$deb")
  grep -q './usr/bin/gpuadvise' <<< "$listing"
  grep -q './usr/share/man/man1/gpuadvise.1' <<< "$listing"
  echo "install tree and $(basename "$deb") OK"
else
  echo "install tree OK (no dpkg-deb here: package not built)"
fi
