"""The Testcontainers recipe of docs/containers.md, run for real: testcontainers-python starts
the PushDouble image over a Docker-compatible API (here `podman system service`), waits until
the double is ready and healthy, and a real client (httpx over HTTP/2 with a PyJWT provider
token) pushes to APNs through it using only what it fetched from the admin port.

    PUSHDOUBLE_IMAGE_REF=pushdouble:0.1.0 DOCKER_HOST=unix:///run/podman.sock pytest Tests/Container/test_testcontainers.py
"""
import json
import os
import re
import ssl
import tempfile
import time
import urllib.request

import httpx
import jwt
from docker.types import Ulimit
from testcontainers.core.container import DockerContainer
from testcontainers.core.wait_strategies import LogMessageWaitStrategy

IMAGE = os.environ.get("PUSHDOUBLE_IMAGE_REF", "pushdouble:latest")


def http_get(url):
    with urllib.request.urlopen(url, timeout=5) as r:
        return r.status, r.read()


def test_image_starts_waits_healthy_and_a_real_client_pushes_through_it():
    # Host networking and ephemeral ports (this CI machine has no container bridge); with a
    # bridge, `.with_exposed_ports(8720, 8721)` and get_exposed_port() are the usual recipe.
    container = (DockerContainer(IMAGE)
                 .with_command("serve --host 0.0.0.0 --ephemeral")
                 .with_env("PUSHDOUBLE_ADVERTISED_HOST", "127.0.0.1")
                 .with_kwargs(network_mode="host",
                              ulimits=[Ulimit(name="nofile", soft=4096, hard=4096), Ulimit(name="nproc", soft=4096, hard=4096)])
                 .waiting_for(LogMessageWaitStrategy(re.compile(r"^ready \(", re.M)).with_startup_timeout(30)))
    with container:
        logs = container.get_logs()[0].decode()
        admin = "http://127.0.0.1:" + re.search(r"^  admin +http://127\.0\.0\.1:(\d+)$", logs, re.M).group(1)
        # Healthy: the same probe as the image's HEALTHCHECK, over HTTP.
        deadline = time.time() + 10
        while True:
            status, body = http_get(admin + "/health")
            if status == 200 and json.loads(body)["status"] == "ok":
                break
            assert time.time() < deadline, body
            time.sleep(0.1)

        kit = tempfile.mkdtemp(prefix="pd-tc-")
        env = json.loads(http_get(admin + "/sender/environment?format=json&dir=" + kit)[1])
        for name in json.loads(http_get(admin + "/sender/files")[1]):
            with open(os.path.join(kit, name), "wb") as f:
                f.write(http_get(admin + "/sender/files/" + name)[1])

        with open(env["APNS_KEY_FILE"]) as f:
            token = jwt.encode({"iss": env["APNS_TEAM_ID"], "iat": int(time.time())}, f.read(), algorithm="ES256",
                               headers={"kid": env["APNS_KEY_ID"]})
        with httpx.Client(http2=True, verify=ssl.create_default_context(cafile=env["PUSHDOUBLE_CA_FILE"]), timeout=10) as client:
            r = client.post(env["APNS_URL"] + "/3/device/" + "b2" * 32, content=b'{"aps":{"alert":"testcontainers"}}',
                            headers={"authorization": "bearer " + token, "apns-topic": env["APNS_TOPIC"], "apns-push-type": "alert"})
        assert (r.http_version, r.status_code) == ("HTTP/2", 200), r.text
        history = json.loads(http_get(admin + "/history?provider=apns")[1])
        assert [e["response"]["status"] for e in history["exchanges"]] == [200]
