"""Parses every ```yaml block of the given Markdown files and every *.yaml file of the given
directories with PyYAML (safe_load_all), and checks the shapes the snippets claim: a GitHub
Actions job with `services:`, a GitLab CI job with `services:`, Kubernetes objects with
apiVersion and kind, a compose file with `services:`. Exit 1 naming the first block that fails.

    python3 Tests/Container/check_yaml.py docs/containers.md docs/scale.md examples/containers
"""
import os
import re
import sys

import yaml


def blocks(path):
    if path.endswith(".md"):
        text = open(path).read()
        for m in re.finditer(r"^```yaml\n(.*?)^```", text, re.S | re.M):
            yield f"{path}:{text[:m.start()].count(chr(10)) + 1}", m.group(1)
    else:
        yield path, open(path).read()


def check(where, docs):
    docs = [d for d in docs if d is not None]
    assert docs, f"{where}: empty"
    for d in docs:
        assert isinstance(d, dict), f"{where}: not a mapping"
        if "apiVersion" in d or "kind" in d:
            assert d.get("apiVersion") and d.get("kind") and d.get("metadata", {}).get("name"), f"{where}: Kubernetes object without apiVersion/kind/name"
        elif "jobs" in d:  # GitHub Actions workflow
            for job in d["jobs"].values():
                assert "runs-on" in job and "steps" in job, f"{where}: GitHub job without runs-on/steps"
                for svc in job.get("services", {}).values():
                    assert "image" in svc, f"{where}: service without image"
        elif any(isinstance(v, dict) and "script" in v for v in d.values()):  # GitLab CI
            for job in (v for v in d.values() if isinstance(v, dict) and "script" in v):
                for svc in job.get("services", []):
                    assert isinstance(svc, str) or "name" in svc, f"{where}: GitLab service without name"
        elif "services" in d:  # compose
            for svc in d["services"].values():
                assert "image" in svc or "build" in svc, f"{where}: compose service without image"


count = 0
for arg in sys.argv[1:]:
    paths = [os.path.join(arg, f) for f in sorted(os.listdir(arg)) if f.endswith(".yaml")] if os.path.isdir(arg) else [arg]
    for path in paths:
        for where, text in blocks(path):
            try:
                check(where, list(yaml.safe_load_all(text)))
            except Exception as e:  # noqa: BLE001 - report any parse or shape failure with its place
                print(f"check_yaml: {where}: {e}")
                sys.exit(1)
            count += 1
print(f"check_yaml: {count} YAML blocks parse")
sys.exit(0 if count else 1)
