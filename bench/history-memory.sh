#!/usr/bin/env bash
# History memory benchmark (not a test): RSS of `pushdouble serve --quiet` with the history
# at its cap, and the bytes per stored exchange.
#   bench/history-memory.sh [cap]
# Env: PD_BIN=<pushdouble binary> (skips the build), NO_BUILD=1, SECONDS_PER_FILL (default 4).
#
# Load: h2load -D (duration-based) with distinct device tokens (one per request of a fill,
# h2load -i), a 300-byte JSON alert, one JWT (ES256) per run, apns-topic, apns-push-type —
# the same requests as bench/apns.sh. The history keeps every detail (headers, body, JWT
# claims, TLS facts, timings).
# Bytes per entry = (RSS with the history full − RSS after a 100-request warm-up) / cap,
# measured after a first fill and again after a second (evictions churn the allocator).
# Then a full JSON dump (GET /history?limit=…, following the cursor) is read while the RSS
# is sampled, to show what reading the whole history costs.
set -euo pipefail
cd "$(dirname "$0")/.."
CAP=${1:-50000}
FILL=${SECONDS_PER_FILL:-4}
. bench/common.sh

"$BIN" serve --ephemeral --quiet --history-cap "$CAP" --endpoints-file "$WORK/ep.json" >"$WORK/pd.log" 2>&1 & PID=$!; PIDS+=($PID)
for _ in $(seq 100); do [ -s "$WORK/ep.json" ] && break; sleep 0.1; done
url() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print([e["url"] for e in d["endpoints"] if e["name"]==sys.argv[2]][0])' "$WORK/ep.json" "$1"; }
PD_URL=$(url apns-production); ADMIN=$(url admin)
# Distinct tokens: fill k uses its own range, so no token repeats across fills either.
uris() { python3 -c 'import sys; base=int(sys.argv[2]); [print(sys.argv[1]+"/3/device/%064x" % (0x7c<<248 | (base+i))) for i in range(int(sys.argv[3]))]' "$PD_URL" "$1" "$2" >"$WORK/uris"; }
load() { h2load "$@" -c 10 -m 100 -d "$WORK/body.json" -i "$WORK/uris" \
  -H "authorization: bearer $JWT" -H 'apns-topic: com.example.pushdouble' -H 'apns-push-type: alert' \
  -H 'content-type: application/json' 2>&1 | grep -E '^requests:' ; }
rss() { awk '/VmRSS/ {print $2}' "/proc/$PID/status"; }   # kB
count() { curl -s "$ADMIN/health" | python3 -c 'import json,sys; h=json.load(sys.stdin)["history"]; print(h["count"], h["nextSeq"]-1)'; }

uris 0 100; load -n 100 >/dev/null      # warm-up: TLS, loops, JWT cache, allocator arenas
sleep 0.5; BASE=$(rss)
echo "RSS after warm-up: $((BASE / 1024)) MB (history $(count | cut -d' ' -f1) entries)"
for fill in 1 2; do
  uris $((fill * 10000000)) $((CAP * 2))
  echo "fill $fill: $(load -D "$FILL")"
  sleep 0.5
  read -r N TOTAL <<<"$(count)"
  R=$(rss)
  if [ "$N" -lt "$CAP" ]; then echo "  history holds $N < cap $CAP entries: raise SECONDS_PER_FILL"; fi
  echo "  history $N entries ($TOTAL exchanges so far): RSS $((R / 1024)) MB, $(( (R - BASE) * 1024 / N )) bytes per entry"
done
echo "SUMMARY history cap $N: RSS $((R / 1024)) MB at cap, $(( (R - BASE) * 1024 / N )) bytes per stored exchange (300-byte alert, distinct tokens, target <= 1024)"

# A full dump while sampling RSS.
PEAK=$(rss)
( while kill -0 "$PID" 2>/dev/null; do r=$(rss); [ "$r" -gt "$(cat "$WORK/peak" 2>/dev/null || echo 0)" ] && echo "$r" >"$WORK/peak"; sleep 0.02; done ) & PIDS+=($!)
T0=$(date +%s.%N)
python3 - "$ADMIN" >"$WORK/dump.out" <<'PY'
import json, sys, urllib.request
admin = sys.argv[1]; after = None; n = 0; size = 0; pages = 0
while True:
    url = admin + "/history?limit=1000" + ("" if after is None else "&after=%d" % after)
    body = urllib.request.urlopen(url).read(); size += len(body); pages += 1
    doc = json.loads(body); n += len(doc["exchanges"])
    after = doc.get("nextCursor")
    if after is None: break
print(n, size, pages)
PY
T1=$(date +%s.%N)
read -r DN DSIZE DPAGES <"$WORK/dump.out"
DPEAK=$(cat "$WORK/peak" 2>/dev/null || echo "$PEAK")
echo "full dump: $DN exchanges, $((DSIZE / 1024 / 1024)) MB of JSON in $DPAGES pages, $(python3 -c "print(round($T1-$T0,2))") s; RSS before $((PEAK / 1024)) MB, peak during $((DPEAK / 1024)) MB (+$(( (DPEAK - PEAK) / 1024 )) MB)"
