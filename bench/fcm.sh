#!/usr/bin/env bash
# FCM benchmark (not a test): the FCM fake (`pushdouble serve`: Bearer check, full message
# validation, device lookup, history on) vs nghttpd, h2 over TLS, same machine, same run,
# alternating rounds.
#   bench/fcm.sh [seconds] [rounds]
# Env: PD_BIN=<path to a pushdouble binary> (skips the build), NO_BUILD=1 (use the existing
#      release build), ROUNDS, DURATION, WARMUP, TOKENS.
#
# Every request: POST /v1/projects/pushdouble-test/messages:send with a ~300-byte JSON
# message (notification, data, android ttl/priority) and `authorization: Bearer <access
# token>`, a real token minted first from the fake's own /token endpoint with the shipped
# service account (RS256 assertion). h2load sends one body, so the registration token cannot
# vary per request; TOKENS (default 1000) distinct URIs are still used (h2load -i, a `?n=`
# query the fake ignores) so that nghttpd and the fake see the same request mix.
# h2load -c10 -m100, duration-based (-D with --warm-up-time, never -n).
#   serve        default `pushdouble serve`, its one-line-per-exchange log going to a file
#   serve-quiet  `pushdouble serve --quiet`
#   nghttpd      nghttp2's server answering the same path from an empty file
# Reported: the median over the rounds of each, and the ratio of medians vs nghttpd.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${1:-${DURATION:-4}}
ROUNDS=${2:-${ROUNDS:-3}}
WARMUP=${WARMUP:-1}
TOKENS=${TOKENS:-1000}
. bench/common.sh
python3 -c 'import json; b={"message":{"token":"bench-registration-token:APA91b"+"x"*40,"notification":{"title":"Benchmark","body":"x"*120},"data":{"k":"v","n":"1"},"android":{"ttl":"3600s","priority":"high"}}}; open("'"$WORK"'/fcm.json","w").write(json.dumps(b,separators=(",",":")))'
echo "body: $(wc -c <"$WORK/fcm.json") bytes, $TOKENS distinct URIs"

# Starts `pushdouble serve`; sets URL_<name>, PID_<name> and TOKEN_<name> (an access token
# minted by that server's token endpoint with the service-account file it wrote).
start_pd() {
  start_serve "$@"
  local name=$1 token
  token=$(python3 - "$WORK/$name.json" <<'PY'
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
print(json.load(urllib.request.urlopen(sa["token_uri"], body, context=ctx))["access_token"])
PY
)
  printf -v "URL_$name" '%s' "$(serve_endpoint_url "$WORK/$name.json" fcm)"; printf -v "TOKEN_$name" '%s' "$token"
}
start_pd serve
start_pd quiet --quiet
NG_PORT=$(port)
mkdir -p "$WORK/htdocs/v1/projects/pushdouble-test"; : >"$WORK/htdocs/v1/projects/pushdouble-test/messages:send"
nghttpd -d "$WORK/htdocs" "$NG_PORT" Certificates/pushdouble-test-server.key.pem Certificates/pushdouble-test-server.pem >/dev/null 2>&1 & PID_nghttpd=$!; PIDS+=($PID_nghttpd)
URL_nghttpd="https://127.0.0.1:$NG_PORT"
TOKEN_nghttpd=$TOKEN_serve
sleep 1

for n in serve quiet nghttpd; do
  u="URL_$n"; python3 -c 'import sys; [print(f"{sys.argv[1]}/v1/projects/pushdouble-test/messages:send?n={i}") for i in range(int(sys.argv[2]))]' "${!u}" "$TOKENS" >"$WORK/uris.$n"
done

h2() {
  local t="TOKEN_$1"
  h2load -D "$DURATION" --warm-up-time="$WARMUP" -c 10 -m 100 -d "$WORK/fcm.json" -i "$WORK/uris.$1" \
    -H "authorization: Bearer ${!t}" -H 'content-type: application/json' 2>&1
}

echo "== h2 over TLS, POST FCM message + Bearer, h2load -c10 -m100 -D ${DURATION}s --warm-up-time=${WARMUP}s; $ROUNDS alternating rounds"
echo "   load before: $(cut -d' ' -f1-3 /proc/loadavg)"
run_rounds serve quiet nghttpd
# shellcheck disable=SC2086
SM=$(median ${ALL[serve]}); QM=$(median ${ALL[quiet]}); NM=$(median ${ALL[nghttpd]})
# Every measured request of the fake must have been a 200 (a valid token, a valid message).
STATUS=$(curl -s "$(serve_endpoint_url "$WORK/quiet.json" admin)/history?limit=1&endpoint=fcm.send" | python3 -c 'import json,sys; e=json.load(sys.stdin)["exchanges"]; print(e[0]["response"]["status"] if e else "?")')
echo "   last recorded fcm.send status (serve --quiet): $STATUS"
echo "SUMMARY (median of $ROUNDS) serve: $SM req/s ($(python3 -c "print(round($SM/$NM,3))")x, target >= 0.5)   serve --quiet: $QM req/s ($(python3 -c "print(round($QM/$NM,3))")x)   nghttpd: $NM req/s   load: $(cut -d' ' -f1-3 /proc/loadavg)"
