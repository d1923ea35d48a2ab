#!/usr/bin/env bash
# Web Push benchmark (not a test): the Web Push fake (`pushdouble serve`: full RFC 8030 checks,
# VAPID signature and claims verified, every message decrypted by the browser half, history on)
# vs nghttpd, h2 over TLS, same machine, same run, alternating rounds.
#   bench/webpush.sh [seconds] [rounds]
# Env: PD_BIN=<path to a pushdouble binary> (skips the build), NO_BUILD=1 (use the existing
#      release build), ROUNDS, DURATION, WARMUP, SUBSCRIPTIONS.
#
# Every request: POST /wpush/v1/<token> (autopush style) to one of SUBSCRIPTIONS (default 100)
# registered subscriptions (h2load -i), a 512-byte plaintext encrypted with aes128gcm
# (pywebpush's encoder) to the subscriptions' keys (they share one key pair, so the one body
# decrypts for all of them: every message is really decrypted), `ttl: 60`, `urgency: normal`,
# `authorization: vapid t=<JWT>, k=<key>` (ES256 with the shipped TEST-ONLY VAPID key, aud =
# the fake's origin). h2load -c10 -m100, duration-based (-D with --warm-up-time). Servers per
# round, in turn:
#   serve        default `pushdouble serve`, its one-line-per-exchange log going to a file
#   serve-quiet  `pushdouble serve --quiet`
#   nghttpd      nghttp2's server answering the same paths from empty files
# Reported: the target figure, the server's CPU time per message (its process's CPU over the
# requests its history counted) against the crypto each message needs measured alone in the
# same run with the same OpenSSL (bench/WebPushCrypto/webpush_crypto.c: import the sender's key,
# one P-256 ECDH, the HKDFs, one AES-128-GCM record; before and after the rounds); the median
# req/s of each and the ratio vs nghttpd; and that the history of the quiet server decrypted the
# plaintext.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${1:-${DURATION:-4}}
ROUNDS=${2:-${ROUNDS:-3}}
WARMUP=${WARMUP:-1}
SUBSCRIPTIONS=${SUBSCRIPTIONS:-100}
. bench/common.sh

# Starts `pushdouble serve` with extra flags; sets URL_<name>, ADMIN_<name> and PID_<name>.
start_pd() {
  start_serve "$@"
  printf -v "URL_$1" '%s' "$(serve_endpoint_url "$WORK/$1.json" webpush)"
}
start_pd serve
start_pd quiet --quiet
NG_PORT=$(port)
URL_nghttpd="https://127.0.0.1:$NG_PORT"

# One browser key pair, SUBSCRIPTIONS tokens; the same subscriptions on both fakes (devices
# through the admin API), the body encrypted once, the JWT minted for each server's origin.
webpush_subscriptions "$WORK" "$SUBSCRIPTIONS" "$ADMIN_serve" "$ADMIN_quiet"
for n in serve quiet nghttpd; do u="URL_$n"; printf -v "VAPID_$n" '%s' "$(webpush_vapid "${!u}")"; done
echo "body: $(wc -c <"$WORK/body.bin") bytes aes128gcm ($(wc -c <"$WORK/plaintext") bytes plaintext), $SUBSCRIPTIONS subscriptions, VAPID header ${#VAPID_serve} chars"

mkdir -p "$WORK/htdocs/wpush/v1"; while read -r t; do : >"$WORK/htdocs/wpush/v1/$t"; done <"$WORK/tokens"
nghttpd -d "$WORK/htdocs" "$NG_PORT" Certificates/pushdouble-test-server.key.pem Certificates/pushdouble-test-server.pem >/dev/null 2>&1 & PID_nghttpd=$!; PIDS+=($PID_nghttpd)
sleep 1
for n in serve quiet nghttpd; do
  u="URL_$n"; sed "s|^|${!u}/wpush/v1/|" "$WORK/tokens" >"$WORK/uris.$n"
done

h2() {
  local v="VAPID_$1"
  h2load -D "$DURATION" --warm-up-time="$WARMUP" -c 10 -m 100 -d "$WORK/body.bin" -i "$WORK/uris.$1" \
    -H "authorization: ${!v}" -H 'ttl: 60' -H 'urgency: normal' -H 'content-encoding: aes128gcm' 2>&1
}

echo "== h2 over TLS, POST aes128gcm + VAPID, h2load -c10 -m100 -D ${DURATION}s --warm-up-time=${WARMUP}s; $ROUNDS alternating rounds"
echo "   load before: $(cut -d' ' -f1-3 /proc/loadavg)"
# The crypto each message needs, alone, with the same OpenSSL (bench/WebPushCrypto): measured
# before and after the rounds, three times each, on the same body and browser key.
cc -O2 -o "$WORK/webpush_crypto" bench/WebPushCrypto/webpush_crypto.c -lcrypto
read -r -a KEYHEX < <(python3 -c 'import base64,json,sys; k=json.load(open(sys.argv[1])); d=lambda s: base64.urlsafe_b64decode(s+"="*(-len(s)%4)).hex(); print(d(k["privateKey"]), d(k["p256dh"]), d(k["auth"]))' "$WORK/browser-key.json")
CRYPTO=(); ECDH=()
crypto_ref() {
  local i r
  for i in 1 2 3; do
    read -r -a r < <("$WORK/webpush_crypto" "$WORK/body.bin" "${KEYHEX[@]}" "$WORK/plaintext" 2000)
    CRYPTO+=("${r[0]}"); ECDH+=("${r[1]}")
  done
}
crypto_ref
run_rounds serve quiet nghttpd
crypto_ref
# shellcheck disable=SC2086
SM=$(median ${ALL[serve]}); QM=$(median ${ALL[quiet]}); NM=$(median ${ALL[nghttpd]})
RSS_SERVE=$(rss "$PID_serve"); RSS_QUIET=$(rss "$PID_quiet")
# The browser half decrypted what was sent (last accepted exchange of the quiet server).
CHECK=$(python3 - "$ADMIN_quiet" "$WORK/plaintext" <<'EOF'
import json, sys, urllib.request
want = open(sys.argv[2]).read()
page = json.load(urllib.request.urlopen(sys.argv[1] + "/webpush/subscriptions/b0/messages"))
ok = [m for m in page if m["payload"] and m["payload"].get("data") == want]
print("%d messages to b0, %d decrypted to the plaintext, %d not" % (len(page), len(ok), len(page) - len(ok)))
EOF
)
echo "   browser half: $CHECK"
echo "   RSS at the end: serve $RSS_SERVE MB, serve --quiet $RSS_QUIET MB (history cap 50000)"
# shellcheck disable=SC2086
CS=$(median ${CPUS[serve]}); CQ=$(median ${CPUS[quiet]}); CR=$(median "${CRYPTO[@]}"); CE=$(median "${ECDH[@]}")
echo "   crypto per message alone (import the sender key, ECDH, HKDF, AES-128-GCM; bench/WebPushCrypto): ${CRYPTO[*]} µs (ECDH alone: ${ECDH[*]} µs)"
echo "SUMMARY (median of $ROUNDS) server CPU per message: serve $CS µs ($(python3 -c "print(round($CS/$CR,2))")x crypto)   serve --quiet $CQ µs ($(python3 -c "print(round($CQ/$CR,2))")x crypto, target <= 2)   crypto $CR µs (ECDH $CE µs)   req/s: serve $SM ($(python3 -c "print(round($SM/$NM,3))")x nghttpd), --quiet $QM ($(python3 -c "print(round($QM/$NM,3))")x), nghttpd $NM   load: $(cut -d' ' -f1-3 /proc/loadavg)"
