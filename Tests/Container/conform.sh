#!/usr/bin/env bash
# `conform` in a sender's own image (docs/containers.md "conform and the image"): a sender image
# (sender-image.sh's, standing in for yours) gets the pushdouble binary and its libraries by a
# local multi-stage COPY from the PushDouble image, plus the reference sender as the "sender";
# `pushdouble conform` runs there over the driver protocol and must pass the selected cases.
# Needs the release reference sender next to the release binary (Tests/python.sh builds both).
set -euo pipefail
cd "$(dirname "$0")/../.."
read -r -a flags <<< "${PUSHDOUBLE_CONTAINER_FLAGS:-}"
image=${PUSHDOUBLE_IMAGE_REF:-pushdouble:latest}
ref=${PUSHDOUBLE_REFERENCE_SENDER:-$(swift build -c release --show-bin-path)/pushdouble-reference-sender}
[ -x "$ref" ] || { echo "conform: no release reference sender at $ref (Tests/python.sh builds it)"; exit 1; }
engine=podman
if command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1; then engine=docker; fi
bash Tests/Container/sender-image.sh
ctx=$(pwd)/.build/conform-image
rm -rf "$ctx"; mkdir -p "$ctx"
install -m 0755 "$ref" "$ctx/pushdouble-reference-sender"
command -v strip >/dev/null 2>&1 && strip "$ctx/pushdouble-reference-sender"
cat > "$ctx/Containerfile" <<CF
FROM pushdouble-compose-sender:test
COPY --from=$image /usr/local/bin/pushdouble /usr/local/bin/pushdouble
COPY --from=$image /lib/ /lib/
COPY --from=$image /usr/local/share/pushdouble/ /usr/local/share/pushdouble/
COPY pushdouble-reference-sender /usr/local/bin/pushdouble-reference-sender
CF
"$engine" "${flags[@]}" build -q -t pushdouble-conform-sender:test -f "$ctx/Containerfile" "$ctx" >/dev/null
"$engine" "${flags[@]}" run --rm --network host --ulimit nofile=4096:4096 --ulimit nproc=4096:4096 pushdouble-conform-sender:test \
  pushdouble conform --sender pushdouble-reference-sender --only 'apns.background,apns.device-token-not-for-topic,expo.*' --jobs 2
