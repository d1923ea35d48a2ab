"""adapters/verdicts.py (expected verdicts, lists for racy checks) and adapters/scorecard.py
(every failure needs an explanation) — the tools behind adapters/run.sh."""

import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ADAPTERS = os.path.join(ROOT, "adapters")
sys.path.insert(0, ADAPTERS)

import verdicts  # noqa: E402


def _report(path, cases):
    with open(path, "w") as f:
        json.dump({"cases": [{"id": c, "verdict": v, "checks": [{"id": k, "verdict": x, "message": "m"} for k, x in checks.items()]}
                             for c, (v, checks) in cases.items()]}, f)
    return str(path)


def test_compare_accepts_a_listed_verdict_and_reports_the_rest(tmp_path):
    expected = {"c1": {"outcome": ["fail", "pass"], "no-loss": "pass"}, "c2": {"outcome": "pass"}}
    assert verdicts.differences(expected, {"c1": {"outcome": "fail", "no-loss": "pass"}, "c2": {"outcome": "pass"}}) == []
    assert verdicts.differences(expected, {"c1": {"outcome": "warn", "no-loss": "fail"}}) == [
        "c1 no-loss: expected pass, got fail", "c1 outcome: expected ['fail', 'pass'], got warn", "c2: case only in expected"]


def test_update_keeps_a_list_that_still_holds(tmp_path):
    exp = tmp_path / "expected.json"
    exp.write_text(json.dumps({"c1": {"outcome": ["fail", "pass"], "no-loss": "pass"}}))
    rep = _report(tmp_path / "r.json", {"c1": ("fail", {"outcome": "pass", "no-loss": "fail"})})
    assert verdicts.main(["update", rep, str(exp)]) == 0
    assert json.loads(exp.read_text()) == {"c1": {"outcome": ["fail", "pass"], "no-loss": "fail"}}
    rep2 = _report(tmp_path / "r2.json", {"c1": ("warn", {"outcome": "warn", "no-loss": "fail"})})
    assert verdicts.main(["compare", rep2, str(exp)]) == 1
    assert verdicts.main(["update", rep2, str(exp)]) == 0
    assert json.loads(exp.read_text())["c1"]["outcome"] == "warn"  # a verdict outside the list replaces it


def test_scorecard_fails_on_an_unexplained_failure(tmp_path):
    expected = json.load(open(os.path.join(ADAPTERS, "pywebpush", "expected-verdicts.json")))
    cases = {c: ("pass", dict(checks)) for c, checks in expected.items()}
    cases["webpush.happy-path"][1]["webpush.vapid"] = "fail"  # pywebpush's explanations say nothing of it
    _report(tmp_path / "pywebpush.json", cases)
    out = tmp_path / "scorecard.md"
    run = subprocess.run([sys.executable, os.path.join(ADAPTERS, "scorecard.py"), "--reports", str(tmp_path), "--out", str(out), "--check"],
                         capture_output=True, text=True)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "no explanation for pywebpush: webpush.happy-path/webpush.vapid" in run.stderr
    text = out.read_text()
    assert "| `webpush.happy-path` |" in text and "(no explanation yet" in text


def test_the_committed_expected_files_are_explained():
    # every fail/warn/info the expected files hold (and every racy list) has its explanation
    for name in sorted(os.listdir(ADAPTERS)):
        exp_path = os.path.join(ADAPTERS, name, "expected-verdicts.json")
        if not os.path.exists(exp_path):
            continue
        expl = json.load(open(os.path.join(ADAPTERS, name, "explanations.json")))
        for case, checks in json.load(open(exp_path)).items():
            for check, v in checks.items():
                bad = v if isinstance(v, list) else [v]
                if any(x in ("fail", "warn", "info", "error") for x in bad):
                    assert "%s/%s" % (case, check) in expl, (name, case, check)
