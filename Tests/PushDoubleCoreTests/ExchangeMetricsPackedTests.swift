import Foundation
import XCTest
@testable import PushDoubleCore
import PushDoubleTransport

/// ``ExchangeMetrics`` counts a packed history record (read in place, runs of alike exchanges
/// counted by comparing bytes) exactly as the same exchange in its full form.
final class ExchangeMetricsPackedTests: XCTestCase {
    static let at = Date(timeIntervalSince1970: 1_800_000_000)

    func record(_ provider: ProviderID, endpoint: String, status: Int?, reason: String?, decision: Decision, seconds: Double) -> ExchangeRecord {
        let conn = ConnectionInfo(id: 1, listener: "l", peer: "127.0.0.1:5000", localPort: 8721, tls: nil, acceptedAt: Self.at)
        let info = RequestInfo(connection: conn, streamID: 1, version: .http2, headReceivedAt: Self.at, bodyReceivedAt: Self.at)
        let req = HTTPRequest(method: "POST", path: "/p", scheme: "https", authority: "a", headers: HTTPHeaders(), body: [], info: info)
        let action: ResponseAction = status.map { .respond(HTTPResponse(status: $0, framing: .headersOnly)) } ?? .resetStream(.cancel)
        return ExchangeRecord(provider: provider, endpoint: endpoint, request: req, token: nil, topic: nil, environment: nil, deviceID: nil,
                              auth: nil, notification: nil, action: action, reason: reason, detail: nil, decidedBy: decision,
                              receivedAt: Self.at, respondedAt: Self.at + seconds, notificationMaker: nil)
    }

    /// The exposition's sample lines (history gauges left out: one history holds full exchanges).
    func counted(_ records: [ExchangeRecord], packed: Bool) -> [String] {
        let history = HistoryStore()
        let metrics = ExchangeMetrics(history: history, interval: 60)
        defer { metrics.stop() }
        for r in records {
            if packed { _ = history.append(r) } else { _ = history.append(r.exchange(seq: 0)) }
        }
        if packed, case .exchange = history.items(after: nil, count: 1).first?.entry { XCTFail("packed records expected") }
        return metrics.exposition(history: history, listeners: []).split(separator: "\n").map(String.init)
            .filter { !$0.hasPrefix("#") && !$0.hasPrefix("pushdouble_history") }
    }

    func testPackedRecordsCountAsTheirFullForm() {
        // Runs of alike exchanges broken by each label in turn: endpoint, reason (incl. none vs
        // empty), status (incl. none), provider, a non-ASCII and a canonically equivalent reason.
        let shapes: [(ProviderID, String, Int?, String?, Decision)] = [
            ("apns", "apns.push", 200, nil, Decision(.accepted)), ("apns", "apns.push", 200, nil, Decision(.accepted)),
            ("apns", "apns.other", 200, nil, Decision(.accepted)), ("apns", "apns.push", 200, "", Decision(.accepted)),
            ("apns", "apns.push", 410, "Unregistered", Decision(.device, "d")), ("apns", "apns.push", 410, "Unregistered", Decision(.device, "d")),
            ("apns", "apns.push", nil, "Unregistered", Decision(.fault, "r1")), ("fcm", "apns.push", nil, "Unregistered", Decision(.quota, "q")),
            ("fcm", "fcm.send", 503, "caf\u{E9}", Decision(.fault, "r1")), ("fcm", "fcm.send", 503, "cafe\u{301}", Decision(.accepted)),
            ("fcm", "fcm.send", 599, nil, Decision(.accepted)), ("fcm", "fcm.send", 600, nil, Decision(.accepted)),
        ]
        var records: [ExchangeRecord] = []
        for (i, s) in (shapes + shapes.reversed()).enumerated() {
            records.append(record(s.0, endpoint: s.1, status: s.2, reason: s.3, decision: s.4, seconds: Double(i % 5) * 0.01))
        }
        let packed = counted(records, packed: true), full = counted(records, packed: false)
        XCTAssertEqual(packed, full)
        XCTAssertTrue(packed.contains(#"pushdouble_exchanges_total{endpoint="apns.push",provider="apns",reason="",status="200"} 6"#), "\(packed)")
        XCTAssertTrue(packed.contains(#"pushdouble_fault_rules_fired_total{provider="fcm",rule="r1"} 2"#), "\(packed)")
    }
}
