import Foundation
import PushDoubleCore

/// Starts and stops the fakes for one case: the runner's only view of the double.
///
/// The production host is ``ServerFakeHost`` (in-process `PushDoubleServer` on ephemeral
/// ports); tests may plug in their own.
public protocol FakeHost: Sendable {
    /// Checks the fake-side parts of a scenario (devices, faults, quotas) without starting anything.
    func validate(_ scenario: ConformanceScenario) throws
    /// Starts fresh fakes loaded with the scenario; `seed` replaces the scenario's own.
    func start(_ scenario: ConformanceScenario, seed: UInt64) throws -> any FakeSession
}

/// Running fakes for one case.
public protocol FakeSession: AnyObject, Sendable {
    /// What the sender is told (URLs, CA, credentials).
    var configuration: SenderConfiguration { get }
    /// Everything recorded so far, in seq order.
    func history() -> [Exchange]
    func stop()
}

/// Options of one run (the CLI fills them from its flags).
public struct RunOptions: Sendable {
    /// The sender command, run with `/bin/sh -c`.
    public var senderCommand: String
    /// Seconds allowed for each driver reply.
    public var timeout: Double = 60
    /// Seed for every case; nil = each scenario's own `seed`, else 1.
    public var seed: UInt64?
    /// Use one sender process for every case (cases then run one at a time).
    public var reuseSender = false
    /// Cases run at the same time.
    public var jobs = 4
    /// Exchanges kept per case in the report.
    public var historyExcerpt = 400
    public init(senderCommand: String) { self.senderCommand = senderCommand }
}

/// Drives a sender through scenarios against fresh fakes and judges the results.
///
/// Threading: `run` blocks its caller; cases run on up to `options.jobs` worker threads,
/// each case wholly on one thread (its own fakes and its own sender process).
public final class ConformanceRunner: Sendable {
    public let host: any FakeHost
    public let options: RunOptions
    /// Called (from worker threads) as each case finishes, e.g. for live console output.
    public let onCaseFinished: (@Sendable (CaseResult) -> Void)?

    public init(host: any FakeHost, options: RunOptions, onCaseFinished: (@Sendable (CaseResult) -> Void)? = nil) {
        self.host = host; self.options = options; self.onCaseFinished = onCaseFinished
    }

    /// Runs every scenario; results come back in the scenarios' order.
    public func run(_ scenarios: [ConformanceScenario]) -> RunReport {
        let started = Date()
        let results = ResultBox(count: scenarios.count)
        if options.reuseSender {
            let shared = SharedSender(command: options.senderCommand)
            for (i, s) in scenarios.enumerated() {
                let r = runCase(s, shared: shared)
                results.set(i, r); onCaseFinished?(r)
            }
            shared.finish(timeout: options.timeout)
        } else {
            let queue = WorkQueue(count: scenarios.count)
            let group = DispatchGroup()
            for _ in 0..<max(1, min(options.jobs, scenarios.count)) {
                group.enter()
                let t = Thread { [self] in
                    while let i = queue.next() {
                        let r = runCase(scenarios[i], shared: nil)
                        results.set(i, r); onCaseFinished?(r)
                    }
                    group.leave()
                }
                t.stackSize = 4 << 20
                t.start()
            }
            group.wait()
        }
        return RunReport(sender: options.senderCommand, seed: options.seed, startedAt: started,
                         durationSeconds: Date().timeIntervalSince(started), cases: results.all())
    }

    /// Runs one case: fakes, sender, steps, shutdown, judging.
    public func runCase(_ scenario: ConformanceScenario, shared: SharedSender? = nil) -> CaseResult {
        let started = Date()
        let seed = options.seed ?? scenario.seed ?? 1
        var steps: [StepRecord] = []
        var failure: DriverFailure?
        var failureText: String?
        var identity: SenderIdentity?
        var log = ""
        var history: [Exchange] = []
        var configuration: SenderConfiguration?

        func finish(naReason: String? = nil) -> CaseResult {
            let ctxBase = CheckContext(scenario: scenario, history: history, steps: steps, configuration: configuration)
            var checks: [CheckResult] = []
            let d = CheckCatalogue.driverProtocol
            if let f = failureText {
                checks.append(CheckResult(id: d.id, title: d.title, reference: d.reference, severity: d.severity, verdict: .fail,
                                          message: f, evidence: [Evidence("sender stderr is in the report (senderLog)")]))
            } else if naReason == nil {
                checks.append(d.run(ctxBase))
            }
            for inv in scenario.checks {
                guard let def = CheckCatalogue.byID[inv.id] else { continue }
                if let na = naReason {
                    checks.append(CheckResult(id: def.id, title: def.title, reference: def.reference, severity: def.severity,
                                              verdict: .notApplicable, message: na, evidence: []))
                    continue
                }
                var ctx = ctxBase
                ctx.params = inv.params
                checks.append(def.run(ctx))
            }
            var excerpt = history
            if excerpt.count > options.historyExcerpt {
                let cited = Set(checks.flatMap { $0.evidence.flatMap(\.seqs) })
                excerpt = history.filter { cited.contains($0.seq) }
                excerpt += history.filter { !cited.contains($0.seq) }.prefix(max(0, options.historyExcerpt - excerpt.count))
                excerpt.sort { $0.seq < $1.seq }
            }
            var r = CaseResult(id: scenario.id, title: scenario.title, references: scenario.references, file: scenario.file,
                               verdict: .notApplicable, notApplicableReason: naReason, sender: identity, driverFailure: failureText,
                               senderLog: log, durationSeconds: Date().timeIntervalSince(started), checks: checks, steps: steps,
                               history: excerpt)
            r.historyCount = history.count
            r.recomputeVerdict()
            return r
        }

        // 1. Fakes.
        let session: any FakeSession
        do { session = try host.start(scenario, seed: seed) }
        catch {
            failureText = "cannot start the fakes: \(error)"
            return finish()
        }
        defer { session.stop() }
        configuration = session.configuration

        // 2. Sender.
        let client: DriverClient
        var ownProcess: SenderProcess?
        if let shared {
            switch shared.client(environment: session.configuration.environment, timeout: options.timeout) {
            case .success(let c): client = c
            case .failure(let e): failureText = "\(e)"; return finish()
            }
        } else {
            do {
                let p = try SenderProcess(command: options.senderCommand, environment: session.configuration.environment)
                ownProcess = p
                client = DriverClient(process: p, timeout: options.timeout)
            } catch {
                failureText = "\(error)"; return finish()
            }
        }
        let logStart = shared?.logOffset() ?? 0
        func captureLog() {
            let full = client.process.log
            log = logStart > 0 && full.count >= logStart ? String(full.dropFirst(logStart)) : full
        }
        func abort(_ f: DriverFailure) {
            failure = f
            failureText = f.description
            client.process.kill()
            shared?.discard()
        }

        // 3. initialize.
        switch client.initialize(session.configuration) {
        case .failure(let f): abort(f)
        case .success(let id): identity = id
        }
        if failure == nil, let id = identity {
            let missing = scenario.providers.filter { !id.providers.contains($0) }
            if !missing.isEmpty {
                if ownProcess != nil { _ = client.shutdown() }
                captureLog()
                return finish(naReason: "sender does not support \(missing.joined(separator: ", "))")
            }
        }

        // 4. Steps.
        var index = 0
        stepLoop: for step in scenario.steps where failure == nil {
            switch step {
            case let .send(notification, deviceIDs, rep):
                let devices = JSONValue.array(deviceIDs.compactMap { scenario.device($0)?.driverJSON })
                for r in 0..<rep {
                    let t = Date()
                    let res = client.results(DriverProtocol.send, params: .object([("notification", notification), ("devices", devices)]))
                    var rec = StepRecord(index: index, type: "send", repetition: r, devices: deviceIDs, notification: notification,
                                         startedAt: t, endedAt: Date())
                    index += 1
                    switch res {
                    case .success(let list): rec.results = list
                    case .failure(let f): rec.failure = f.description; steps.append(rec); abort(f); break stepLoop
                    }
                    steps.append(rec)
                }
            case .settle:
                let t = Date()
                let res = client.results(DriverProtocol.settle, params: nil)
                var rec = StepRecord(index: index, type: "settle", startedAt: t, endedAt: Date())
                index += 1
                switch res {
                case .success(let list): rec.results = list
                case .failure(let f): rec.failure = f.description; steps.append(rec); abort(f); break stepLoop
                }
                steps.append(rec)
            case .wait(let seconds):
                let t = Date()
                Thread.sleep(forTimeInterval: seconds)
                steps.append(StepRecord(index: index, type: "wait", startedAt: t, endedAt: Date()))
                index += 1
            }
        }

        // 5. shutdown.
        if failure == nil && ownProcess != nil {
            if let f = client.shutdown() { failure = f; failureText = f.description }
        }
        // Give in-flight history records (responses being written) a moment to land.
        Thread.sleep(forTimeInterval: 0.05)
        history = session.history()
        captureLog()
        return finish()
    }
}

/// One sender process shared by every case (`--reuse-sender`); restarted after a failure.
public final class SharedSender: @unchecked Sendable {
    private let command: String
    private var current: DriverClient?
    private let lock = NSLock()
    public init(command: String) { self.command = command }

    func client(environment: [String: String], timeout: Double) -> Result<DriverClient, Error> {
        lock.lock(); defer { lock.unlock() }
        if let c = current { c.timeout = timeout; return .success(c) }
        do {
            let p = try SenderProcess(command: command, environment: environment)
            let c = DriverClient(process: p, timeout: timeout)
            current = c
            return .success(c)
        } catch { return .failure(error) }
    }
    /// Length of the log so far (a case's log is what comes after).
    func logOffset() -> Int { lock.lock(); defer { lock.unlock() }; return current?.process.log.count ?? 0 }
    /// Forgets a broken process (the next case starts a new one).
    func discard() { lock.lock(); current = nil; lock.unlock() }
    func finish(timeout: Double) {
        lock.lock(); let c = current; current = nil; lock.unlock()
        _ = c?.shutdown()
    }
}

/// Hands out case indices to worker threads.
final class WorkQueue: @unchecked Sendable {
    private let lock = NSLock()
    private var nextIndex = 0
    private let count: Int
    init(count: Int) { self.count = count }
    func next() -> Int? {
        lock.lock(); defer { lock.unlock() }
        guard nextIndex < count else { return nil }
        nextIndex += 1
        return nextIndex - 1
    }
}

/// Collects results from worker threads.
final class ResultBox: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [CaseResult?]
    init(count: Int) { items = Array(repeating: nil, count: count) }
    func set(_ i: Int, _ r: CaseResult) { lock.lock(); items[i] = r; lock.unlock() }
    func all() -> [CaseResult] { lock.lock(); defer { lock.unlock() }; return items.compactMap { $0 } }
}
