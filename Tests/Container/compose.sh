#!/usr/bin/env bash
# Runs examples/containers/compose.yaml with podman-compose (or docker compose): the pushdouble
# image as service `pushdouble`, and as `sender` a minimal image staged here FROM scratch
# (dash, curl, mkdir, chmod, cat and the libraries ldd lists: no base image is pulled). Passes
# when the sender exits 0 having pushed to Expo by service name, and the double's history
# holds that push.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
read -r -a flags <<< "${PUSHDOUBLE_CONTAINER_FLAGS:-}"
image=${PUSHDOUBLE_IMAGE_REF:-pushdouble:latest}
ctx=$root/.build/compose-sender
rm -rf "$ctx"; mkdir -p "$ctx/rootfs/bin" "$ctx/rootfs/tmp" "$ctx/rootfs/etc"; chmod 1777 "$ctx/rootfs/tmp"
for tool in dash curl mkdir chmod cat; do
  path=$(command -v "$tool")
  cp -L "$path" "$ctx/rootfs/bin/$tool"
  ldd "$path" | awk '/=> \//{print $3} /^[ \t]*\/[^ ]+ \(/{print $1}' | while read -r lib; do
    mkdir -p "$ctx/rootfs$(dirname "$lib")"; cp -L "$lib" "$ctx/rootfs$lib"
  done
done
ln -s dash "$ctx/rootfs/bin/sh"
printf 'FROM scratch\nCOPY rootfs/ /\nENV PATH=/bin\nUSER 10002:10002\n' > "$ctx/Containerfile"
engine=podman; compose=(podman-compose --podman-args "${flags[*]}")
if command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1; then engine=docker; compose=(docker compose); fi
"$engine" "${flags[@]}" build -q -t pushdouble-compose-sender:test -f "$ctx/Containerfile" "$ctx" >/dev/null
export PUSHDOUBLE_IMAGE="$image" SENDER_IMAGE=pushdouble-compose-sender:test
project="pdcompose$$"
down() { "${compose[@]}" -p "$project" -f examples/containers/compose.yaml down -t 5 >/dev/null 2>&1 || true; }
trap down EXIT
log=$(mktemp)
set +e
"${compose[@]}" -p "$project" -f examples/containers/compose.yaml up --exit-code-from sender --abort-on-container-exit > "$log" 2>&1
status=$?
set -e
grep -v 'level=error' "$log" | tail -n 40
rm -f "$log"
[ "$status" -eq 0 ] || { echo "compose: the sender exited $status"; exit 1; }
echo "compose: the sender pushed by service name"
