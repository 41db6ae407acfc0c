#!/usr/bin/env bash
# Fails when a tracked C/C++ source differs from clang-format's output, or a jsonnet source of the
# mixin from jsonnetfmt's.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files --cached --others --exclude-standard "*.cpp" "*.h" "*.c")
bad=()
for f in "${files[@]}"; do
  [[ -f "$f" ]] || continue
  if ! clang-format --dry-run --Werror "$f" >/dev/null 2>&1; then bad+=("$f"); fi
done
if [[ ${#bad[@]} -gt 0 ]]; then
  echo "format-check: not clang-formatted: ${bad[*]} (run: make format)" >&2
  exit 1
fi
echo "format-check: ${#files[@]} files clang-formatted"

mapfile -t jsonnet_files < <(git ls-files --cached --others --exclude-standard "*.jsonnet" "*.libsonnet")
bad=()
for f in "${jsonnet_files[@]}"; do
  [[ -f "$f" ]] || continue
  if ! jsonnetfmt --test "$f" >/dev/null 2>&1; then bad+=("$f"); fi
done
if [[ ${#bad[@]} -gt 0 ]]; then
  echo "format-check: not jsonnetfmt-formatted: ${bad[*]} (run: make format)" >&2
  exit 1
fi
echo "format-check: ${#jsonnet_files[@]} jsonnet files jsonnetfmt-formatted"
