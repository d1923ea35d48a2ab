#!/usr/bin/env bash
# The Node.js kit (node/) and the example stdlib sender (examples/node/stdlib-sender) with
# `node --test`, against the binary of this checkout ($PUSHDOUBLE_BIN, else .build/debug/pushdouble).
# The example's only dependency is the kit itself (a file: dependency: `npm install --offline`
# links it, no registry involved). Its last line is `node: N passed, N failed`; Tests/run.sh adds
# the counts to its closing line.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
export PUSHDOUBLE_BIN=${PUSHDOUBLE_BIN:-$root/.build/debug/pushdouble}
[ -x "$PUSHDOUBLE_BIN" ] || { echo "node.sh: no pushdouble binary at $PUSHDOUBLE_BIN (swift build, or set PUSHDOUBLE_BIN)" >&2; exit 2; }
command -v node >/dev/null 2>&1 || { echo "node.sh: node is not installed (apt-get install nodejs)" >&2; exit 2; }
major=$(node -p 'process.versions.node.split(".")[0]')
[ "$major" -ge 20 ] || { echo "node.sh: node $(node --version) is older than the kit's minimum, 20" >&2; exit 2; }
(cd examples/node/stdlib-sender && npm install --offline --no-audit --no-fund --silent)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
set +e
(cd node && node --test --test-reporter=tap test/*.test.js) 2>&1 | tee "$log"
kit=${PIPESTATUS[0]}
(cd examples/node/stdlib-sender && node --test --test-reporter=tap test/) 2>&1 | tee -a "$log"
example=${PIPESTATUS[0]}
set -e
count() { grep -E "^# $1 [0-9]+" "$log" | awk '{s+=$3} END {print s+0}'; }
passed=$(count pass); failed=$(count fail)
if { [ "$kit" -ne 0 ] || [ "$example" -ne 0 ]; } && [ "$failed" -eq 0 ]; then failed=1; fi
echo "node: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
