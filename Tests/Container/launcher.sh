#!/usr/bin/env bash
# The image launcher (scripts/image-launcher.c, docs/containers.md "Size") on its own: packs
# sha256sum with each kind of DEFLATE block and checks that the program it executes from memory
# is byte for byte the one packed (sha256sum of /proc/self/exe inside it), that arguments and the
# environment pass through with PUSHDOUBLE_EXECUTABLE set, and that damage is refused (exit 127).
# Payloads: gzip -1 and -9 (dynamic blocks), random bytes appended to the ELF (stored blocks),
# Python's zlib with Z_FIXED (fixed blocks only; zlib makes test input here, never the product).
set -euo pipefail
cd "$(dirname "$0")/../.."
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
"${CC:-$(command -v cc || command -v clang)}" -O2 -Wall -Wextra -Werror -std=c11 -o "$work/launcher" scripts/image-launcher.c
le64() { local i; for i in 0 1 2 3 4 5 6 7; do printf "\\$(printf '%03o' $(( ($1 >> (8 * i)) & 255 )))"; done; }
pack() {  # pack GZIP OUT
  cp "$work/launcher" "$2"; cat "$1" >> "$2"; { le64 "$(stat -c %s "$1")"; printf 'PDGZEXE1'; } >> "$2"; chmod 755 "$2"
}
program=$(command -v sha256sum)
cp "$program" "$work/plain"
{ cat "$program"; head -c 300000 /dev/urandom; } > "$work/with-random"
gzip -1 -n -c "$work/plain" > "$work/p1.gz"
gzip -9 -n -c "$work/plain" > "$work/p9.gz"
gzip -9 -n -c "$work/with-random" > "$work/r9.gz"
python3 -c 'import sys, zlib; c = zlib.compressobj(9, zlib.DEFLATED, 31, 9, zlib.Z_FIXED); d = open(sys.argv[1], "rb").read(); sys.stdout.buffer.write(c.compress(d) + c.flush())' "$work/plain" > "$work/fixed.gz"
for name in p1 p9 fixed r9; do
  original="$work/plain"; [ "$name" = r9 ] && original="$work/with-random"
  pack "$work/$name.gz" "$work/$name"
  want=$(sha256sum < "$original" | cut -d' ' -f1)
  got=$("$work/$name" /proc/self/exe | cut -d' ' -f1)
  [ "$got" = "$want" ] || { echo "launcher: $name inflated to $got, expected $want"; exit 1; }
  echo "launcher: ok $name ($(stat -c %s "$work/$name.gz") bytes packed)"
done
# Arguments and the environment pass through; PUSHDOUBLE_EXECUTABLE names the packed file.
gzip -9 -n -c "$(command -v env)" > "$work/env.gz"; pack "$work/env.gz" "$work/env"
out=$(PUSHDOUBLE_PROBE_VALUE='a b' "$work/env")
grep -qx 'PUSHDOUBLE_PROBE_VALUE=a b' <<< "$out"
grep -qx "PUSHDOUBLE_EXECUTABLE=$(readlink -f "$work/env")" <<< "$out"
echo "launcher: ok environment and PUSHDOUBLE_EXECUTABLE"
# Damage: a flipped byte inside the member, a truncated file, no trailer at all.
refused() {  # refused FILE: exit 127 with the launcher's message
  local status=0 err; err=$("$1" 2>&1 >/dev/null) || status=$?
  [ "$status" = 127 ] && grep -q '^pushdouble launcher: ' <<< "$err" || { echo "launcher: $1 not refused (exit $status: $err)"; exit 1; }
  echo "launcher: ok refused: ${err#pushdouble launcher: }"
}
size=$(stat -c %s "$work/p9"); launcher_size=$(stat -c %s "$work/launcher")
cp "$work/p9" "$work/flipped"
offset=$(( launcher_size + (size - launcher_size) / 2 ))
byte=$(od -An -tu1 -j "$offset" -N1 "$work/flipped" | tr -d ' ')
printf "\\$(printf '%03o' $(( byte ^ 0x55 )))" | dd of="$work/flipped" bs=1 seek="$offset" conv=notrunc status=none
refused "$work/flipped"
head -c $(( size - 20 )) "$work/p9" > "$work/truncated"; chmod 755 "$work/truncated"
refused "$work/truncated"
cp "$work/launcher" "$work/bare"
refused "$work/bare"
# The member's CRC-32 is checked: a changed CRC with intact data is refused.
cp "$work/p9.gz" "$work/badcrc.gz"
gz=$(stat -c %s "$work/badcrc.gz")
byte=$(od -An -tu1 -j $(( gz - 8 )) -N1 "$work/badcrc.gz" | tr -d ' ')
printf "\\$(printf '%03o' $(( byte ^ 1 )))" | dd of="$work/badcrc.gz" bs=1 seek=$(( gz - 8 )) conv=notrunc status=none
pack "$work/badcrc.gz" "$work/badcrc"
refused "$work/badcrc"
