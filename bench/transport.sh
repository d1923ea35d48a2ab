#!/usr/bin/env bash
# Transport benchmark (not a test): PushDouble's bare transport vs nghttpd (h2 over TLS)
# and vs nginx (HTTP/1.1 keep-alive), same machine, same run.
#   bench/transport.sh [seconds] [loops] [reusePort|roundRobin]
# Duration-based runs (h2load -D with --warm-up-time; never -n, which ends in a fraction of a
# second on the faster server), alternating rounds, the median of each, ratios within the run.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${1:-${DURATION:-4}}
WARMUP=${WARMUP:-1}
LOOPS=${2:-1}
ACCEPT=${3:-reusePort}
WORK=$(mktemp -d)
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$WORK"; }
trap cleanup EXIT

echo "== building bench/TransportBench (release)"
swift build -c release --package-path bench/TransportBench 2>&1 | grep -E "error|warning:|Compiling|Build complete" || true
BIN=$(swift build -c release --package-path bench/TransportBench --show-bin-path)/TransportBench

openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$WORK/key.pem" -out "$WORK/cert.pem" \
  -days 1 -subj /CN=localhost -addext subjectAltName=DNS:localhost,IP:127.0.0.1 2>/dev/null
# A 300-byte JSON body, like an APNs notification.
python3 -c 'import json; b={"aps":{"alert":{"title":"Benchmark","body":"x"*200},"badge":1,"sound":"default"}}; s=json.dumps(b,separators=(",",":")); s=s.replace("x"*200,"x"*(200+300-len(s))); open("'"$WORK"'/body.json","w").write(s)'
echo "body: $(wc -c <"$WORK/body.json") bytes"

port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
PD_TLS=$(port); PD_PLAIN=$(port); NG_PORT=$(port); NGINX_PORT=$(port)

"$BIN" "$WORK/cert.pem" "$WORK/key.pem" "$PD_TLS" "$PD_PLAIN" "$LOOPS" "$ACCEPT" >"$WORK/pd.log" 2>&1 & PIDS+=($!)
mkdir -p "$WORK/htdocs/3/device"; : >"$WORK/htdocs/3/device/x"
nghttpd -d "$WORK/htdocs" "$NG_PORT" "$WORK/key.pem" "$WORK/cert.pem" >/dev/null 2>&1 & PIDS+=($!)
cat >"$WORK/nginx.conf" <<NGINX
worker_processes 1;
daemon off;
pid $WORK/nginx.pid;
error_log $WORK/nginx.err;
events { worker_connections 1024; }
http {
  access_log off;
  keepalive_requests 1000000;
  server { listen 127.0.0.1:$NGINX_PORT; location / { return 200; } }
}
NGINX
nginx -c "$WORK/nginx.conf" -p "$WORK" >/dev/null 2>&1 & PIDS+=($!)
sleep 1

rps() { grep -Eo 'finished in [0-9.]+m?s, [0-9.]+ req/s' | grep -Eo '[0-9.]+ req/s' | grep -Eo '[0-9.]+'; }
check() { grep -E '^requests:' ; }
h2() { h2load -D "$DURATION" --warm-up-time="$WARMUP" -c 10 -m 100 -d "$WORK/body.json" -H 'content-type: application/json' "$1" 2>&1; }
h1() { h2load --h1 -D "$DURATION" --warm-up-time="$WARMUP" -c 10 -m 1 "$1" 2>&1; }

median() { python3 -c 'import sys,statistics; print(round(statistics.median(float(x) for x in sys.argv[1:]),1))' "$@"; }
ROUNDS=${ROUNDS:-3}

echo "== h2 over TLS, POST 300-byte JSON, h2load -c10 -m100 -D ${DURATION}s (PushDouble loops=$LOOPS accept=$ACCEPT; nghttpd 1 thread); median of $ROUNDS alternating rounds"
PDS=(); NGS=()
for i in $(seq "$ROUNDS"); do
  PD_OUT=$(h2 "https://127.0.0.1:$PD_TLS/3/device/x"); NG_OUT=$(h2 "https://127.0.0.1:$NG_PORT/3/device/x")
  echo "  round $i PushDouble: $(echo "$PD_OUT" | check) | $(echo "$PD_OUT" | rps) req/s"
  echo "  round $i nghttpd:    $(echo "$NG_OUT" | check) | $(echo "$NG_OUT" | rps) req/s"
  PDS+=("$(echo "$PD_OUT" | rps)"); NGS+=("$(echo "$NG_OUT" | rps)")
done
PD=$(median "${PDS[@]}"); NG=$(median "${NGS[@]}")
echo "PushDouble h2 req/s: $PD   nghttpd h2 req/s: $NG   ratio: $(python3 -c "print(round($PD/$NG,3))")"

echo "== HTTP/1.1 keep-alive, GET, h2load --h1 -c10 -D ${DURATION}s (nginx 1 worker, return 200); median of $ROUNDS alternating rounds"
PDS=(); NXS=()
for i in $(seq "$ROUNDS"); do
  PD1_OUT=$(h1 "http://127.0.0.1:$PD_PLAIN/"); NX_OUT=$(h1 "http://127.0.0.1:$NGINX_PORT/")
  echo "  round $i PushDouble: $(echo "$PD1_OUT" | check) | $(echo "$PD1_OUT" | rps) req/s"
  echo "  round $i nginx:      $(echo "$NX_OUT" | check) | $(echo "$NX_OUT" | rps) req/s"
  PDS+=("$(echo "$PD1_OUT" | rps)"); NXS+=("$(echo "$NX_OUT" | rps)")
done
PD1=$(median "${PDS[@]}"); NX=$(median "${NXS[@]}")
echo "PushDouble h1 req/s: $PD1   nginx h1 req/s: $NX   ratio: $(python3 -c "print(round($PD1/$NX,3))")"
