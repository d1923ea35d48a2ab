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
# Reported: the median over the rounds of each, and the ratio of medians vs nghttpd in this
# run; at the end, that the history of the quiet server decrypted the plaintext.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${1:-${DURATION:-4}}
ROUNDS=${2:-${ROUNDS:-3}}
WARMUP=${WARMUP:-1}
SUBSCRIPTIONS=${SUBSCRIPTIONS:-100}
. bench/common.sh

endpoint_url() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print([e["url"] for e in d["endpoints"] if e["name"]==sys.argv[2]][0])' "$1" "$2"; }
# Starts `pushdouble serve` with extra flags; sets URL_<name>, ADMIN_<name> and PID_<name>.
start_pd() {
  local name=$1; shift
  "$BIN" serve --ephemeral --endpoints-file "$WORK/$name.json" "$@" >"$WORK/$name.log" 2>&1 & local pid=$!; PIDS+=($pid)
  for _ in $(seq 100); do [ -s "$WORK/$name.json" ] && break; sleep 0.1; done
  printf -v "URL_$name" '%s' "$(endpoint_url "$WORK/$name.json" webpush)"
  printf -v "ADMIN_$name" '%s' "$(endpoint_url "$WORK/$name.json" admin)"
  printf -v "PID_$name" '%s' "$pid"
}
start_pd serve
start_pd quiet --quiet
NG_PORT=$(port)
URL_nghttpd="https://127.0.0.1:$NG_PORT"

# One browser key pair, SUBSCRIPTIONS tokens; the same subscriptions on both fakes (devices
# through the admin API), the body encrypted once, the JWT minted for each server's origin.
python3 - "$WORK" "$SUBSCRIPTIONS" "$ADMIN_serve" "$ADMIN_quiet" <<'EOF'
import base64, json, os, sys, urllib.request
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from pywebpush import WebPusher
work, n, admins = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
b64 = lambda b: base64.urlsafe_b64encode(b).rstrip(b"=").decode()
ua = ec.generate_private_key(ec.SECP256R1())
p256dh = b64(ua.public_key().public_bytes(Encoding.X962, PublicFormat.UncompressedPoint))
auth = b64(os.urandom(16))
private = b64(ua.private_numbers().private_value.to_bytes(32, "big"))
tokens = ["bench%04d%s" % (i, b64(os.urandom(16))) for i in range(n)]
devices = [{"id": "b%d" % i, "provider": "webpush", "privateKey": private,
            "subscription": {"endpoint": "/wpush/v1/" + t, "expirationTime": None, "keys": {"p256dh": p256dh, "auth": auth}}}
           for i, t in enumerate(tokens)]
for a in admins:
    req = urllib.request.Request(a + "/devices", data=json.dumps(devices).encode(), method="POST", headers={"content-type": "application/json"})
    assert urllib.request.urlopen(req).status in (200, 201)
plaintext = ("bench " + "x" * 506).encode()
sub = {"endpoint": "https://127.0.0.1/wpush/v1/" + tokens[0], "keys": {"p256dh": p256dh, "auth": auth}}
body = WebPusher(sub).encode(plaintext, "aes128gcm")["body"]
open(work + "/body.bin", "wb").write(body)
open(work + "/tokens", "w").write("\n".join(tokens) + "\n")
open(work + "/plaintext", "w").write(plaintext.decode())
EOF
vapid() {
  python3 - "$1" <<'EOF'
import base64, jwt, sys, time
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
pem = open("Certificates/vapid-test-private.pem", "rb").read()
k = serialization.load_pem_private_key(pem, None).public_key().public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
t = jwt.encode({"aud": sys.argv[1], "exp": int(time.time()) + 12 * 3600, "sub": "mailto:pushdouble@example.com"}, pem, algorithm="ES256", headers={"typ": "JWT"})
print("vapid t=%s, k=%s" % (t, base64.urlsafe_b64encode(k).rstrip(b"=").decode()))
EOF
}
for n in serve quiet nghttpd; do u="URL_$n"; printf -v "VAPID_$n" '%s' "$(vapid "${!u}")"; done
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
run_rounds serve quiet nghttpd
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
echo "SUMMARY (median of $ROUNDS) serve: $SM req/s ($(python3 -c "print(round($SM/$NM,3))")x)   serve --quiet: $QM req/s ($(python3 -c "print(round($QM/$NM,3))")x)   nghttpd: $NM req/s   load: $(cut -d' ' -f1-3 /proc/loadavg)"
