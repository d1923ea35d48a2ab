"""Two replicas started from the same scenario give the same answers (docs/scale.md): the same
sequence of APNs pushes to each gives the same status sequence (magic tokens, the scenario's
device, the seeded probability rule), and /metrics shows the rule fired equally often.

    python3 Tests/Container/replicas.py http://127.0.0.1:PORT1 http://127.0.0.1:PORT2
"""
import json
import ssl
import sys
import time
import urllib.request

import httpx
import jwt


def answers(admin):
    env = json.loads(urllib.request.urlopen(admin + "/sender/environment?format=json", timeout=10).read())
    ca = urllib.request.urlopen(admin + "/ca.pem", timeout=10).read().decode()
    key = urllib.request.urlopen(admin + "/sender/files/AuthKey_PDTESTKEY1.p8", timeout=10).read().decode()
    token = jwt.encode({"iss": env["APNS_TEAM_ID"], "iat": int(time.time())}, key, algorithm="ES256", headers={"kid": env["APNS_KEY_ID"]})
    tokens = ["dead0000" * 8, "0000000041000000" + "0" * 48] + [f"{i:064x}" for i in range(1, 199)]
    statuses = []
    context = ssl.create_default_context(cadata=ca)
    with httpx.Client(http2=True, verify=context, timeout=10) as client:
        for t in tokens:
            r = client.post(env["APNS_URL"] + "/3/device/" + t, content=b'{"aps":{"alert":"x"}}',
                            headers={"authorization": "bearer " + token, "apns-topic": env["APNS_TOPIC"], "apns-push-type": "alert"})
            statuses.append(r.status_code)
    fired = [line for line in urllib.request.urlopen(admin + "/metrics", timeout=10).read().decode().splitlines()
             if line.startswith("pushdouble_fault_rules_fired_total{")]
    return statuses, fired


a, b = answers(sys.argv[1]), answers(sys.argv[2])
print(f"replica 1: {a[0][:2]} … {a[0].count(503)} × 503; {a[1]}")
print(f"replica 2: {b[0][:2]} … {b[0].count(503)} × 503; {b[1]}")
ok = a == b and a[0][:2] == [410, 410] and a[0].count(503) > 0 and a[1]
sys.exit(0 if ok else 1)
