#!/usr/bin/env bash
# Builds the PushDouble container image from Containerfile with podman or docker, whichever
# works here (docker when its daemon answers, else podman), FROM scratch: no base image is pulled.
#
#   scripts/build-image.sh                                     # swift build -c release --static-swift-stdlib, then the image
#   PUSHDOUBLE_BINARY=.build/release/pushdouble scripts/build-image.sh   # package that binary (no swift build)
#
# The image's /usr/local/bin/pushdouble is packed (docs/containers.md "Size"): a 19 KB C launcher
# (scripts/image-launcher.c, compiled here with cc) followed by the stripped binary as one
# `gzip -9` member and a trailer; at start the launcher inflates it into a memory file with its
# own decoder and executes it. PUSHDOUBLE_IMAGE_PACKING=plain installs the stripped binary as it is.
#
# Environment:
#   PUSHDOUBLE_BINARY=PATH           the pushdouble binary to package (default: build the release one)
#   PUSHDOUBLE_IMAGE_PACKING=packed|plain   (default packed)
#   CC                               the C compiler for the launcher (default cc, else clang)
#   PUSHDOUBLE_IMAGE=NAME            image name (default pushdouble); tagged NAME:<version> and NAME:latest
#   PUSHDOUBLE_CONTAINER_ENGINE=podman|docker   force the engine
#   PUSHDOUBLE_CONTAINER_FLAGS="…"   global engine flags, e.g. for podman as root in a sandbox:
#                                    --cgroup-manager=cgroupfs --storage-driver=vfs --runtime runc
#
# The version tag is the binary's own (`pushdouble --version`, the package version). Prints the
# image reference, its size and the libraries it carries; exit 1 when the binary links the
# Swift runtime dynamically (it must be built with --static-swift-stdlib).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
IMAGE="${PUSHDOUBLE_IMAGE:-pushdouble}"
read -r -a FLAGS <<< "${PUSHDOUBLE_CONTAINER_FLAGS:-}"

if [ -n "${PUSHDOUBLE_BINARY:-}" ]; then
    BINARY="$(cd "$(dirname "$PUSHDOUBLE_BINARY")" && pwd)/$(basename "$PUSHDOUBLE_BINARY")"
    [ -x "$BINARY" ] || { echo "build-image: PUSHDOUBLE_BINARY=$PUSHDOUBLE_BINARY is not an executable file" >&2; exit 2; }
else
    cd "$ROOT"
    swift build -c release --static-swift-stdlib --product pushdouble
    BINARY="$(swift build -c release --show-bin-path)/pushdouble"
fi
PACKING="${PUSHDOUBLE_IMAGE_PACKING:-packed}"
case "$PACKING" in packed|plain) ;; *) echo "build-image: PUSHDOUBLE_IMAGE_PACKING=$PACKING (packed or plain)" >&2; exit 2;; esac
if ldd "$BINARY" | grep -qE 'libswift|libFoundation|libdispatch'; then
    echo "build-image: $BINARY links the Swift runtime dynamically; build it with --static-swift-stdlib" >&2
    exit 1
fi

ENGINE="${PUSHDOUBLE_CONTAINER_ENGINE:-}"
if [ -z "$ENGINE" ]; then
    if command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1; then ENGINE=docker
    elif command -v podman >/dev/null 2>&1; then ENGINE=podman
    else echo "build-image: neither podman nor a running docker found (apt-get install podman runc)" >&2; exit 1; fi
fi

VERSION="$("$BINARY" --version | awk '{print $2}')"
REVISION="$(git -C "$ROOT" rev-parse HEAD 2>/dev/null || echo unknown)"
SOURCE="$(git -C "$ROOT" remote get-url origin 2>/dev/null || echo unknown)"

# The build context: Containerfile and rootfs/.
CONTEXT="$ROOT/.build/image-context"
rm -rf "$CONTEXT"
ROOTFS="$CONTEXT/rootfs"
mkdir -p "$ROOTFS/usr/local/bin" "$ROOTFS/etc" "$ROOTFS/tmp"
chmod 1777 "$ROOTFS/tmp"
STRIPPED="$CONTEXT/pushdouble.stripped"
install -m 0755 "$BINARY" "$STRIPPED"
command -v strip >/dev/null 2>&1 && strip "$STRIPPED"
if [ "$PACKING" = packed ]; then
    # launcher | gzip member | member length (UInt64 little-endian) | "PDGZEXE1"
    le64() { local i; for i in 0 1 2 3 4 5 6 7; do printf "\\$(printf '%03o' $(( ($1 >> (8 * i)) & 255 )))"; done; }
    gzip -9 -n -c "$STRIPPED" > "$CONTEXT/pushdouble.gz"
    PACKED="$ROOTFS/usr/local/bin/pushdouble"
    LAUNCHER="$CONTEXT/launcher"
    "${CC:-$(command -v cc || command -v clang)}" -O2 -Wall -Wextra -Werror -std=c11 -o "$LAUNCHER" "$ROOT/scripts/image-launcher.c"
    command -v strip >/dev/null 2>&1 && strip "$LAUNCHER"
    install -m 0755 "$LAUNCHER" "$PACKED"
    cat "$CONTEXT/pushdouble.gz" >> "$PACKED"
    { le64 "$(stat -c %s "$CONTEXT/pushdouble.gz")"; printf 'PDGZEXE1'; } >> "$PACKED"
    # The packed file must run as the binary does (here, outside the image).
    if [ "$("$PACKED" --version)" != "$("$BINARY" --version)" ]; then
        echo "build-image: the packed binary does not answer --version as $BINARY does" >&2; exit 1
    fi
    echo "packed: binary $(stat -c %s "$STRIPPED") bytes stripped, $(stat -c %s "$CONTEXT/pushdouble.gz") as gzip -9; launcher $(( $(stat -c %s "$PACKED") - $(stat -c %s "$CONTEXT/pushdouble.gz") - 16 ))"
else
    install -m 0755 "$STRIPPED" "$ROOTFS/usr/local/bin/pushdouble"
fi
PROGRAMS=("$BINARY")
[ "$PACKING" = plain ] || PROGRAMS+=("$LAUNCHER")
# Exactly what the dynamic loader resolves for the binary and the launcher (and the loader
# itself), at the same paths, copied through their symlinks.
LIBS=()
while read -r lib; do
    [ -n "$lib" ] || continue
    mkdir -p "$ROOTFS$(dirname "$lib")"
    cp -L "$lib" "$ROOTFS$lib"
    LIBS+=("$lib")
done < <(for program in "${PROGRAMS[@]}"; do ldd "$program"; done | awk '/=> \//{print $3} /^[ \t]*\/[^ ]+ \(/{print $1}' | sort -u)
rm -f "$STRIPPED" "$CONTEXT/pushdouble.gz" "$CONTEXT/launcher"
# The shipped scenarios where `conform` looks for them (../share/pushdouble/Scenarios from the
# binary) and `serve --scenario` can name them.
mkdir -p "$ROOTFS/usr/local/share/pushdouble"
cp -R "$ROOT/Scenarios" "$ROOTFS/usr/local/share/pushdouble/Scenarios"
printf 'root:x:0:0:root:/:/sbin/nologin\npushdouble:x:10001:10001:pushdouble:/tmp:/sbin/nologin\n' > "$ROOTFS/etc/passwd"
printf 'root:x:0:\npushdouble:x:10001:\n' > "$ROOTFS/etc/group"
cp "$ROOT/Containerfile" "$CONTEXT/Containerfile"

FORMAT=()
[ "$ENGINE" = podman ] && FORMAT=(--format docker)   # OCI images have no HEALTHCHECK; the Docker format keeps it
"$ENGINE" "${FLAGS[@]}" build "${FORMAT[@]}" -f "$CONTEXT/Containerfile" \
    --build-arg "VERSION=$VERSION" --build-arg "REVISION=$REVISION" --build-arg "SOURCE=$SOURCE" \
    -t "$IMAGE:$VERSION" -t "$IMAGE:latest" "$CONTEXT" >&2

SIZE="$("$ENGINE" "${FLAGS[@]}" image inspect --format '{{.Size}}' "$IMAGE:$VERSION")"
COMPRESSED="$(tar -C "$ROOTFS" -cf - . | gzip -6 | wc -c)"
echo "image: $IMAGE:$VERSION ($ENGINE)"
echo "size: $SIZE bytes ($((SIZE / 1000000)) MB, $((SIZE / 1048576)) MiB; $PACKING binary); as a gzip layer (what a pull transfers): $COMPRESSED bytes ($((COMPRESSED / 1048576)) MiB)"
echo "libraries: ${LIBS[*]}"
