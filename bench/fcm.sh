#!/usr/bin/env bash
# FCM benchmark (not a test): the FCM fake (`pushdouble serve`: Bearer check, full message
# validation, device lookup, history on) vs nghttpd, h2 over TLS, same machine, same run,
# alternating rounds.
#   bench/fcm.sh [seconds] [rounds]
# Env: PD_BIN=<path to a pushdouble binary> (skips the build), NO_BUILD=1 (use the existing
#      release build), ROUNDS, DURATION, WARMUP, CLIENTS, CONNECTIONS, URIS,
#      PD_BIN_BASE=<an older pushdouble binary>: its `serve --quiet` joins the rounds as `base`
#      (before/after under the same load; the machine is shared).
#
# Every request: POST /v1/projects/pushdouble-test/messages:send with a ~300-byte JSON
# message (notification, data, android ttl/priority) and `authorization: Bearer <access
# token>`, a real token minted first from the fake's own /token endpoint with the shipped
# service account (RS256 assertion).
#
# Distinct registration tokens: FCM v1 carries the token in the JSON body only (docs/fcm.md §2.1),
# and h2load sends one body file (`-d`) for every request of a run. So each round runs
# CLIENTS (default 10) h2load processes in parallel, each `-c CONNECTIONS/CLIENTS -m100`
# (CONNECTIONS default 10) with its own body file naming its own registration token
# (well-formed, unregistered: the default open world answers 200, docs/fcm.md §4.4 and
# "Devices, magic tokens, …"), all for the same duration; the round's figure is the sum of their req/s. That is
# the same 10 connections × 100 streams as one `h2load -c10 -m100` (bench/apns.sh), and nghttpd
# is measured with exactly the same processes and files. CLIENTS=1 is the old single-token
# bench. On a loaded machine more client processes take a larger share of the CPU, which
# favours the cheaper server: compare ratios at the same CLIENTS. Each client also walks URIS (default 1000) distinct URIs (h2load -i,
# a `?n=` query the fake ignores), the same for both servers. Afterwards the history is asked,
# per registration token, for its last fcm.send: each must be a 200.
# Duration-based (-D with --warm-up-time, never -n).
#   serve        default `pushdouble serve`, its one-line-per-exchange log going to a file
#   serve-quiet  `pushdouble serve --quiet`
#   nghttpd      nghttp2's server answering the same path from an empty file
# Reported: the median over the rounds of each, and the ratio of medians vs nghttpd.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${1:-${DURATION:-4}}
ROUNDS=${2:-${ROUNDS:-3}}
WARMUP=${WARMUP:-1}
CLIENTS=${CLIENTS:-10}
CONNECTIONS=${CONNECTIONS:-10}
URIS=${URIS:-1000}
[ $((CONNECTIONS % CLIENTS)) -eq 0 ] || { echo "CONNECTIONS ($CONNECTIONS) must be a multiple of CLIENTS ($CLIENTS)" >&2; exit 2; }
. bench/common.sh
fcm_bodies "$WORK" "$CLIENTS"
echo "body: $(wc -c <"$WORK/fcm.0.json") bytes, $CLIENTS distinct registration tokens (one h2load client each), $URIS distinct URIs"

# Starts `pushdouble serve`; sets URL_<name>, PID_<name> and TOKEN_<name> (an access token
# minted by that server's token endpoint, bench/common.sh `fcm_access_token`).
start_pd() {
  start_serve "$@"
  local name=$1
  printf -v "URL_$name" '%s' "$(serve_endpoint_url "$WORK/$name.json" fcm)"
  printf -v "TOKEN_$name" '%s' "$(fcm_access_token "$WORK/$name.json")"
}
start_pd serve
start_pd quiet --quiet
SERVERS="serve quiet"
if [ -n "${PD_BIN_BASE:-}" ]; then
  NEW_BIN=$BIN; BIN=$PD_BIN_BASE; start_pd base --quiet; BIN=$NEW_BIN
  SERVERS="$SERVERS base"
fi
SERVERS="$SERVERS nghttpd"
NG_PORT=$(port)
mkdir -p "$WORK/htdocs/v1/projects/pushdouble-test"; : >"$WORK/htdocs/v1/projects/pushdouble-test/messages:send"
nghttpd -d "$WORK/htdocs" "$NG_PORT" Certificates/pushdouble-test-server.key.pem Certificates/pushdouble-test-server.pem >/dev/null 2>&1 & PID_nghttpd=$!; PIDS+=($PID_nghttpd)
URL_nghttpd="https://127.0.0.1:$NG_PORT"
TOKEN_nghttpd=$TOKEN_serve
sleep 1

for n in $SERVERS; do
  u="URL_$n"; python3 -c 'import sys; [print(f"{sys.argv[1]}/v1/projects/pushdouble-test/messages:send?n={i}") for i in range(int(sys.argv[2]))]' "${!u}" "$URIS" >"$WORK/uris.$n"
done

# `h2 NAME`: CLIENTS h2load processes at once against server NAME, one body (token) each;
# prints their sum in h2load's own format (the lines run_rounds reads).
h2() {
  local t="TOKEN_$1" k pids=()
  for k in $(seq 0 $((CLIENTS - 1))); do
    h2load -D "$DURATION" --warm-up-time="$WARMUP" -c $((CONNECTIONS / CLIENTS)) -m 100 -d "$WORK/fcm.$k.json" -i "$WORK/uris.$1" \
      -H "authorization: Bearer ${!t}" -H 'content-type: application/json' >"$WORK/h2.$k" 2>&1 & pids+=($!)
  done
  for k in "${pids[@]}"; do wait "$k" || true; done
  python3 - "$WORK" "$CLIENTS" <<'PY'
import re, sys
work, clients = sys.argv[1], int(sys.argv[2])
rps, secs, req, codes = 0.0, 0.0, [0] * 7, [0] * 4
for k in range(clients):
    out = open(f"{work}/h2.{k}").read()
    m = re.search(r"finished in ([0-9.]+)(m?)s, ([0-9.]+) req/s", out)
    if not m: sys.exit(f"client {k}: no result\n{out}")
    secs = max(secs, float(m.group(1)) / (1000 if m.group(2) else 1)); rps += float(m.group(3))
    r = re.search(r"^requests: (\d+) total, (\d+) started, (\d+) done, (\d+) succeeded, (\d+) failed, (\d+) errored, (\d+) timeout", out, re.M)
    req = [a + int(b) for a, b in zip(req, r.groups())]
    c = re.search(r"^status codes: (\d+) 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx", out, re.M)
    codes = [a + int(b) for a, b in zip(codes, c.groups())]
print(f"finished in {secs:.2f}s, {rps:.2f} req/s ({clients} clients summed)")
print("requests: %d total, %d started, %d done, %d succeeded, %d failed, %d errored, %d timeout" % tuple(req))
print("status codes: %d 2xx, %d 3xx, %d 4xx, %d 5xx" % tuple(codes))
PY
}

echo "== h2 over TLS, POST FCM message + Bearer, $CLIENTS × h2load -c$((CONNECTIONS / CLIENTS)) -m100 -D ${DURATION}s --warm-up-time=${WARMUP}s; $ROUNDS alternating rounds"
echo "   load before: $(cut -d' ' -f1-3 /proc/loadavg)"
# shellcheck disable=SC2086
run_rounds $SERVERS
# shellcheck disable=SC2086
SM=$(median ${ALL[serve]}); QM=$(median ${ALL[quiet]}); NM=$(median ${ALL[nghttpd]})
# Every measured request of the fake must have been a 200 (a valid token, a valid message).
# Every registration token must have reached the fake and been answered 200.
STATUS=$(python3 - "$(serve_endpoint_url "$WORK/quiet.json" admin)" "$CLIENTS" "$WORK/fcm" <<'PY'
import json, sys, urllib.parse, urllib.request
admin, clients, bodies = sys.argv[1], int(sys.argv[2]), sys.argv[3]
seen = {}
for k in range(clients):
    token = json.load(open(f"{bodies}.{k}.json"))["message"]["token"]
    q = urllib.parse.urlencode({"endpoint": "fcm.send", "token": token, "limit": 1})
    e = json.load(urllib.request.urlopen(f"{admin}/history?{q}"))["exchanges"]
    s = e[0]["response"]["status"] if e else "none"
    seen[s] = seen.get(s, 0) + 1
print(", ".join(f"{n} tokens: {s}" for s, n in sorted(seen.items(), key=str)))
PY
)
echo "   last recorded fcm.send status per registration token (serve --quiet): $STATUS"
[ -n "${PD_BIN_BASE:-}" ] && { BM=$(median ${ALL[base]}); echo "   base (PD_BIN_BASE, serve --quiet): $BM req/s ($(python3 -c "print(round($BM/$NM,3))")x)"; }
echo "SUMMARY (median of $ROUNDS) serve: $SM req/s ($(python3 -c "print(round($SM/$NM,3))")x, target >= 0.75)   serve --quiet: $QM req/s ($(python3 -c "print(round($QM/$NM,3))")x, target >= 0.85)   nghttpd: $NM req/s   load: $(cut -d' ' -f1-3 /proc/loadavg)"
