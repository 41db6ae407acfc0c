#!/usr/bin/env bash
# make test: installs what is missing, builds the sanitizer build, checks the format and runs every
# test with ctest, timing each part; then prints what each part took (scripts/test-timings.py) and
# fails when the whole run took longer than its ceiling, so that a slower suite shows at the commit
# that made it slower, not when CI's time limit is reached.
#   test-suite.sh            (make test passes TEST_BUILD_DIR and JOBS)
# TEST_CEILING_MINUTES (default 45) is the ceiling: the budget of a fresh machine with no cache is
# 30 minutes, with room for a slower machine (docs/development.md, "How long make test takes").
set -uo pipefail
cd "$(dirname "$0")/.."
build_dir=${TEST_BUILD_DIR:-build/test}
jobs=${JOBS:-$(nproc)}
ceiling=${TEST_CEILING_MINUTES:-45}
start=$(date +%s.%N)
mkdir -p "$build_dir"
timings="$build_dir/test-suite-parts.tsv"
: >"$timings"

# phase NAME COMMAND...: runs COMMAND and records its wall time under NAME.
phase() {
  local name=$1 began rc
  shift
  began=$(date +%s%N)
  "$@"
  rc=$?
  printf '%s\t%d\n' "$name" $((($(date +%s%N) - began) / 1000000000)) >>"$timings"
  return $rc
}

summary() {
  python3 scripts/test-timings.py --build "$build_dir" --parts "$timings" --start "$start" \
    --ceiling-minutes "$ceiling"
}

phase "install packages" bash scripts/install-deps.sh || exit 1
# The guests' kernels, downloaded from Debian's archive while the builds compile (on a machine with
# no cache, minutes the guests' lane would wait otherwise; nothing to do when they are cached).
# In a session of its own, so that a build that fails ends the downloads with the run.
setsid bash tests/vm/fetch-all-kernels.sh >"$build_dir/kernel-fetch.log" 2>&1 &
kernel_fetch=$!
trap 'kill -- -"$kernel_fetch" 2>/dev/null' EXIT
phase "configure" cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Debug -DNETIF_RX_SANITIZE=ON \
  >/dev/null || exit 1
phase "build" cmake --build "$build_dir" -j "$jobs" || exit 1
# The other builds the tests use, each once and with every core, before any test starts: so that
# no qemu guest or kernel test runs beside a compiler on a machine with no cache (the tests that
# need them, package_deb, tsan_build and vm_arm64_build, then find them built: seconds).
phase "package build" bash scripts/build-deb.sh "$build_dir/deb" >/dev/null || exit 1
phase "TSan build" bash scripts/tsan-storm.sh --build-only || exit 1
phase "arm64 cross build" env CROSS_BUILD_TYPE=Release \
  bash scripts/cross-build.sh arm64 "$build_dir/arm64" >/dev/null || exit 1
phase "format check" bash scripts/check-format.sh || exit 1
# What is left of the kernels' download once the builds are done (a kernel that could not be
# fetched fails the guests that boot it, with the reason; the log says which).
phase "kernel fetch (after the builds)" wait "$kernel_fetch" ||
  echo "make test: a kernel could not be fetched: $(grep -v ': ready in' "$build_dir/kernel-fetch.log" | head -n 1)" >&2
rm -f "$build_dir/ctest-junit.xml"
# One test more than cores: the qemu guests (lock qemu_guest) and the tests on this machine's
# kernel (lock host_kernel) each run one at a time, many of the latter mostly waiting for polls;
# with a slot each, the tests that hold no lock (unit, lint, fuzzers, fleet) need a third, or
# they queue behind the two lanes.
ctest_jobs=${CTEST_JOBS:-$((jobs + 1))}
phase "tests" bash -c 'cd "$1" && exec ctest -j "$2" --output-on-failure --no-tests=error \
  --output-junit ctest-junit.xml' tests "$build_dir" "$ctest_jobs"
tests_rc=$?
summary
summary_rc=$?
[[ $tests_rc -eq 0 ]] || exit "$tests_rc"
exit "$summary_rc"
