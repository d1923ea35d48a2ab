# Set-up shared by the APNs, FCM, Expo and Web Push benchmarks (sourced from the repository root, after `cd`):
#   WORK   a temporary directory, removed at exit, when every PID in PIDS is killed
#   BIN    the pushdouble binary: PD_BIN, else a release build (skipped with NO_BUILD=1)
#   port, rps, done_count, cpu, rss, median, TICK: helpers for h2load rounds (below)
#   JWT    a provider token minted now from the shipped test key (PDTESTKEY1 / PDTESTTEAM)
#   $WORK/body.json  a 300-byte JSON alert
WORK=$(mktemp -d)
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT

if [ -z "${NO_BUILD:-}" ] && [ -z "${PD_BIN:-}" ]; then
  echo "== building pushdouble (release)"
  swift build -c release --product pushdouble 2>&1 | grep -E "error|warning:|Build complete" || true
fi
BIN=${PD_BIN:-$(swift build -c release --show-bin-path)/pushdouble}

python3 -c 'import json; b={"aps":{"alert":{"title":"Benchmark","body":"x"*200},"badge":1,"sound":"default"}}; s=json.dumps(b,separators=(",",":")); s=s.replace("x"*200,"x"*(200+300-len(s))); open("'"$WORK"'/body.json","w").write(s)'
JWT=$(python3 -c 'import jwt,time; print(jwt.encode({"iss":"PDTESTTEAM","iat":int(time.time())}, open("Certificates/AuthKey_PDTESTKEY1.p8").read(), algorithm="ES256", headers={"kid":"PDTESTKEY1"}))')

# Measuring helpers of the h2load benchmarks (bench/apns.sh, bench/fcm.sh, bench/expo.sh, bench/webpush.sh).
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
rps() { grep -Eo 'finished in [0-9.]+m?s, [0-9.]+ req/s' | grep -Eo '[0-9.]+ req/s' | grep -Eo '[0-9.]+'; }
done_count() { grep -E '^requests:' | grep -Eo '[0-9]+ succeeded' | grep -Eo '[0-9]+'; }
cpu() { awk '{print $14+$15}' "/proc/$1/stat"; }   # utime+stime, clock ticks
rss() { awk '/VmRSS/ {print int($2/1024)}' "/proc/$1/status"; }
median() { python3 -c 'import sys,statistics; print(round(statistics.median(float(x) for x in sys.argv[1:]),1))' "$@"; }
TICK=$(getconf CLK_TCK)
declare -A ALL CPUS
# `next_seq ADMIN_URL`: the history's next sequence number (GET /health): the difference over a
# run is exactly the requests the server answered in it (warm-up included).
next_seq() { curl -sf "$1/health" | python3 -c 'import json,sys; print(json.load(sys.stdin)["history"]["nextSeq"])'; }
# run_rounds NAME...: ROUNDS alternating rounds; each runs `h2 NAME` (the script's h2load
# call) against server NAME (pid in PID_NAME), appends its req/s to ALL[NAME] and prints a line.
# Server CPU per request: when ADMIN_NAME is set (a pushdouble server), the CPU time of the
# round over the requests its history counted (warm-up included on both sides), also appended
# to CPUS[NAME]; otherwise over h2load's succeeded count (its warm-up left out, so an overestimate).
run_rounds() {
  local i n p a C0 C1 S0 OUT R D CPUUS HOW
  for i in $(seq "$ROUNDS"); do
    for n in "$@"; do
      p="PID_$n"; a="ADMIN_$n"; S0=""
      [ -n "${!a:-}" ] && S0=$(next_seq "${!a}")
      C0=$(cpu "${!p}")
      OUT=$(h2 "$n"); C1=$(cpu "${!p}")
      R=$(echo "$OUT" | rps)
      if [ -n "$S0" ]; then D=$(( $(next_seq "${!a}") - S0 )); HOW="per served request"
      else D=$(echo "$OUT" | done_count); HOW="incl. warm-up"; fi
      ALL[$n]="${ALL[$n]:-} $R"
      CPUUS=$(python3 -c "print(round(($C1-$C0)/$TICK/max(1,$D)*1e6,1))")
      [ -n "$S0" ] && CPUS[$n]="${CPUS[$n]:-} $CPUUS"
      printf '  round %d %-8s %9s req/s | %s | %s | server CPU %s µs/req (%s)\n' "$i" "$n" "$R" \
        "$(echo "$OUT" | grep -E '^requests:')" "$(echo "$OUT" | grep -E '^status codes:')" "$CPUUS" "$HOW"
    done
  done
}

# `serve_endpoint_url FILE LISTENER`: the URL of LISTENER in an endpoints file.
serve_endpoint_url() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print([e["url"] for e in d["endpoints"] if e["name"]==sys.argv[2]][0])' "$1" "$2"; }
# `start_serve NAME [flags…]`: starts `pushdouble serve --ephemeral` with its endpoints file at
# $WORK/NAME.json and log at $WORK/NAME.log, waits for the file, sets PID_NAME.
start_serve() {
  local name=$1; shift
  "$BIN" serve --ephemeral --endpoints-file "$WORK/$name.json" "$@" >"$WORK/$name.log" 2>&1 & local pid=$!; PIDS+=($pid)
  for _ in $(seq 100); do [ -s "$WORK/$name.json" ] && break; sleep 0.1; done
  printf -v "PID_$name" '%s' "$pid"
  printf -v "ADMIN_$name" '%s' "$(serve_endpoint_url "$WORK/$name.json" admin)"
}

# `fcm_access_token FILE`: an FCM access token minted now from the token endpoint of the
# server whose endpoints file is FILE, with the service-account file it wrote (RS256
# assertion, the firebase.messaging scope). Used by bench/fcm.sh and bench/fcm-callgrind.sh.
fcm_access_token() {
  python3 - "$1" <<'PY'
import json, ssl, sys, time, urllib.parse, urllib.request
import jwt
env = json.load(open(sys.argv[1]))["environment"]
sa = json.load(open(env["FCM_SERVICE_ACCOUNT_FILE"]))
now = int(time.time())
assertion = jwt.encode({"iss": sa["client_email"], "scope": "https://www.googleapis.com/auth/firebase.messaging",
                        "aud": sa["token_uri"], "iat": now, "exp": now + 3600}, sa["private_key"], algorithm="RS256",
                       headers={"kid": sa["private_key_id"]})
body = urllib.parse.urlencode({"grant_type": "urn:ietf:params:oauth:grant-type:jwt-bearer", "assertion": assertion}).encode()
ctx = ssl.create_default_context(cafile=env["PUSHDOUBLE_CA_FILE"])
print(json.load(urllib.request.urlopen(sa["token_uri"], body, context=ctx, timeout=60))["access_token"])
PY
}

# `fcm_bodies DIR N`: N send bodies DIR/fcm.<k>.json, alike (~300 bytes: notification, data,
# android ttl/priority) but for the registration token, bench-registration-token-<k>:APA91b….
fcm_bodies() {
  python3 - "$1" "$2" <<'PY'
import json, sys
work, clients = sys.argv[1], int(sys.argv[2])
for k in range(clients):
    b = {"message": {"token": "bench-registration-token-%04d:APA91b" % k + "x" * 40,
                     "notification": {"title": "Benchmark", "body": "x" * 120},
                     "data": {"k": "v", "n": "1"}, "android": {"ttl": "3600s", "priority": "high"}}}
    open(f"{work}/fcm.{k}.json", "w").write(json.dumps(b, separators=(",", ":")))
PY
}

# `apns_tokens DIR N`: N distinct 64-hex device tokens in DIR/tokens, one a line (bench/apns.sh).
apns_tokens() {
  python3 -c 'import sys; [print("%064x" % (0x5d00000000000000000000000000000000000000000000000000000000000000 + i)) for i in range(int(sys.argv[1]))]' "$2" >"$1/tokens"
}

# `expo_files DIR`: DIR/expo.json, 100 messages (one recipient each, distinct tokens, title +
# body, ~12 KB of JSON), DIR/expo.json.gz the same gzipped, and DIR/scenario.json turning
# Expo's per-project rate limit off (`rateLimitPerSecond: 0`) for bench/expo.sh.
expo_files() {
  python3 - "$1" <<'PY'
import json, sys, gzip
work = sys.argv[1]
messages = [{"to": "ExponentPushToken[bench%06d]" % i, "title": "Benchmark", "body": "x" * 60, "data": {"n": i}} for i in range(100)]
body = json.dumps(messages, separators=(",", ":")).encode()
open(work + "/expo.json", "wb").write(body)
open(work + "/expo.json.gz", "wb").write(gzip.compress(body))
open(work + "/scenario.json", "w").write(json.dumps({"id": "bench", "fakeOptions": {"expo": {"rateLimitPerSecond": 0}}}))
PY
}

# `webpush_subscriptions DIR N ADMIN…`: one browser key pair and N subscriptions (tokens in
# DIR/tokens) registered as devices on every ADMIN URL; DIR/body.bin a 512-byte plaintext
# (DIR/plaintext) encrypted once with aes128gcm (pywebpush's encoder) to those keys, so the one
# body decrypts for all of them and every message is really decrypted (bench/webpush.sh).
webpush_subscriptions() {
  python3 - "$@" <<'PY'
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
open(work + "/browser-key.json", "w").write(json.dumps({"privateKey": private, "p256dh": p256dh, "auth": auth}))
PY
}

# `webpush_vapid AUDIENCE`: an `authorization: vapid t=…, k=…` value (ES256 with the shipped
# TEST-ONLY VAPID key, aud = AUDIENCE, the push service's origin; valid 12 hours).
webpush_vapid() {
  python3 - "$1" <<'PY'
import base64, jwt, sys, time
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
pem = open("Certificates/vapid-test-private.pem", "rb").read()
k = serialization.load_pem_private_key(pem, None).public_key().public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
t = jwt.encode({"aud": sys.argv[1], "exp": int(time.time()) + 12 * 3600, "sub": "mailto:pushdouble@example.com"}, pem, algorithm="ES256", headers={"typ": "JWT"})
print("vapid t=%s, k=%s" % (t, base64.urlsafe_b64encode(k).rstrip(b"=").decode()))
PY
}
