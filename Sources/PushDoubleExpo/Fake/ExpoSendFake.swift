import Foundation
import PushDoubleCore
import PushDoubleTransport

/// `POST /--/api/v2/push/send` (docs/expo.md §1–§3) as one ``ProviderFake`` the core drives.
///
/// - ``admit(_:context:services:)``: access token (enhanced push security, §1), then the body
///   (``ExpoSendRequestDecoder``: plain or gzip, shape, fields, ≤ 100 recipients, token forms,
///   one project, 4096 bytes), then 600 notifications / s / project (§1). Every recipient is
///   named in ``Admission/recipients`` so the core looks each device up and fault rules naming
///   any of them match.
/// - ``deliver(_:admission:devices:context:services:)``: one ticket per recipient, in order
///   (§3.1), from the device's state (``ExpoDeviceOutcome``); an ok ticket's receipt goes to
///   the receipt store, owned by the send's history entry (``ExpoSendRecord``).
/// - ``errorResponse(reason:status:headers:request:admission:)``: a request-level code (§3.2)
///   as an `{"errors":[…]}` body, or a ticket error kind (§4.1) as an error ticket for every
///   recipient.
public struct ExpoSendFake: ProviderFake {
    public let service: ExpoService
    public var provider: ProviderID { .expo }
    /// Endpoint id recorded in the history.
    public static let endpoint = "expo.send"

    public init(service: ExpoService) { self.service = service }

    public var rateLimitReason: String? { ExpoErrorCode.tooManyRequests.rawValue }

    // MARK: admit

    public func admit(_ request: HTTPRequest, context: RequestContext, services: ProviderServices) -> Admission {
        var admission = Admission(endpoint: Self.endpoint)
        admission.notificationMaker = Self.recordedNotification
        let authorization = request.headers["authorization"]
        admission.auth = service.identity(authorization)
        do {
            try service.accessCheck.check(authorization: authorization) { $0 == service.configuration.accessToken }
        } catch {
            admission.refusal = ExpoService.refusal(error, stage: .auth)
            return admission
        }
        let decoded: ExpoSendRequest
        do {
            decoded = try service.decoder.decode(body: request.body, contentEncoding: request.headers["content-encoding"], detail: .checked) { token in
                services.devices.lookup(provider: .expo, token: token, fake: self, now: services.now).topic
            }
        } catch {
            admission.refusal = ExpoService.refusal(error, stage: .validation)
            return admission
        }
        let tokens = decoded.recipients.map(\.token)
        admission.recipients = tokens
        admission.token = tokens.first
        admission.topic = decoded.project
        if let limiter = service.rateLimiter {
            let project = decoded.project ?? service.configuration.defaultProject
            let now = services.now.timeIntervalSince1970
            if !limiter.admit(project: project, notifications: tokens.count, now: now) {
                let error = ExpoRequestError.tooManyRequests(limitPerSecond: limiter.limit, statuses: service.configuration.decoder.statuses)
                admission.refusal = ExpoService.refusal(error, stage: .quota,
                                                        detail: "expo rate: \(limiter.limit) notifications/s for \(project)")
                return admission
            }
        }
        let state = ExpoConnectionState.of(context.connection)
        state.stream = request.info.streamID
        state.send = decoded
        return admission
    }

    /// The messages of the body as JSON, decoded when the history is read.
    @Sendable static func recordedNotification(_ request: HTTPRequest) -> JSONValue? {
        try? ExpoRequestBody.json(request.body, contentEncoding: request.headers["content-encoding"], limits: ExpoBodyLimits(),
                                  statuses: ExpoErrorStatuses())
    }

    // MARK: deliver

    public func deliver(_ request: HTTPRequest, admission: Admission, device: DeviceLookup, context: RequestContext,
                        services: ProviderServices) -> ProviderResponse {
        deliver(request, admission: admission, devices: [device], context: context, services: services)
    }

    public func deliver(_ request: HTTPRequest, admission: Admission, devices: [DeviceLookup], context: RequestContext,
                        services: ProviderServices) -> ProviderResponse {
        guard let decoded = takeDecoded(request, context: context, services: services) else {
            // Unreachable in practice (admit decoded this very request); answer as Expo would.
            return ExpoService.refusal(.apiError(.bodyShape, "\"value\" must be of type object."), stage: .validation)
        }
        let now = services.now
        let record = ExpoSendRecord()
        // The tickets decided at once, and the receipts to issue (all in one go, below).
        var planned: [ExpoTicket?] = []
        var receipts: [ExpoReceiptOutcome] = []
        planned.reserveCapacity(decoded.recipients.count)
        receipts.reserveCapacity(decoded.recipients.count)
        for (i, r) in decoded.recipients.enumerated() {
            let lookup = i < devices.count ? devices[i] : DeviceLookup(deviceID: nil, state: .active, source: .openWorld)
            switch plan(r, lookup: lookup, services: services) {
            case .ticket(let ticket): planned.append(ticket)
            case .receipt(let outcome): planned.append(nil); receipts.append(outcome)
            }
        }
        var ids = service.receipts.issue(receipts, now: now.timeIntervalSince1970, owner: record).makeIterator()
        var tickets: [ExpoTicket] = []
        var outcomes: [RecipientOutcome] = []
        tickets.reserveCapacity(planned.count)
        outcomes.reserveCapacity(planned.count)
        for (i, p) in planned.enumerated() {
            let ticket = p ?? .ok(id: ids.next()!)
            tickets.append(ticket)
            outcomes.append(RecipientOutcome(token: decoded.recipients[i].token, accepted: ticket.isOK, reason: ticket.errorKind, detail: ticket.json))
        }
        let single = service.configuration.singleTicket == .object && decoded.allowsSingleTicketObject
        var answer = ProviderResponse(ExpoService.json(200, ExpoSendResponse.body(tickets, singleObject: single)), decidedBy: Decision(.accepted))
        answer.recipients = outcomes
        if !receipts.isEmpty { answer.onRecorded = { entry in record.attach(entry) } }
        return answer
    }

    /// The request admit decoded, or (if another request came between) a fresh decode.
    func takeDecoded(_ request: HTTPRequest, context: RequestContext, services: ProviderServices) -> ExpoSendRequest? {
        let state = ExpoConnectionState.of(context.connection)
        if state.stream == request.info.streamID, let d = state.send {
            state.send = nil
            return d
        }
        return try? service.decoder.decode(body: request.body, contentEncoding: request.headers["content-encoding"], detail: .checked) { token in
            services.devices.lookup(provider: .expo, token: token, fake: self, now: services.now).topic
        }
    }

    /// What one recipient gets: a ticket decided now, or an ok ticket with this receipt.
    enum Plan {
        case ticket(ExpoTicket)
        case receipt(ExpoReceiptOutcome)
    }

    /// One recipient's ticket, or the receipt its ok ticket records.
    func plan(_ r: ExpoRecipient, lookup: DeviceLookup, services: ProviderServices) -> Plan {
        var decided: ExpoReceiptOutcome? = nil
        switch r.verdict {
        case .refused(let ticket, _): return .ticket(ticket)
        case .acceptedWithReceipt(let outcome, _): decided = outcome
        case .deliverable: break
        }
        if ExpoDeviceOutcome.isDeadAtTicket(lookup) { return .ticket(.deviceNotRegistered(token: r.token)) }
        var attribute: String? = nil
        if lookup.source == .registered, let id = lookup.deviceID {
            attribute = services.devices.device(id: id)?.attributes[ExpoDeviceOutcome.receiptAttribute]?.stringValue
        }
        return .receipt(ExpoDeviceOutcome.receipt(token: r.token, decided: decided, attribute: attribute, lookup: lookup))
    }

    // MARK: fault rules and tokens

    public func errorResponse(reason: String, status: Int?, headers: HTTPHeaders, request: HTTPRequest, admission: Admission) -> HTTPResponse? {
        let recipients = admission.recipients ?? admission.token.map { [$0] } ?? []
        if let error = service.requestError(code: reason, recipients: recipients.count) {
            return ExpoService.json(status ?? error.httpStatus, error.body, headers: headers)
        }
        guard let kind = ExpoPushErrorKind(rawValue: reason) else { return nil }
        let tickets: [ExpoTicket] = recipients.map { token in
            switch kind {
            case .deviceNotRegistered: return .deviceNotRegistered(token: token)
            default:
                let message = ExpoDeviceOutcome.receipt(named: kind.rawValue, token: token).map { outcome -> String in
                    if case .error(let m, _) = outcome.receipt { return m }
                    return kind.rawValue
                } ?? kind.rawValue
                return .error(kind, message: message)
            }
        }
        return ExpoService.json(status ?? 200, ExpoSendResponse.body(tickets, singleObject: singleTicketObject(request, recipients: tickets.count)),
                                headers: headers)
    }

    /// Whether the tickets of `request` go out as one ticket object (§3.1): the option says
    /// so, the body is one message object and it names one recipient.
    func singleTicketObject(_ request: HTTPRequest, recipients: Int) -> Bool {
        guard service.configuration.singleTicket == .object, recipients == 1 else { return false }
        if case .object = Self.recordedNotification(request) { return true }
        return false
    }

    public func unknownReasonResponse(reason: String?, status: Int, headers: HTTPHeaders) -> HTTPResponse {
        ExpoService.unknownReason(reason, status: status, headers: headers)
    }

    public func magicDevice(token: String) -> MagicDevice? { service.magicDevice(token: token) }
    public func isWellFormedToken(_ token: String) -> Bool { service.isWellFormedToken(token) }
}
