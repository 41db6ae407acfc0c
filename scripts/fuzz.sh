#!/usr/bin/env bash
# Builds the libFuzzer harnesses (tests/fuzz, clang, ASan + UBSan) in
# build/fuzz and runs each for SECONDS (default 12) on a copy of its seed
# corpus (tests/fuzz/corpus/<target>), kept in build/fuzz/corpus so that
# coverage grows from run to run. Fails on any crash, leak, timeout or
# out-of-memory; prints executions and coverage per target.
# Usage: scripts/fuzz.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-12}
shift || true
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] ||
  targets=(http_response exposition link_messages config web_config basic_auth duration
    bundle_config owner_files softnet_stat)
build=${FUZZ_BUILD_DIR:-build/fuzz}

cmake -S tests/fuzz -B "$build" -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build "$build" -j "$(nproc)" >/dev/null

passed=0
failed=0
printf '%-15s %10s %8s %8s %7s %s\n' target executions cov ft corpus result
for target in "${targets[@]}"; do
  corpus="$build/corpus/$target"
  mkdir -p "$corpus" "$build/artifacts/$target"
  log="$build/$target.log"
  status=0
  ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=0 \
    "$build/fuzz_$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -max_len=16384 -print_final_stats=1 -artifact_prefix="$build/artifacts/$target/" \
    "$corpus" "tests/fuzz/corpus/$target" >"$log" 2>&1 || status=$?
  runs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')
  last=$(grep -E '^#[0-9]+.*cov: ' "$log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' <<<"$last" | grep -o '[0-9]*' || echo '?')
  ft=$(grep -o 'ft: [0-9]*' <<<"$last" | grep -o '[0-9]*' || echo '?')
  corp=$(grep -o 'corp: [0-9]*' <<<"$last" | grep -o '[0-9]*' || echo '?')
  if [[ $status -eq 0 ]]; then
    result=ok
    passed=$((passed + 1))
  else
    result="FAILED (exit $status; see $log)"
    failed=$((failed + 1))
    grep -E 'ERROR|SUMMARY|Test unit written|terminate|what\(\)' "$log" | head -8 >&2 || true
  fi
  printf '%-15s %10s %8s %8s %7s %s\n' "$target" "$runs" "$cov" "$ft" "$corp" "$result"
done
echo "fuzz: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
