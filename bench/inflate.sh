#!/usr/bin/env bash
# Inflate benchmark (not a test): PushDoubleInflate vs Python's zlib.decompress (C zlib) on the
# same ~10 MB text-ish input, gzip level 6, same machine, same run. Duration-based rounds,
# median reported, decoded bytes per second (MB = 10^6 bytes).
#   bench/inflate.sh [seconds-per-round] [rounds]
set -euo pipefail
cd "$(dirname "$0")/.."
SECS=${1:-2}
ROUNDS=${2:-5}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

echo "== building bench/InflateBench (release)"
swift build -c release --package-path bench/InflateBench 2>&1 | grep -E "error|warning:|Build complete" || true
BIN=$(swift build -c release --package-path bench/InflateBench --show-bin-path)/InflateBench

# Text-ish input: JSON push messages with varied words and numbers (compresses ~4-6x).
python3 - "$WORK" <<'PY'
import gzip, json, random, sys, zlib
rng = random.Random(42)
words = ("push notification token expo device apns ticket receipt error status ok message title body "
         "sound badge priority channel data hello world the of and to in is for on with").split()
msgs, size = [], 0
while size < 10_000_000:
    m = {"to": "ExponentPushToken[%022x]" % rng.getrandbits(88), "title": " ".join(rng.choice(words) for _ in range(rng.randint(2, 6))),
         "body": " ".join(rng.choice(words) for _ in range(rng.randint(5, 30))), "badge": rng.randint(0, 99),
         "data": {"id": rng.getrandbits(40), "kind": rng.choice(words)}}
    s = json.dumps(m)
    msgs.append(s); size += len(s) + 2
text = ("[" + ",\n".join(msgs) + "]").encode()
open(sys.argv[1] + "/input.bin", "wb").write(text)
open(sys.argv[1] + "/input.gz", "wb").write(gzip.compress(text, 6, mtime=0))
open(sys.argv[1] + "/input.zlib", "wb").write(zlib.compress(text, 6))
PY
SIZE=$(stat -c %s "$WORK/input.bin")
echo "input: $SIZE bytes; gzip -6: $(stat -c %s "$WORK/input.gz") bytes"

median() { python3 -c 'import statistics,sys; print("%.1f" % statistics.median(float(x) for x in sys.argv[1:]))' "$@"; }
py_round() {  # one round of Python zlib.decompress (gzip wrapper: wbits 31), MB/s; $1 = bufsize or 0
  python3 - "$WORK/input.gz" "$SECS" "$SIZE" "$1" <<'PY'
import sys, time, zlib
data = open(sys.argv[1], "rb").read(); secs = float(sys.argv[2]); size = int(sys.argv[3]); buf = int(sys.argv[4])
n = 0; t0 = time.perf_counter()
while time.perf_counter() - t0 < secs:
    out = zlib.decompress(data, 31, buf) if buf else zlib.decompress(data, 31); assert len(out) == size; n += len(out)
print("%.1f" % (n / (time.perf_counter() - t0) / 1e6))
PY
}
PD=(); PS=(); PY=(); PB=()
echo "== gzip -6, $ROUNDS alternating rounds of ${SECS}s each"
echo "   ours one-shot (result reserved from the ISIZE hint) | ours streaming (64 KiB chunks in, output dropped)"
echo "   | python zlib.decompress(data, 31) | python zlib.decompress(data, 31, bufsize=size)"
for i in $(seq "$ROUNDS"); do
  P=$("$BIN" "$WORK/input.gz" gzip "$SECS" 1 "$SIZE" | sed -n 's/^median //p'); PD+=("$P")
  S=$("$BIN" "$WORK/input.gz" gzip "$SECS" 1 "$SIZE" stream | sed -n 's/^median //p'); PS+=("$S")
  Z=$(py_round 0); PY+=("$Z")
  B=$(py_round "$SIZE"); PB+=("$B")
  echo "  round $i ours: $P | ours stream: $S | python: $Z | python bufsize: $B MB/s"
done
echo "median PushDoubleInflate one-shot (gzip):  $(median "${PD[@]}") MB/s"
echo "median PushDoubleInflate streaming (gzip): $(median "${PS[@]}") MB/s"
echo "median python zlib.decompress (gzip):      $(median "${PY[@]}") MB/s"
echo "median python zlib.decompress, bufsize:    $(median "${PB[@]}") MB/s"
Z=$("$BIN" "$WORK/input.zlib" zlib "$SECS" 1 "$SIZE" | sed -n 's/^median //p')
echo "PushDoubleInflate (zlib wrapper, Adler-32, one ${SECS}s round): $Z MB/s"
