#!/usr/bin/env bash
# FCM request-path cost in instructions (not a test; repeatable on a loaded machine, unlike
# req/s): `pushdouble serve --quiet` under valgrind's callgrind, a warm-up batch of sends,
# counters zeroed, then a measured batch of N sends; prints instructions per request (the
# whole process: TLS, HTTP/2, HPACK, the FCM fake, the history) and the top functions by
# inclusive cost.
#   bench/fcm-callgrind.sh [requests] [top]
# Env: PD_BIN / NO_BUILD as for bench/fcm.sh, CLIENTS (distinct registration tokens, one
#      h2load client each, default 10), KEEP=<dir> (keep the callgrind output there).
# Same requests as bench/fcm.sh (bench/common.sh `fcm_bodies`, a minted access token), but
# count-based (h2load -n): here the measure is per request, not per second.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-20000}
TOP=${2:-40}
CLIENTS=${CLIENTS:-10}
. bench/common.sh
fcm_bodies "$WORK" "$CLIENTS"

valgrind --tool=callgrind --callgrind-out-file="$WORK/callgrind.out" \
  "$BIN" serve --ephemeral --quiet --endpoints-file "$WORK/pd.json" >"$WORK/pd.log" 2>&1 & PID=$!; PIDS+=($PID)
for _ in $(seq 600); do [ -s "$WORK/pd.json" ] && break; sleep 0.1; done
[ -s "$WORK/pd.json" ] || { cat "$WORK/pd.log"; exit 1; }
URL=$(serve_endpoint_url "$WORK/pd.json" fcm)/v1/projects/pushdouble-test/messages:send
TOKEN=$(fcm_access_token "$WORK/pd.json")

# `batch TOTAL`: TOTAL sends spread over CLIENTS h2load clients (-c1 -m100, one token each);
# prints the 2xx count.
batch() {
  local per=$(( $1 / CLIENTS )) k pids=()
  for k in $(seq 0 $((CLIENTS - 1))); do
    h2load -n "$per" -c 1 -m 100 -d "$WORK/fcm.$k.json" -H "authorization: Bearer $TOKEN" \
      -H 'content-type: application/json' "$URL" >"$WORK/h2.$k" 2>&1 & pids+=($!)
  done
  for k in "${pids[@]}"; do wait "$k" || true; done
  cat "$WORK"/h2.* | grep -Eo '^status codes: [0-9]+ 2xx' | grep -Eo '[0-9]+ 2xx' | awk '{s+=$1} END {print s+0}'
}

echo "warm-up: $(batch 2000) × 2xx"
callgrind_control -z "$PID" >/dev/null
OK=$(batch "$N")
callgrind_control -d "$PID" >/dev/null
echo "measured: $OK × 2xx of $N"
OUT=$(ls -t "$WORK"/callgrind.out.* | head -1)
IR=$(callgrind_annotate "$OUT" 2>/dev/null | grep -m1 -E 'PROGRAM TOTALS' | grep -Eo '^[0-9,]+' | tr -d ,)
echo "SUMMARY instructions per request: $(( IR / N )) (total $IR Ir over $N requests, CLIENTS=$CLIENTS)"
# Function names demangled and shortened (swift-demangle --simplified), file paths dropped.
annotate() {
  callgrind_annotate "$@" "$OUT" 2>/dev/null | sed -n '/file:function/,$p' | sed -n "3,$((TOP + 2))p" |
    swift-demangle --simplified | sed -E 's/ [^ ]*:([^ ])/ \1/' | cut -c1-200 || true
}
echo "== inclusive (top $TOP)"; annotate --inclusive=yes
echo "== self (top $TOP)"; annotate
if [ -n "${KEEP:-}" ]; then mkdir -p "$KEEP"; cp "$OUT" "$KEEP/"; echo "kept $KEEP/$(basename "$OUT")"; fi
