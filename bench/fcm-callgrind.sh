#!/usr/bin/env bash
# FCM request-path cost in instructions: `bench/callgrind.sh fcm` (kept under this name for the
# figures in docs/fcm.md that cite it).
#   bench/fcm-callgrind.sh [seconds] [top]
exec "$(dirname "$0")/callgrind.sh" fcm "$@"
