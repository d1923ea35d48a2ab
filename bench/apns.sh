#!/usr/bin/env bash
# APNs benchmark (not a test): the APNs fake (`pushdouble serve`, full validation, JWT auth,
# history on) vs nghttpd, h2 over TLS, same machine, same run, alternating rounds.
#   bench/apns.sh [requests] [rounds]
# Env: PD_BIN=<path to a pushdouble binary> (skips the build; e.g. an older build to compare),
#      NO_BUILD=1 (use the existing release build), ROUNDS.
# Every request: POST /3/device/<64 hex>, a 300-byte JSON alert, `authorization: bearer <JWT>`
# (ES256, kid PDTESTKEY1, team PDTESTTEAM), `apns-topic`, `apns-push-type: alert`.
# h2load -c10 -m100. The fake announces MAX_CONCURRENT_STREAMS=1 in its first SETTINGS and
# raises it to 1000 once the connection is up (like APNs); h2load opens its first 100 streams
# before the raise, so up to 99 streams per connection are refused (REFUSED_STREAM) and counted
# as "errored". That realism stays on in the reported figure; the errored count is printed.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-100000}
ROUNDS=${2:-${ROUNDS:-3}}
WORK=$(mktemp -d)
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$WORK"; }
trap cleanup EXIT

if [ -z "${NO_BUILD:-}" ] && [ -z "${PD_BIN:-}" ]; then
  echo "== building pushdouble (release)"
  swift build -c release --product pushdouble 2>&1 | grep -E "error|warning:|Build complete" || true
fi
BIN=${PD_BIN:-$(swift build -c release --show-bin-path)/pushdouble}

# A 300-byte JSON alert payload.
python3 -c 'import json; b={"aps":{"alert":{"title":"Benchmark","body":"x"*200},"badge":1,"sound":"default"}}; s=json.dumps(b,separators=(",",":")); s=s.replace("x"*200,"x"*(200+300-len(s))); open("'"$WORK"'/body.json","w").write(s)'
# A JWT minted now from the shipped test key.
JWT=$(python3 -c 'import jwt,time; print(jwt.encode({"iss":"PDTESTTEAM","iat":int(time.time())}, open("Certificates/AuthKey_PDTESTKEY1.p8").read(), algorithm="ES256", headers={"kid":"PDTESTKEY1"}))')
TOKEN=$(python3 -c 'print("5d"*32)')
echo "body: $(wc -c <"$WORK/body.json") bytes, device token ${TOKEN:0:8}…, JWT ${#JWT} chars"

"$BIN" serve --ephemeral --quiet --endpoints-file "$WORK/endpoints.json" >"$WORK/pd.log" 2>&1 & PD_PID=$!; PIDS+=($PD_PID)
for _ in $(seq 100); do [ -s "$WORK/endpoints.json" ] && break; sleep 0.1; done
PD_URL=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print([e["url"] for e in d["endpoints"] if e["name"]=="apns-production"][0])' "$WORK/endpoints.json")

port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
NG_PORT=$(port)
mkdir -p "$WORK/htdocs/3/device"; : >"$WORK/htdocs/3/device/$TOKEN"
nghttpd -d "$WORK/htdocs" "$NG_PORT" Certificates/pushdouble-test-server.key.pem Certificates/pushdouble-test-server.pem >/dev/null 2>&1 & PIDS+=($!)
sleep 1

rps() { grep -Eo 'finished in [0-9.]+m?s, [0-9.]+ req/s' | grep -Eo '[0-9.]+ req/s' | grep -Eo '[0-9.]+'; }
reqline() { grep -E '^requests:'; }
codes() { grep -E '^status codes:'; }
h2() {
  h2load -n "$N" -c 10 -m 100 -d "$WORK/body.json" \
    -H "authorization: bearer $JWT" -H 'apns-topic: com.example.pushdouble' -H 'apns-push-type: alert' \
    -H 'content-type: application/json' "$1/3/device/$TOKEN" 2>&1
}
cpu() { awk '{print $14+$15}' "/proc/$PD_PID/stat"; }   # utime+stime, clock ticks
best() { python3 -c 'import sys; print(max(float(x) for x in sys.argv[1:]))' "$@"; }
median() { python3 -c 'import sys,statistics; print(statistics.median(float(x) for x in sys.argv[1:]))' "$@"; }
NG_URL="https://127.0.0.1:$NG_PORT"
TICK=$(getconf CLK_TCK)

echo "== h2 over TLS, POST 300-byte JSON + JWT, h2load -c10 -m100 -n $N; best of $ROUNDS alternating rounds"
echo "   load: $(uptime)"
h2 "$NG_URL" >/dev/null || true; h2 "$PD_URL" >/dev/null || true   # warm-up (JWT verified once)
PDS=(); NGS=()
for i in $(seq "$ROUNDS"); do
  C0=$(cpu); PD_OUT=$(h2 "$PD_URL"); C1=$(cpu)
  NG_OUT=$(h2 "$NG_URL")
  echo "  round $i APNs fake: $(echo "$PD_OUT" | reqline) | $(echo "$PD_OUT" | codes) | $(echo "$PD_OUT" | rps) req/s | server CPU $(python3 -c "print(round(($C1-$C0)/$TICK/$N*1e6,1))") µs/req"
  echo "  round $i nghttpd:   $(echo "$NG_OUT" | reqline) | $(echo "$NG_OUT" | codes) | $(echo "$NG_OUT" | rps) req/s"
  PDS+=("$(echo "$PD_OUT" | rps)"); NGS+=("$(echo "$NG_OUT" | rps)")
done
PD=$(best "${PDS[@]}"); NG=$(best "${NGS[@]}")
PDM=$(median "${PDS[@]}"); NGM=$(median "${NGS[@]}")
echo "median APNs fake h2 req/s: $PDM   nghttpd h2 req/s: $NGM   ratio: $(python3 -c "print(round($PDM/$NGM,3))")"
echo "SUMMARY (best of $ROUNDS) APNs fake h2 req/s: $PD   nghttpd h2 req/s: $NG   ratio: $(python3 -c "print(round($PD/$NG,3))") (target >= 0.35)   load: $(cut -d' ' -f1-3 /proc/loadavg)"
