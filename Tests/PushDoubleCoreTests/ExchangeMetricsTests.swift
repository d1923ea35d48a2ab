import Foundation
import XCTest
@testable import PushDoubleCore
import PushDouble
import PushDoubleCoreTestSupport

/// ``ExchangeMetrics`` and ``PrometheusText`` without a socket: exchanges appended to a
/// history, then the exposition text read back.
final class ExchangeMetricsTests: XCTestCase {
    private func exchange(_ provider: ProviderID, status: Int?, reason: String? = nil, decidedBy: Decision = Decision(.accepted),
                          seconds: Double = 0.003) -> Exchange {
        let at = Date(timeIntervalSince1970: 1_800_000_000)
        var e = makeExchange(provider: provider, endpoint: provider.rawValue + ".push", at: at)
        e.response = RecordedResponse(action: status == nil ? "reset" : "respond", status: status, reason: reason)
        e.decidedBy = decidedBy
        e.respondedAt = at.addingTimeInterval(seconds)
        return e
    }

    /// The sample lines of `text` (no comments), as a set.
    private func samples(_ text: String) -> Set<String> {
        Set(text.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") })
    }

    func testCountsExchangesByLabelsRulesAndLatency() {
        let history = HistoryStore()
        let metrics = ExchangeMetrics(history: history, interval: 60)
        defer { metrics.stop() }
        _ = history.append(exchange("apns", status: 200))
        _ = history.append(exchange("apns", status: 200, seconds: 0.2))
        _ = history.append(exchange("apns", status: 410, reason: "Unregistered", decidedBy: Decision(.device, "d1")))
        _ = history.append(exchange("fcm", status: 503, reason: "UNAVAILABLE", decidedBy: Decision(.fault, "f1"), seconds: 20))
        _ = history.append(exchange("fcm", status: nil, decidedBy: Decision(.fault, "f\"2")))
        let text = metrics.exposition(history: history, listeners: [])
        let s = samples(text)
        XCTAssertTrue(s.contains(#"pushdouble_exchanges_total{endpoint="apns.push",provider="apns",reason="",status="200"} 2"#), text)
        XCTAssertTrue(s.contains(#"pushdouble_exchanges_total{endpoint="apns.push",provider="apns",reason="Unregistered",status="410"} 1"#), text)
        XCTAssertTrue(s.contains(#"pushdouble_exchanges_total{endpoint="fcm.push",provider="fcm",reason="",status="none"} 1"#), text)
        XCTAssertTrue(s.contains(#"pushdouble_fault_rules_fired_total{provider="fcm",rule="f1"} 1"#), text)
        XCTAssertTrue(s.contains(#"pushdouble_fault_rules_fired_total{provider="fcm",rule="f\"2"} 1"#), text)
        XCTAssertFalse(text.contains(#"rule="d1""#), "a device decision is not a fault rule")
        // Cumulative buckets: 0.003 s twice (≤ 0.005), 0.2 s once (≤ 0.25); 20 s only in +Inf.
        XCTAssertTrue(s.contains(#"pushdouble_request_duration_seconds_bucket{le="0.0025",provider="apns"} 0"#), text)
        XCTAssertTrue(s.contains(#"pushdouble_request_duration_seconds_bucket{le="0.005",provider="apns"} 2"#), text)
        XCTAssertTrue(s.contains(#"pushdouble_request_duration_seconds_bucket{le="0.25",provider="apns"} 3"#), text)
        XCTAssertTrue(s.contains(#"pushdouble_request_duration_seconds_bucket{le="10",provider="fcm"} 1"#), text)
        XCTAssertTrue(s.contains(#"pushdouble_request_duration_seconds_bucket{le="+Inf",provider="fcm"} 2"#), text)
        XCTAssertTrue(s.contains(#"pushdouble_request_duration_seconds_count{provider="apns"} 3"#), text)
        XCTAssertTrue(s.contains(#"pushdouble_history_exchanges 5"#), text)
        XCTAssertTrue(s.contains(#"pushdouble_history_dropped_total 0"#), text)
        XCTAssertTrue(text.contains("# TYPE pushdouble_request_duration_seconds histogram\n"), text)
    }

    /// Counters only grow: clearing the history does not reset them; drops are reported.
    func testCountersSurviveHistoryClearAndDropsAreReported() {
        let history = HistoryStore(cap: 2)
        let metrics = ExchangeMetrics(history: history, interval: 60)
        defer { metrics.stop() }
        for _ in 0..<3 { _ = history.append(exchange("apns", status: 200)) }
        let full = samples(metrics.exposition(history: history, listeners: []))
        XCTAssertTrue(full.contains("pushdouble_history_dropped_total 1"), "\(full)")
        XCTAssertTrue(full.contains("pushdouble_history_exchanges 2"), "\(full)")
        history.clear()
        let s = samples(metrics.exposition(history: history, listeners: []))
        XCTAssertTrue(s.contains(#"pushdouble_exchanges_total{endpoint="apns.push",provider="apns",reason="",status="200"} 3"#), "\(s)")
        XCTAssertTrue(s.contains("pushdouble_history_exchanges 0"), "\(s)")
    }

    /// `stop` ends the thread and cancels the feed (the history no longer queues for it);
    /// what was queued before is counted, and the values stay.
    func testStopEndsTheFeedAndKeepsTheCounts() {
        let history = HistoryStore()
        let metrics = ExchangeMetrics(history: history, interval: 0.01)
        XCTAssertEqual(history.feedCount, 1)
        _ = history.append(exchange("expo", status: 200))
        metrics.stop()
        XCTAssertEqual(history.feedCount, 0)
        _ = history.append(exchange("expo", status: 200))
        XCTAssertTrue(metrics.exposition(history: history, listeners: []).contains(#"provider="expo",reason="",status="200"} 1"#))
    }

    func testTextFormatEscapesAndNumbers() {
        XCTAssertEqual(PrometheusText.escape("a\\b\"c\nd"), #"a\\b\"c\nd"#)
        XCTAssertEqual(PrometheusText.number(3), "3")
        XCTAssertEqual(PrometheusText.number(0.0005), "0.0005")
        XCTAssertEqual(PrometheusText.number(.infinity), "+Inf")
        var t = PrometheusText()
        t.family("x_total", .counter, "Help with a \\ backslash\nand a line.")
        t.sample("x_total", ["b": "2", "a": "1"], 4)
        XCTAssertEqual(t.text, "# HELP x_total Help with a \\\\ backslash\\nand a line.\n# TYPE x_total counter\nx_total{a=\"1\",b=\"2\"} 4\n")
    }
}

/// The metrics counter's lifetime inside a ``PushDoubleServer``: made at start, ended at stop,
/// and ended when a start fails after the admin API was built.
final class ServerMetricsLifetimeTests: XCTestCase {
    func testMetricsFeedEndsAtStopAndAfterAFailedStart() throws {
        var config = PushDoubleConfiguration.ephemeral(fakes: [FakeListenerSpec(name: "test", defaultPort: 0, fake: TestFake(), useTLS: false)])
        config.metrics = true
        let first = PushDoubleServer(configuration: config)
        try first.start()
        XCTAssertEqual(first.history.feedCount, 1)
        let admin = try XCTUnwrap(first.endpoint(named: "admin"))
        var clash = config
        clash.ports["admin"] = admin.port
        let second = PushDoubleServer(configuration: clash)
        XCTAssertThrowsError(try second.start())
        XCTAssertEqual(second.history.feedCount, 0, "a failed start ends the metrics feed")
        first.stop()
        XCTAssertEqual(first.history.feedCount, 0)
    }
}
