#!/usr/bin/env bash
# The README's test command: installs what the tests need on a fresh Debian machine, builds,
# and runs every test. `.ci/run` calls this same script.
#   bash Tests/run.sh                  # install peers, build, run all tests
#   bash Tests/run.sh --filter APNs    # extra arguments go to `swift test`
#   bash Tests/run.sh --fast           # the fast tier only: no install, no external tool (< 1 min of tests)
# What it installs (only when missing):
#   - Debian: curl, openssl (integration tests, certificate checks); nghttp2-client (h2load,
#     nghttp) and nghttp2-server (nghttpd), nginx-light: interop peers and benchmark references;
#     libxml2-utils (xmllint validates the JUnit report); libssl-dev + pkg-config (OpenSSL 3);
#     default-jdk-headless (java, keytool: a Java client through the CONNECT proxy);
#     golang-go (go: net/http through the CONNECT proxy) and nodejs (node, unless one is on
#     PATH already: Node tunnels through the CONNECT proxy);
#     chromium + chromium-driver (/usr/bin/chromedriver): the browser tests (Tests/Browser/).
#     podman + runc: the container image and its recipes (Tests/container.sh, full run only).
#   - PyPI: the third-party clients the interop tests drive (Tests/Interop/requirements.txt);
#     selenium, pinned, for the browser tests (driver and browser given by path: Selenium
#     Manager never downloads anything).
# Needs root or sudo for apt-get; set PUSHDOUBLE_NO_INSTALL=1 to skip installing.
set -euo pipefail
cd "$(dirname "$0")/.."
t_start=$(date +%s)

# The tiers follow from the tests themselves: an interop test class (one that drives external
# tools — curl, openssl, nghttp2, nginx, xmllint, python3 and its client libraries, java, go,
# node, chromium — or whole processes) calls `requireInteropTier(needs:)` first in its
# setUpWithError() (Tests/PushDoubleTestSupport/InteropTier.swift). `--fast` leaves those classes
# out of the run (Tests/interop-classes.sh finds them in the source; nothing lists them by hand),
# sets PUSHDOUBLE_TIER=fast (an interop class the listing missed then fails instead of running)
# and runs everything else with the external tools hidden from PATH: a fast test that starts
# needing one fails ("X is not installed") instead of quietly joining the slow tier.

# Runs an XCTest command (its arguments), echoing its output, and reads XCTest's last summary
# line ("Executed N tests, with S tests skipped and F failures …") into total, skipped and
# failed; its exit status goes to status.
run_xctest() {
  local log
  log=$(mktemp)
  set +e
  "$@" 2>&1 | tee "$log"
  status=${PIPESTATUS[0]}
  set -e
  local summary
  summary=$(grep -E '^[[:space:]]*Executed [0-9]+ tests?, with' "$log" | tail -n 1 || true)
  rm -f "$log"
  if [ -z "$summary" ]; then echo "test: no XCTest summary line found"; exit 1; fi
  total=$(echo "$summary" | sed -E 's/.*Executed ([0-9]+) tests?.*/\1/')
  skipped=$(echo "$summary" | grep -oE '[0-9]+ tests? skipped' | grep -oE '^[0-9]+' || echo 0)
  failed=$(echo "$summary" | grep -oE '[0-9]+ failures?' | head -n 1 | grep -oE '^[0-9]+' || echo 0)
}

if [ "${1:-}" = "--fast" ]; then
  shift
  swift build --build-tests
  hidden=$(mktemp -d)
  trap 'rm -rf "$hidden"' EXIT
  for f in /usr/local/bin/* /usr/bin/* /bin/*; do
    b=$(basename "$f")
    case "$b" in curl|openssl|nghttpd|h2load|nghttp|nginx|xmllint|python*|pip*|java|javac|keytool|go|gofmt|node|nodejs|chromium|chromedriver) continue;; esac
    [ -e "$hidden/$b" ] || ln -s "$f" "$hidden/$b" 2>/dev/null || true
  done
  swift_dir=$(dirname "$(command -v swift)")
  interop=$(bash Tests/interop-classes.sh | paste -sd '|' -)
  echo "test: fast tier (no external tools on PATH; $(bash Tests/interop-classes.sh | wc -l) interop classes left out)"
  run_xctest env PATH="$swift_dir:$hidden" PUSHDOUBLE_TIER=fast swift test --skip-build --disable-swift-testing \
    --skip "\.($interop)/" "$@"
  echo "tests (fast tier): $((total - skipped - failed)) passed, $failed failed"
  exit "$status"
fi

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null 2>&1; then sudo "$@"; else
  echo "test: need root (or sudo) to run: $*" >&2; return 1; fi; }

if [ "${PUSHDOUBLE_NO_INSTALL:-0}" != 1 ]; then
  export DEBIAN_FRONTEND=noninteractive
  need_apt=()
  command -v curl >/dev/null 2>&1 || need_apt+=(curl)
  command -v openssl >/dev/null 2>&1 || need_apt+=(openssl)
  command -v h2load >/dev/null 2>&1 || need_apt+=(nghttp2-client)
  command -v nghttpd >/dev/null 2>&1 || need_apt+=(nghttp2-server)
  command -v nginx >/dev/null 2>&1 || need_apt+=(nginx-light)
  command -v xmllint >/dev/null 2>&1 || need_apt+=(libxml2-utils)
  command -v javac >/dev/null 2>&1 || need_apt+=(default-jdk-headless)
  command -v go >/dev/null 2>&1 || need_apt+=(golang-go)  # ProxyEcosystemTests
  command -v node >/dev/null 2>&1 || need_apt+=(nodejs)  # ProxyEcosystemTests, TimelineScriptTests, HTMLReporterTests, InboxScriptNodeTests, Tests/node.sh (Node >= 20)
  command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
  command -v chromedriver >/dev/null 2>&1 || need_apt+=(chromium-driver)
  command -v firefox-esr >/dev/null 2>&1 || need_apt+=(firefox-esr)  # FirefoxPushTests (Web Push in a real browser)
  pkg-config --exists openssl 2>/dev/null || need_apt+=(libssl-dev pkg-config)
  command -v podman >/dev/null 2>&1 || need_apt+=(podman runc)  # Tests/container.sh: the image, run as root with runc
  # ExpoSingleTicketClientTests: Symfony's Expo Notifier bridge, a single-message Expo sender
  [ -f /usr/share/php/Symfony/Component/Notifier/Bridge/Expo/autoload.php ] || need_apt+=(php-cli php-curl php-symfony-expo-notifier)
  if [ ${#need_apt[@]} -gt 0 ]; then
    echo "test: installing ${need_apt[*]}"
    as_root apt-get update -qq
    as_root apt-get install -y -qq --no-install-recommends "${need_apt[@]}"
  fi
  python3 -m pip install -q --disable-pip-version-check -r Tests/Interop/requirements.txt
  # async-expo-push-notifications installs the module exponent_server_sdk too: kept in its own
  # directory, put on PYTHONPATH by ExpoClientMatrixTests (its dependencies go in the main env).
  python3 -m pip install -q --disable-pip-version-check 'httpx[http2]==0.28.1' pydantic requests
  # The browser tests (InboxBrowserTests): Selenium's Python bindings, pinned (4.52.0 needs a
  # certifi newer than PyPI has here).
  python3 -m pip install -q --disable-pip-version-check 'selenium==4.51.0'
  # The CI-gate walk-through (CIGateWalkthroughTests): a JUnit consumer counts the report as CI
  # widgets do, and the --summary-md file is rendered as GitHub renders Markdown (GFM tables).
  python3 -m pip install -q --disable-pip-version-check 'junitparser==5.0.3' 'markdown-it-py==4.3.0'
  # FirefoxPushTests: Marionette's Python client drives the headless Firefox (pushdouble.browser).
  python3 -m pip install -q --disable-pip-version-check 'marionette-driver>=3,<4'
  python3 -m pip install -q --disable-pip-version-check --no-deps --upgrade \
    --target .build/interop-python/async-expo 'async-expo-push-notifications>=2.3,<3'
fi

t_installed=$(date +%s)
# .ci/run starts the fuzz build beside this script once the peers are installed.
mkdir -p .build && touch .build/installs-done
if [ $# -gt 0 ]; then
  # A filtered run: `swift test` with the given arguments, nothing else. Every test is XCTest;
  # --disable-swift-testing stops the empty Swift Testing pass from printing "Test run with 0
  # tests" after XCTest's real count.
  swift build
  swift build --build-tests
  run_xctest swift test --skip-build --disable-swift-testing "$@"
  total=$((total - skipped))
  echo "tests: $((total - failed)) passed, $failed failed"
  exit "$status"
fi

# The whole run. XCTest runs in one process, as `swift test` would run it; the work that only
# needs CPU — the static release build (the wheel and the image share it) and the Swift example
# package (its own clean build, then its tests) — runs alongside it in the idle scheduling class
# (SCHED_IDLE, `chrt --idle`), so it takes only the CPU the tests leave idle and never delays a
# test's thread: the conformance classes judge retry timing, and a busy machine would space a
# sender's tight retry loop out by itself. Then the adapters under `conform` (they judge timing
# too) at normal priority, with the Node kit and the release chain (the wheel and its tests,
# then the container image) beside them in the idle class. The adapters' venvs are made in the
# idle class too, from the start of the debug build: at nice 10 beside the build their pip cost
# the build up to 40 s (docs/testing.md), while XCTest leaves them time enough. Each stage writes its
# own log, printed whole when it is counted; the `time:` lines at the end say when each stage
# ran and the CPU time its processes used. Measured: docs/testing.md ("Where the time goes").
stage_dir=.build/test-logs
mkdir -p "$stage_dir"
rm -f "$stage_dir"/*.status "$stage_dir"/*.log "$stage_dir"/*.times
run_started=$(date +%s)
# The idle class where the system allows it (chrt, util-linux), else the lowest nice level.
if chrt --idle 0 true 2>/dev/null; then idle() { chrt --idle 0 nice -n 19 "$@"; }; else idle() { nice -n 19 "$@"; }; fi
# CPU seconds (user + system) of the processes a shell has waited for, from its `times` output.
children_cpu() { tail -n 1 | awk '
  function sec(t,  a) { split(t, a, "m"); sub("s", "", a[2]); return a[1] * 60 + a[2] }
  { printf "%d", sec($1) + sec($2) + 0.5 }'; }
stage() {  # stage NAME COMMAND…: starts COMMAND in the background, output to $stage_dir/NAME.log
  local name=$1; shift
  ( s=$(date +%s); set +e; "$@" > "$stage_dir/$name.log" 2>&1; rc=$?
    times > "$stage_dir/$name.times"  # here, not in $(…): a command substitution is a shell of its own
    echo "$rc $((s - run_started)) $(( $(date +%s) - run_started )) $(children_cpu < "$stage_dir/$name.times")" > "$stage_dir/$name.status" ) &
}
wait_for_stage() {  # the status file appears when the stage's command has ended
  while [ ! -f "$stage_dir/$1.status" ]; do sleep 1; done
}
stage adapter-venvs idle bash adapters/run.sh --install-only
swift build
swift build --build-tests
t_built=$(date +%s)
stage release-build idle bash -c 'swift build -c release --static-swift-stdlib --product pushdouble &&
  swift build -c release --static-swift-stdlib --product pushdouble-reference-sender'
# The example's build after the release build, not beside it: two builds at once press on memory
# and the disk, which the idle class does not shield the tests from.
stage example idle bash -c 'while [ ! -f '"$stage_dir"'/release-build.status ]; do sleep 2; done; bash examples/swift-package/run.sh'

# The test bundle is run directly: `swift test` would hold SwiftPM's lock on .build, and the
# release build beside it needs that lock. The bundle runs the same XCTest tests.
xctest_started=$(( $(date +%s) - run_started ))
# (bash -c: its `times` gives the CPU the test process used)
run_xctest bash -c '"$0"; rc=$?; times > "$1"; exit $rc' .build/debug/PushDoublePackageTests.xctest "$stage_dir/xctest.times"
total=$((total - skipped))  # nothing skips here (PUSHDOUBLE_TIER is unset); count only what ran
xctest_ended=$(( $(date +%s) - run_started ))
xctest_cpu=$(children_cpu < "$stage_dir/xctest.times")

export PUSHDOUBLE_BIN="$PWD/.build/debug/pushdouble"
wait_for_stage adapter-venvs
stage adapters bash adapters/run.sh
stage node idle bash Tests/node.sh
stage release idle bash -c 'while [ ! -f '"$stage_dir"'/release-build.status ]; do sleep 1; done
  read -r rc _ < '"$stage_dir"'/release-build.status; [ "$rc" -eq 0 ] || { echo "the release build failed (its log is printed above)"; exit 1; }
  bash Tests/python.sh; echo "stage-exit python $?"
  echo "== container"
  bash Tests/container.sh 2>&1 | grep -v "level=error msg=\".*systemd"; echo "stage-exit container ${PIPESTATUS[0]}"'
for name in adapter-venvs release-build example adapters node release; do wait_for_stage "$name"; done

# Adds the "LABEL: N passed, N failed" line of a stage's log to total and failed (a failing exit
# status without a count counts as one failure).
count_stage() {
  local label=$1 log=$2 rc=$3 line ok bad
  line=$(grep -E "^$label: [0-9]+ passed, [0-9]+ failed" "$log" | tail -n 1 || true)
  ok=$(echo "$line" | sed -nE "s/^$label: ([0-9]+) passed.*/\1/p")
  bad=$(echo "$line" | sed -nE 's/.* ([0-9]+) failed.*/\1/p')
  ok=${ok:-0}; bad=${bad:-0}
  if [ "$rc" -ne 0 ] && [ "$bad" -eq 0 ]; then bad=1; fi
  total=$((total + ok + bad)); failed=$((failed + bad))
  [ "$rc" -eq 0 ] || status=1
}
times=("installs: $((t_installed - t_start)) s"
       "then, counted from the start of the debug build (CPU: user + system time of the stage's processes):"
       "build (debug, with tests): +0 s to +$((t_built - run_started)) s"
       "xctest: +$xctest_started s to +$xctest_ended s, $xctest_cpu CPU s")
for name in adapter-venvs release-build example adapters node release; do
  log=$stage_dir/$name.log
  read -r rc from to cpu < "$stage_dir/$name.status" || { rc=1; from=?; to=?; cpu=?; }
  echo "== $name (+$from s to +$to s)"
  cat "$log"
  times+=("$name: +$from s to +$to s, ${cpu:-?} CPU s")
  case $name in
    release)
      # The Python package as a user meets it (wheel with the static release binary, fresh venv,
      # no Swift on PATH): pytest's summary line ("78 passed in 10.9s", "2 failed, 76 passed in
      # …"); a failing exit status without a failed count is one failure.
      pyline=$(grep -E '(passed|failed|error).* in [0-9.]+s' "$log" | tail -n 1 || true)
      pycount() { echo "$pyline" | grep -oE "[0-9]+ $1" | grep -oE '^[0-9]+' | awk '{s+=$1} END {print s+0}' || true; }
      pypassed=$(pycount passed); pyfailed=$(( $(pycount failed) + $(pycount 'errors?') ))
      pystatus=$(sed -n 's/^stage-exit python //p' "$log"); pystatus=${pystatus:-1}
      if [ "$pystatus" -ne 0 ] && [ "$pyfailed" -eq 0 ]; then pyfailed=1; fi
      echo "python: ${pypassed:-0} passed, $pyfailed failed"
      total=$((total + ${pypassed:-0} + pyfailed)); failed=$((failed + pyfailed))
      [ "$pystatus" -eq 0 ] || status=1
      # The container image (docs/containers.md): one test per check.
      cstatus=$(sed -n 's/^stage-exit container //p' "$log")
      count_stage container "$log" "${cstatus:-1}" ;;
    release-build)
      [ "$rc" -eq 0 ] || { echo "release build: failed"; failed=$((failed + 1)); total=$((total + 1)); status=1; } ;;
    adapter-venvs)
      # Not a test: the adapters install what they miss themselves when they run.
      [ "$rc" -eq 0 ] || echo "(the adapters' venvs were not all made here; adapters/run.sh makes them itself)" ;;
    *)
      # adapters: one test per adapter, every verdict equal to its committed
      # expected-verdicts.json (adapters/README.md); node: one per node:test test; example: the
      # example package's XCTest and Swift Testing counts.
      count_stage "$name" "$log" "$rc" ;;
  esac
done
printf 'time: %s\n' "${times[@]}" "whole run: $(( $(date +%s) - t_start )) s"
echo "tests: $((total - failed)) passed, $failed failed"
exit "$status"
