import Foundation
import XCTest
import PushDoubleTestSupport
@testable import PushDoubleConformance
import PushDoubleCore

/// False failures are tested as seriously as missed mutants: every *correct* variant of the
/// reference sender (`--variant NAME`, listed by `--list-variants`) runs the whole shipped
/// suite over several seeds and repeats (the tier sets how many, ``runs``); no check may fail, none may warn but the SHOULD a
/// variant's real pattern earns (``expectedWarnings``), and every verdict must be the same in
/// every run. Each variant's
/// run must also show its own behaviour on the wire, so a variant that silently fell back to
/// the default could not pass for one.
final class CorrectVariantsTests: XCTestCase {
    override func setUpWithError() throws { try requireInteropTier(needs: "the reference sender's process") }

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

    /// The SHOULD rules a variant breaks on purpose (a real pattern the suite must pass, with
    /// the warning the pattern earns): check id per variant. Every other check must pass or be n/a.
    static let expectedWarnings: [String: Set<String>] = [
        "jwt-per-connection": ["apns.jwt-team-rate"],
        "fcm-cold-start-stampede": ["fcm.token-refresh-single-flight"],
        "expo-too-big-from-receipt": ["expo.message-size"],
    ]

    /// Seeds each variant runs with, and how many times the first seed is run again: every
    /// check's verdict must be the same in every run (a verdict that flips between runs of the
    /// same sender is a bug of the suite).
    static let stabilitySeeds: [UInt64] = [1, 2, 3, 4, 5]
    static let repeats = 3

    /// The runs per sender, by tier (`PUSHDOUBLE_STABILITY`, docs/testing.md "Stability tiers"):
    /// - unset (the CI tier): seeds 1 and 2, then seed 1 again — two seeds and a repeat, so a
    ///   verdict that depends on the seed or flips between identical runs fails (3 runs);
    /// - `seeds`: every seed once and seed 1 `repeats` times in all (7 runs);
    /// - `full`: every seed `repeats` times (5 seeds × 3 repeats, 15 runs).
    /// Any other value is an error (nil), not a silent fallback to a shorter tier.
    static var runs: [UInt64]? {
        switch ProcessInfo.processInfo.environment["PUSHDOUBLE_STABILITY"] ?? "" {
        case "": return [stabilitySeeds[0], stabilitySeeds[1], stabilitySeeds[0]]
        case "seeds": return stabilitySeeds + Array(repeating: stabilitySeeds[0], count: repeats - 1)
        case "full": return stabilitySeeds.flatMap { Array(repeating: $0, count: repeats) }
        default: return nil
        }
    }

    /// Collects results from the concurrent runs.
    final class Collector: @unchecked Sendable {
        private let lock = NSLock()
        private(set) var problems: [String] = []
        /// variant → "case check" → verdicts seen, in run order.
        private(set) var verdicts: [String: [String: [String]]] = [:]
        func add(_ p: String) { lock.lock(); problems.append(p); lock.unlock() }
        func add(contentsOf ps: [String]) { lock.lock(); problems += ps; lock.unlock() }
        func record(_ variant: String, _ key: String, _ v: String) {
            lock.lock(); verdicts[variant, default: [:]][key, default: []].append(v); lock.unlock()
        }
    }

    /// Variant-specific evidence beyond ``signature(_:_:)``'s backoff and connection rows.
    static func featureSignature(_ variant: String, _ report: RunReport) -> String? {
        func caseResult(_ id: String) -> CaseResult? { report.cases.first { $0.id == id } }
        func context(_ id: String) -> CheckContext? {
            guard let c = caseResult(id) else { return nil }
            let scenario = ConformanceScenario(id: c.id, title: c.title, references: [], devices: [], steps: [], checks: [])
            return CheckContext(scenario: scenario, history: c.history, steps: c.steps, configuration: nil)
        }
        switch variant {
        case "v1-no-features":
            let r = caseResult("apns.reregistered-token")
            guard r?.verdict == .notApplicable, r?.notApplicableReason?.contains("registeredAt feature") == true else {
                return "apns.reregistered-token should be n/a for a sender without the registeredAt feature: \(r?.verdict.rawValue ?? "missing")"
            }
            return caseResult("fcm.topic-send")?.verdict == .notApplicable ? nil : "fcm.topic-send should be n/a without targets"
        case "register-call":
            let v = caseResult("apns.reregistered-token")?.checks.first { $0.id == "reregistered-token-used" }?.verdict
            return v == .pass ? nil : "reregistered-token-used is \(v?.rawValue ?? "missing"), want pass through the register call"
        case "jwt-per-connection":
            guard let ctx = context("apns.connection-reuse") else { return "no apns.connection-reuse case" }
            let pushes = APNsHistory(ctx).pushes
            var perConnection: [UInt64: Set<String>] = [:]
            for p in pushes { if let j = p.jwt { perConnection[p.connection, default: []].insert(j) } }
            let distinct = Set(pushes.compactMap(\.jwt)).count
            return perConnection.count >= 2 && distinct == perConnection.count && perConnection.values.allSatisfy { $0.count == 1 } ? nil
                : "apns.connection-reuse: \(distinct) JWT(s) over \(perConnection.count) connection(s); want one JWT per connection, several connections"
        case "fcm-cold-start-stampede":
            guard let ctx = context("fcm.access-token-reuse") else { return "no fcm.access-token-reuse case" }
            let mints = FCMHistory(ctx).mints.filter { $0.status == 200 }.count
            return mints >= 2 ? nil : "fcm.access-token-reuse: \(mints) mint(s); want a cold-start stampede of several"
        case "fcm-http1-pool":
            guard let ctx = context("fcm.access-token-reuse") else { return "no fcm.access-token-reuse case" }
            let sends = FCMHistory(ctx).sends
            let h1 = sends.filter { $0.exchange.transport.version == .http1_1 }.count
            let conns = Set(sends.map { $0.exchange.transport.connection.id }).count
            return h1 == sends.count && conns >= 3 ? nil : "fcm.access-token-reuse: \(h1) of \(sends.count) sends over HTTP/1.1, \(conns) connection(s)"
        case "fcm-refresh-margin":
            // 4 s tokens lie inside google-auth's 225 s margin: a mint before every send of fcm.token-refresh;
            // 330 s tokens outlive it: one mint in fcm.token-refresh-margin.
            guard let short = context("fcm.token-refresh"), let long = context("fcm.token-refresh-margin") else { return "missing FCM cases" }
            let s = FCMHistory(short), l = FCMHistory(long)
            let shortMints = s.mints.filter { $0.status == 200 }.count, longMints = l.mints.filter { $0.status == 200 }.count
            // One mint per send call at least (a call's concurrent sends share one in-flight refresh).
            let calls = Set(s.sends.map(\.step)).count
            return shortMints >= calls && longMints == 1 ? nil
                : "fcm.token-refresh: \(shortMints) mint(s) for \(calls) send calls (want one each at least); fcm.token-refresh-margin: \(longMints) (want 1)"
        case "apns-no-push-type":
            guard let c = caseResult("apns.push-type-topics") else { return "no apns.push-type-topics case" }
            let v = c.checks.first { $0.id == "apns.header.topic-suffix" }
            let plain = c.history.allSatisfy { e in
                e.request.headers.first { $0.first?.lowercased() == "apns-push-type" }?.last.map { $0 == "alert" || $0 == "background" } ?? true
            }
            return v?.verdict == .notApplicable && v?.message.contains("cannot express apns pushType") == true && plain ? nil
                : "apns.push-type-topics: topic-suffix \(v?.verdict.rawValue ?? "missing") (\(v?.message ?? "")), only alert/background sent: \(plain)"
        case "expo-too-big-from-receipt":
            guard let c = caseResult("expo.message-too-big") else { return "no expo.message-too-big case" }
            let big = c.history.contains { ($0.request.bodySize) > 4096 }
            let final = c.steps.filter { $0.type == "settle" }.flatMap(\.results).first { $0.device == "b1" }?.outcome
            return big && final == .rejected ? nil : "expo.message-too-big: oversized sent \(big), b1 settled \(final?.rawValue ?? "never")"
        default:
            return nil
        }
    }

    func testEveryCorrectVariantPassesWithIdenticalVerdictsOverSeedsAndRepeats() throws {
        let variants = try Self.listedVariants()
        XCTAssertEqual(Set(variants), ["full-jitter", "equal-jitter", "decorrelated-jitter", "multi-connection", "v1-no-features",
                                       "register-call", "jwt-refresh-50min", "jwt-per-connection", "fcm-early-refresh", "fcm-refresh-on-401",
                                       "fcm-cold-start-stampede", "fcm-http1-pool", "expo-too-big-from-receipt", "fcm-refresh-margin", "apns-no-push-type"],
                       "the variants this test knows the wire signature of")
        // Every shipped case but the one a real browser plays a device in: a variant changes how
        // the sender schedules, retries and authenticates, not how it encrypts, and that case
        // (about 10 s of a browser starting, per run) proves the encryption for the reference
        // sender and its mutant in RealBrowserCaseTests and for each Web Push adapter.
        let all = try ConformanceScenario.loadDirectory(shippedScenarioDirectory, knownChecks: CheckCatalogue.ids)
            .filter { !$0.hasLiveDevices }
        let runs = try XCTUnwrap(Self.runs, "PUSHDOUBLE_STABILITY is unset, seeds or full")
        let jobs: [(variant: String, seed: UInt64)] = (["default"] + variants).flatMap { v in runs.map { (v, $0) } }
        let collector = Collector()
        let start = Date()
        // Two whole-suite runs at a time: the verdicts must also hold on a busy machine.
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 2
        for job in jobs {
            queue.addOperation {
                let variantArg = job.variant == "default" ? "" : " --variant \(job.variant)"
                var o = RunOptions(senderCommand: "\(SuiteAcceptanceTests.executable)\(variantArg) --seed \(job.seed)")
                o.timeout = 30; o.jobs = 8; o.seed = job.seed
                let report = ConformanceRunner(host: ServerFakeHost(), options: o).run(all)
                let allowed = Self.expectedWarnings[job.variant] ?? []
                if report.cases.count != all.count { collector.add("\(job.variant) seed \(job.seed): \(report.cases.count) cases") }
                for c in report.cases {
                    if let f = c.driverFailure { collector.add("\(job.variant) seed \(job.seed) \(c.id): driver failure \(f)") }
                    for r in c.checks {
                        collector.record(job.variant, "\(c.id) \(r.id)", r.verdict.rawValue)
                        guard r.verdict == .fail || (r.verdict == .warn && !allowed.contains(r.id)) else { continue }
                        collector.add("\(job.variant) seed \(job.seed) \(c.id) \(r.id) \(r.verdict.rawValue.uppercased()): \(r.message)"
                            + r.evidence.prefix(3).map { "\n    - " + $0.rendered }.joined())
                    }
                    if job.variant != "default", !c.senderLog.contains("variant \(job.variant)"), c.driverFailure == nil, !c.history.isEmpty {
                        collector.add("\(job.variant) seed \(job.seed) \(c.id): the sender did not log that it runs the variant")
                    }
                }
                for why in [Self.signature(job.variant, report), Self.featureSignature(job.variant, report)].compactMap({ $0 }) {
                    collector.add("\(job.variant) seed \(job.seed): \(why)")
                }
            }
        }
        queue.waitUntilAllOperationsAreFinished()
        for (variant, checks) in collector.verdicts.sorted(by: { $0.key < $1.key }) {
            for (key, seen) in checks.sorted(by: { $0.key < $1.key }) where Set(seen).count > 1 {
                collector.add("\(variant) \(key): verdict flipped between runs: \(seen.joined(separator: ", "))")
            }
            for warned in Self.expectedWarnings[variant] ?? [] where !checks.contains(where: { $0.key.hasSuffix(" " + warned) && $0.value.contains("warn") }) {
                collector.add("\(variant): \(warned) never warned: the variant's pattern did not show")
            }
        }
        XCTAssertTrue(collector.problems.isEmpty, "correct variants got failures, unexpected warnings or unstable verdicts:\n"
                      + collector.problems.joined(separator: "\n"))
        print(String(format: "%d senders × %d runs (seeds %@) in %.1f s", variants.count + 1, runs.count,
                     runs.map(String.init).joined(separator: ","), Date().timeIntervalSince(start)))
    }
}
