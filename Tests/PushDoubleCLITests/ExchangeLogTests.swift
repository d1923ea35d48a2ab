import Foundation
import XCTest
import PushDoubleCore
import PushDoubleTransport
import PushDoubleCoreTestSupport
@testable import pushdouble

/// The `serve` log: its line format, and the writer that keeps it off the request path.
final class ExchangeLogTests: XCTestCase {
    func testLineFormat() {
        var e = makeExchange(token: "t", at: Date(timeIntervalSince1970: 1_800_000_000.1237))
        e.seq = 12
        e.response = RecordedResponse(action: "respond", status: 410, reason: "Unregistered")
        e.decidedBy = Decision(.device, "d1")
        XCTAssertEqual(ExchangeLog.line(e), "08:00:00.124 #12 test test.push POST /p → 410 Unregistered [device d1] conn=1 stream=1")
        e.request.path = "/3/device/" + String(repeating: "ab", count: 32)
        e.response = RecordedResponse(action: "reset", status: nil)
        e.decidedBy = Decision(.fault, "f1")
        XCTAssertEqual(ExchangeLog.line(e), "08:00:00.124 #12 test test.push POST /3/device/" + String(repeating: "ab", count: 23) + "a… → reset [fault f1] conn=1 stream=1")
        e.response = RecordedResponse(action: "delayed", status: 200)
        XCTAssertTrue(ExchangeLog.line(e).contains("→ 200 delayed [fault f1]"))
    }

    /// `replay`'s detailed block keeps every line of a multi-line body behind its marker (an
    /// FCM-style Web Push 410 ends in a newline, an HTML error page spans many lines).
    func testDetailedBodiesArePrefixedOnEveryLine() {
        var e = makeExchange(token: "t")
        e.request.body = "{\n  \"a\": 1\n}"
        e.response = RecordedResponse(action: "respond", status: 400, reason: "UnauthorizedRegistration")
        e.response.body = "<HTML>\n<TITLE>UnauthorizedRegistration</TITLE>\n</HTML>\n"
        let block = ExchangeLog.detailed(e)
        XCTAssertTrue(block.contains("   > {\n   >   \"a\": 1\n   > }\n"), block)
        XCTAssertTrue(block.contains("   < <HTML>\n   < <TITLE>UnauthorizedRegistration</TITLE>\n   < </HTML>\n"), block)
        XCTAssertFalse(block.contains("   < \n"), "a final newline starts no empty line: " + block)
        for line in block.split(separator: "\n").dropFirst() {
            XCTAssertTrue(line.hasPrefix("   "), "a body line escaped its marker: \(line)")
        }
    }

    /// A console slower than the traffic: lines beyond the queue are counted, in order, and
    /// every exchange is either a line or counted.
    func testSlowConsoleDropsWithACountInOrder() {
        let h = HistoryStore()
        let text = Locked("")
        let console = Console(sink: { s in usleep(30_000); text.withLock { $0 += s } })
        let log = ExchangeLogWriter(history: h, console: console, style: .line, capacity: 10, interval: 0.005)
        for i in 0..<200 { h.append(makeExchange(token: "t\(i)")); if i % 20 == 0 { usleep(2_000) } }
        log.stop()
        let lines = text.withLock { $0 }.split(separator: "\n")
        var seqs: [Int] = []
        var dropped = 0
        for l in lines {
            if l.hasPrefix("… ") {
                XCTAssertTrue(l.hasSuffix("log lines dropped (output slower than the traffic)"), String(l))
                dropped += Int(l.split(separator: " ")[1]) ?? 0
            } else if let hash = l.split(separator: " ").dropFirst().first, let n = Int(hash.dropFirst()) {
                seqs.append(n)
            }
        }
        XCTAssertGreaterThan(dropped, 0, "the queue overflowed")
        XCTAssertEqual(seqs, seqs.sorted(), "in order")
        XCTAssertEqual(seqs.count + dropped, 200, "complete: every exchange is a line or counted")
        XCTAssertEqual(h.feedCount, 0)
    }

    /// Appending never waits for the console.
    func testAppendsDoNotWaitForTheConsole() {
        let h = HistoryStore()
        let console = Console(sink: { _ in usleep(200_000) })
        let log = ExchangeLogWriter(history: h, console: console, style: .line, capacity: 100, interval: 0.001)
        let start = Date()
        for i in 0..<2000 { h.append(makeExchange(token: "t\(i)")) }
        XCTAssertLessThan(Date().timeIntervalSince(start), 0.5)
        log.stop()
    }
}
