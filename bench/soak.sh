#!/usr/bin/env bash
# Soak bench (not a test): at least TOTAL pushes (default 1,000,000) through the APNs fake in
# duration-based h2load rounds, the server's RSS sampled every second, and the history's counts
# reconciled exactly with the responses the client saw.
#   bench/soak.sh [TOTAL] [ROUND_REQUESTS]
# Unlike the throughput benches (duration-based, ratios), the soak counts requests: h2load -D
# abandons the responses still in flight when the time is up (up to c×m = 1000 a round), which
# the server did record, so only fixed-count rounds reconcile exactly.
# Env: PD_BIN=<pushdouble binary> (default: a release build; NO_BUILD=1 reuses it), SERVE_ARGS (e.g. "--quiet").
# Reconciliation: every response h2load received (status codes 2xx+3xx+4xx+5xx) is one exchange
# in the history, so `nextSeq - 1` (exchanges ever recorded; sequence numbers start at 1) must
# equal that sum, and count + dropped must equal it too, with count = min(nextSeq, cap). Streams the fake refused before the first
# valid token raised MAX_CONCURRENT_STREAMS (REFUSED_STREAM, "errored" in h2load) never reached it.
set -euo pipefail
cd "$(dirname "$0")/.."
TOTAL=${1:-1000000}
ROUND=${2:-200000}
command -v h2load >/dev/null || { echo "soak: h2load is not installed (apt-get install nghttp2-client, or bash Tests/run.sh)"; exit 2; }
. bench/common.sh
# shellcheck disable=SC2086
"$BIN" serve --ephemeral --endpoints-file "$WORK/endpoints.json" ${SERVE_ARGS:-} >"$WORK/serve.log" 2>&1 & PD_PID=$!; PIDS+=($PD_PID)
for _ in $(seq 100); do [ -s "$WORK/endpoints.json" ] && break; sleep 0.1; done
url() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print([e["url"] for e in d["endpoints"] if e["name"]==sys.argv[2]][0])' "$WORK/endpoints.json" "$1"; }
APNS=$(url apns-production); ADMIN=$(url admin)
rss() { awk '/VmRSS/{print $2}' "/proc/$PD_PID/status"; }
( while kill -0 "$PD_PID" 2>/dev/null; do echo "$(date +%s) $(rss)" >>"$WORK/rss.txt"; sleep 1; done ) & PIDS+=($!)

echo "soak: ≥ $TOTAL pushes in h2load rounds of $ROUND requests (-c10 -m100, 1000 distinct tokens), serve ${SERVE_ARGS:-(default logging to a file)}"
python3 - "$WORK/uris.txt" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    for i in range(1000): f.write("/3/device/%064x\n" % (0x5d00 + i))
PY
seen=0; rounds=0
while [ "$seen" -lt "$TOTAL" ]; do
  out=$(h2load --requests="$ROUND" -c 10 -m 100 -d "$WORK/body.json" -i "$WORK/uris.txt" -B "$APNS" \
        -H "authorization: bearer $JWT" -H 'apns-topic: com.example.pushdouble' -H 'apns-push-type: alert' 2>&1)
  codes=$(echo "$out" | grep -E '^status codes:' | sed -E 's/status codes: ([0-9]+) 2xx, ([0-9]+) 3xx, ([0-9]+) 4xx, ([0-9]+) 5xx/\1 \2 \3 \4/')
  [ -n "$codes" ] || { echo "$out" | tail -5; echo "soak: h2load printed no status codes"; exit 1; }
  n=$(echo "$codes" | awk '{print $1+$2+$3+$4}')
  seen=$((seen + n)); rounds=$((rounds + 1))
  echo "  round $rounds: $n responses ($(echo "$codes" | awk '{print $1}') 2xx), $(echo "$out" | grep -Eo '[0-9.]+ req/s' | head -1), total $seen, RSS $(( $(rss) / 1024 )) MB"
done
sleep 0.5
health=$(curl -s "$ADMIN/health")
python3 - "$health" "$seen" "$WORK/rss.txt" <<'PY'
import json, sys
h = json.loads(sys.argv[1])["history"]; seen = int(sys.argv[2]); recorded = h["nextSeq"] - 1
samples = [int(l.split()[1]) for l in open(sys.argv[3]) if len(l.split()) == 2]
print(f"soak: client saw {seen} responses; history nextSeq {h['nextSeq']}, count {h['count']}, dropped {h['dropped']}, cap {h['cap']}")
print(f"soak: RSS min {min(samples)//1024} MB, max {max(samples)//1024} MB, last {samples[-1]//1024} MB over {len(samples)} s")
problems = []
if recorded != seen: problems.append(f"recorded {recorded} != responses seen {seen}")
if h["count"] + h["dropped"] != recorded: problems.append("count + dropped != recorded")
if h["count"] != min(seen, h["cap"]): problems.append(f"count {h['count']} != min(seen, cap)")
print("soak: reconciled exactly" if not problems else "soak: MISMATCH: " + "; ".join(problems))
sys.exit(1 if problems else 0)
PY
