"""Verdicts of a `pushdouble conform --json` report: extract, compare with an expected file, update it.

An expected verdict is a string, or a list of the verdicts accepted for a check whose outcome
depends on a race inside the library (each such list is explained in the adapter's
explanations.json); `update` keeps such a list when the new verdict is one of them.

    python3 adapters/verdicts.py compare REPORT.json EXPECTED.json   # prints differences, exit 1 on any
    python3 adapters/verdicts.py update REPORT.json EXPECTED.json    # rewrites EXPECTED.json
    python3 adapters/verdicts.py same A.json B.json ...              # reports of one adapter agree (stability)
"""
import json, sys


def verdicts(report_path):
    """case id → check id → verdict (every case of the run, n/a included)."""
    report = json.load(open(report_path))
    return {c["id"]: {ch["id"]: ch["verdict"] for ch in c["checks"]} for c in report["cases"]}


def differences(expected, actual, labels=("expected", "got")):
    out = []
    for case in sorted(set(expected) | set(actual)):
        e, a = expected.get(case), actual.get(case)
        if e is None or a is None:
            out.append("%s: case only in %s" % (case, labels[0] if a is None else labels[1]))
            continue
        for check in sorted(set(e) | set(a)):
            want, got = e.get(check), a.get(check)
            if isinstance(want, list) and got in want or isinstance(got, list) and want in got:
                continue
            if want != got:
                out.append("%s %s: %s %s, %s %s" % (case, check, labels[0], e.get(check, "-"), labels[1], a.get(check, "-")))
    return out


def main(argv):
    if len(argv) < 3 or argv[0] not in ("compare", "update", "same"):
        sys.exit(__doc__)
    if argv[0] == "update":
        new = verdicts(argv[1])
        try:
            old = json.load(open(argv[2]))
        except (OSError, ValueError):
            old = {}
        for case, checks in new.items():
            for check, v in checks.items():
                kept = old.get(case, {}).get(check)
                if isinstance(kept, list) and v in kept:
                    checks[check] = kept
        with open(argv[2], "w") as f:
            json.dump(new, f, indent=1, sort_keys=True)
            f.write("\n")
        return 0
    if argv[0] == "compare":
        diff = differences(json.load(open(argv[2])), verdicts(argv[1]))
    else:
        first = verdicts(argv[1])
        diff = [d for other in argv[2:] for d in differences(first, verdicts(other), (argv[1], other))]
    for line in diff:
        print("  " + line)
    return 1 if diff else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
