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
    /// Returns once every request in flight is recorded with its final outcome (the
    /// pipeline's quiesce point, ``DoubleState/quiesce(timeout:)``), or after a short timeout.
    func quiesce()
    func stop()
    /// Calls a provider admin route (an `admin` step); returns the HTTP status and body, or
    /// nil when no provider has that route.
    func admin(method: String, path: String, body: [UInt8]) -> (status: Int, body: String)?
    /// The URL of the fakes' listener `name` (e.g. `webpush-autopush`), nil when none.
    func listenerURL(_ name: String) -> String?
}

extension FakeSession {
    public func quiesce() {}
    public func admin(method: String, path: String, body: [UInt8]) -> (status: Int, body: String)? { nil }
    public func listenerURL(_ name: String) -> String? { nil }
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
            // A case a real client plays a device in (a browser: seconds of both cores to start)
            // runs after the others, by itself, so it never shares the machine with cases that
            // judge retry timing.
            let alone = scenarios.indices.filter { scenarios[$0].hasLiveDevices }
            let pooled = scenarios.indices.filter { !scenarios[$0].hasLiveDevices }
            let queue = WorkQueue(count: pooled.count)
            let group = DispatchGroup()
            for _ in 0..<max(1, min(options.jobs, pooled.count)) {
                group.enter()
                let t = Thread { [self] in
                    while let q = queue.next() {
                        let i = pooled[q]
                        let r = runCase(scenarios[i], shared: nil)
                        results.set(i, r); onCaseFinished?(r)
                    }
                    group.leave()
                }
                t.stackSize = 4 << 20
                t.start()
            }
            group.wait()
            for i in alone {
                let r = runCase(scenarios[i], shared: nil)
                results.set(i, r); onCaseFinished?(r)
            }
        }
        return RunReport(sender: options.senderCommand, seed: options.seed, startedAt: started,
                         durationSeconds: Date().timeIntervalSince(started), cases: results.all())
    }

    /// The optional features the case needs and the sender did not declare: re-registered
    /// tokens need `registeredAt` or `register` (either one serves); a provider configuration
    /// with a client certificate (`certFile`) needs `certificate`; a `subscribe` step needs
    /// `subscribe`; a Web Push device marked `"declarative": true` needs `declarative`; a
    /// `broadcast` step needs `broadcast`.
    static func missingFeatures(_ registrations: Registrations, _ id: SenderIdentity, _ configuration: SenderConfiguration,
                                steps: [ScenarioStep] = [], devices: [ScenarioDevice] = []) -> [String] {
        var missing: [String] = []
        if devices.contains(where: { $0.wantsDeclarativeWebPush }), !id.supports(SenderFeature.declarative) {
            missing.append(SenderFeature.declarative)
        }
        if steps.contains(where: { $0.kind == "subscribe" }), !id.supports(SenderFeature.subscribe) {
            missing.append(SenderFeature.subscribe)
        }
        if steps.contains(where: { $0.kind == "broadcast" }), !id.supports(SenderFeature.broadcast) {
            missing.append(SenderFeature.broadcast)
        }
        if !registrations.byStep.isEmpty, !id.supports(SenderFeature.registeredAt), !id.supports(SenderFeature.register) {
            missing.append(SenderFeature.registeredAt)
        }
        if configuration.providers.contains(where: { $0.parameters[SenderCredential.certificateParameter] != nil }),
           !id.supports(SenderFeature.certificate) {
            missing.append(SenderFeature.certificate)
        }
        return missing
    }

    /// Runs one case: fakes, sender, steps, shutdown (``drive(_:registrations:session:shared:into:)``),
    /// then judging (``CaseJudge``), while the fakes still run.
    public func runCase(_ scenario: ConformanceScenario, shared: SharedSender? = nil) -> CaseResult {
        let seed = options.seed ?? scenario.seed ?? 1
        var judge = CaseJudge(scenario: scenario, started: Date(), historyExcerpt: options.historyExcerpt, seed: seed)
        var record = CaseRecord()

        // 1. Fakes (after the runner's own scenario parts are read).
        let registrations: Registrations
        do { registrations = try Registrations(scenario) }
        catch {
            record.failureText = "cannot read the scenario: \(error)"
            return judge.result(record)
        }
        let session: any FakeSession
        do { session = try host.start(scenario, seed: seed) }
        catch {
            record.failureText = "cannot start the fakes: \(error)"
            return judge.result(record)
        }
        defer { session.stop() }
        record.configuration = session.configuration

        // Devices a real client plays (``LiveDevices``) get theirs once it made them.
        let live = ConformanceProviders.all.lazy.compactMap { $0.liveDevices(for: scenario) }.first
        defer { live?.stop() }
        var driven = scenario
        drive(&driven, live: live, registrations: registrations, session: session, shared: shared, into: &record)
        judge.scenario = driven
        return judge.result(record)
    }

    /// Phases 2 to 5 of a case against running fakes: the sender started (its own process or
    /// the shared one), initialized, the live devices started (their devices replace the
    /// scenario's), driven through the steps (``StepDriver``) and shut down; then the fakes'
    /// history and the sender's log collected. A driver failure kills the sender (and makes a
    /// shared one be replaced) and skips the phases after it.
    private func drive(_ scenario: inout ConformanceScenario, live: (any LiveDevices)?, registrations: Registrations, session: any FakeSession,
                       shared: SharedSender?, into record: inout CaseRecord) {
        // 2. Sender.
        let client: DriverClient
        switch startSender(session.configuration.environment, shared: shared) {
        case .success(let c): client = c
        case .failure(let e): record.failureText = "\(e)"; return
        }
        let ownsProcess = shared == nil
        let logStart = shared?.logOffset() ?? 0
        func abort(_ f: DriverFailure) {
            record.failureText = f.description
            client.process.kill()
            shared?.discard()
        }

        // 3. initialize.
        switch client.initialize(session.configuration) {
        case .failure(let f): abort(f)
        case .success(let id):
            record.identity = id
            let missing = scenario.providers.filter { !id.providers.contains($0) }
                + scenario.targetKinds.filter { !(id.targets ?? []).contains($0) }.map { "\($0) targets" }
                + Self.missingFeatures(registrations, id, session.configuration, steps: scenario.steps, devices: scenario.devices).map { "the \($0) feature (declare it in the initialize result's \"features\")" }
            if !missing.isEmpty {
                if ownsProcess { _ = client.shutdown() }
                record.log = Self.caseLog(client, from: logStart)
                record.notApplicableReason = "sender does not support \(missing.joined(separator: ", "))"
                return
            }
        }

        // 3b. Live devices, now that the case applies.
        if record.failureText == nil, let live {
            switch live.start(session: session) {
            case .ready(let devices):
                scenario.devices = scenario.devices.map { d in devices.first { $0.id == d.id } ?? d }
            case .notApplicable(let reason):
                if ownsProcess { _ = client.shutdown() }
                record.log = Self.caseLog(client, from: logStart)
                record.notApplicableReason = reason
                return
            case .failed(let text):
                if ownsProcess { _ = client.shutdown() }
                record.log = Self.caseLog(client, from: logStart)
                record.failureText = text
                return
            }
        }

        // 4. Steps.
        if record.failureText == nil {
            let outcome = StepDriver(scenario: scenario, client: client, registrations: registrations,
                                     configuration: session.configuration, session: session, identity: record.identity).run()
            record.steps = outcome.steps
            if let f = outcome.failure { abort(f) }
        }

        // 5. shutdown.
        if record.failureText == nil && ownsProcess {
            if let f = client.shutdown() { record.failureText = f.description }
        }
        // Every request in flight recorded, with its final outcome, and what live devices made
        // of it, before the history is read; an exited sender's log read to its end.
        session.quiesce()
        live?.settle(session: session)
        if ownsProcess && client.process.exitDescription != nil { client.process.waitForLogEnd(timeout: 1) }
        record.history = session.history()
        record.log = Self.caseLog(client, from: logStart)
    }

    /// The case's sender: a new process, or the shared one (started if need be).
    private func startSender(_ environment: [String: String], shared: SharedSender?) -> Result<DriverClient, Error> {
        if let shared { return shared.client(environment: environment, timeout: options.timeout) }
        do {
            let p = try SenderProcess(command: options.senderCommand, environment: environment)
            return .success(DriverClient(process: p, timeout: options.timeout))
        } catch {
            return .failure(error)
        }
    }

    /// The sender's log written during this case (a shared sender's log from `logStart` on).
    private static func caseLog(_ client: DriverClient, from logStart: Int) -> String {
        let full = client.process.log
        return logStart > 0 && full.count >= logStart ? String(full.dropFirst(logStart)) : full
    }
}

/// Runs a scenario's steps through the driver protocol: one ``StepRecord`` per step (per
/// repetition of a send), indexed in order. Stops at the first driver failure, recorded on
/// its step.
struct StepDriver {
    let scenario: ConformanceScenario
    let client: DriverClient
    /// The scenario's `registeredAt` moments (validated before the case started).
    let registrations: Registrations
    /// What the sender was told (each provider completes its devices from it, ``ConformanceProvider/senderDevice(_:configuration:)``).
    var configuration: SenderConfiguration? = nil
    /// The case's fakes, for `admin` steps.
    var session: (any FakeSession)? = nil
    /// What the sender declared: how it hears of re-registered tokens (``SenderFeature``).
    var identity: SenderIdentity? = nil

    func run() -> (steps: [StepRecord], failure: DriverFailure?) {
        var steps: [StepRecord] = []
        for (i, step) in scenario.steps.enumerated() {
            switch step {
            case let .send(notification, deviceIDs, targetIDs, rep):
                for r in 0..<rep {
                    var registeredAt = registrations.dates(step: i, now: Date())
                    // A sender that hears of registrations through `register` instead of
                    // `registeredAt` is told just before the send, of the registrations that
                    // happen now; a moment before the case began is no news to it.
                    if let told = registeredAt, identity?.supports(SenderFeature.registeredAt) != true,
                       identity?.supports(SenderFeature.register) == true {
                        let (recorded, f) = register(told, caseStart: steps.first?.startedAt ?? Date())
                        if let f { return (steps, f) }
                        registeredAt = recorded
                    }
                    // Devices carry `registeredAt` only for a sender that reads it.
                    let inDevices = identity.map { $0.supports(SenderFeature.registeredAt) } ?? true
                    let devices = JSONValue.array(deviceIDs.compactMap { id in
                        scenario.device(id).map { d in
                            let json = Self.driverJSON(d, registeredAt: inDevices ? registeredAt?[id] : nil)
                            return ConformanceProviders.provider(ProviderID(rawValue: d.provider))?
                                .senderDevice(json, configuration: configuration) ?? json
                        }
                    })
                    var members: [(String, JSONValue)] = [("notification", notification), ("devices", devices)]
                    // Present only when the step names targets, so v1 senders without targets see no change.
                    if !targetIDs.isEmpty { members.append(("targets", .array(targetIDs.compactMap { scenario.target($0)?.driverJSON }))) }
                    if let f = request(DriverProtocol.send, params: .object(members), into: &steps, record: { index, t, end in
                        StepRecord(index: index, type: "send", repetition: r, devices: deviceIDs, targets: targetIDs.isEmpty ? nil : targetIDs,
                                   notification: notification, startedAt: t, endedAt: end, registeredAt: registeredAt)
                    }) { return (steps, f) }
                }
            case .settle:
                if let f = request(DriverProtocol.settle, params: nil, into: &steps, record: { index, t, end in
                    StepRecord(index: index, type: "settle", startedAt: t, endedAt: end)
                }) { return (steps, f) }
            case .wait(let seconds):
                let t = Date()
                Thread.sleep(forTimeInterval: seconds)
                steps.append(StepRecord(index: steps.count, type: "wait", startedAt: t, endedAt: Date()))
            case let .admin(method, path, body):
                let t = Date()
                let answer = session?.admin(method: method, path: path, body: body.map { Array($0.compactJSON.utf8) } ?? [])
                let failure: String? = switch answer {
                case nil: "no provider admin route \(method) \(path)"
                case let a? where !(200..<300).contains(a.status): "\(method) \(path) answered \(a.status): \(a.body)"
                default: nil
                }
                steps.append(StepRecord(index: steps.count, type: "admin", startedAt: t, endedAt: Date(), failure: failure))
            case let .subscribe(topic, deviceIDs):
                let devices = JSONValue.array(deviceIDs.compactMap { id in
                    scenario.device(id).map { d in
                        ConformanceProviders.provider(ProviderID(rawValue: d.provider))?.senderDevice(d.driverJSON, configuration: configuration)
                            ?? d.driverJSON
                    }
                })
                let params = JSONValue.object([("topic", .string(topic)), ("devices", devices)])
                if let f = request(DriverProtocol.subscribe, params: params, into: &steps, record: { index, t, end in
                    StepRecord(index: index, type: "subscribe", devices: deviceIDs, startedAt: t, endedAt: end)
                }) { return (steps, f) }
            case let .broadcast(channel, params):
                // The channel name is the step's target; its params are its notification.
                if let f = request(DriverProtocol.broadcast, params: params, into: &steps, record: { index, t, end in
                    StepRecord(index: index, type: "broadcast", targets: [channel], notification: params, startedAt: t, endedAt: end)
                }) { return (steps, f) }
            }
        }
        return (steps, nil)
    }

    /// Calls `register` for the devices registered at or after the case began; returns the
    /// moments to record (the call's), keyed by device.
    private func register(_ told: [String: Date], caseStart: Date) -> ([String: Date]?, DriverFailure?) {
        let now = Date()
        let ids = told.filter { $0.value >= caseStart.addingTimeInterval(-1) }.map(\.key).sorted()
        guard !ids.isEmpty else { return (nil, nil) }
        let devices = JSONValue.array(ids.compactMap { id in
            scenario.device(id).map { d in
                ConformanceProviders.provider(ProviderID(rawValue: d.provider))?.senderDevice(d.driverJSON, configuration: configuration)
                    ?? d.driverJSON
            }
        })
        if case .failure(let f) = client.call(DriverProtocol.register, params: .object([("devices", devices)])) { return (nil, f) }
        return (Dictionary(uniqueKeysWithValues: ids.map { ($0, now) }), nil)
    }

    /// A device as `send` names it: the scenario's device object, plus `registeredAt`
    /// (ISO 8601 UTC, milliseconds) when the step gives one (``Registrations``).
    static func driverJSON(_ device: ScenarioDevice, registeredAt: Date?) -> JSONValue {
        guard let at = registeredAt, case .object(var members) = device.driverJSON else { return device.driverJSON }
        members.append(("registeredAt", .string(DateFormats.iso8601(at))))
        return .object(members)
    }

    /// One timed driver request, appended to `steps` with its results or its failure;
    /// returns the failure.
    private func request(_ method: String, params: JSONValue?, into steps: inout [StepRecord],
                         record: (_ index: Int, _ startedAt: Date, _ endedAt: Date) -> StepRecord) -> DriverFailure? {
        let t = Date()
        let res = client.results(method, params: params)
        var rec = record(steps.count, t, Date())
        var failure: DriverFailure?
        switch res {
        case .success(let list): rec.results = list
        case .failure(let f): rec.failure = f.description; failure = f
        }
        steps.append(rec)
        return failure
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
