"""The driver kit: adapters in python/tests/adapters/ spawned as real processes and spoken
to in JSON-RPC, as `pushdouble conform` does."""

import asyncio
import io
import json
import socket

import pytest

from pushdouble import driver
from support import python_adapter

DEVICES = [
    {"id": "d1", "provider": "apns", "token": "s1"},
    {"id": "d2", "provider": "apns", "token": "dead"},
    {"id": "d3", "provider": "apns", "token": "p"},
    {"id": "d4", "provider": "apns", "token": "r"},
    {"id": "d5", "provider": "apns", "token": "f"},
    {"id": "d6", "provider": "apns", "token": "k"},
    {"id": "d7", "provider": "apns", "token": "a"},
]


@pytest.fixture
def kit():
    p = python_adapter("kit_adapter.py")
    yield p
    p.close()


def test_initialize_result_from_the_attributes(kit):
    r = kit.result("initialize", {"protocolVersion": 1, "providers": {"apns": {"url": "https://x"}, "fcm": {}}})
    assert r == {
        "name": "kit-adapter", "version": "2.5", "providers": ["apns", "fcm"],
        "features": ["collapse", "register"],  # register overridden -> advertised
        "fields": {"apns": ["title", "body", "badge"], "fcm": ["title", "body"]},
        "targets": ["fcm.topic"],
    }
    # initialize got params["providers"], parsed
    assert kit.result("send", {"notification": {"title": "config"}, "devices": DEVICES[:1]}) == {
        "results": [{"device": "d1", "outcome": "sent", "reason": "apns,fcm"}]}


def test_minimal_adapter_leaves_optional_members_out():
    p = python_adapter("plain_adapter.py")
    try:
        assert p.result("initialize", {"protocolVersion": 1, "providers": {}}) == {
            "name": "plain", "version": "1", "providers": ["expo"]}
        # a two-argument send works; targets are not passed to it
        r = p.result("send", {"notification": {}, "devices": [{"id": "x"}], "targets": [{"id": "t"}]})
        assert r == {"results": [{"device": "x", "outcome": "sent"}]}
        assert p.result("settle") == {"results": []}
        # register is not overridden: not a method of this adapter
        assert p.call("register", {"devices": []})["error"]["code"] == -32601
        assert p.result("shutdown") == {}
        assert p.close() == 0
    finally:
        p.close()


def test_every_outcome_helper_and_targets(kit):
    kit.result("initialize", {"protocolVersion": 1, "providers": {}})
    r = kit.result("send", {"notification": {"title": "hi"}, "devices": DEVICES,
                            "targets": [{"id": "news", "provider": "fcm", "topic": "news"}]})
    assert r["results"] == [
        {"device": "d1", "outcome": "sent", "providerMessageId": "mid-d1"},
        {"device": "d2", "outcome": "dead", "reason": "Unregistered"},
        {"device": "d3", "outcome": "pending"},
        {"device": "d4", "outcome": "rejected"},
        {"device": "d5", "outcome": "failed"},
        {"device": "d6", "outcome": "skipped"},
        {"device": "d7", "outcome": "aborted", "reason": "batch aborted"},
        {"device": "news", "outcome": "sent", "providerMessageId": "projects/p/messages/news"},
    ]
    assert kit.result("settle") == {"results": [{"device": "d9", "outcome": "sent", "reason": "settled"}]}
    assert kit.result("register", {"devices": [{"id": "r1"}, {"id": "r2"}]}) == {"registered": ["r1", "r2"]}


def test_handler_exception_is_an_error_reply_and_the_loop_goes_on(kit):
    kit.result("initialize", {"protocolVersion": 1, "providers": {}})
    reply = kit.call("send", {"notification": {"title": "boom"}, "devices": DEVICES[:2]})
    assert reply["error"] == {"code": -32000, "message": "the sender blew up: 2"}
    assert "result" not in reply
    # an exception without text: its class name
    assert kit.call("send", {"notification": {"title": "silent-error"}, "devices": []})["error"] == {
        "code": -32000, "message": "KeyError"}
    # still serving
    assert kit.result("send", {"notification": {}, "devices": DEVICES[:1]})["results"][0]["outcome"] == "sent"
    kit.result("shutdown")
    kit.close()
    assert "Traceback (most recent call last)" in kit.stderr
    assert "RuntimeError: the sender blew up: 2" in kit.stderr


def test_protocol_errors(kit):
    kit.send_line("this is not json")
    r = kit.read_reply()
    assert r["id"] is None and r["error"]["code"] == -32700
    kit.send_line("")  # blank lines are ignored
    kit.send_line('[1, 2]')
    assert kit.read_reply()["error"]["code"] == -32600
    kit.send_line('{"jsonrpc": "2.0", "id": 5, "params": {}}')
    assert kit.read_reply() == {"jsonrpc": "2.0", "id": 5, "error": {
        "code": -32600, "message": "Invalid Request: expected an object with a method"}}
    r = kit.call("frobnicate", {})
    assert r["error"] == {"code": -32601, "message": "Method not found: frobnicate"}
    kit.send_line('{"jsonrpc": "2.0", "method": "settle"}')  # a notification: no reply
    assert kit.call("initialize", {"protocolVersion": 1, "providers": {}})["result"]["name"] == "kit-adapter"
    assert kit.call("send", "not an object")["error"]["code"] == -32602


def test_stdout_carries_protocol_lines_only(kit):
    kit.result("initialize", {"protocolVersion": 1, "providers": {}})
    kit.result("send", {"notification": {}, "devices": DEVICES[:1]})  # the adapter print()s here
    assert kit.result("shutdown") == {}
    out, _ = kit.proc.communicate(timeout=10)
    assert out == b""  # nothing after the shutdown reply, and every line before was JSON (read_reply parsed it)
    assert kit.proc.returncode == 0
    assert "a stray print from the sender's code" in kit.stderr
    assert "kit-adapter: INFO: initialize with []" in kit.stderr  # logging -> stderr


def test_end_of_input_ends_the_loop(kit):
    kit.result("initialize", {"protocolVersion": 1, "providers": {}})
    assert kit.close() == 0


def test_async_handlers_share_one_persistent_loop():
    p = python_adapter("async_adapter.py")
    try:
        p.result("initialize", {"protocolVersion": 1, "providers": {}})
        for _ in range(2):  # the queue and worker made in initialize still work later
            r = p.result("send", {"notification": {}, "devices": [{"id": "a"}, {"id": "b"}]})
            assert [x["reason"] for x in r["results"]] == ["worked:a same-loop", "worked:b same-loop"]
        assert p.result("settle") == {"results": []}
        assert p.result("shutdown") == {}
        assert p.close() == 0
        assert "Task was destroyed" not in p.stderr and "Traceback" not in p.stderr
    finally:
        p.close()


def test_run_activates_the_host_map_from_the_environment():
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    listener.close()
    p = python_adapter("kit_adapter.py", PUSHDOUBLE_HOST_MAP=json.dumps({"api.push.apple.com:443": "127.0.0.1:%d" % port}))
    try:
        p.result("initialize", {"protocolVersion": 1, "providers": {}})
        r = p.result("send", {"notification": {"title": "resolve", "data": {"host": "api.push.apple.com", "port": 443}},
                              "devices": DEVICES[:1]})
        assert r["results"][0]["reason"] == "127.0.0.1:%d" % port
    finally:
        p.close()
    assert "host redirect active" in p.stderr


# -- in-process: serve() and the helpers ---------------------------------------------------------

def test_serve_in_process_with_text_streams():
    class A(driver.Adapter):
        name, version, providers = "inproc", "0.1", ["webpush"]

        def send(self, notification, devices, targets):
            return [driver.sent(d, message_id="m") for d in devices]

    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1, "providers": {}}},
        {"jsonrpc": "2.0", "id": 2, "method": "send", "params": {"notification": {}, "devices": [{"id": "w"}]}},
        {"jsonrpc": "2.0", "id": 3, "method": "shutdown"},
        {"jsonrpc": "2.0", "id": 4, "method": "send", "params": {}},  # after shutdown: not read
    ]
    out = io.StringIO()
    driver.serve(A(), io.StringIO("".join(json.dumps(l) + "\n" for l in lines)), out)
    replies = [json.loads(l) for l in out.getvalue().splitlines()]
    assert [r["id"] for r in replies] == [1, 2, 3]
    assert replies[1]["result"] == {"results": [{"device": "w", "outcome": "sent", "providerMessageId": "m"}]}


def test_serve_with_binary_streams():
    class A(driver.Adapter):
        name, version, providers = "bin", "1", []

    out = io.BytesIO()
    driver.serve(A(), io.BytesIO(b'{"jsonrpc":"2.0","id":1,"method":"settle"}\n'), out)
    assert json.loads(out.getvalue()) == {"jsonrpc": "2.0", "id": 1, "result": {"results": []}}


def test_outcome_helpers():
    assert driver.sent({"id": "d1", "token": "t"}, message_id="abc") == {
        "device": "d1", "outcome": "sent", "providerMessageId": "abc"}
    assert driver.dead("d2", "BadDeviceToken") == {"device": "d2", "outcome": "dead", "reason": "BadDeviceToken"}
    assert driver.aborted("d3", "auth failed") == {"device": "d3", "outcome": "aborted", "reason": "auth failed"}
    assert driver.pending("d4", message_id="ticket") == {"device": "d4", "outcome": "pending", "providerMessageId": "ticket"}
    assert driver.OUTCOMES == ("sent", "pending", "dead", "rejected", "failed", "skipped", "aborted")
    with pytest.raises(ValueError):
        driver.result("d", "delivered")


def test_adapter_loop_is_created_once_and_closed_by_serve():
    class B(driver.Adapter):
        async def settle(self):
            return [driver.sent("x", reason=str(id(asyncio.get_running_loop())))]

    b = B()
    loop = b.loop
    assert b.loop is loop
    out = io.StringIO()
    driver.serve(b, io.StringIO('{"jsonrpc":"2.0","id":1,"method":"settle"}\n'), out)
    assert json.loads(out.getvalue())["result"]["results"][0]["reason"] == str(id(loop))
    assert loop.is_closed()


def test_a_result_that_is_not_json_is_an_error_reply():
    class C(driver.Adapter):
        def settle(self):
            return [{"device": "x", "outcome": "sent", "reason": object()}]

    out = io.StringIO()
    driver.serve(C(), io.StringIO('{"jsonrpc":"2.0","id":7,"method":"settle"}\n'), out)
    r = json.loads(out.getvalue())
    assert r["id"] == 7 and r["error"]["code"] == -32000 and "not JSON" in r["error"]["message"]


def test_outcome_of_takes_the_most_specific_type():
    class LibError(Exception):
        pass

    class Gone(LibError):
        pass

    class VeryGone(Gone):
        pass

    table = {LibError: driver.FAILED, Gone: driver.DEAD, (ValueError, TypeError): driver.REJECTED}
    assert driver.outcome_of(VeryGone("x"), table) == driver.DEAD
    assert driver.outcome_of(LibError("410 Unregistered"), table) == driver.FAILED  # the type, not the text
    assert driver.outcome_of(TypeError(), table) == driver.REJECTED
    assert driver.outcome_of(KeyError(), table) == driver.FAILED
    assert driver.outcome_of(KeyError(), table, default=driver.ABORTED) == driver.ABORTED


def test_dead_tokens_skip_until_registered_again():
    now = [1000.0]
    dead = driver.DeadTokens(clock=lambda: now[0])
    d1 = {"id": "d1", "token": "t1"}
    assert dead.skip(d1) is None
    entry = dead.note(d1, driver.dead(d1, "Unregistered"))
    assert entry == {"device": "d1", "outcome": "dead", "reason": "Unregistered"}
    assert "t1" in dead
    dead.note({"id": "d2", "token": "t2"}, driver.sent("d2"))
    assert "t2" not in dead  # only dead results are remembered
    assert dead.skip(d1) == {"device": "d1", "outcome": "skipped", "reason": "known dead: Unregistered"}
    # a registration at or before the moment the death was learnt changes nothing
    older = dict(d1, registeredAt="1970-01-01T00:16:40.000Z")  # 1000 s
    assert dead.skip(older)["outcome"] == "skipped"
    # a later one revives the token
    assert dead.skip(dict(d1, registeredAt="1970-01-01T00:16:41.000Z")) is None
    assert "t1" not in dead
    dead.note(d1, driver.dead(d1, "gone"))
    dead.revive([d1])
    assert dead.skip(d1) is None
