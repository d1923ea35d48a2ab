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
    private let services: ProviderServices
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
        self.services = ProviderServices(clock: double.clock, devices: double.devices)
    }

    public func respond(to request: HTTPRequest, context: RequestContext) -> ResponseAction {
        let receivedAt = double.clock.now()
        var admission = fake.admit(request, context: context, services: services)
        if admission.environment == nil { admission.environment = environment }
        if let refusal = admission.refusal {
            record(request, admission, deviceID: nil, action: refusal.action, reason: refusal.reason,
                   decision: refusal.decidedBy, detail: nil, receivedAt: receivedAt)
            return refusal.action
        }

        let lookup: DeviceLookup
        var counter: DeliveryCounter? = nil
        if let token = admission.token {
            (lookup, counter) = double.devices.lookupForDelivery(provider: provider, token: token, fake: fake, now: receivedAt)
        } else {
            lookup = DeviceLookup(deviceID: nil, state: .active, source: .openWorld)
        }
        let registeredID = lookup.source == .registered ? lookup.deviceID : nil

        let hit = double.faults.evaluate(FaultRequest(provider: provider, endpoint: admission.endpoint, token: admission.token,
                                                      deviceID: registeredID, topic: admission.topic,
                                                      environment: admission.environment),
                                         rateLimitReason: rateLimitReason, now: receivedAt)
        guard let hit else {
            let delivered = fake.deliver(request, admission: admission, device: lookup, context: context, services: services)
            countDelivery(delivered.action, counter, now: receivedAt)
            record(request, admission, deviceID: registeredID, action: delivered.action, reason: delivered.reason,
                   decision: delivered.decidedBy, detail: nil, receivedAt: receivedAt)
            return delivered.action
        }

        var rendering = Rendering(pipeline: self, request: request, admission: admission, lookup: lookup,
                                  context: context, hit: hit)
        let action = rendering.render(hit.action)
        let faultDecision = Decision(hit.isQuota ? .quota : .fault, hit.ruleID)
        var decision = faultDecision
        var reason = rendering.reason
        var detail = "\(hit.isQuota ? "quota" : "fault") \(hit.ruleID): \(hit.action.typeName)"
        if let delivered = rendering.delivered {
            // The rule wrapped a normal answer (delay, goaway-then, dribble, truncate).
            decision = delivered.decidedBy
            reason = reason ?? delivered.reason
            if rendering.countsDelivery { countDelivery(delivered.action, counter, now: receivedAt) }
            detail += " (answer decided by \(delivered.decidedBy.stage.rawValue))"
        }
        let outcome = record(request, admission, deviceID: registeredID, action: action, reason: reason, decision: decision,
                             detail: detail, receivedAt: receivedAt)
        track(outcome, for: request.info)
        return action
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
        var admission = fake.limitRefusal(violation, request: head, context: context) ?? Admission(endpoint: "transport.limit")
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
        record(head, admission, deviceID: nil, action: .respond(response), reason: reason,
               decision: admission.refusal?.decidedBy ?? Decision(.validation, "transport limit: \(violation.message)"), detail: "refused by the transport (\(violation.kind.rawValue))",
               receivedAt: receivedAt)
        return response
    }

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
        let tracked = pending.withLock { p -> HistoryOutcome? in
            let o = p.removeValue(forKey: key)
            pendingCount.store(p.count, ordering: .relaxed)
            return o
        }
        tracked?.record(outcome)
    }

    private func countDelivery(_ action: ResponseAction, _ counter: DeliveryCounter?, now: Date) {
        guard let counter, let status = Self.status(of: action), (200..<300).contains(status) else { return }
        counter.recordDelivery(now: now)
    }

    @discardableResult
    private func record(_ request: HTTPRequest, _ admission: Admission, deviceID: String?, action: ResponseAction,
                        reason: String?, decision: Decision, detail: String?, receivedAt: Date) -> HistoryOutcome {
        double.history.appendTracked(ExchangeRecord(provider: provider, endpoint: admission.endpoint, request: request,
                                             token: admission.token, topic: admission.topic, environment: admission.environment,
                                             deviceID: deviceID, auth: admission.auth, notification: admission.notification,
                                             action: action, reason: reason, detail: detail, decidedBy: decision,
                                             receivedAt: receivedAt, respondedAt: double.clock.now(),
                                             notificationMaker: admission.notificationMaker)).1
    }

    // MARK: rendering a fired rule

    /// Turns a rule's action into a ResponseAction, running the normal delivery when the
    /// action wraps it (at most once).
    private struct Rendering {
        let pipeline: DoublePipeline
        let request: HTTPRequest
        let admission: Admission
        let lookup: DeviceLookup
        let context: RequestContext
        let hit: FaultHit
        var delivered: ProviderResponse? = nil
        var reason: String? = nil
        /// False when the wrapped answer never fully reaches the client (truncate).
        var countsDelivery = true

        init(pipeline: DoublePipeline, request: HTTPRequest, admission: Admission, lookup: DeviceLookup,
             context: RequestContext, hit: FaultHit) {
            self.pipeline = pipeline; self.request = request; self.admission = admission; self.lookup = lookup
            self.context = context; self.hit = hit
        }

        mutating func normal() -> ProviderResponse {
            if let d = delivered { return d }
            let d = pipeline.fake.deliver(request, admission: admission, device: lookup, context: context, services: pipeline.services)
            delivered = d
            return d
        }

        mutating func response(_ spec: ResponseSpec) -> HTTPResponse {
            let now = pipeline.double.clock.now()
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
            // Raw response, or a reason this provider does not know: answer it literally.
            let status = spec.status ?? 500
            let body = spec.body ?? spec.reason.map { r -> String in
                var s = "{\"reason\":"; JSONValue.writeString(r, into: &s); return s + "}"
            } ?? ""
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
        case .delayed(_, let then): return status(of: then)
        case .goAway(_, _, _, let then): return then.flatMap { status(of: $0) }
        case .resetStream, .dropConnection, .stall: return nil
        }
    }
}
