#!/usr/bin/env bash
# libFuzzer runs of the decoders (docs/fuzzing.md): builds the Tests/Fuzz/ targets with
# -sanitize=fuzzer,address in .build/fuzz, runs each for SECONDS, one after another, and
# prints runs, execs/s, coverage and crashes per target. Exits 1 if any target crashed.
#   bench/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]     (default 60 s, every target)
#   bench/fuzz.sh --replay TARGET FILE...              (re-run saved inputs, e.g. a crash)
# New corpus entries go to .build/fuzz/work/corpus/<TARGET> (kept between runs, not
# committed); the committed seeds in Tests/Fuzz/corpus/<TARGET> are only read. Crashing inputs
# are saved as .build/fuzz/work/artifacts/<TARGET>-crash-*. FUZZ_FLAGS adds libFuzzer flags;
# FUZZ_SCRATCH replaces the scratch path .build/fuzz. FUZZ_CONFIG=debug builds unoptimised
# (release is the default: executions per second are what a long run needs; CI's few seconds
# per target use debug, which builds in a fraction of the CPU time).
set -euo pipefail
cd "$(dirname "$0")/.."

ALL=(FuzzHPACK FuzzHTTP2Frame FuzzHTTP1 FuzzJSON FuzzScenario FuzzJWT FuzzWebPush)
SCRATCH=${FUZZ_SCRATCH:-.build/fuzz}
CONFIG=${FUZZ_CONFIG:-release}
case $CONFIG in release|debug) ;; *) echo "fuzz: FUZZ_CONFIG is release or debug, not $CONFIG" >&2; exit 2;; esac
WORK=$SCRATCH/work
# Leak checking is off: the Swift runtime's metadata caches and lazily built globals look
# like leaks to LeakSanitizer. Memory errors (ASan) and traps are what the runs look for.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:allocator_may_return_null=1}
# libFuzzer reports traps itself; Swift's backtracer would fight it for the signal (and
# trips ASan reading memory).
export SWIFT_BACKTRACE=enable=no

build() {
  local t
  for t in "$@"; do
    # gold prints one warning per ASan-instrumented local symbol; they are harmless.
    # `--sanitize fuzzer` tells SwiftPM to let libFuzzer supply `main`; the sanitizers
    # themselves come from the single -Xswiftc flag, which follows SwiftPM's own: with
    # `--sanitize fuzzer --sanitize address` SwiftPM emits the two flags in random order,
    # and when address comes last swiftc drops the coverage instrumentation.
    if ! PUSHDOUBLE_FUZZ=1 swift build -c "$CONFIG" --scratch-path "$SCRATCH" --sanitize fuzzer \
        -Xswiftc -sanitize=fuzzer,address -Xswiftc -enable-testing --product "$t" >"$WORK/build-$t.log" 2>&1; then
      grep -v "Cannot export local symbol" "$WORK/build-$t.log" | tail -n 40
      echo "fuzz: building $t failed"; exit 2
    fi
    grep -E "(error|warning): " "$WORK/build-$t.log" | grep -v "Cannot export local symbol" || true
  done
}

mkdir -p "$WORK/corpus" "$WORK/artifacts"

if [ "${1:-}" = "--replay" ]; then
  target=${2:?usage: bench/fuzz.sh --replay TARGET FILE...}; shift 2
  build "$target"
  exec "$SCRATCH/$CONFIG/$target" -runs=1 "$@"
fi

SECONDS_PER_TARGET=${1:-60}
shift || true
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=("${ALL[@]}")

start=$(date +%s)
echo "== building ${TARGETS[*]} ($CONFIG, -sanitize=fuzzer,address)"
build "${TARGETS[@]}"
echo "   built in $(( $(date +%s) - start )) s"

failed=()
printf '%-15s %6s %10s %9s %6s %7s %8s %s\n' target secs runs execs/s cov features corpus crashes
for t in "${TARGETS[@]}"; do
  mkdir -p "$WORK/corpus/$t"
  log=$WORK/$t.log
  before=$(find "$WORK/artifacts" -name "$t-*" | wc -l)
  t0=$(date +%s)
  set +e
  # shellcheck disable=SC2086
  "$SCRATCH/$CONFIG/$t" -max_total_time="$SECONDS_PER_TARGET" -print_final_stats=1 -timeout=10 -rss_limit_mb=2048 \
    -max_len=8192 -artifact_prefix="$WORK/artifacts/$t-" ${FUZZ_FLAGS:-} "$WORK/corpus/$t" "Tests/Fuzz/corpus/$t" >"$log" 2>&1
  status=$?
  set -e
  secs=$(( $(date +%s) - t0 ))
  after=$(find "$WORK/artifacts" -name "$t-*" | wc -l)
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
  last=$(grep -E '^#[0-9]+' "$log" | tail -n 1)
  cov=$(echo "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
  ft=$(echo "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
  corp=$(echo "$last" | sed -n 's/.* corp: \([0-9]*\).*/\1/p')
  crashes=$((after - before))
  if [ "$status" -ne 0 ] && [ "$crashes" -eq 0 ]; then crashes="exit $status"; fi
  # A build without coverage instrumentation fuzzes blind: count it as a failure.
  if ! grep -q "inline 8-bit counters" "$log"; then crashes="NOT INSTRUMENTED"; status=3; fi
  printf '%-15s %6s %10s %9s %6s %7s %8s %s\n' "$t" "$secs" "${runs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}" "$crashes"
  if [ "$status" -ne 0 ]; then
    failed+=("$t")
    grep -E "ERROR: |fuzz invariant broken|Fatal error|SUMMARY|Test unit written" "$log" | head -n 8 | sed 's/^/    /'
  fi
done
echo "   total $(( $(date +%s) - start )) s; logs in $WORK/<target>.log"
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: crashes in ${failed[*]} (inputs in $WORK/artifacts; replay with bench/fuzz.sh --replay TARGET FILE)"
  exit 1
fi
