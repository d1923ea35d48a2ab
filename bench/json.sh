#!/usr/bin/env bash
# JSON parse cost in instructions (not a test): compiles Sources/PushDoubleJSON with the
# driver bench/JSONBench/main.swift (swiftc -O -wmo, one module) and runs it under
# callgrind: an APNs payload, an Expo batch of two and the FCM bench body, N parses each,
# as the tree and as the tape. BASE=<git revision> does the same for that revision's
# sources, for a before/after in the same run.
#   bench/json.sh [N]          (default 20000)
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-20000}
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
build() {  # build NAME SOURCE_DIR
  local flags=()
  [ -f "$2/JSONTape.swift" ] && flags=(-D JSON_TAPE)
  swiftc -O -wmo -module-name PushDoubleJSON "${flags[@]}" "$2"/*.swift bench/JSONBench/main.swift -o "$W/$1" 2>&1 | grep -E "error" || true
}
measure() {  # measure NAME MODE
  valgrind --tool=callgrind --callgrind-out-file="$W/cg" "$W/$1" "$N" "$2" >/dev/null 2>"$W/vg"
  local ir; ir=$(grep -Eo 'Collected : [0-9]+' "$W/vg" | grep -Eo '[0-9]+')
  # The driver's fixed cost (start-up, the loop) is included; it is the same for every build.
  echo "  $1 $2: $(( ir / (3 * N) )) instructions per parse ($ir over $((3 * N)) parses)"
}
build current Sources/PushDoubleJSON
if [ -n "${BASE:-}" ]; then
  mkdir -p "$W/base-src"
  for f in $(git ls-tree --name-only "$BASE" Sources/PushDoubleJSON/); do git show "$BASE:$f" >"$W/base-src/$(basename "$f")"; done
  build base "$W/base-src"
  measure base tree
fi
measure current tree
measure current tape
