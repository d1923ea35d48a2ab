import Foundation
import XCTest
import PushDoubleCore
import PushDoubleTransport
@testable import PushDoubleAPNs

/// A clock the tests move by hand.
final class ManualClock: DoubleClock, @unchecked Sendable {
    // Only mutated from the test thread; unchecked because XCTest runs tests serially.
    var current: Date
    init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) { current = start }
    func now() -> Date { current }
    func advance(_ seconds: Double) { current = current.addingTimeInterval(seconds) }
}

/// A ConnectionControl with no transport behind it: records what the fake asked for.
final class FakeConnection: ConnectionControl {
    var info: ConnectionInfo
    var version: HTTPVersion = .http2
    var storage: AnyObject?
    var settingsUpdates: [UInt32?] = []
    var closes: [(HTTP2ErrorCode, [UInt8])] = []
    init(id: UInt64 = 1, listener: String = "apns-production", sni: String? = nil) {
        info = ConnectionInfo(id: id, listener: listener, peer: "127.0.0.1:50000", localPort: 2197,
                              tls: TLSInfo(version: "TLSv1.3", alpn: "h2", serverName: sni, cipher: nil),
                              acceptedAt: Date(timeIntervalSince1970: 0))
    }
    func updateSettings(maxConcurrentStreams: UInt32?) { settingsUpdates.append(maxConcurrentStreams) }
    func closeGracefully(errorCode: HTTP2ErrorCode, debugData: [UInt8]) { closes.append((errorCode, debugData)) }
}

enum Fixture {
    static let token = "a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90"
    static let topic = "com.example.pushdouble"

    static func request(method: String = "POST", path: String? = nil, token: String = Fixture.token,
                        headers: [(String, String)] = [("apns-topic", Fixture.topic)],
                        body: String = #"{"aps":{"alert":"hi"}}"#, authority: String? = "localhost",
                        connection: ConnectionControl? = nil) -> HTTPRequest {
        let conn = connection?.info ?? FakeConnection().info
        let info = RequestInfo(connection: conn, streamID: 1, version: .http2, headReceivedAt: Date(), bodyReceivedAt: Date())
        return HTTPRequest(method: method, path: path ?? "/3/device/\(token)", scheme: "https", authority: authority,
                           headers: HTTPHeaders(headers), body: Array(body.utf8), info: info)
    }
}

extension XCTestCase {
    func assertReason(_ request: HTTPRequest, _ expected: APNsReason?, file: StaticString = #filePath, line: UInt = #line) {
        let (_, reason) = APNsRequestValidator.checkHeaders(request)
        XCTAssertEqual(reason, expected, file: file, line: line)
    }
}
