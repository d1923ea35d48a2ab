#!/usr/bin/env bash
# FCM request-path cost in instructions (not a test; repeatable on a loaded machine, unlike
# req/s): `pushdouble serve --quiet` under valgrind's callgrind, a warm-up run of sends,
# counters zeroed, then a measured run of SECONDS; prints instructions per request (the
# whole process: TLS, HTTP/2, HPACK, the FCM fake, the history) and the top functions by
# inclusive cost.
#   bench/fcm-callgrind.sh [seconds] [top]
# Env: PD_BIN / NO_BUILD as for bench/fcm.sh, CLIENTS (distinct registration tokens, one
#      h2load client each, default 10), WARMUP (seconds, default 2), KEEP=<dir> (keep the
#      callgrind output there), LOG=1 (measure the default `serve`, its exchange log written
#      to a file by its own thread, instead of `serve --quiet`).
# Same requests as bench/fcm.sh (bench/common.sh `fcm_bodies`, a minted access token), and
# duration-based like it (h2load -D with --warm-up-time). The request count is the server's
# own: the history's `nextSeq` (GET /health) after the dump minus before the zeroing, so it
# is exactly the requests callgrind counted (h2load's own count leaves out its warm-up and
# the requests in flight when it stops).
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${1:-10}
TOP=${2:-40}
WARMUP=${WARMUP:-2}
CLIENTS=${CLIENTS:-10}
. bench/common.sh
fcm_bodies "$WORK" "$CLIENTS"

QUIET=--quiet; [ -n "${LOG:-}" ] && QUIET=
# shellcheck disable=SC2086
valgrind --tool=callgrind --callgrind-out-file="$WORK/callgrind.out" \
  "$BIN" serve --ephemeral $QUIET --endpoints-file "$WORK/pd.json" >"$WORK/pd.log" 2>&1 & PID=$!; PIDS+=($PID)
for _ in $(seq 600); do [ -s "$WORK/pd.json" ] && break; sleep 0.1; done
[ -s "$WORK/pd.json" ] || { cat "$WORK/pd.log"; exit 1; }
URL=$(serve_endpoint_url "$WORK/pd.json" fcm)/v1/projects/pushdouble-test/messages:send
TOKEN=$(fcm_access_token "$WORK/pd.json")

# `batch SECONDS`: CLIENTS h2load clients (-c1 -m100, one token each) for SECONDS after a
# one-second warm-up; prints the 2xx count h2load saw.
batch() {
  local k pids=()
  rm -f "$WORK"/h2.*
  for k in $(seq 0 $((CLIENTS - 1))); do
    timeout $(( $1 + 60 )) h2load -D "$1" --warm-up-time 1 -c 1 -m 100 -d "$WORK/fcm.$k.json" -H "authorization: Bearer $TOKEN" \
      -H 'content-type: application/json' "$URL" >"$WORK/h2.$k" 2>&1 & pids+=($!)
  done
  for k in "${pids[@]}"; do wait "$k" || true; done
  cat "$WORK"/h2.* | grep -Eo '^status codes: [0-9]+ 2xx' | grep -Eo '[0-9]+ 2xx' | awk '{s+=$1} END {print s+0}'
}
ADMIN=$(serve_endpoint_url "$WORK/pd.json" admin)
next_seq() { curl -sf "$ADMIN/health" | python3 -c 'import json,sys; print(json.load(sys.stdin)["history"]["nextSeq"])'; }

echo "warm-up: $(batch "$WARMUP") × 2xx"
FIRST=$(next_seq)
callgrind_control -z "$PID" >/dev/null
OK=$(batch "$DURATION")
callgrind_control -d "$PID" >/dev/null
N=$(( $(next_seq) - FIRST ))
[ "$N" -gt 0 ] || { echo "no request reached the server"; exit 1; }
echo "measured: $N requests served in ${DURATION} s (+1 s warm-up) under callgrind; h2load counted $OK × 2xx after its warm-up"
OUT=$(ls -t "$WORK"/callgrind.out.* | head -1)
IR=$(callgrind_annotate "$OUT" 2>/dev/null | grep -m1 -E 'PROGRAM TOTALS' | grep -Eo '^[0-9,]+' | tr -d ,)
echo "SUMMARY instructions per request: $(( IR / N )) (total $IR Ir over $N requests, ${DURATION} s, CLIENTS=$CLIENTS)"
# Function names demangled and shortened (swift-demangle --simplified), file paths dropped.
annotate() {
  callgrind_annotate "$@" "$OUT" 2>/dev/null | sed -n '/file:function/,$p' | sed -n "3,$((TOP + 2))p" |
    swift-demangle --simplified | sed -E 's/ [^ ]*:([^ ])/ \1/' | cut -c1-200 || true
}
echo "== inclusive (top $TOP)"; annotate --inclusive=yes
echo "== self (top $TOP)"; annotate
if [ -n "${KEEP:-}" ]; then mkdir -p "$KEEP"; cp "$OUT" "$KEEP/"; echo "kept $KEEP/$(basename "$OUT")"; fi
