import Foundation
import XCTest
import PushDoubleTesting
import PushDoubleClient   // only where TLS is exercised: a client that trusts the test CA

/// The double in TLS mode (as `serve` and the conformance runner run it), reached with
/// PushDoubleClient over HTTP/2 with ALPN, trusting the double's test CA.
final class TLSClientTests: XCTestCase {
    func testAPNsOverTLSWithTheTestCA() async throws {
        let double = try startPushDouble()   // .ephemeral(): TLS
        let endpoint = try XCTUnwrap(double.endpoint(named: "apns-sandbox"))
        let connection = try await HTTPClientConnection.connect(
            host: endpoint.host, port: endpoint.port, tls: true,
            configuration: HTTPClientConfiguration(caPEM: try XCTUnwrap(double.configuration.credentials?.caPEM)))
        defer { connection.close() }
        XCTAssertEqual(connection.version, .http2)
        var request = HTTPClientRequest(method: "POST", path: "/3/device/" + String(repeating: "9a", count: 32),
                                        authority: "\(endpoint.host):\(endpoint.port)", body: Array(#"{"aps":{"alert":"over TLS"}}"#.utf8))
        request.headers.add(name: "authorization", value: "bearer " + (try TestCredentials.apnsProviderToken()))
        request.headers.add(name: "apns-topic", value: APNsTestCredentials.topic)
        let response = try await connection.send(request)
        XCTAssertEqual(response.status, 200)
        let push = try XCTUnwrap(double.history.apnsPushes.first)
        XCTAssertEqual(push.alert?.body, "over TLS")
        XCTAssertNil(push.exchange.plaintext)
        XCTAssertEqual(push.exchange.transport.connection.tls?.alpn, "h2")
    }
}
