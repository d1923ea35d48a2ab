import Foundation
import Synchronization
import PushDoubleTransport

/// The one request path of every fake: admit ▶ device lookup ▶ fault rules and quotas ▶
/// deliver ▶ count the delivery ▶ history.
///
/// A `Responder` for one listener of one provider fake. Every fault kind is applied here
/// and nowhere else, so every provider gets all of them.
///
/// Order (and why the lookup comes before the faults): the device lookup is a pure read
/// (it only applies time transitions that are due anyway) and lets rules match on the
/// registered device id. Accepted (2xx) deliveries to registered devices are counted
/// after the fake answered, which may trigger "dies after its n-th push" transitions.
///
/// Cost per request: one lock each in the registry, the fault engine and the history
/// (counting a delivery is an atomic increment); the history stores references, JSON is
/// produced only when someone reads it.
public final class DoublePipeline: Responder {
    public let fake: any ProviderFake
    public let double: DoubleState
    /// Environment of the listener ("production" / "sandbox"), used when the fake's
    /// admission does not name one.
    public let environment: String?
    private let clock: any DoubleClock
    private let devices: DeviceRegistry
    private let provider: ProviderID
    private let rateLimitReason: String?
    /// Answers shaped by a fault rule whose final outcome is still to come, by connection
    /// and stream. `pendingCount` lets `responseCompleted` skip the lock when none is.
    private struct OutcomeKey: Hashable { var connection: UInt64; var stream: UInt32 }
    private let pending = Locked<[OutcomeKey: HistoryOutcome]>([:])
    private let pendingCount = Atomic<Int>(0)
    /// Most tracked answers kept waiting for their outcome (bounded memory).
    private static let maxPending = 10_000

    public init(fake: any ProviderFake, double: DoubleState, environment: String? = nil) {
        self.fake = fake
        self.double = double
        self.environment = environment
        self.provider = fake.provider
        self.rateLimitReason = fake.rateLimitReason
        self.clock = double.clock
        self.devices = double.devices
    }

    public func respond(to request: HTTPRequest, context: RequestContext) -> ResponseAction {
        double.requestStarted()
        defer { double.requestFinished() }
        // The one clock reading of this request: arrival, fault windows, quotas, transitions
        // and the history's timestamps all use it.
        let now = clock.now()
        let services = ProviderServices(clock: clock, devices: devices, now: now)
        var admission = fake.admit(request, context: context, services: services)
        if admission.environment == nil { admission.environment = environment }
        if let refusal = admission.refusal {
            record(request, admission, targets: Targets(), response: refusal, detail: nil, now: now)
            return refusal.action
        }

        let targets = lookUpTargets(admission, now: now)
        let decision = double.faults.decision(targets.faultRequest(provider: provider, admission: admission),
                                              rateLimitReason: rateLimitReason, now: now)
        guard let hit = decision.hit else {
            var delivered = deliver(request, admission, targets, context, services)
            if decision.holdForGoAway {
                delivered.action = .heldUntilGoAway(maxSeconds: FaultEngine.goAwayHoldSeconds, then: delivered.action)
            }
            countDeliveries(delivered, targets, now: now)
            record(request, admission, targets: targets, response: delivered, detail: nil, now: now)
            return delivered.action
        }

        var rendering = Rendering(pipeline: self, request: request, admission: admission, targets: targets,
                                  context: context, services: services, hit: hit)
        let action = rendering.render(hit.action)
        var answer = ProviderResponse(action: action, reason: rendering.reason, decidedBy: Decision(hit.isQuota ? .quota : .fault, hit.ruleID))
        var detail = "\(hit.isQuota ? "quota" : "fault") \(hit.ruleID): \(hit.action.typeName)"
        if let delivered = rendering.delivered {
            // The rule wrapped a normal answer (delay, goaway-then, dribble, truncate).
            answer.decidedBy = delivered.decidedBy
            answer.reason = answer.reason ?? delivered.reason
            answer.recipients = delivered.recipients
            answer.onRecorded = delivered.onRecorded
            if rendering.countsDelivery { countDeliveries(delivered, targets, now: now) }
            detail += " (answer decided by \(delivered.decidedBy.stage.rawValue))"
        }
        let outcome = record(request, admission, targets: targets, response: answer, detail: detail, now: now)
        track(outcome, for: request.info)
        return action
    }

    /// The devices an admitted request targets: none, one (``Admission/token``) or several
    /// (``Admission/recipients``), each looked up once, with its delivery counter. A single
    /// recipient is kept inline (no allocation on the common path); ``all`` is filled only
    /// for a multi-recipient request.
    struct Targets {
        struct Recipient { var token: String; var lookup: DeviceLookup; var counter: DeliveryCounter?; var registeredID: String? }
        var firstLookup: DeviceLookup?
        var firstCounter: DeliveryCounter?
        /// The first recipient's registered device id (nil: not a registered device).
        var firstRegisteredID: String?
        /// Every recipient in request order, for a multi-recipient request only.
        var all: [Recipient] = []

        var first: DeviceLookup { firstLookup ?? DeviceLookup(deviceID: nil, state: .active, source: .openWorld) }

        func faultRequest(provider: ProviderID, admission: Admission) -> FaultRequest {
            var q = FaultRequest(provider: provider, endpoint: admission.endpoint, token: admission.token,
                                 deviceID: firstRegisteredID, topic: admission.topic, environment: admission.environment)
            q.channel = admission.channel
            if all.count > 1 {
                q.otherTokens = all.dropFirst().map(\.token)
                q.otherDeviceIDs = all.dropFirst().compactMap(\.registeredID)
            }
            return q
        }
    }

    private func lookUpTargets(_ admission: Admission, now: Date) -> Targets {
        var t = Targets()
        func look(_ token: String) -> Targets.Recipient {
            let (lookup, counter) = double.devices.lookupForDelivery(provider: provider, token: token, fake: fake, now: now)
            return Targets.Recipient(token: token, lookup: lookup, counter: counter,
                                     registeredID: lookup.source == .registered ? lookup.deviceID : nil)
        }
        if let tokens = admission.recipients {
            t.all = tokens.map(look)
        } else if let token = admission.token {
            let r = look(token)
            t.firstLookup = r.lookup; t.firstCounter = r.counter; t.firstRegisteredID = r.registeredID
            return t
        }
        if let r = t.all.first { t.firstLookup = r.lookup; t.firstCounter = r.counter; t.firstRegisteredID = r.registeredID }
        return t
    }

    /// The fake's normal answer: per recipient when the request names several.
    fileprivate func deliver(_ request: HTTPRequest, _ admission: Admission, _ targets: Targets, _ context: RequestContext,
                             _ services: ProviderServices) -> ProviderResponse {
        if admission.recipients != nil {
            var answer = fake.deliver(request, admission: admission, devices: targets.all.map(\.lookup), context: context, services: services)
            if var outcomes = answer.recipients {
                for i in outcomes.indices where i < targets.all.count && outcomes[i].deviceID == nil {
                    outcomes[i].deviceID = targets.all[i].registeredID
                }
                answer.recipients = outcomes
            }
            return answer
        }
        return fake.deliver(request, admission: admission, device: targets.first, context: context, services: services)
    }

    /// A request the transport refused before it was complete (body or header list too
    /// large): answered the provider's way when the fake shapes it
    /// (``ProviderFake/limitRefusal(_:request:context:)``), else with the transport's plain
    /// text; recorded in the history either way (stage `validation`, endpoint
    /// `transport.limit` when the fake names none). Rare, so not on the hot path.
    public func limitExceeded(_ violation: LimitViolation, head: HTTPRequest, context: RequestContext) -> HTTPResponse? {
        // A request that never arrived (read timeout) has nothing to record or to shape.
        guard violation.kind != .requestTimeout else { return nil }
        let receivedAt = double.clock.now()
        var admission = fake.limitRefusal(violation, request: head, context: context) ?? Admission(endpoint: Self.limitEndpoint)
        if admission.environment == nil { admission.environment = environment }
        let response: HTTPResponse
        let reason: String?
        if let refusal = admission.refusal, case .respond(let shaped) = refusal.action {
            response = shaped
            reason = refusal.reason
        } else {
            response = HTTPResponse(status: violation.suggestedStatus, contentType: "text/plain; charset=utf-8", body: violation.message + "\n")
            reason = nil
        }
        let answer = ProviderResponse(response, reason: reason,
                                      decidedBy: admission.refusal?.decidedBy ?? Decision(.validation, "transport limit: \(violation.message)"))
        record(head, admission, targets: Targets(), response: answer, detail: "refused by the transport (\(violation.kind.rawValue))", now: receivedAt)
        return response
    }

    /// A stream the transport turned away unprocessed (REFUSED_STREAM, or above a GOAWAY's
    /// last-stream-id): recorded in the history (endpoint `transport.refused`, stage `transport`,
    /// the action the client saw: a reset or the GOAWAY), so a notification the client never sends
    /// again is visible as lost. The fake is not asked: it never saw the request.
    public func streamRefused(_ refusal: StreamRefusal, head: HTTPRequest, context: RequestContext) {
        var admission = Admission(endpoint: Self.refusedEndpoint)
        admission.environment = environment
        let action: ResponseAction = refusal == .refusedStream
            ? .resetStream(.refusedStream) : .goAway(lastStreamID: .explicit(0), errorCode: .noError, debugData: [], then: nil)
        let answer = ProviderResponse(action: action, decidedBy: Decision(.transport, refusal.rawValue))
        _ = record(head, admission, targets: Targets(), response: answer, detail: "not processed: \(refusal.rawValue)", now: double.clock.now())
    }

    /// The history endpoint of streams the transport turned away (``streamRefused(_:head:context:)``).
    public static let refusedEndpoint = "transport.refused"
    /// The history endpoint of requests the transport refused when the fake shapes no answer.
    public static let limitEndpoint = "transport.limit"
    /// The endpoints the core records for every provider (history queries may name them;
    /// fault rules cannot: no rule is consulted there).
    public static let transportEndpoints = [limitEndpoint, refusedEndpoint]

    /// Answers a rule shaped whose final outcome (completed, reset, dropped) is still to come.
    public var pendingOutcomes: Int { pendingCount.load(ordering: .acquiring) }

    /// Remembers where to record the final outcome of an answer a rule shaped.
    private func track(_ outcome: HistoryOutcome, for info: RequestInfo) {
        let key = OutcomeKey(connection: info.connection.id, stream: info.streamID)
        pending.withLock { p in
            if p.count >= Self.maxPending { p.removeAll() }
            p[key] = outcome
            pendingCount.store(p.count, ordering: .relaxed)
        }
    }

    /// Records the final outcome of answers shaped by fault rules (delayed, dribbled,
    /// stalled, reset, …) in their history entry; free for ordinary answers.
    public func responseCompleted(for request: RequestInfo, outcome: ResponseOutcome) {
        guard pendingCount.load(ordering: .relaxed) > 0 else { return }
        let key = OutcomeKey(connection: request.connection.id, stream: request.streamID)
        // Recorded before the entry leaves the table, so the quiesce point (which waits for an
        // empty table) never sees an answer as settled before its outcome is in the history.
        guard let tracked = pending.withLock({ $0[key] }) else { return }
        tracked.record(outcome)
        pending.withLock { p in
            p.removeValue(forKey: key)
            pendingCount.store(p.count, ordering: .releasing)
        }
    }

    /// Counts accepted deliveries to registered devices: per accepted recipient of a
    /// multi-recipient answer, else the one target when the answer is a 2xx.
    private func countDeliveries(_ answer: ProviderResponse, _ targets: Targets, now: Date) {
        if let outcomes = answer.recipients {
            for (i, o) in outcomes.enumerated() where o.accepted && i < targets.all.count {
                targets.all[i].counter?.recordDelivery(now: now)
            }
            return
        }
        guard let counter = targets.firstCounter, let status = Self.status(of: answer.action), (200..<300).contains(status) else { return }
        counter.recordDelivery(now: now)
    }

    @discardableResult
    private func record(_ request: HTTPRequest, _ admission: Admission, targets: Targets, response: ProviderResponse,
                        detail: String?, now: Date) -> HistoryOutcome {
        // The history packs the fields where they are (no ExchangeRecord assembled first).
        let outcome = double.history.appendTracked(
            provider: provider, endpoint: admission.endpoint, request: request, token: admission.token, topic: admission.topic,
            environment: admission.environment, deviceID: targets.firstRegisteredID, auth: admission.auth,
            notification: admission.notification, notificationMaker: admission.notificationMaker, action: response.action,
            reason: response.reason, detail: detail, decidedBy: response.decidedBy, receivedAt: now, respondedAt: now,
            recipients: response.recipients, annotatable: response.onRecorded != nil).1
        response.onRecorded?(outcome)
        return outcome
    }

    // MARK: rendering a fired rule

    /// Turns a rule's action into a ResponseAction, running the normal delivery when the
    /// action wraps it (at most once).
    private struct Rendering {
        let pipeline: DoublePipeline
        let request: HTTPRequest
        let admission: Admission
        let targets: Targets
        let context: RequestContext
        let services: ProviderServices
        let hit: FaultHit
        var delivered: ProviderResponse? = nil
        var reason: String? = nil
        /// False when the wrapped answer never fully reaches the client (truncate).
        var countsDelivery = true

        init(pipeline: DoublePipeline, request: HTTPRequest, admission: Admission, targets: Targets,
             context: RequestContext, services: ProviderServices, hit: FaultHit) {
            self.pipeline = pipeline; self.request = request; self.admission = admission; self.targets = targets
            self.context = context; self.services = services; self.hit = hit
        }

        mutating func normal() -> ProviderResponse {
            if let d = delivered { return d }
            let d = pipeline.deliver(request, admission, targets, context, services)
            delivered = d
            return d
        }

        mutating func response(_ spec: ResponseSpec) -> HTTPResponse {
            let now = services.now
            var headers = HTTPHeaders()
            if let ra = spec.retryAfter { headers.add(name: "retry-after", value: ra.headerValue(now: now)) }
            for h in spec.headers { headers.add(name: h.name, value: h.value) }
            if let r = spec.reason {
                reason = r
                if let rendered = pipeline.fake.errorResponse(reason: r, status: spec.status, headers: headers,
                                                              request: request, admission: admission) {
                    pipeline.fake.faultReasonRendered(r, response: rendered, request: request, context: context)
                    return rendered
                }
            }
            let status = spec.status ?? 500
            // A raw body is answered literally; a reason this provider does not know (or no
            // reason at all) in the provider's own error shape.
            guard let body = spec.body else {
                return pipeline.fake.unknownReasonResponse(reason: spec.reason, status: status, headers: headers)
            }
            if !body.isEmpty {
                let type = spec.contentType ?? ((try? JSONSerialization.jsonObject(with: Data(body.utf8), options: [.fragmentsAllowed])) != nil
                                                 ? "application/json" : "text/plain; charset=utf-8")
                headers.replaceOrAdd(name: "content-type", value: type)
            }
            return HTTPResponse(status: status, headers: headers, body: Array(body.utf8))
        }

        mutating func render(_ action: FaultAction) -> ResponseAction {
            switch action {
            case .respond(let spec): return .respond(response(spec))
            case .continue, .quota: return normal().action
            case .delay(let s, let then): return .delayed(seconds: s, then: render(then))
            case .drop: return .dropConnection
            case .goAway(let last, let code, let debug, let then):
                return .goAway(lastStreamID: last, errorCode: code, debugData: debug.bytes, then: then.map { render($0) })
            case .reset(let code): return .resetStream(code)
            case .stall: return .stall
            case .dribble(let size, let interval, let spec):
                let base: ResponseAction = spec.map { .respond(response($0)) } ?? normal().action
                if case .respond(let r) = base { return .dribble(r, chunkSize: size, interval: interval) }
                return base
            case .truncate(let n, let spec):
                let base: ResponseAction = spec.map { .respond(response($0)) } ?? normal().action
                countsDelivery = false
                if case .respond(let r) = base { return .truncate(r, bodyBytes: n) }
                return base
            }
        }
    }

    // MARK: recording

    /// The HTTP status an action ends up sending, if it sends one.
    public static func status(of action: ResponseAction) -> Int? {
        switch action {
        case .respond(let r), .dribble(let r, _, _), .truncate(let r, _), .stream(let r, _): return r.status
        case .delayed(_, let then), .heldUntilGoAway(_, let then): return status(of: then)
        case .goAway(_, _, _, let then): return then.flatMap { status(of: $0) }
        case .resetStream, .dropConnection, .stall: return nil
        }
    }
}
