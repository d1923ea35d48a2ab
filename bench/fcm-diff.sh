#!/usr/bin/env bash
# Differential check of the FCM fake (not a test; for refactors of the send path): starts
# two `pushdouble serve --quiet`, OLD and NEW, sends both the same varied send bodies
# (bench/fcm_diff.py: valid and invalid, every block, both spellings, raw-text variants) and
# compares each answer and each history record. Exit 1 on any difference.
#   bench/fcm-diff.sh OLD_BIN [NEW_BIN] [SEED] [MUTATIONS]
# NEW_BIN defaults to the release build; MUTATIONS (default 300) × 5 raw forms + 5 requests.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { sed -n '2,7p' "$0"; exit 2; }
OLD=$1
NEW=${2:-$(swift build -c release --show-bin-path)/pushdouble}
W=$(mktemp -d)
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$W"' EXIT
"$OLD" serve --ephemeral --quiet --endpoints-file "$W/old.json" >"$W/old.log" 2>&1 & PIDS+=($!)
"$NEW" serve --ephemeral --quiet --endpoints-file "$W/new.json" >"$W/new.log" 2>&1 & PIDS+=($!)
for _ in $(seq 100); do [ -s "$W/old.json" ] && [ -s "$W/new.json" ] && break; sleep 0.1; done
python3 bench/fcm_diff.py "$W/old.json" "$W/new.json" "${3:-1}" "${4:-300}"
