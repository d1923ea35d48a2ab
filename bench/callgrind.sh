#!/usr/bin/env bash
# Request-path cost in instructions, per fake (not a test; repeatable on a loaded machine,
# unlike req/s or µs): `pushdouble serve --quiet` under valgrind's callgrind, a warm-up run,
# counters zeroed, then a measured run of SECONDS; prints instructions per request (the whole
# process: TLS, HTTP/2, HPACK, the fake, the history; the TLS handshakes of the measured
# connections apart) and the top functions by inclusive and self cost.
#   bench/callgrind.sh PROVIDER [seconds] [top]      PROVIDER: apns | fcm | webpush | expo
# Env: PD_BIN / NO_BUILD as for the other scripts, CLIENTS (FCM: distinct registration tokens,
#      one h2load client each, default 10), STREAMS (APNs and FCM: streams per connection, 10
#      connections, default 10), WARMUP (seconds, default 2), KEEP=<dir> (keep the
#      callgrind output there), LOG=1 (measure the default `serve`, its exchange log written to
#      a file by its own thread, instead of `serve --quiet`).
# The requests are the throughput scripts' (bench/apns.sh, bench/fcm.sh, bench/webpush.sh,
# bench/expo.sh: same bodies, tokens, credentials), duration-based (h2load -D with
# --warm-up-time). The request count is the server's own: the history's `nextSeq` (GET /health)
# after the dump minus before the zeroing, so it is exactly the requests callgrind counted
# (h2load's own count leaves out its warm-up and the requests in flight when it stops). Expo
# also prints instructions per notification (100 per request). Every request in flight when the
# counters are zeroed or dumped is counted in part, so few streams are kept in flight against
# the requests measured: APNs and FCM 10 connections × STREAMS (10; the throughput scripts use
# 100), Web Push -c4 -m2, Expo -c2 -m2 (under callgrind a request takes ~50 times as long and
# only a few hundred of those are measured; with 100 in flight the figure moved by ~20%). Web Push uses 10
# subscriptions, not 100: each client walks the URIs from the first, and every subscription's
# keys are decoded once, when first used, which the warm-up must have done.
set -euo pipefail
cd "$(dirname "$0")/.."
PROVIDER=${1:?usage: bench/callgrind.sh apns|fcm|webpush|expo [seconds] [top]}
DURATION=${2:-10}
TOP=${3:-40}
WARMUP=${WARMUP:-2}
CLIENTS=${CLIENTS:-10}
STREAMS=${STREAMS:-10}
. bench/common.sh

QUIET=--quiet; [ -n "${LOG:-}" ] && QUIET=
EXTRA=()
if [ "$PROVIDER" = expo ]; then expo_files "$WORK"; EXTRA=(--scenario "$WORK/scenario.json"); fi
# shellcheck disable=SC2086
valgrind --tool=callgrind --callgrind-out-file="$WORK/callgrind.out" \
  "$BIN" serve --ephemeral $QUIET "${EXTRA[@]}" --endpoints-file "$WORK/pd.json" >"$WORK/pd.log" 2>&1 & PID=$!; PIDS+=($PID)
for _ in $(seq 600); do [ -s "$WORK/pd.json" ] && break; sleep 0.1; done
[ -s "$WORK/pd.json" ] || { cat "$WORK/pd.log"; exit 1; }
ADMIN=$(serve_endpoint_url "$WORK/pd.json" admin)

# `load SECONDS`: the provider's h2load client(s) for SECONDS after a one-second warm-up;
# prints the 2xx count h2load saw. Each run is bounded (duration + 60 s), so a stalled
# connection under callgrind cannot hang the script.
# `h2 SECONDS h2load-args…`: one bounded h2load run, its output (never failing the script).
h2() { local d=$1; shift; timeout $(( d + 60 )) h2load -D "$d" --warm-up-time 1 "$@" 2>&1 || true; }
case $PROVIDER in
  apns)
    apns_tokens "$WORK" 1000
    sed "s|^|$(serve_endpoint_url "$WORK/pd.json" apns-production)/3/device/|" "$WORK/tokens" >"$WORK/uris"
    load() { h2 "$1" -c 10 -m "$STREAMS" -d "$WORK/body.json" -i "$WORK/uris" \
      -H "authorization: bearer $JWT" -H 'apns-topic: com.example.pushdouble' -H 'apns-push-type: alert' \
      -H 'content-type: application/json' | two_xx; } ;;
  fcm)
    fcm_bodies "$WORK" "$CLIENTS"
    URL=$(serve_endpoint_url "$WORK/pd.json" fcm)/v1/projects/pushdouble-test/messages:send
    TOKEN=$(fcm_access_token "$WORK/pd.json")
    load() {
      local k pids=()
      rm -f "$WORK"/h2.*
      for k in $(seq 0 $((CLIENTS - 1))); do
        h2 "$1" -c 1 -m "$STREAMS" -d "$WORK/fcm.$k.json" -H "authorization: Bearer $TOKEN" \
          -H 'content-type: application/json' "$URL" >"$WORK/h2.$k" & pids+=($!)
      done
      for k in "${pids[@]}"; do wait "$k" || true; done
      cat "$WORK"/h2.* | two_xx
    } ;;
  webpush)
    URL=$(serve_endpoint_url "$WORK/pd.json" webpush)
    webpush_subscriptions "$WORK" 10 "$ADMIN"
    VAPID=$(webpush_vapid "$URL")
    sed "s|^|$URL/wpush/v1/|" "$WORK/tokens" >"$WORK/uris"
    load() { h2 "$1" -c 4 -m 2 -d "$WORK/body.bin" -i "$WORK/uris" \
      -H "authorization: $VAPID" -H 'ttl: 60' -H 'urgency: normal' -H 'content-encoding: aes128gcm' | two_xx; } ;;
  expo)
    URL=$(serve_endpoint_url "$WORK/pd.json" expo)/--/api/v2/push/send
    ACCESS_TOKEN=$(cat Certificates/expo-test-access-token.txt)
    load() { h2 "$1" -c 2 -m 2 -d "$WORK/expo.json" \
      -H "authorization: Bearer $ACCESS_TOKEN" -H 'content-type: application/json' "$URL" | two_xx; } ;;
  *) echo "unknown provider $PROVIDER (apns, fcm, webpush, expo)" >&2; exit 2 ;;
esac
two_xx() { awk '/^status codes:/ {s += $3} END {print s + 0}'; }

echo "warm-up: $(load "$WARMUP") × 2xx"
FIRST=$(next_seq "$ADMIN")
callgrind_control -z "$PID" >/dev/null
OK=$(load "$DURATION")
callgrind_control -d "$PID" >/dev/null
N=$(( $(next_seq "$ADMIN") - FIRST ))
[ "$N" -gt 0 ] || { echo "no request reached the server"; exit 1; }
echo "measured: $N requests served in ${DURATION} s (+1 s warm-up) under callgrind; h2load counted $OK × 2xx after its warm-up"
OUT=$(ls -t "$WORK"/callgrind.out.* | head -1)
IR=$(callgrind_annotate "$OUT" 2>/dev/null | grep -m1 -E 'PROGRAM TOTALS' | grep -Eo '^[0-9,]+' | tr -d ,)
# The measured run opens its own connections: their TLS handshakes (SSL_do_handshake, inclusive)
# are counted, and printed apart (they matter when few requests are measured, as for Web Push).
HS=$(callgrind_annotate --inclusive=yes "$OUT" 2>/dev/null | grep -m1 -E ':SSL_do_handshake ' | grep -Eo '^ *[0-9,]+' | tr -d ', ' || true)
HS=${HS:-0}
PER=""; [ "$PROVIDER" = expo ] && PER=", $(( (IR - HS) / N / 100 )) per notification"
echo "SUMMARY $PROVIDER instructions per request: $(( (IR - HS) / N ))$PER without the measured connections' TLS handshakes ($(( IR / N )) with them; total $IR Ir, handshakes $HS Ir, $N requests, ${DURATION} s)"
# Function names demangled and shortened (swift-demangle --simplified), file paths dropped.
annotate() {
  callgrind_annotate --threshold=100 "$@" "$OUT" 2>/dev/null | sed -n '/file:function/,$p' | sed -n "3,$((TOP + 2))p" |
    swift-demangle --simplified | sed -E 's/ [^ ]*:([^ ])/ \1/' | cut -c1-200 || true
}
echo "== inclusive (top $TOP)"; annotate --inclusive=yes
echo "== self (top $TOP)"; annotate
if [ -n "${KEEP:-}" ]; then mkdir -p "$KEEP"; cp "$OUT" "$KEEP/$PROVIDER.$(basename "$OUT")"; echo "kept $KEEP/$PROVIDER.$(basename "$OUT")"; fi
