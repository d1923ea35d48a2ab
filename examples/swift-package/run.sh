#!/usr/bin/env bash
# Builds and tests this example as a user's package would be: copied to a clean directory
# whose Package.swift points at this PushDouble checkout by path, nothing cached from the
# checkout's own build. Prints one line `example: N passed, M failed` (XCTest and Swift
# Testing counts), which Tests/run.sh adds to its totals. SWIFT overrides the `swift` command.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
checkout=$(cd "$here/../.." && pwd)
swift=${SWIFT:-swift}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -R "$here/Package.swift" "$here/Sources" "$here/Tests" "$work/"
sed -i.orig "s|path: \"../..\"|path: \"$checkout\"|" "$work/Package.swift" && rm -f "$work/Package.swift.orig"
grep -q "path: \"$checkout\"" "$work/Package.swift" || { echo "example: could not point Package.swift at $checkout"; echo "example: 0 passed, 1 failed"; exit 1; }
cd "$work"
start=$(date +%s)
log="$work/test.log"
$swift build --build-tests 2>&1 | tail -n 20
built=$(date +%s)
$swift test --skip-build 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
end=$(date +%s)
echo "example: built in $((built - start)) s, tested in $((end - built)) s"
# XCTest: "Executed N tests, with M failures"; Swift Testing: "Test run with N tests … passed|failed after".
xc=$(grep -E 'Executed [0-9]+ tests?, with [0-9]+ failures?' "$log" | tail -n 1)
xtotal=$(echo "$xc" | sed -nE 's/.*Executed ([0-9]+) tests?.*/\1/p'); xfailed=$(echo "$xc" | sed -nE 's/.*with ([0-9]+) failures?.*/\1/p')
st=$(grep -E 'Test run with [0-9]+ tests?' "$log" | tail -n 1)
stotal=$(echo "$st" | sed -nE 's/.*Test run with ([0-9]+) tests?.*/\1/p')
sfailed=0; echo "$st" | grep -q 'failed' && sfailed=$(echo "$st" | sed -nE 's/.*with ([0-9]+) issues?.*/\1/p')
xtotal=${xtotal:-0}; xfailed=${xfailed:-0}; stotal=${stotal:-0}; sfailed=${sfailed:-0}
failed=$((xfailed + sfailed)); [ "$status" -ne 0 ] && [ "$failed" -eq 0 ] && failed=1
total=$((xtotal + stotal))
echo "example: $((total - failed > 0 ? total - failed : 0)) passed, $failed failed"
exit "$status"
