#!/usr/bin/env bash
# Fails when a tracked C/C++ source differs from clang-format's output, or a jsonnet source of the
# mixin from jsonnetfmt's.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files --cached --others --exclude-standard "*.cpp" "*.h" "*.c")
present=()
for f in "${files[@]}"; do [[ -f "$f" ]] && present+=("$f"); done
# clang-format takes many files per run (starting it costs more than formatting one file): with
# --Werror each file that would change gets "FILE:LINE:COL: error: code should be
# clang-formatted" on stderr, and the run fails.
command -v clang-format >/dev/null || {
  echo "format-check: clang-format is not installed (Debian package clang-format; make deps)" >&2
  exit 1
}
report=$(mktemp)
trap 'rm -f "$report"' EXIT
status=0
if [[ ${#present[@]} -gt 0 ]]; then
  printf '%s\0' "${present[@]}" |
    xargs -0 -n 64 -P "$(nproc)" clang-format --dry-run --Werror 2>"$report" >/dev/null || status=$?
fi
mapfile -t bad < <(sed -n 's/^\(.*\):[0-9]*:[0-9]*: error: code should be clang-formatted.*/\1/p' "$report" |
  sort -u)
if [[ $status -ne 0 && ${#bad[@]} -eq 0 ]]; then
  echo "format-check: clang-format failed (exit $status): $(head -n 1 "$report")" >&2
  exit 1
fi
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
