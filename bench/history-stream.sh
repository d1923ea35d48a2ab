#!/usr/bin/env bash
# Server-sent-event cost benchmark (not a test): push rate of `pushdouble serve --quiet`
# with no history-stream reader vs four reading clients (curl -N on /history/stream), and
# RSS with one HTTP/1.1 client that connects and never reads.
#   bench/history-stream.sh [seconds] [rounds]
# Env: PD_BIN, NO_BUILD=1, ROUNDS, DURATION, WARMUP.
# Duration-based h2load rounds (-D, --warm-up-time), alternating without/with readers, one
# server for all rounds; the figure is the ratio of the medians (target >= 0.9). For every
# reader the script counts the events it received and whether it was told `lagged`.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${1:-${DURATION:-4}}
ROUNDS=${2:-${ROUNDS:-3}}
WARMUP=${WARMUP:-1}
. bench/common.sh
"$BIN" serve --ephemeral --quiet --endpoints-file "$WORK/ep.json" >"$WORK/pd.log" 2>&1 & PID=$!; PIDS+=($PID)
for _ in $(seq 100); do [ -s "$WORK/ep.json" ] && break; sleep 0.1; done
url() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print([e["url"] for e in d["endpoints"] if e["name"]==sys.argv[2]][0])' "$WORK/ep.json" "$1"; }
PD_URL=$(url apns-production); ADMIN=$(url admin)
python3 -c 'import sys; [print(sys.argv[1]+"/3/device/%064x" % (0x3e<<248 | i)) for i in range(1000)]' "$PD_URL" >"$WORK/uris"
rps() { grep -Eo 'finished in [0-9.]+m?s, [0-9.]+ req/s' | grep -Eo '[0-9.]+ req/s' | grep -Eo '[0-9.]+'; }
h2() { h2load -D "$DURATION" --warm-up-time="$WARMUP" -c 10 -m 100 -d "$WORK/body.json" -i "$WORK/uris" \
  -H "authorization: bearer $JWT" -H 'apns-topic: com.example.pushdouble' -H 'apns-push-type: alert' \
  -H 'content-type: application/json' 2>&1; }
median() { python3 -c 'import sys,statistics; print(round(statistics.median(float(x) for x in sys.argv[1:]),1))' "$@"; }
rss() { awk '/VmRSS/ {print int($2/1024)}' "/proc/$PID/status"; }

echo "== push rate without / with 4 reading /history/stream clients (curl -N), h2load -c10 -m100 -D ${DURATION}s; $ROUNDS alternating rounds"
NONE=(); FOUR=()
for i in $(seq "$ROUNDS"); do
  R=$(h2 | rps); NONE+=("$R"); echo "  round $i no readers:   $R req/s"
  READERS=()
  for k in 1 2 3 4; do curl -sN "$ADMIN/history/stream?after=$(curl -s "$ADMIN/health" | python3 -c 'import json,sys; print(json.load(sys.stdin)["history"]["nextSeq"]-1)')" >"$WORK/reader.$i.$k" 2>/dev/null & READERS+=($!); PIDS+=($!); done
  sleep 0.5
  R=$(h2 | rps); FOUR+=("$R")
  sleep 0.5
  for p in "${READERS[@]}"; do kill "$p" 2>/dev/null || true; done
  EV=""; for k in 1 2 3 4; do EV+=" $(grep -c '^event: exchange' "$WORK/reader.$i.$k" || true)$(grep -q '^event: lagged' "$WORK/reader.$i.$k" && echo '(lagged)' || true)"; done
  echo "  round $i four readers: $R req/s; events per reader:$EV"
done
NM=$(median "${NONE[@]}"); FM=$(median "${FOUR[@]}")

echo "== one HTTP/1.1 stream client that never reads, ${DURATION}s of pushes"
python3 - "$ADMIN" >"$WORK/stall.out" 2>&1 <<'PY' & STALL=$!; PIDS+=($STALL)
import json, socket, sys, time, urllib.parse, urllib.request
after = json.load(urllib.request.urlopen(sys.argv[1] + "/health"))["history"]["nextSeq"] - 1
u = urllib.parse.urlparse(sys.argv[1])
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
s.connect((u.hostname, u.port))
s.sendall(b"GET /history/stream?after=%d HTTP/1.1\r\nHost: x\r\n\r\n" % after)
time.sleep(3600)
PY
sleep 0.5; R0=$(rss)
h2 >/dev/null
sleep 0.5; R1=$(rss)
echo "  RSS before $R0 MB, after $R1 MB"
echo "SUMMARY push rate with 4 SSE readers: $FM req/s vs $NM req/s without ($(python3 -c "print(round($FM/$NM,3))")x, target >= 0.9); non-reading HTTP/1.1 client: RSS $R0 -> $R1 MB   load: $(cut -d' ' -f1-3 /proc/loadavg)"
