#!/usr/bin/env bash
# The container image as a CI job meets it (docs/containers.md): builds it with
# scripts/build-image.sh from the release binary Tests/python.sh already built (no second
# release build), runs it with podman (or docker), and checks it from the host:
#   - labels, version tag, non-root user; the size within its budget (40 MB, as the engine
#     reports it) and the packed binary (docs/containers.md "Size") finding its scenarios;
#   - `serve` in the container advertises a host name the host resolves to 127.0.0.1, and real
#     client libraries on the host push through it with only what the admin port hands out
#     (Tests/Container/push_through.py: APNs over h2 + JWT, FCM + OAuth, Web Push);
#   - the HEALTHCHECK (`pushdouble probe`), /metrics, and a clean stop on SIGTERM (exit 0);
#   - the Testcontainers recipe (Tests/Container/test_testcontainers.py, testcontainers-python
#     against `podman system service`'s Docker-compatible socket);
#   - the compose recipe (examples/containers/compose.yaml, podman-compose), two replicas run
#     from the Kubernetes manifest's own arguments (docs/scale.md), `conform` in a sender's image
#     with the binary copied from this one, and the CI and Kubernetes YAML (parsed).
# Prints one line per check and `container: N passed, M failed` last (Tests/run.sh adds it up).
#   bash Tests/container.sh
# Environment: PUSHDOUBLE_BINARY (default: the release binary), PUSHDOUBLE_CONTAINER_ENGINE,
# PUSHDOUBLE_CONTAINER_FLAGS (podman default here: cgroupfs, vfs, runc: works as root in a sandbox).
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
passed=0; failed=0
check() {  # check NAME COMMAND…: runs the command, prints ok/FAILED with its output on failure
  local name=$1; shift
  local log; log=$(mktemp)
  if "$@" > "$log" 2>&1; then passed=$((passed + 1)); echo "container: ok $name"
  else failed=$((failed + 1)); echo "container: FAILED $name"; tail -n 30 "$log" | sed 's/^/    /'; fi
  rm -f "$log"
}
# Image builds replace earlier ones: drop the untagged leftovers of this script's images only
# (vfs storage keeps a full copy of each).
prune() {
  [ -n "${engine:-}" ] || return 0
  for label in org.opencontainers.image.title=PushDouble io.pushdouble.test-image=1; do
    "$engine" "${flags[@]}" image prune -f --filter "label=$label" >/dev/null 2>&1 || true
  done
}
finish() { prune; echo "container: $passed passed, $failed failed"; [ "$failed" -eq 0 ]; exit $?; }

binary=${PUSHDOUBLE_BINARY:-$(swift build -c release --show-bin-path 2>/dev/null)/pushdouble}
if [ ! -x "$binary" ]; then
  swift build -c release --static-swift-stdlib --product pushdouble
  binary=$(swift build -c release --show-bin-path)/pushdouble
fi
engine=${PUSHDOUBLE_CONTAINER_ENGINE:-}
if [ -z "$engine" ]; then
  if command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1; then engine=docker
  elif command -v podman >/dev/null 2>&1; then engine=podman
  else echo "container: FAILED podman is not installed (apt-get install podman runc)"; failed=1; finish; fi
fi
if [ "$engine" = podman ] && [ -z "${PUSHDOUBLE_CONTAINER_FLAGS+x}" ]; then
  export PUSHDOUBLE_CONTAINER_FLAGS="--cgroup-manager=cgroupfs --storage-driver=vfs --runtime runc"
fi
read -r -a flags <<< "${PUSHDOUBLE_CONTAINER_FLAGS:-}"
ce() { "$engine" "${flags[@]}" "$@"; }
# The sandbox's hard limits are below the engines' defaults: ask for less.
run_flags=(--network host --ulimit nofile=4096:4096 --ulimit nproc=4096:4096)

started=$(date +%s)
build_log=$(mktemp)
if ! PUSHDOUBLE_BINARY="$binary" bash scripts/build-image.sh > "$build_log" 2>&1; then
  echo "container: FAILED image build"; tail -n 30 "$build_log"; failed=1; finish
fi
grep -E '^(image|packed|size|libraries):' "$build_log"
image=$(sed -n 's/^image: \([^ ]*\).*/\1/p' "$build_log")
version=${image##*:}
echo "container: image built in $(( $(date +%s) - started )) s"

labels_ok() {
  [ "$(ce image inspect --format '{{index .Config.Labels "org.opencontainers.image.version"}}' "$image")" = "$version" ] &&
  [ "$(ce image inspect --format '{{.Config.User}}' "$image")" = "10001:10001" ] &&
  ce image inspect --format '{{.Config.Healthcheck}}' "$image" | grep -q probe
}
check "labels, version tag $version, user 10001, HEALTHCHECK" labels_ok
size_budget=40000000   # 40 MB, in the engine's own unit (`image inspect` .Size, bytes)
size=$(ce image inspect --format '{{.Size}}' "$image")
size_ok() { [ "$size" -le "$size_budget" ]; }
check "image size $size bytes within the budget of $size_budget" size_ok
# The packed binary runs from a memory file: it must still find the scenarios shipped next to
# its path (../share/pushdouble/Scenarios) and answer as the binary it packs.
packed_ok() {
  [ "$(ce run --rm "${run_flags[@]}" "$image" --version)" = "$("$binary" --version)" ] || return 1
  local list; list=$(ce run --rm "${run_flags[@]}" "$image" conform --list) || return 1
  grep -q 'apns.device-token-not-for-topic' <<< "$list"   # read whole: an early-closing pipe fails podman
}
check "the packed binary answers --version and finds its shipped scenarios" packed_ok
check "the image launcher: exact bytes from gzip -1/-9/fixed/stored blocks, damage refused" bash Tests/Container/launcher.sh

ctr="pushdouble-ci-$$"
cleanup() { for c in "$ctr" "$ctr-r1" "$ctr-r2"; do ce rm -f "$c" >/dev/null 2>&1 || true; done; }
trap cleanup EXIT
ce run -d --name "$ctr" "${run_flags[@]}" -e PUSHDOUBLE_ADVERTISED_HOST=pushdouble.test "$image" serve --host 0.0.0.0 --ephemeral >/dev/null
admin=""
for _ in $(seq 1 100); do
  admin=$(ce logs "$ctr" 2>/dev/null | sed -n 's/^  admin *http:\/\/pushdouble.test:\([0-9]*\)$/\1/p' | head -n 1)
  [ -n "$admin" ] && ce logs "$ctr" 2>/dev/null | grep -q '^ready' && break
  sleep 0.1
done
ready() { [ -n "$admin" ]; }
check "serve starts in the container, advertising pushdouble.test (admin port ${admin:-none})" ready
[ -n "$admin" ] || { ce logs "$ctr" | tail -n 20; finish; }
check "real clients on the host push through it (APNs h2+JWT, FCM+OAuth, Web Push)" \
  python3 Tests/Container/push_through.py "http://127.0.0.1:$admin" --resolve pushdouble.test
check "HEALTHCHECK (pushdouble probe) passes inside the container" ce exec "$ctr" /usr/local/bin/pushdouble probe --port "$admin"
metrics_ok() {
  local text; text=$(curl -fsS "http://127.0.0.1:$admin/metrics") || return 1
  grep -q '^pushdouble_exchanges_total{endpoint="apns.push",provider="apns",reason="",status="200"} 1$' <<< "$text"
}
check "/metrics counts the pushes" metrics_ok
stop_ok() {
  ce stop -t 10 "$ctr" >/dev/null &&
  [ "$(ce inspect --format '{{.State.ExitCode}}' "$ctr")" = 0 ] &&
  ce logs "$ctr" | grep -q 'pushdouble serve: stopping ([0-9]* exchanges'
}
check "SIGTERM stops it cleanly (exit 0)" stop_ok
cleanup

check "Testcontainers recipe (testcontainers-python over podman's Docker API)" \
  env PUSHDOUBLE_IMAGE_REF="$image" bash Tests/Container/testcontainers.sh
check "compose recipe: a sender service reaches pushdouble by service name" \
  env PUSHDOUBLE_IMAGE_REF="$image" bash Tests/Container/compose.sh
# Two replicas from the Kubernetes manifest's own container arguments and ConfigMap scenario
# (ephemeral ports: both share the host network here; advertised on loopback).
replicas_ok() {
  local dir; dir=$(mktemp -d); chmod 755 "$dir"
  python3 - "$dir" <<'PY' || return 1
import json, sys, yaml
docs = list(yaml.safe_load_all(open("examples/containers/kubernetes.yaml")))
config = next(d for d in docs if d["kind"] == "ConfigMap")
deploy = next(d for d in docs if d["kind"] == "Deployment")
open(sys.argv[1] + "/scenario.json", "w").write(config["data"]["scenario.json"])
open(sys.argv[1] + "/args", "w").write("\n".join(deploy["spec"]["template"]["spec"]["containers"][0]["args"]))
PY
  chmod 644 "$dir/scenario.json"
  local args; mapfile -t args < "$dir/args"
  local ports=()
  for i in 1 2; do
    ce run -d --name "$ctr-r$i" "${run_flags[@]}" -e PUSHDOUBLE_ADVERTISED_HOST=127.0.0.1 \
      -v "$dir/scenario.json:/etc/pushdouble/scenario.json:ro" "$image" "${args[@]}" --ephemeral >/dev/null || return 1
  done
  for i in 1 2; do
    local p=""
    for _ in $(seq 1 100); do
      p=$(ce logs "$ctr-r$i" 2>&1 | sed -n 's/^  admin *http:\/\/127.0.0.1:\([0-9]*\)$/\1/p' | head -n 1)
      [ -n "$p" ] && break; sleep 0.1
    done
    ports+=("$p")
  done
  python3 Tests/Container/replicas.py "http://127.0.0.1:${ports[0]}" "http://127.0.0.1:${ports[1]}"
  local status=$?
  ce rm -f "$ctr-r1" >/dev/null 2>&1; ce rm -f "$ctr-r2" >/dev/null 2>&1; rm -rf "$dir"
  return $status
}
check "two replicas from the Kubernetes manifest answer alike" replicas_ok
check "conform in a sender's image (binary copied from the image) passes the reference sender" \
  env PUSHDOUBLE_IMAGE_REF="$image" bash Tests/Container/conform.sh
check "CI and Kubernetes YAML snippets parse" python3 Tests/Container/check_yaml.py docs/containers.md docs/scale.md examples/containers
finish
