#!/usr/bin/env bash
# Run the shipped library adapters under `pushdouble conform` and compare their verdicts with
# adapters/<name>/expected-verdicts.json.
#
#   adapters/run.sh [--update] [name...]     (default: every adapters/*/adapter.py and adapter.mjs)
#   adapters/run.sh --install-only [name...] (only the venvs; Tests/run.sh makes them during its build)
#
# Each Python adapter's requirements go into its own venv, .build/adapters/<name> (reinstalled only
# when requirements.txt changed); a Node adapter (adapter.mjs, no dependencies) runs with `node`. The binary is $PUSHDOUBLE_BIN, else .build/debug/pushdouble.
# $PUSHDOUBLE_SEED (default 1) is passed as --seed, $PUSHDOUBLE_JOBS (default 2) as --jobs.
# Reports: .build/adapters/<name>.json (the scorecard reads them: adapters/scorecard.py).
# Exit 1 when any verdict differs from the expected file (--update rewrites the files instead).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
update=0
install_only=0
names=()
for a in "$@"; do
  case "$a" in
    --update) update=1 ;;
    --install-only) install_only=1 ;;
    *) names+=("$a") ;;
  esac
done
if [ ${#names[@]} -eq 0 ]; then
  for f in adapters/*/adapter.py adapters/*/adapter.mjs; do [ -f "$f" ] && names+=("$(basename "$(dirname "$f")")"); done
fi
bin=${PUSHDOUBLE_BIN:-$root/.build/debug/pushdouble}
[ $install_only -eq 1 ] || [ -x "$bin" ] || { echo "adapters/run.sh: no pushdouble binary at $bin (set PUSHDOUBLE_BIN)" >&2; exit 2; }
seed=${PUSHDOUBLE_SEED:-1}
jobs=${PUSHDOUBLE_JOBS:-2}
status=0
passed=0
failed=0
for name in "${names[@]}"; do
  dir=adapters/$name
  mkdir -p .build/adapters
  if [ -f "$dir/adapter.mjs" ]; then
    sender="node $root/$dir/adapter.mjs"
  else
    [ -f "$dir/adapter.py" ] || { echo "adapters/run.sh: no adapter $dir/adapter.py or adapter.mjs" >&2; exit 2; }
    sender="$root/.build/adapters/$name/bin/python $root/$dir/adapter.py"
  fi
  venv=.build/adapters/$name
  stamp=$(if [ -f "$dir/requirements.txt" ]; then sha256sum "$dir/requirements.txt" | cut -d' ' -f1; fi)
  if [ -f "$dir/adapter.py" ] && { [ ! -x "$venv/bin/python" ] || [ "$(cat "$venv/.requirements" 2>/dev/null)" != "$stamp" ]; }; then
    echo "== $name: installing $dir/requirements.txt into $venv"
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check -r "$dir/requirements.txt"
    echo "$stamp" > "$venv/.requirements"
  fi
  [ $install_only -eq 0 ] || continue
  report=.build/adapters/$name.json
  echo "== $name: pushdouble conform (seed $seed)"
  start=$(date +%s)
  set +e
  PYTHONPATH=$root/python/src "$bin" conform --scenarios "$root/Scenarios" --seed "$seed" --jobs "$jobs" \
    --sender "$sender" --json "$report" > ".build/adapters/$name.txt" 2>&1
  rc=$?
  set -e
  echo "   $(tail -n 1 ".build/adapters/$name.txt") (conform exit $rc, $(( $(date +%s) - start )) s)"
  if [ ! -s "$report" ]; then
    echo "   no report written; see .build/adapters/$name.txt"; status=1; failed=$((failed + 1)); continue
  fi
  if [ $update -eq 1 ]; then
    python3 adapters/verdicts.py update "$report" "$dir/expected-verdicts.json"
    echo "   wrote $dir/expected-verdicts.json"
    passed=$((passed + 1))
  elif python3 adapters/verdicts.py compare "$report" "$dir/expected-verdicts.json"; then
    echo "   verdicts as expected"
    passed=$((passed + 1))
  else
    echo "   verdicts differ from $dir/expected-verdicts.json (above)"
    status=1
    failed=$((failed + 1))
  fi
done
[ $install_only -eq 1 ] && { echo "adapters: venvs ready (${names[*]})"; exit 0; }
echo "adapters: $passed passed, $failed failed"
exit $status
