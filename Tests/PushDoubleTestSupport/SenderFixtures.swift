import Foundation

// Fixtures of the tests that drive a sender process: the scripts they write and the
// shipped scenario directory.

/// A tiny sender in Python, parameterised by MODE, for driver-protocol tests.
public let fakeSenderPython = #"""
import json, os, sys, time
mode = os.environ.get("MODE", "good")
sys.stderr.write("fake sender starting in mode %s\n" % mode); sys.stderr.flush()
for line in sys.stdin:
    msg = json.loads(line)
    m, i = msg["method"], msg.get("id")
    def reply(result):
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": i, "result": result}) + "\n"); sys.stdout.flush()
    if m == "initialize":
        if mode == "garbage-init":
            print("hello, I am not JSON-RPC", flush=True); continue
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "method": "log", "params": {"x": 1}}) + "\n")
        result = {"name": "fake", "version": "0.1", "providers": ["fcm"] if mode in ("fcm-only", "fcm-targets") else ["apns"],
                  "env": os.environ.get("APNS_URL"), "proto": os.environ.get("PUSHDOUBLE_PROTOCOL"),
                  "params": msg["params"]}
        if mode == "fcm-targets":
            result["targets"] = ["fcm.topic", "fcm.condition"]
        reply(result)
    elif m == "send":
        if mode == "crash":
            sys.stderr.write("Traceback: boom\n"); sys.stderr.flush(); sys.exit(3)
        if mode == "hang":
            time.sleep(30)
        if mode == "garbage":
            print("{not json", flush=True); continue
        if mode == "rpc-error":
            sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": i, "error": {"code": -32000, "message": "no can do"}}) + "\n"); sys.stdout.flush(); continue
        if mode == "wrong-id":
            sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": str(i), "result": {"results": []}}) + "\n"); sys.stdout.flush(); continue
        if mode == "bad-outcome":
            reply({"results": [{"device": d["id"], "outcome": "delivered"} for d in msg["params"]["devices"]]}); continue
        # A target's result echoes the target object it was given (its reason), for the tests.
        targets = [dict(t, reason=json.dumps(t, sort_keys=True)) for t in msg["params"].get("targets", [])]
        reply({"results": [{"device": d["id"], "outcome": "sent", "providerMessageId": "x"} for d in msg["params"]["devices"]]
                          + [{"device": t["id"], "outcome": "sent", "reason": t["reason"]} for t in targets]})
    elif m == "settle":
        reply({"results": []})
    elif m == "shutdown":
        reply({}); sys.exit(0)
"""#

/// Writes an executable script into a temp dir and returns its path.
public func makeScript(_ name: String, _ text: String) -> String {
    let dir = NSTemporaryDirectory() + "pd-conformance-tests-\(getpid())"
    try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    let path = dir + "/" + name
    _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o755])
    return path
}

/// The repository's root, found from this source file (Tests/PushDoubleTestSupport/ → repo root),
/// so a test file's own depth under Tests/ does not matter.
public let repositoryRoot: URL = {
    var url = URL(fileURLWithPath: #filePath)
    url.deleteLastPathComponent(); url.deleteLastPathComponent(); url.deleteLastPathComponent()
    return url
}()

/// The shipped directory, `Scenarios/` under the repository's root.
public let shippedScenarioDirectory: String = repositoryRoot.appendingPathComponent("Scenarios").path
