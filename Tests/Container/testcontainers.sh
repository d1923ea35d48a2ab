#!/usr/bin/env bash
# Runs Tests/Container/test_testcontainers.py against podman's Docker-compatible API: starts
# `podman system service` on a private socket for the run (with PUSHDOUBLE_CONTAINER_FLAGS),
# disables Ryuk (its image would have to be pulled), and stops the service afterwards.
# Uses docker's own daemon instead when it answers.
set -euo pipefail
cd "$(dirname "$0")/../.."
read -r -a flags <<< "${PUSHDOUBLE_CONTAINER_FLAGS:-}"
export TESTCONTAINERS_RYUK_DISABLED=true
service=""
if ! { command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1; }; then
  sock_dir=$(mktemp -d)
  podman "${flags[@]}" system service --time=0 "unix://$sock_dir/podman.sock" &
  service=$!
  trap 'kill "$service" 2>/dev/null; wait "$service" 2>/dev/null; rm -rf "$sock_dir"' EXIT
  for _ in $(seq 1 100); do [ -S "$sock_dir/podman.sock" ] && break; sleep 0.1; done
  export DOCKER_HOST="unix://$sock_dir/podman.sock"
fi
python3 -m pytest -q -p no:cacheprovider Tests/Container/test_testcontainers.py
