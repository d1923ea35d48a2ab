#!/usr/bin/env bash
# APNs benchmark (not a test): the APNs fake (`pushdouble serve`: full validation, JWT auth,
# history on) vs nghttpd, h2 over TLS, same machine, same run, alternating rounds.
#   bench/apns.sh [seconds] [rounds]
# Env: PD_BIN=<path to a pushdouble binary> (skips the build; e.g. an older build to compare),
#      NO_BUILD=1 (use the existing release build), ROUNDS, DURATION, WARMUP, TOKENS.
#
# Every request: POST /3/device/<64 hex>, one of TOKENS (default 1000) distinct tokens
# (h2load -i), a 300-byte JSON alert, `authorization: bearer <JWT>` (ES256, kid PDTESTKEY1,
# team PDTESTTEAM, minted now), `apns-topic`, `apns-push-type: alert`. h2load -c10 -m100.
#
# Runs are duration-based (h2load -D with --warm-up-time, never -n: a fixed count ends in a
# fraction of a second on nghttpd and understates it). Three servers per round, in turn:
#   serve        default `pushdouble serve`, its one-line-per-exchange log going to a file
#   serve-quiet  `pushdouble serve --quiet`
#   nghttpd      nghttp2's server answering the same paths from empty files
# The figure reported is the median over the rounds of each, and the ratio of medians vs
# nghttpd measured in this run. The fake announces MAX_CONCURRENT_STREAMS=1 first and raises
# it to 1000 once a connection is authenticated (like APNs), so h2load's first streams per
# connection may be refused (REFUSED_STREAM, counted as "errored" by h2load); that realism
# stays on, and the counts are printed.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${1:-${DURATION:-4}}
ROUNDS=${2:-${ROUNDS:-3}}
WARMUP=${WARMUP:-1}
TOKENS=${TOKENS:-1000}
. bench/common.sh
apns_tokens "$WORK" "$TOKENS"
echo "body: $(wc -c <"$WORK/body.json") bytes, $TOKENS distinct device tokens, JWT ${#JWT} chars"

# Starts `pushdouble serve` with extra flags; sets URL_<name> and PID_<name>.
start_pd() {
  start_serve "$@"
  printf -v "URL_$1" '%s' "$(serve_endpoint_url "$WORK/$1.json" apns-production)"
}
start_pd serve
start_pd quiet --quiet
NG_PORT=$(port)
mkdir -p "$WORK/htdocs/3/device"; while read -r t; do : >"$WORK/htdocs/3/device/$t"; done <"$WORK/tokens"
nghttpd -d "$WORK/htdocs" "$NG_PORT" Certificates/pushdouble-test-server.key.pem Certificates/pushdouble-test-server.pem >/dev/null 2>&1 & PID_nghttpd=$!; PIDS+=($PID_nghttpd)
URL_nghttpd="https://127.0.0.1:$NG_PORT"
sleep 1

# URI list per server (h2load -i: every line a full URI, one per token).
for n in serve quiet nghttpd; do
  u="URL_$n"; sed "s|^|${!u}/3/device/|" "$WORK/tokens" >"$WORK/uris.$n"
done

h2() {
  h2load -D "$DURATION" --warm-up-time="$WARMUP" -c 10 -m 100 -d "$WORK/body.json" -i "$WORK/uris.$1" \
    -H "authorization: bearer $JWT" -H 'apns-topic: com.example.pushdouble' -H 'apns-push-type: alert' \
    -H 'content-type: application/json' 2>&1
}

echo "== h2 over TLS, POST 300-byte JSON + JWT, h2load -c10 -m100 -D ${DURATION}s --warm-up-time=${WARMUP}s; $ROUNDS alternating rounds"
echo "   load before: $(cut -d' ' -f1-3 /proc/loadavg)"
run_rounds serve quiet nghttpd
# shellcheck disable=SC2086
SM=$(median ${ALL[serve]}); QM=$(median ${ALL[quiet]}); NM=$(median ${ALL[nghttpd]})
RSS_SERVE=$(rss "$PID_serve"); RSS_QUIET=$(rss "$PID_quiet")
# Stop the default server so its log is flushed, then check it is complete: every exchange
# is either a line or counted in a "… log lines dropped" line.
kill -TERM "$PID_serve"; wait "$PID_serve" 2>/dev/null || true
LOGLINES=$(grep -c ' → ' "$WORK/serve.log" || true)
DROPPED=$( (grep -Eo '[0-9]+ log lines dropped' "$WORK/serve.log" || true) | awk '{s+=$1} END {print s+0}')
TOTAL=$(grep -Eo 'stopping \([0-9]+ exchanges' "$WORK/serve.log" | grep -Eo '[0-9]+' || echo '?')
echo "   log of default serve: $TOTAL exchanges = $LOGLINES lines + $DROPPED reported dropped ($( [ "$TOTAL" = "$((LOGLINES + DROPPED))" ] && echo complete || echo INCOMPLETE)), $(wc -c <"$WORK/serve.log") bytes"
echo "   RSS at the end: serve $RSS_SERVE MB, serve --quiet $RSS_QUIET MB (history cap 50000)"
echo "SUMMARY (median of $ROUNDS) serve: $SM req/s ($(python3 -c "print(round($SM/$NM,3))")x, target >= 0.75)   serve --quiet: $QM req/s ($(python3 -c "print(round($QM/$NM,3))")x, target >= 0.85)   nghttpd: $NM req/s   load: $(cut -d' ' -f1-3 /proc/loadavg)"
