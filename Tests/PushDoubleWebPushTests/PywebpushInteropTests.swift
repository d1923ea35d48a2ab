import Foundation
import XCTest
import PushDoubleCrypto
import PushDoubleJSON
import PushDoubleTestSupport
@testable import PushDoubleWebPush

/// A real sender library encrypts and signs at test time: pywebpush (which encrypts with
/// http_ece and signs VAPID with py_vapid, docs/webpush.md §7.2) builds the request for a
/// subscription made here; a stand-in `requests` session captures it instead of sending it
/// (no network). The captured request must pass ``WebPushRequestValidator`` and decrypt with
/// ``WebPushBrowser``. Requires `pip install pywebpush`; a missing library fails the test.
final class PywebpushInteropTests: XCTestCase {
    override func setUpWithError() throws { try requireInteropTier(needs: "python3 (pywebpush)") }

    /// Reads `{"subscription","data","encoding","vapid_key_file","headers"}` on stdin, prints
    /// `{"endpoint","headers","body"}` (body base64url) of the request pywebpush would send.
    static let script = #"""
import base64, json, sys
try:
    import pywebpush, http_ece, py_vapid
except ImportError as e:
    print("missing python library: %s (pip install pywebpush)" % e.name, file=sys.stderr)
    sys.exit(3)
job = json.load(sys.stdin)
captured = {}
class Response:
    status_code = 201
    text = ""
    headers = {}
class Session:
    def post(self, endpoint, data=None, headers=None, timeout=None):
        captured["endpoint"] = endpoint
        captured["headers"] = [[k, str(v)] for k, v in headers.items()]
        captured["body"] = base64.urlsafe_b64encode(data or b"").decode().rstrip("=")
        return Response()
pywebpush.webpush(job["subscription"], data=job["data"], vapid_private_key=job["vapid_key_file"],
                  vapid_claims={"sub": "mailto:interop@example.com"}, content_encoding=job["encoding"],
                  ttl=job["ttl"], headers=job["headers"], requests_session=Session())
print(json.dumps(captured))
"""#

    struct Captured {
        var endpoint: String
        var request: WebPushRequest
    }

    func pywebpush(_ sub: WebPushSubscription, data: String, encoding: String, ttl: Int = 0,
                   headers: JSONValue = [:]) throws -> Captured {
        let job: JSONValue = ["subscription": sub.json, "data": .string(data), "encoding": .string(encoding), "ttl": .int(Int64(ttl)),
                              "vapid_key_file": .string(repositoryRoot.appendingPathComponent("Certificates/vapid-test-private.pem").path),
                              "headers": headers]
        let r = try runCommand(["python3", "-c", Self.script], input: Data(job.compactJSONBytes), timeout: 60)
        guard r.status == 0 else {
            XCTFail("pywebpush run failed (\(r.status)): \(r.stderr)")
            throw CocoaError(.executableLoad)
        }
        let out = try JSONValue.parse(r.stdout)
        let hs = (out["headers"]?.arrayValue ?? []).compactMap { pair -> WebPushRequest.Header? in
            guard let a = pair.arrayValue, a.count == 2, let n = a[0].stringValue, let v = a[1].stringValue else { return nil }
            return .init(name: n, value: v)
        }
        return Captured(endpoint: out["endpoint"]?.stringValue ?? "",
                        request: WebPushRequest(headers: hs, body: try Base64URL.decode(out["body"]?.stringValue ?? "")))
    }

    func subscription() throws -> WebPushSubscription {
        try WebPushSubscription(service: .mozilla, origin: "https://127.0.0.1:8443", applicationServerKey: vapidTestKey().publicKey)
    }

    var now: Int64 { Int64(Date().timeIntervalSince1970) }

    func testAES128GCMFromPywebpush() throws {
        let sub = try subscription()
        let text = #"{"title":"héllo from pywebpush","n":42}"#
        let c = try pywebpush(sub, data: text, encoding: "aes128gcm", ttl: 120, headers: ["Urgency": "high", "Topic": "news"])
        XCTAssertEqual(c.endpoint, sub.endpoint)
        // py_vapid's form, no space after the comma (docs/webpush.md §5).
        XCTAssertTrue(c.request.value("Authorization")?.contains(",k=") ?? false, "\(c.request.headers)")
        let accepted = try WebPushRequestValidator(configuration: .preset(for: .mozilla)).validate(c.request, for: sub, now: now)
        XCTAssertEqual(accepted.ttl, 120)
        XCTAssertEqual(accepted.urgency, .high)
        XCTAssertEqual(accepted.topic, "news")
        XCTAssertEqual(accepted.contentEncoding, .aes128gcm)
        XCTAssertEqual(accepted.vapid?.form, .vapid)
        XCTAssertEqual(accepted.vapid?.audience, "https://127.0.0.1:8443")
        XCTAssertEqual(accepted.vapid?.subject, "mailto:interop@example.com")
        let exp = try XCTUnwrap(accepted.vapid?.expiresAt)
        XCTAssertLessThanOrEqual(abs(exp - (now + 12 * 3600)), 60)  // pywebpush: now + 12 h (§7.2)
        let m = WebPushBrowser(subscription: sub).receive(accepted, at: Date())
        XCTAssertEqual(m.payload, .text(text))
    }

    func testLegacyAESGCMFromPywebpush() throws {
        let sub = try subscription()
        let c = try pywebpush(sub, data: "legacy aesgcm payload", encoding: "aesgcm")
        XCTAssertNotNil(c.request.value("encryption"))
        XCTAssertNotNil(c.request.value("crypto-key"))
        let accepted = try WebPushRequestValidator().validate(c.request, for: sub, now: now)
        XCTAssertEqual(accepted.ttl, 0)  // pywebpush's default (§7.2)
        XCTAssertEqual(accepted.contentEncoding, .aesgcm)
        XCTAssertEqual(try WebPushBrowser(subscription: sub).decrypt(accepted).get(), Array("legacy aesgcm payload".utf8))
    }

    /// Encrypted for one subscription, received by another: the browser names the failure.
    func testPywebpushForAnotherBrowser() throws {
        let sub = try subscription()
        let c = try pywebpush(sub, data: "not for you", encoding: "aes128gcm")
        let accepted = try WebPushRequestValidator().validate(c.request, for: sub, now: now)
        let stranger = try WebPushSubscription(service: .mozilla, origin: sub.origin, token: sub.token,
                                               applicationServerKey: sub.applicationServerKey)
        XCTAssertEqual(WebPushBrowser(subscription: stranger).decrypt(accepted), .failure(.authenticationFailed(record: 0)))
    }
}
