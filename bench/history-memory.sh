#!/usr/bin/env bash
# History memory benchmark (not a test): RSS of `pushdouble serve --quiet` with the history at
# its caps (count and bytes), one server per provider, and the bytes per stored message.
#   bench/history-memory.sh [providers]        (default: "apns fcm expo webpush")
# Env: PD_BIN=<pushdouble binary> (skips the build), NO_BUILD=1, HISTORY_CAP (default 50000),
#      MAX_BYTES (--history-max-bytes, default 256M), EXPO_MESSAGE_BYTES (default 3900),
#      WEBPUSH_PLAINTEXT (default 3000), DUMP=1 (also time a full JSON dump of the APNs history).
#
# Load per provider (h2 over TLS, h2load -c10 -m10, chunks of requests until the history has
# dropped exchanges, i.e. is at a cap, then one more chunk so evictions churn the allocator):
#   apns     300-byte JSON alerts to distinct device tokens (h2load -i), one JWT
#   fcm      ~300-byte messages (notification + data + android), one access token
#   expo     batches of 100 messages of EXPO_MESSAGE_BYTES each (~390 KB per request),
#            rateLimitPerSecond 0
#   webpush  aes128gcm payloads of WEBPUSH_PLAINTEXT bytes to 100 registered subscriptions
#            (each decrypted by the browser half), VAPID
# Reported per provider: requests sent, exchanges stored, messages stored (Expo: 100 per
# exchange), the history's accounted bytes (GET /health), RSS after a warm-up and at the cap,
# and (RSS at cap − RSS after warm-up) per stored message and per accounted byte.
set -euo pipefail
cd "$(dirname "$0")/.."
PROVIDERS=${1:-apns fcm expo webpush}
HISTORY_CAP=${HISTORY_CAP:-50000}
MAX_BYTES=${MAX_BYTES:-256M}
EXPO_MESSAGE_BYTES=${EXPO_MESSAGE_BYTES:-3900}
WEBPUSH_PLAINTEXT=${WEBPUSH_PLAINTEXT:-3000}
. bench/common.sh
health() { curl -s "$1/health" | python3 -c 'import json,sys; h=json.load(sys.stdin)["history"]; print(h["count"], h["dropped"], h["bytes"], h["maxBytes"])'; }
rsskb() { awk '/VmRSS/ {print $2}' "/proc/$1/status"; }

# Request material for every provider, made once.
ACCESS_TOKEN=$(cat Certificates/expo-test-access-token.txt)
fcm_bodies "$WORK" 1
python3 - "$WORK" "$EXPO_MESSAGE_BYTES" <<'PY'
import json, sys
work, size = sys.argv[1], int(sys.argv[2])
def message(i):
    m = {"to": "ExponentPushToken[bench%06d]" % i, "title": "Benchmark", "body": ""}
    m["body"] = "x" * (size - len(json.dumps(m, separators=(",", ":"))))
    return m
open(work + "/expo.json", "w").write(json.dumps([message(i) for i in range(100)], separators=(",", ":")))
PY

# fill NAME ADMIN PID CHUNK COMMAND…: runs COMMAND (an h2load of CHUNK requests) until the
# history has dropped exchanges, then once more; prints the requests sent.
fill() {
  local admin=$1 chunk=$2; shift 2
  local sent=0 extra=1
  for _ in $(seq 200); do
    "$@" -n "$chunk" >"$WORK/h2.out" 2>&1 || true
    sent=$((sent + chunk))
    read -r _ DROPPED _ _ <<<"$(health "$admin")"
    if [ "$DROPPED" -gt 0 ]; then [ $extra -eq 0 ] && break; extra=0; fi
  done
  echo "$sent $(grep -E '^status codes:' "$WORK/h2.out" | tr -d ',' | awk '{print $3"/"$5"/"$7"/"$9}')"
}

measure() {   # measure PROVIDER
  local p=$1 name=pd_$1 per=1 chunk url admin pid base sent n dropped bytes maxb r
  local opts=(--quiet --history-cap "$HISTORY_CAP" --history-max-bytes "$MAX_BYTES")
  [ "$p" = expo ] && opts+=(--option expo.rateLimitPerSecond=0)
  start_serve "$name" "${opts[@]}"
  pid="PID_$name"; pid=${!pid}
  admin=$(serve_endpoint_url "$WORK/$name.json" admin)
  case $p in
    apns)
      url=$(serve_endpoint_url "$WORK/$name.json" apns-production)
      python3 -c 'import sys; [print(sys.argv[1]+"/3/device/%064x" % (0x7c<<248 | i)) for i in range(int(sys.argv[2]))]' "$url" 200000 >"$WORK/uris.apns"
      run() { h2load -c 10 -m 10 -d "$WORK/body.json" -i "$WORK/uris.apns" -H "authorization: bearer $JWT" \
                -H 'apns-topic: com.example.pushdouble' -H 'apns-push-type: alert' -H 'content-type: application/json' "$@"; }
      chunk=20000 ;;
    fcm)
      url=$(serve_endpoint_url "$WORK/$name.json" fcm)
      local tok; tok=$(fcm_access_token "$WORK/$name.json")
      run() { h2load -c 10 -m 10 -d "$WORK/fcm.0.json" -H "authorization: Bearer $tok" -H 'content-type: application/json' \
                "$url/v1/projects/pushdouble-test/messages:send" "$@"; }
      chunk=20000 ;;
    expo)
      url=$(serve_endpoint_url "$WORK/$name.json" expo); per=100
      run() { h2load -c 10 -m 10 -d "$WORK/expo.json" -H "authorization: Bearer $ACCESS_TOKEN" -H 'content-type: application/json' \
                "$url/--/api/v2/push/send" "$@"; }
      chunk=200 ;;
    webpush)
      url=$(serve_endpoint_url "$WORK/$name.json" webpush)
      python3 - "$WORK" "$admin" "$url" "$WEBPUSH_PLAINTEXT" <<'PY'
import base64, json, os, sys, time, urllib.request
import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from pywebpush import WebPusher
work, admin, url, size = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
b64 = lambda b: base64.urlsafe_b64encode(b).rstrip(b"=").decode()
ua = ec.generate_private_key(ec.SECP256R1())
p256dh = b64(ua.public_key().public_bytes(Encoding.X962, PublicFormat.UncompressedPoint))
auth = b64(os.urandom(16))
private = b64(ua.private_numbers().private_value.to_bytes(32, "big"))
tokens = ["bench%04d%s" % (i, b64(os.urandom(16))) for i in range(100)]
devices = [{"id": "b%d" % i, "provider": "webpush", "privateKey": private,
            "subscription": {"endpoint": "/wpush/v1/" + t, "expirationTime": None, "keys": {"p256dh": p256dh, "auth": auth}}}
           for i, t in enumerate(tokens)]
req = urllib.request.Request(admin + "/devices", data=json.dumps(devices).encode(), method="POST", headers={"content-type": "application/json"})
assert urllib.request.urlopen(req).status in (200, 201)
sub = {"endpoint": url + "/wpush/v1/" + tokens[0], "keys": {"p256dh": p256dh, "auth": auth}}
open(work + "/webpush.bin", "wb").write(WebPusher(sub).encode(b"x" * size, "aes128gcm")["body"])
open(work + "/uris.webpush", "w").write("".join(url + "/wpush/v1/" + t + "\n" for t in tokens))
pem = open("Certificates/vapid-test-private.pem", "rb").read()
k = serialization.load_pem_private_key(pem, None).public_key().public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
t = jwt.encode({"aud": url, "exp": int(time.time()) + 12 * 3600, "sub": "mailto:pushdouble@example.com"}, pem, algorithm="ES256", headers={"typ": "JWT"})
open(work + "/vapid", "w").write("vapid t=%s, k=%s" % (t, b64(k)))
PY
      local vapid; vapid=$(cat "$WORK/vapid")
      run() { h2load -c 10 -m 10 -d "$WORK/webpush.bin" -i "$WORK/uris.webpush" -H "authorization: $vapid" -H 'ttl: 60' \
                -H 'content-encoding: aes128gcm' "$@"; }
      chunk=20000 ;;
  esac
  run -n 100 >/dev/null 2>&1 || true      # warm-up: TLS, loops, caches, allocator arenas
  sleep 0.5; base=$(rsskb "$pid")
  read -r sent codes <<<"$(fill "$admin" "$chunk" run)"
  sleep 0.5
  read -r n dropped bytes maxb <<<"$(health "$admin")"
  r=$(rsskb "$pid")
  curl -s "$admin/history?limit=1" | python3 -c 'import json,sys; e=json.load(sys.stdin)["exchanges"][0]; r=e["response"]; print("%-8s oldest stored: %s %s %s, request body %d bytes" % (sys.argv[1], r.get("status"), r.get("reason"), (r.get("body") or "")[:120], e["request"]["bodySize"]))' "$p"
  python3 - "$p" "$codes" "$sent" "$n" "$dropped" "$bytes" "$maxb" "$base" "$r" "$per" "$HISTORY_CAP" <<'PY'
import sys
p, codes, (sent, n, dropped, acc, maxb, base, r, per, cap) = sys.argv[1], sys.argv[2], map(int, sys.argv[3:])
msgs = n * per
which = "count cap" if n >= cap else "byte cap"
print("%-8s last chunk 2xx/3xx/4xx/5xx %s" % (p, codes))
print("%-8s %7d requests, history %6d exchanges (%s; %d dropped), %8d messages, accounted %4d MB of %d MB; "
      "RSS %4d MB (after warm-up %d MB): %6d bytes per stored message, RSS/accounted %.2f"
      % (p, sent, n, which, dropped, msgs, acc >> 20, maxb >> 20, r >> 10, base >> 10, (r - base) * 1024 // max(1, msgs),
         (r - base) * 1024 / max(1, acc)))
PY
  if [ "$p" = apns ] && [ "${DUMP:-0}" = 1 ]; then dump "$admin" "$pid"; fi
  kill "$pid" 2>/dev/null || true
}

# dump ADMIN PID: a full JSON dump (GET /history?limit=1000, following the cursor) while the
# RSS is sampled, to show what reading the whole history costs.
dump() {
  local admin=$1 pid=$2 peak t0 t1
  peak=$(rsskb "$pid"); echo "$peak" >"$WORK/peak"
  ( while kill -0 "$pid" 2>/dev/null; do r=$(rsskb "$pid"); [ "$r" -gt "$(cat "$WORK/peak")" ] && echo "$r" >"$WORK/peak"; sleep 0.02; done ) & PIDS+=($!)
  t0=$(date +%s.%N)
  python3 - "$admin" >"$WORK/dump.out" <<'PY'
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
  t1=$(date +%s.%N)
  read -r dn dsize dpages <"$WORK/dump.out"
  echo "         full dump: $dn exchanges, $((dsize >> 20)) MB of JSON in $dpages pages, $(python3 -c "print(round($t1-$t0,2))") s;" \
       "RSS before $((peak >> 10)) MB, peak during $(($(cat "$WORK/peak") >> 10)) MB"
}

echo "== history at its caps: --history-cap $HISTORY_CAP --history-max-bytes $MAX_BYTES, one serve --quiet per provider"
for p in $PROVIDERS; do measure "$p"; done
