#!/usr/bin/env bash
# Builds `pushdouble-compose-sender:test`, the stand-in for a user's sender test image in the
# container checks: FROM scratch with dash (as sh), curl, mkdir, chmod, cat and exactly the
# libraries ldd lists for them (no base image is pulled). Uses PUSHDOUBLE_CONTAINER_FLAGS.
set -euo pipefail
cd "$(dirname "$0")/../.."
read -r -a flags <<< "${PUSHDOUBLE_CONTAINER_FLAGS:-}"
engine=podman
if command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1; then engine=docker; fi
ctx=$(pwd)/.build/compose-sender
rm -rf "$ctx"; mkdir -p "$ctx/rootfs/bin" "$ctx/rootfs/tmp" "$ctx/rootfs/etc"; chmod 1777 "$ctx/rootfs/tmp"
for tool in dash curl mkdir chmod cat; do
  path=$(command -v "$tool")
  cp -L "$path" "$ctx/rootfs/bin/$tool"
  ldd "$path" | awk '/=> \//{print $3} /^[ \t]*\/[^ ]+ \(/{print $1}' | while read -r lib; do
    mkdir -p "$ctx/rootfs$(dirname "$lib")"; cp -L "$lib" "$ctx/rootfs$lib"
  done
done
ln -s dash "$ctx/rootfs/bin/sh"
printf 'FROM scratch\nCOPY rootfs/ /\nENV PATH=/bin:/usr/local/bin\nLABEL io.pushdouble.test-image=1\nUSER 10002:10002\n' > "$ctx/Containerfile"
"$engine" "${flags[@]}" build -q -t pushdouble-compose-sender:test -f "$ctx/Containerfile" "$ctx" >/dev/null
