import Foundation
import PushDoubleTestSupport
import XCTest

/// The abuse tier (hostile input must neither crash nor starve the server): every attack class of `Tests/Abuse/abuse.py` driven over real
/// sockets against the built `pushdouble serve`, one fresh server per attack. Each test asserts
/// that the server stayed alive and responsive (push and `/health` latency within a small
/// multiple of the baseline), that its memory stayed bounded, and the attack's own expectation
/// (flooders sent GOAWAY, extreme numbers refused with a JSON 400, …). Needs python3 with h2
/// and h2load (installed by `bash Tests/run.sh`).
final class AbuseTierTests: XCTestCase {
    override func setUpWithError() throws { try requireInteropTier(needs: "python3", "the built pushdouble process") }

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Abuse/abuse.py")

    func attack(_ name: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let binary = builtProduct(named: "pushdouble")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            return XCTFail("\(binary.path) is not built (run swift build)", file: file, line: line)
        }
        let r = try runCommand(["python3", Self.script.path, "--binary", binary.path, "--only", name], timeout: 180)
        print(r.stdout, r.stderr)
        XCTAssertEqual(r.status, 0, "\(name):\n\(r.stdout)\n\(r.stderr.suffix(2000))", file: file, line: line)
        XCTAssertTrue(r.stdout.contains("abuse: 1 passed, 0 failed"), r.stdout, file: file, line: line)
    }

    func testPriorityFlood() throws { try attack("priority-flood") }
    func testContinuationFlood() throws { try attack("continuation-flood") }
    func testPingFlood() throws { try attack("ping-flood") }
    func testPingFloodUnread() throws { try attack("ping-flood-unread") }
    func testSettingsFlood() throws { try attack("settings-flood") }
    func testEmptyDataFlood() throws { try attack("empty-data-flood") }
    func testRapidReset() throws { try attack("rapid-reset") }
    func testHPACKBomb() throws { try attack("hpack-bomb") }
    func testZeroWindowHold() throws { try attack("zero-window-hold") }
    func testGarbage() throws { try attack("garbage") }
    func testSlowloris() throws { try attack("slowloris") }
    func testAdminExtremeNumbers() throws { try attack("admin-extreme-numbers") }
    func testIdleSockets() throws { try attack("idle-sockets") }
    func testHistoryDumpAtCap() throws { try attack("history-dump-at-cap") }
    func testSSESlowReader() throws { try attack("sse-slow-reader") }
    func testConnectionBurst() throws { try attack("connection-burst") }

    /// Every attack of the script has a test here (a new attack cannot be left out of CI).
    func testEveryAttackHasATest() throws {
        let r = try runCommand(["python3", Self.script.path, "--list"])
        let listed = Set(r.stdout.split(separator: "\n").map(String.init))
        let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        for name in listed { XCTAssertTrue(source.contains("attack(\"\(name)\")"), "no test for \(name)") }
        XCTAssertEqual(listed.count, 16)
    }
}
