#!/usr/bin/env bash
# Builds the Python package `pushdouble` as a platform wheel with the pushdouble binary
# (and the reference sender) bundled in pushdouble/bin/.
#
#   scripts/build-python-wheel.sh                         # swift build -c release --static-swift-stdlib, then the wheel
#   PUSHDOUBLE_BINARY=.build/debug/pushdouble scripts/build-python-wheel.sh   # package that binary, no swift build
#
# Environment:
#   PUSHDOUBLE_BINARY=PATH            package this pushdouble binary instead of building one
#   PUSHDOUBLE_REFERENCE_SENDER=PATH  the reference sender to bundle (default: next to the binary; skipped if absent)
#   PUSHDOUBLE_STRIP=0                do not strip the bundled copies (default: strip when `strip` exists)
#   PUSHDOUBLE_WHEEL_PLAT=TAG         wheel platform tag (default linux_<machine>)
#   PUSHDOUBLE_WHEEL_DIR=DIR          where the wheel goes (default python/dist)
#   PYTHON=python3                    the Python that builds it
#
# Prints the wheel path, the bundled binary's size and its libswift/libFoundation
# dependencies (ldd): a release build must have none (exit 1 if it does); a debug
# binary given with PUSHDOUBLE_BINARY links them dynamically, which is only reported.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PY_DIR="$ROOT/python"
BIN_DIR="$PY_DIR/src/pushdouble/bin"
PYTHON="${PYTHON:-python3}"
WHEEL_DIR="${PUSHDOUBLE_WHEEL_DIR:-$PY_DIR/dist}"
RELEASE=0

if [ -n "${PUSHDOUBLE_BINARY:-}" ]; then
    BINARY="$(cd "$(dirname "$PUSHDOUBLE_BINARY")" && pwd)/$(basename "$PUSHDOUBLE_BINARY")"
    [ -x "$BINARY" ] || { echo "build-python-wheel: PUSHDOUBLE_BINARY=$PUSHDOUBLE_BINARY is not an executable file" >&2; exit 2; }
    REFERENCE="${PUSHDOUBLE_REFERENCE_SENDER:-$(dirname "$BINARY")/pushdouble-reference-sender}"
else
    RELEASE=1
    cd "$ROOT"
    swift build -c release --static-swift-stdlib --product pushdouble
    swift build -c release --static-swift-stdlib --product pushdouble-reference-sender
    OUT="$(swift build -c release --show-bin-path)"
    BINARY="$OUT/pushdouble"
    REFERENCE="${PUSHDOUBLE_REFERENCE_SENDER:-$OUT/pushdouble-reference-sender}"
fi

rm -rf "$BIN_DIR"
mkdir -p "$BIN_DIR"
install -m 0755 "$BINARY" "$BIN_DIR/pushdouble"
if [ -x "$REFERENCE" ]; then
    install -m 0755 "$REFERENCE" "$BIN_DIR/pushdouble-reference-sender"
else
    echo "build-python-wheel: no reference sender at $REFERENCE; the wheel bundles pushdouble only" >&2
fi
if [ "${PUSHDOUBLE_STRIP:-1}" != "0" ] && command -v strip >/dev/null 2>&1; then
    for f in "$BIN_DIR"/*; do strip "$f"; done
fi

# A clean build tree each time (setuptools reuses build/ otherwise).
rm -rf "$PY_DIR/build" "$PY_DIR"/src/*.egg-info
mkdir -p "$WHEEL_DIR"
ISOLATION=()
if "$PYTHON" -c 'import setuptools, wheel' >/dev/null 2>&1; then
    ISOLATION=(--no-build-isolation)   # use the installed setuptools + wheel (no download)
fi
BEFORE="$(mktemp)"; ls "$WHEEL_DIR" > "$BEFORE"
"$PYTHON" -m pip wheel --no-deps "${ISOLATION[@]}" --wheel-dir "$WHEEL_DIR" "$PY_DIR" >&2
rm -rf "$PY_DIR/build" "$PY_DIR"/src/*.egg-info
WHEEL="$(ls -t "$WHEEL_DIR"/pushdouble-*.whl | head -n 1)"
rm -f "$BEFORE"

echo "wheel: $WHEEL"
for f in "$BIN_DIR"/*; do
    echo "bundled: $(basename "$f") $(stat -c %s "$f") bytes ($(du -h "$f" | cut -f1))"
done
SWIFT_LIBS="$(ldd "$BIN_DIR/pushdouble" 2>/dev/null | grep -E 'libswift|libFoundation' || true)"
if [ -z "$SWIFT_LIBS" ]; then
    echo "ldd (libswift|libFoundation): none"
else
    echo "ldd (libswift|libFoundation):"
    echo "$SWIFT_LIBS"
    if [ "$RELEASE" = 1 ]; then
        echo "build-python-wheel: the release binary links the Swift runtime dynamically (expected none with --static-swift-stdlib)" >&2
        exit 1
    fi
    echo "(a binary given with PUSHDOUBLE_BINARY: reported only)"
fi
