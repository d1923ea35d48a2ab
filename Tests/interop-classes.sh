#!/usr/bin/env bash
# Prints the interop-tier test classes, one per line: every XCTestCase subclass under Tests/
# whose body calls requireInteropTier(needs:) (Tests/PushDoubleTestSupport/InteropTier.swift).
# Tests/run.sh --fast leaves exactly these out; nothing lists them by hand.
set -euo pipefail
cd "$(dirname "$0")"
find . -name '*.swift' -print0 | xargs -0 awk '
  FNR == 1 { cls = "" }
  match($0, /(final )?class [A-Za-z0-9_]+ *: *[A-Za-z0-9_]*TestCase/) {
    line = substr($0, RSTART, RLENGTH); sub(/^(final )?class /, "", line); sub(/ *:.*/, "", line); cls = line
  }
  /requireInteropTier\(/ && cls != "" && !seen[cls]++ { print cls }
' | sort
