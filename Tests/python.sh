#!/usr/bin/env bash
# The Python package as a user meets it: builds the platform wheel (scripts/build-python-wheel.sh:
# the release binary with the Swift runtime linked statically), installs it into a fresh
# virtual environment, and runs the package's tests and the example projects' pytest suites
# (examples/python/sender-example, examples/python-newcomer with httpx and firebase-admin)
# from the installed `pushdouble` command, on a PATH without the Swift toolchain.
#   bash Tests/python.sh                 # release wheel (minutes: a release build)
#   PUSHDOUBLE_BINARY=.build/debug/pushdouble bash Tests/python.sh   # package the debug binary instead
# Its last line sums both pytest runs' counts; Tests/run.sh adds them to its closing line.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
wheel=$(bash scripts/build-python-wheel.sh | tee /dev/stderr | sed -n 's/^wheel: //p')
venv="$root/.build/python-venv"
rm -rf "$venv"
python3 -m venv "$venv"
"$venv/bin/pip" install -q --disable-pip-version-check "$wheel" -r examples/python/sender-example/requirements-test.txt \
  -r examples/python-newcomer/requirements.txt
# PATH without the Swift toolchain: the installed console script must be all a user needs.
swift_dir=$(dirname "$(command -v swift 2>/dev/null || echo /nonexistent/swift)")
clean_path=$(echo "$PATH" | tr ':' '\n' | grep -vxF "$swift_dir" | paste -sd: -)
export PATH="$venv/bin:$clean_path"
unset PUSHDOUBLE_BIN
command -v swift >/dev/null 2>&1 && { echo "python.sh: swift still on PATH" >&2; exit 1; }
echo "python: $(command -v pushdouble) ($(pushdouble --version 2>/dev/null || echo installed))"
# serve and conform from the installed command.
pushdouble conform --list > /dev/null
started=$SECONDS
# The newcomer example as its own project (its pytest.ini; the plugin from the installed wheel).
cd "$root/examples/python-newcomer"
set +e
"$venv/bin/python" -m pytest -q -p no:cacheprovider 2>&1 | tail -n 40 | tee "$venv/newcomer.log"
newcomer_status=${PIPESTATUS[0]}
set -e
cd "$root/examples/python/sender-example"
set +e
"$venv/bin/python" -m pytest -q -p no:cacheprovider tests "$root/python/tests" 2>&1 | tail -n 40 | tee "$venv/kit.log"
kit_status=${PIPESTATUS[0]}
set -e
# One closing line with both runs' counts (Tests/run.sh reads the last "… passed … in Ns" line).
count() { grep -E '(passed|failed|error).* in [0-9.]+s' "$venv"/newcomer.log "$venv"/kit.log | grep -oE "[0-9]+ $1" | awk '{s+=$1} END {print s+0}' || true; }
echo "python (kit and sender example + newcomer example): $(count passed) passed, $(count failed) failed, $(count 'errors?') errors in $((SECONDS - started))s"
[ "$newcomer_status" -eq 0 ] && [ "$kit_status" -eq 0 ]
