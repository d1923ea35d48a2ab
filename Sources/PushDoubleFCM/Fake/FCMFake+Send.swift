import Foundation
import PushDoubleCore
import PushDoubleTransport

/// The send endpoint, `POST /v1/projects/{project}/messages:send` (docs/fcm.md §1–§4).
extension FCMFake {
    /// Phases: path ▶ Bearer token (docs/fcm.md §4.3: 401 without `details`; 403 for another
    /// project) ▶ the message (``FCMSendRequestValidator``) ▶ token syntax.
    func admitSend(_ request: HTTPRequest, now: Double, devices: DeviceRegistry) -> Admission {
        var admission = Admission(endpoint: Self.sendEndpoint)
        guard request.method == "POST", let project = FCMSendEndpoint.project(fromRequestPath: request.path) else {
            admission.refusal = Self.notFound(request)
            return admission
        }
        admission.topic = project
        // Authentication comes first: Google's front end refuses before reading the body.
        let (identity, authRefusal, maker) = authenticate(request, project: project, now: now)
        admission.auth = identity
        if let authRefusal {
            admission.notificationMaker = Self.recordedNotification
            admission.refusal = authRefusal
            admission.token = Self.registrationToken(inRefused: request.body)
            return admission
        }
        admission.notificationMaker = maker
        let message: FCMMessage
        do { message = try validator.validate(body: request.body) } catch {
            admission.refusal = Self.envelopeResponse(error.envelope, stage: .validation,
                                                      detail: "\(error.rule.rawValue)\(error.field.map { " at \($0)" } ?? ""): \(error.message)")
            admission.token = Self.registrationToken(inRefused: request.body)
            return admission
        }
        switch message.target {
        case .token(let t), .fid(let t): admission.token = t
        case .topic, .condition:
            // The audience is the double's subscriptions (docs/fcm.md "Topic subscriptions").
            if !message.validateOnly { admission.recipients = audience(of: message.target, devices: devices) }
        }
        // validate_only fixes the message id already (§3); deliver reads it from here.
        if message.validateOnly { admission.messageID = FCMSendEndpoint.validateOnlyMessageID }
        if let t = admission.token, !Self.isWellFormedToken(t) {
            admission.refusal = Self.envelopeResponse(configuration.invalidTokenEnvelope, stage: .validation, detail: "malformed registration token")
        }
        return admission
    }

    /// What ``Admission/notificationMaker`` holds for an authenticated send.
    typealias NotificationMaker = @Sendable (HTTPRequest) -> JSONValue?

    /// Reads `Authorization: Bearer <token>` (scheme in any case: auth schemes are
    /// case-insensitive, RFC 9110 §11.1) and looks the token up. Returns the identity for the history and, when
    /// refused, the answer; when accepted, the history's maker of the decoded message for
    /// the token's account (one closure per accepted bearer, not one per send).
    func authenticate(_ request: HTTPRequest, project: String, now: Double) -> (AuthIdentity, ProviderResponse?, NotificationMaker?) {
        guard let header = request.headers.first(name: "authorization") else {
            return (AuthIdentity(scheme: "none", valid: false),
                    Self.envelopeResponse(.missingCredential, stage: .auth, detail: "no authorization header"), nil)
        }
        // Read before the lookup: a revocation or a mint after it makes the entry stored
        // below stale at once.
        let generation = accounts.store.generation
        if let hit = lastAcceptedBearer.withLock({ b in b?.accepts(header: header, project: project, generation: generation, now: now) == true ? b : nil }) {
            return (hit.identity, nil, hit.maker)
        }
        guard let token = Self.bearerCredential(header) else {
            return (AuthIdentity(scheme: "none", valid: false, extra: ["authorization": "not a bearer token"]),
                    Self.envelopeResponse(.missingCredential, stage: .auth, detail: "authorization is not `Bearer <token>`"), nil)
        }
        func refused(_ grant: FCMAccessGrant?, _ why: String) -> (AuthIdentity, ProviderResponse?, NotificationMaker?) {
            var identity = Self.identity(grant, project: project, valid: false)
            identity.extra["token"] = Self.fingerprint(token)
            return (identity, Self.envelopeResponse(.invalidCredentials, stage: .auth, detail: why), nil)
        }
        switch accounts.store.lookup(token, now: now) {
        case .unknown: return refused(nil, "access token not issued by this fake")
        case .revoked(let g): return refused(g, "access token revoked")
        case .expired(let g): return refused(g, "access token expired at \(Int64(g.expiresAt))")
        case .valid(let grant):
            var identity = Self.identity(grant, project: project, valid: true)
            identity.extra["token"] = Self.fingerprint(token)
            if !grant.covers(project: project) {
                identity.valid = false
                return (identity, Self.envelopeResponse(.permissionDenied(project: project), stage: .auth,
                                                               detail: "\(grant.clientEmail) may not send for project \(project)"), nil)
            }
            if !grant.scopes.contains(where: configuration.tokenEndpoint.fcmScopes.contains) {
                identity.valid = false
                return (identity, Self.envelopeResponse(.insufficientScopes, stage: .auth,
                                                               detail: "access token has no FCM scope (\(grant.scopes.joined(separator: " ")))"), nil)
            }
            let account = grant.clientEmail
            let maker: NotificationMaker = { FCMRecordedMessage.make($0, account: account) }
            lastAcceptedBearer.withLock {
                $0 = AcceptedBearer(header: header, project: project, generation: generation, grant: grant, identity: identity, maker: maker)
            }
            return (identity, nil, maker)
        }
    }

    /// The last `Authorization` value accepted for a project, with what it was accepted as.
    /// A sender reuses one access token for many sends (docs/fcm.md §6.3), so the next request
    /// with the same header for the same project skips parsing the header, looking the token
    /// up and building the history identity — as long as no token was issued, revoked or
    /// evicted since (``FCMAccessTokenStore/generation``) and the token has not expired: the
    /// same answer the lookup would give.
    struct AcceptedBearer: Sendable {
        let header: String
        let project: String
        let generation: UInt64
        let grant: FCMAccessGrant
        let identity: AuthIdentity
        /// The history's maker for this bearer's account.
        let maker: NotificationMaker

        func accepts(header h: String, project p: String, generation g: UInt64, now: Double) -> Bool {
            g == generation && now < grant.expiresAt && h == header && p == project
        }
    }

    /// The bearer as the history records it (the scopes are in the mint's entry).
    static func identity(_ grant: FCMAccessGrant?, project: String, valid: Bool) -> AuthIdentity {
        AuthIdentity(scheme: "oauth-bearer", issuer: grant?.clientEmail,
                     issuedAt: grant.map { Int64($0.issuedAt) }, expiresAt: grant.map { Int64($0.expiresAt) },
                     audience: project, valid: valid)
    }

    /// The credential after a case-insensitive `Bearer` scheme and spaces or tabs; nil for
    /// another scheme or none. Works on the UTF-8 bytes (Foundation's trimming showed up at
    /// a fifth of the request path).
    static func bearerCredential(_ header: String) -> String? {
        UTF8Bytes.of(header) { bearerCredential(utf8: $0) }
    }

    private static func bearerCredential(utf8 u: UnsafeBufferPointer<UInt8>) -> String? {
        func isBlank(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 }
        var i = 0
        while i < u.count, isBlank(u[i]) { i += 1 }
        for expected in "bearer".utf8 {
            guard i < u.count, u[i] | 0x20 == expected else { return nil }
            i += 1
        }
        guard i < u.count, isBlank(u[i]) else { return nil }
        while i < u.count, isBlank(u[i]) { i += 1 }
        var end = u.count
        while end > i, isBlank(u[end - 1]) { end -= 1 }
        return end > i ? String(decoding: UnsafeBufferPointer(rebasing: u[i..<end]), as: UTF8.self) : nil
    }

    /// The first 12 characters of an access token (enough to tell tokens apart in the history).
    /// (On the UTF-8 bytes: `prefix` over Characters showed up on the request path.)
    static func fingerprint(_ token: String) -> String {
        var out = Array(token.utf8.prefix(12))
        out.append(contentsOf: "…".utf8)
        return String(decoding: out, as: UTF8.self)
    }

    /// Device state (docs/fcm.md §4.3/§4.4: UNREGISTERED also for missing tokens), the device's
    /// project, then `validate_only` (§3) or a new message id.
    func deliverSend(_ request: HTTPRequest, admission: Admission, device: DeviceLookup, now: Date) -> ProviderResponse {
        let project = admission.topic ?? ""
        if admission.token != nil {
            let who = device.deviceID ?? admission.token ?? "?"
            func fail(_ e: GoogleErrorEnvelope, _ why: String, headers: HTTPHeaders = HTTPHeaders()) -> ProviderResponse {
                Self.envelopeResponse(e, headers: headers, stage: .device, detail: "\(who): \(why)")
            }
            if device.source == .unknown { return fail(.unregistered, "unknown token (closed world)") }
            switch device.state {
            case .active: break
            case .unregistered: return fail(.unregistered, "unregistered")
            case .expired: return fail(.unregistered, "expired token")
            case .invalid: return fail(configuration.invalidTokenEnvelope, "invalid token")
            case .otherApp: return fail(.senderIDMismatch, "token of another sender")
            case .rateLimited:
                var h = HTTPHeaders()
                h.add(name: "retry-after", value: String(configuration.quotaRetryAfterSeconds))
                return fail(quotaEnvelope, "rate-limited device", headers: h)
            }
            if let owner = device.topic, owner != project { return fail(.senderIDMismatch, "token belongs to project \(owner)") }
        }
        // validate_only carries its fixed id from admit; otherwise a new id is written
        // straight into the body.
        if let id = admission.messageID {
            let body = FCMSendEndpoint.successBody(project: project, messageID: id)
            return ProviderResponse(Self.jsonResponse(200, body), reason: nil,
                                    decidedBy: Decision(.accepted, id == FCMSendEndpoint.validateOnlyMessageID ? "validate_only" : device.source.rawValue))
        }
        let body = FCMSendEndpoint.successBody(project: project, timestampMicros: UInt64(max(0, now.timeIntervalSince1970 * 1_000_000)), tag: nextMessageTag())
        return ProviderResponse(Self.jsonResponse(200, body), reason: nil, decidedBy: Decision(.accepted, device.source.rawValue))
    }

    /// A topic or condition send: the ordinary answer, and one recipient per subscribed token
    /// (delivered when its device can receive), so the history, the admin API and the inbox
    /// show whom it reached.
    func deliverTopicSend(_ request: HTTPRequest, admission: Admission, devices: [DeviceLookup], now: Date) -> ProviderResponse {
        var answer = deliverSend(request, admission: admission, device: DeviceLookup(deviceID: nil, state: .active, source: .openWorld), now: now)
        let tokens = admission.recipients ?? []
        answer.recipients = tokens.enumerated().map { i, token in
            Self.fanOutOutcome(token: token, lookup: i < devices.count ? devices[i] : DeviceLookup(deviceID: nil, state: .active, source: .openWorld))
        }
        return answer
    }

    /// The QUOTA_EXCEEDED body (docs/fcm.md §4.3: message UNCONFIRMED, so GCP's usual form).
    var quotaEnvelope: GoogleErrorEnvelope {
        .quotaExceeded(message: GoogleErrorEnvelope.gcpQuotaMessage(metric: "fcm.googleapis.com/messages",
                                                                   limit: "MessagesPerMinutePerProject",
                                                                   projectNumber: configuration.projectNumbers.sorted().first ?? "0"))
    }

    /// The registration token (or `fid`) a refused request names, for the history and the
    /// checks (a refused request was not decoded; the refusal path reads the JSON once more).
    static func registrationToken(inRefused body: [UInt8]) -> String? {
        guard let message = (try? JSONValue.parse(body))?["message"] else { return nil }
        return message["token"]?.stringValue ?? message["fid"]?.stringValue
    }
}
