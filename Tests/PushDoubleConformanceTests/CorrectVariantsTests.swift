import Foundation
import XCTest
@testable import PushDoubleConformance
import PushDoubleCore

/// False failures are tested as seriously as missed mutants (DESIGN §5): every *correct*
/// variant of the reference sender (`--variant NAME`, listed by `--list-variants`) runs the
/// whole shipped suite over several seeds, and no check may fail or warn. Each variant's
/// run must also show its own behaviour on the wire, so a variant that silently fell back to
/// the default could not pass for one.
final class CorrectVariantsTests: XCTestCase {
    static let seeds: [UInt64] = [1, 2, 3]

    /// The variant names the built sender knows (so a new variant is tested without edits here).
    static func listedVariants() throws -> [String] {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: SuiteAcceptanceTests.executable)
        p.arguments = ["--list-variants"]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap { $0.split(separator: "\t").first.map(String.init) }
    }

    /// Wire evidence that the variant ran, from one run's report (nil: shown; else why not).
    static func signature(_ variant: String, _ report: RunReport) -> String? {
        func history(_ id: String) -> APNsHistory? {
            guard let c = report.cases.first(where: { $0.id == id }) else { return nil }
            let scenario = ConformanceScenario(id: c.id, title: c.title, references: [], devices: [], steps: [], checks: [])
            return APNsHistory(CheckContext(scenario: scenario, history: c.history, steps: c.steps, configuration: nil))
        }
        // The backoff the sender chose (its log: "device d1: retrying after InternalServerError
        // in 0.123 s"), first retry per device: exact, unlike gaps measured through a loaded machine.
        let log = report.cases.first { $0.id == "apns.internal-server-error-backoff" }?.senderLog ?? ""
        var firstDelays: [String: Double] = [:]
        for line in log.split(separator: "\n") {
            guard let dev = line.range(of: "device "), let colon = line[dev.upperBound...].firstIndex(of: ":"),
                  let r = line.range(of: "retrying after InternalServerError in ") else { continue }
            let device = String(line[dev.upperBound..<colon])
            if firstDelays[device] == nil, let d = Double(line[r.upperBound...].prefix { $0 != " " }) { firstDelays[device] = d }
        }
        let d = Array(firstDelays.values)
        let delays = d.sorted().map { String(format: "%.3f", $0) }.joined(separator: ", ")
        func first(_ ok: Bool, _ want: String) -> String? { d.count >= 3 && ok ? nil : "first retry delays [\(delays)] s: \(want)" }
        // The FCM side: its first retry delays in fcm.service-unavailable ("fcm d1: retrying
        // after UNAVAILABLE in 0.123 s"); the default FCM backoff's first delay is in [0.05, 0.1] s.
        let f = firstRetryDelays(report, case: "fcm.service-unavailable", line: "fcm ", marker: ": retrying after ")
        let fcmDelays = f.sorted().map { String(format: "%.3f", $0) }.joined(separator: ", ")
        func fcm(_ ok: Bool, _ want: String) -> String? { f.count >= 3 && ok ? nil : "FCM first retry delays [\(fcmDelays)] s: \(want)" }
        func both(_ a: String?, _ b: String?) -> String? { [a, b].compactMap { $0 }.isEmpty ? nil : [a, b].compactMap { $0 }.joined(separator: "; ") }
        func fcmContext(_ id: String) -> CheckContext? {
            guard let c = report.cases.first(where: { $0.id == id }) else { return nil }
            let scenario = ConformanceScenario(id: c.id, title: c.title, references: [], devices: [], steps: [], checks: [])
            return CheckContext(scenario: scenario, history: c.history, steps: c.steps, configuration: nil)
        }
        switch variant {
        case "full-jitter":
            return both(first(d.allSatisfy { $0 <= 0.2 } && d.contains { $0 < 0.12 }, "want all in [0, 0.2] s, some below 0.12 s"),
                        fcm(f.allSatisfy { $0 <= 0.2 } && f.contains { $0 < 0.05 || $0 > 0.1 }, "want all in [0, 0.2] s, some outside [0.05, 0.1] s"))
        case "equal-jitter":
            return both(first(d.allSatisfy { $0 >= 0.1 && $0 <= 0.2 } && d.contains { $0 < 0.17 }, "want all in [0.1, 0.2] s, some below 0.17 s"),
                        fcm(f.allSatisfy { $0 >= 0.1 && $0 <= 0.2 }, "want all in [0.1, 0.2] s"))
        case "decorrelated-jitter":
            return both(first(d.allSatisfy { $0 >= 0.2 && $0 <= 0.6 } && d.contains { $0 > 0.25 }, "want all in [0.2, 0.6] s, some above 0.25 s"),
                        fcm(f.allSatisfy { $0 >= 0.2 && $0 <= 0.6 }, "want all in [0.2, 0.6] s"))
        case "multi-connection":
            let conns = Set((history("apns.connection-reuse")?.pushes ?? []).map(\.connection)).count
            let fcmConns = fcmContext("fcm.access-token-reuse").map { Set(FCMConformance().attempts($0).map(\.connection)).count } ?? 0
            return both(conns >= 3 ? nil : "apns.connection-reuse used \(conns) connection(s), not a pool of 3",
                        fcmConns >= 3 ? nil : "fcm.access-token-reuse used \(fcmConns) connection(s), not a pool of 3")
        case "fcm-early-refresh":
            // fcm.token-refresh (4 s tokens): a second token before the first one's 90 % mark
            // (the default's refresh), with no 401.
            guard let ctx = fcmContext("fcm.token-refresh") else { return "no fcm.token-refresh case" }
            let h = FCMHistory(ctx)
            let mints = h.mints.filter { $0.status == 200 }
            guard let firstSend = h.sends.first, let issued = firstSend.exchange.auth?.issuedAt, let expires = firstSend.exchange.auth?.expiresAt,
                  mints.count >= 2 else { return "fcm.token-refresh: \(mints.count) mint(s), want an early second one" }
            let after = mints[1].start.timeIntervalSince(mints[0].start)
            let early = after < 0.9 * Double(expires - issued)
            let refused = h.sends.filter { $0.status == 401 }.count
            return early && refused == 0 ? nil : "fcm.token-refresh: second mint at +\(String(format: "%.2f", after)) s "
                + "of a \(expires - issued) s token, \(refused) 401(s): want it before 90 % and no 401"
        case "fcm-refresh-on-401":
            guard let ctx = fcmContext("fcm.token-refresh") else { return "no fcm.token-refresh case" }
            let refused = FCMHistory(ctx).sends.filter { $0.status == 401 }.count
            return refused > 0 ? nil : "fcm.token-refresh shows no 401: the token was refreshed ahead of its expiry"
        case "jwt-refresh-50min":
            let iats = (history("apns.jwt-reuse")?.pushes ?? []).compactMap { $0.jwt.flatMap(DecodedJWT.init)?.issuedAt }
            guard let lo = iats.min(), let hi = iats.max(), hi - lo >= 2999 else { return "apns.jwt-reuse shows no 50-min refresh (iats \(Set(iats)))" }
            return nil
        default:
            return nil
        }
    }

    /// The first retry delay per recipient that a case's sender log names (`<line>…<id><marker><reason> in 0.123 s`).
    static func firstRetryDelays(_ report: RunReport, case id: String, line prefix: String, marker: String) -> [Double] {
        let log = report.cases.first { $0.id == id }?.senderLog ?? ""
        var first: [String: Double] = [:]
        for line in log.split(separator: "\n") {
            guard let p = line.range(of: prefix), let m = line.range(of: marker, range: p.upperBound..<line.endIndex),
                  let r = line.range(of: " in ", range: m.upperBound..<line.endIndex) else { continue }
            let who = String(line[p.upperBound..<m.lowerBound])
            if first[who] == nil, let d = Double(line[r.upperBound...].prefix { $0 != " " }) { first[who] = d }
        }
        return Array(first.values)
    }

    func testEveryCorrectVariantPassesTheWholeSuiteOverSeveralSeeds() throws {
        let variants = try Self.listedVariants()
        XCTAssertEqual(Set(variants), ["full-jitter", "equal-jitter", "decorrelated-jitter", "multi-connection", "jwt-refresh-50min",
                                       "fcm-early-refresh", "fcm-refresh-on-401"],
                       "the variants this test knows the wire signature of")
        let all = try ConformanceScenario.loadDirectory(shippedScenarioDirectory, knownChecks: CheckCatalogue.ids)
        var problems: [String] = []
        let start = Date()
        for variant in variants {
            for seed in Self.seeds {
                var o = RunOptions(senderCommand: "\(SuiteAcceptanceTests.executable) --variant \(variant) --seed \(seed)")
                o.timeout = 30; o.jobs = 8; o.seed = seed
                let report = ConformanceRunner(host: ServerFakeHost(), options: o).run(all)
                XCTAssertEqual(report.cases.count, all.count)
                for c in report.cases {
                    if let f = c.driverFailure { problems.append("\(variant) seed \(seed) \(c.id): driver failure \(f)") }
                    for r in c.checks where r.verdict == .fail || r.verdict == .warn {
                        problems.append("\(variant) seed \(seed) \(c.id) \(r.id) \(r.verdict.rawValue.uppercased()): \(r.message)"
                            + r.evidence.prefix(3).map { "\n    - " + $0.rendered }.joined())
                    }
                    if !c.senderLog.contains("variant \(variant)") && c.driverFailure == nil && !c.history.isEmpty {
                        problems.append("\(variant) seed \(seed) \(c.id): the sender did not log that it runs the variant")
                    }
                }
                if let why = Self.signature(variant, report) { problems.append("\(variant) seed \(seed): \(why)") }
            }
        }
        XCTAssertTrue(problems.isEmpty, "correct variants got failures or warnings:\n" + problems.joined(separator: "\n"))
        print(String(format: "%d variants × %d seeds in %.1f s", variants.count, Self.seeds.count, Date().timeIntervalSince(start)))
    }
}
