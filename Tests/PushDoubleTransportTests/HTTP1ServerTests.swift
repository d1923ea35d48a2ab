import Foundation
import XCTest
@testable import PushDoubleTransport

final class HTTP1ServerTests: XCTestCase {
    func testCurlKeepAliveTwoRequests() throws {
        let r = echoResponder()
        let (_, port) = try startServer(self, responder: r)
        let res = try runCommand(["curl", "-sS", "--http1.1", "http://127.0.0.1:\(port)/a", "http://127.0.0.1:\(port)/b?x=1"])
        XCTAssertEqual(res.status, 0, res.stderr)
        XCTAssertEqual(res.stdout, "GET /a 0\nGET /b?x=1 0\n")
        let reqs = r.recorded
        XCTAssertEqual(reqs.count, 2)
        XCTAssertEqual(reqs.map(\.info.streamID), [1, 2])
        XCTAssertEqual(reqs[0].info.connection.id, reqs[1].info.connection.id, "keep-alive reuses the connection")
        XCTAssertEqual(reqs[0].info.version, .http1_1)
        XCTAssertEqual(reqs[0].authority, "127.0.0.1:\(port)")
        XCTAssertEqual(reqs[0].scheme, "http")
        XCTAssertEqual(reqs[0].info.connection.listener, "test")
        XCTAssertEqual(reqs[0].info.connection.localPort, port)
        XCTAssertTrue(reqs[0].info.connection.peer.hasPrefix("127.0.0.1:"))
    }
}
