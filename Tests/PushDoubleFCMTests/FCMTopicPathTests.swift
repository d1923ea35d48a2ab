import Foundation
import XCTest
import PushDoubleTransport
@testable import PushDoubleFCM

/// Which requests are topic-subscription calls: the byte search on an ASCII path finds what
/// Foundation's `contains` finds.
final class FCMTopicPathTests: XCTestCase {
    func request(_ path: String) -> HTTPRequest {
        let at = Date(timeIntervalSince1970: 1_800_000_000)
        let conn = ConnectionInfo(id: 1, listener: "fcm", peer: "127.0.0.1:5000", localPort: 1, tls: nil, acceptedAt: at)
        return HTTPRequest(method: "POST", path: path, scheme: "https", authority: "fcm.googleapis.com", headers: HTTPHeaders(), body: [],
                           info: RequestInfo(connection: conn, streamID: 1, version: .http2, headReceivedAt: at, bodyReceivedAt: at))
    }

    func testTopicSubscriptionPathsAsFoundationFindsThem() {
        var rng = SystemRandomNumberGenerator()
        let pieces = ["/v1/projects/", "p", "/topicSubscriptions", "/topicSubscription", "topicSubscriptions", "/messages:send", "/", "?a=b",
                      "é", "\u{301}", "/topicSubscriptionsX", "/TOPICSUBSCRIPTIONS"]
        var paths = ["/v1/projects/p/topicSubscriptions", "/v1/projects/p/messages:send", "/v1/projects//topicSubscriptions/x",
                     "/v1/projects/", "/v1/projects/p/topicSubscriptions\u{301}", "/v1/projects/p\u{301}/topicSubscriptions"]
        for _ in 0..<3000 { paths.append((0..<Int.random(in: 1...5, using: &rng)).map { _ in pieces.randomElement(using: &rng)! }.joined()) }
        for p in paths {
            let expected = p.hasPrefix("/v1/projects/") && p.contains("/topicSubscriptions")
            XCTAssertEqual(FCMFake.isTopicSubscriptionRequest(request(p)), expected, p.debugDescription)
        }
    }
}
