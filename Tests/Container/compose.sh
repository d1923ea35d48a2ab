#!/usr/bin/env bash
# Runs examples/containers/compose.yaml with podman-compose (or docker compose): the pushdouble
# image as service `pushdouble`, and as `sender` the minimal image of sender-image.sh. Passes
# when the sender exits 0: its `curl -f` got a 200 from the Expo fake by service name, with TLS
# verified against the CA it downloaded.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
read -r -a flags <<< "${PUSHDOUBLE_CONTAINER_FLAGS:-}"
image=${PUSHDOUBLE_IMAGE_REF:-pushdouble:latest}
bash Tests/Container/sender-image.sh
compose=(podman-compose --podman-args "${flags[*]}")
if command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1; then compose=(docker compose); fi
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
