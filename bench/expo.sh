#!/usr/bin/env bash
# Expo benchmark (not a test): the Expo fake (`pushdouble serve --quiet`: access token, body
# decoding and validation, one device lookup per recipient, a ticket and a stored receipt per
# recipient, history on) vs nghttpd, h2 over TLS, same machine, same run, alternating rounds.
#   bench/expo.sh [seconds] [rounds]
# Env: PD_BIN=<path to a pushdouble binary> (skips the build), NO_BUILD=1, ROUNDS, DURATION,
#      WARMUP, GZIP=1 (send the body gzip-compressed, as the Node SDK does over 1024 bytes).
#
# Every request: POST /--/api/v2/push/send with 100 messages (one recipient each, distinct
# tokens, title + body, ~12 KB of JSON), `authorization: Bearer <EXPO_ACCESS_TOKEN>`.
# h2load -c10 -m10. The fake runs with `rateLimitPerSecond: 0` (a scenario's fakeOptions):
# at Expo's 600 notifications/s per project it would refuse all but 6 requests a second.
# nghttpd answers the same path with a static 4 KB file (about the size of 100 tickets).
# Runs are duration-based (h2load -D with --warm-up-time, never -n). Reported: the median
# req/s of each and the ratio vs nghttpd in this run; notifications/s = 100 × req/s; and the
# target figure: the fake's server CPU per notification (CPU time of its process over the
# requests its history counted, / 100), median over the rounds.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${1:-${DURATION:-4}}
ROUNDS=${2:-${ROUNDS:-3}}
WARMUP=${WARMUP:-1}
. bench/common.sh
ACCESS_TOKEN=$(cat Certificates/expo-test-access-token.txt)
expo_files "$WORK"
BODY="$WORK/expo.json"; ENCODING=()
if [ "${GZIP:-0}" = 1 ]; then BODY="$WORK/expo.json.gz"; ENCODING=(-H 'content-encoding: gzip'); fi
echo "body: 100 messages, $(wc -c <"$WORK/expo.json") bytes ($(wc -c <"$WORK/expo.json.gz") gzipped; sending $(basename "$BODY"))"

start_serve pd --quiet --scenario "$WORK/scenario.json"
URL_pd=$(serve_endpoint_url "$WORK/pd.json" expo)
NG_PORT=$(port)
mkdir -p "$WORK/htdocs/--/api/v2/push"; head -c 4096 /dev/zero | tr '\0' 'x' >"$WORK/htdocs/--/api/v2/push/send"
nghttpd -d "$WORK/htdocs" "$NG_PORT" Certificates/pushdouble-test-server.key.pem Certificates/pushdouble-test-server.pem >/dev/null 2>&1 & PID_ng=$!; PIDS+=($PID_ng)
URL_ng="https://127.0.0.1:$NG_PORT"
sleep 1
# A check request: the fake answers 100 ok tickets.
OKS=$(curl -sS --cacert Certificates/pushdouble-test-ca.pem -H "authorization: Bearer $ACCESS_TOKEN" -H 'content-type: application/json' \
  "${ENCODING[@]}" --data-binary "@$BODY" "$URL_pd/--/api/v2/push/send" | grep -o '"status":"ok"' | wc -l)
echo "check request: $OKS ok tickets of 100"

# h2 NAME: one h2load run against server NAME (URL_NAME); run_rounds (bench/common.sh) alternates them.
h2() {
  local u="URL_$1"
  h2load -D "$DURATION" --warm-up-time="$WARMUP" -c 10 -m 10 -d "$BODY" "${ENCODING[@]}" \
    -H "authorization: Bearer $ACCESS_TOKEN" -H 'content-type: application/json' "${!u}/--/api/v2/push/send" 2>&1
}

echo "== h2 over TLS, POST 100 messages, h2load -c10 -m10 -D ${DURATION}s --warm-up-time=${WARMUP}s; $ROUNDS alternating rounds (pd = the Expo fake, ng = nghttpd)"
echo "   load before: $(cut -d' ' -f1-3 /proc/loadavg)"
run_rounds pd ng
# shellcheck disable=SC2086
PM=$(median ${ALL[pd]}); NM=$(median ${ALL[ng]})
# Server CPU per notification: the fake's CPU time over the requests its history counted, / 100.
# shellcheck disable=SC2086
CM=$(median ${CPUS[pd]}); PERN=$(python3 -c "print(round($CM/100,2))")
echo "   RSS at the end: expo fake $(rss "$PID_pd") MB (history cap 50000, receipts cap 100000)"
echo "SUMMARY (median of $ROUNDS) expo fake: $PERN µs server CPU per notification (target <= 5; $CM µs per request of 100)   $PM req/s = $(python3 -c "print(int($PM*100))") notifications/s ($(python3 -c "print(round($PM/$NM,3))")x nghttpd)   nghttpd: $NM req/s   load: $(cut -d' ' -f1-3 /proc/loadavg)"
