# Set-up shared by the APNs benchmarks (sourced from the repository root, after `cd`):
#   WORK   a temporary directory, removed at exit, when every PID in PIDS is killed
#   BIN    the pushdouble binary: PD_BIN, else a release build (skipped with NO_BUILD=1)
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
