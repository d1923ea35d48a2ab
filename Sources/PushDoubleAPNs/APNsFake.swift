import Foundation
import Synchronization
import PushDoubleCore
import PushDoubleCrypto
import PushDoubleTransport

/// The APNs provider API fake: authenticates, validates and answers `POST /3/device/<token>`
/// exactly as Apple does, as one ``ProviderFake`` the core pipeline drives.
///
/// Stages (the core calls them in this order; full rule order in docs/apns.md):
/// - ``admit(_:context:services:)``: blocked-connection check, header checks
///   (``APNsRequestValidator``), token auth (``APNsTokenVerifier`` + ``APNsTokenRules``),
///   then topic permission, payload size and token format.
/// - ``deliver(_:admission:device:context:services:)``: environment, device state, topic,
///   per-device rate; 200 otherwise.
/// - ``errorResponse(reason:status:headers:request:admission:)``: any reason of the table for
///   fault rules, through the same ``APNsResponseBuilder``.
///
/// Threading: Sendable; shared state (keys, JWT cache, rate counters) is behind locks,
/// per-connection state (``APNsConnectionState``) lives in the connection's storage slot
/// and is touched only on its loop.
public final class APNsFake: ProviderFake {
    public let provider: ProviderID = .apns
    /// Stable endpoint id recorded in the history.
    public static let endpoint = "apns.push"

    public let configuration: APNsConfiguration
    /// Trusted keys and allowed bundle ids; add to them at runtime.
    public let keys: APNsKeyStore
    public let verifier: APNsTokenVerifier
    public let responses: APNsResponseBuilder
    let rateLimiter: APNsDeviceRateLimiter?
    /// The double's broadcast channels (docs/apns.md "Broadcast channels").
    public let channels = APNsChannelStore()
    /// Used only where the pipeline passes no services (``errorResponse``'s 410 timestamp):
    /// the double's clock as soon as a request has been admitted, else the one given at init.
    let clock: any DoubleClock
    private let pipelineClock = Mutex<(any DoubleClock)?>(nil)
    private let pipelineClockKnown = Atomic<Bool>(false)

    /// The clock 410 timestamps of fault-rule answers are taken from.
    var faultClock: any DoubleClock { pipelineClock.withLock { $0 } ?? clock }

    public init(configuration: APNsConfiguration = .shipped, clock: any DoubleClock = SystemClock()) {
        self.configuration = configuration
        self.clock = clock
        keys = APNsKeyStore(keys: configuration.keys, allowedBundleIDs: configuration.allowedBundleIDs)
        verifier = APNsTokenVerifier(keys: keys, requireExactClaims: configuration.requireExactClaims,
                                     capacity: configuration.verificationCacheSize)
        responses = APNsResponseBuilder(environmentKeySpelling: configuration.environmentKeySpelling)
        rateLimiter = configuration.tooManyRequestsPerDevice.map { APNsDeviceRateLimiter(limit: $0) }
    }

    /// Adds (or replaces) a trusted signing key at runtime.
    public func addKey(_ key: APNsSigningKey) { keys.addKey(key) }

    /// Adds (or replaces) a trusted signing key given in its JSON form.
    public func addKey(_ spec: APNsKeySpec) throws { keys.addKey(try spec.signingKey()) }

    public var rateLimitReason: String? { APNsReason.tooManyRequests.rawValue }

    // MARK: admit

    public func admit(_ request: HTTPRequest, context: RequestContext, services: ProviderServices) -> Admission {
        let now = services.now
        if !pipelineClockKnown.load(ordering: .acquiring) {
            pipelineClock.withLock { $0 = services.clock }
            pipelineClockKnown.store(true, ordering: .releasing)
        }
        if let management = APNsEnvironment.management(of: request) {
            return admitChannelManagement(request, environment: management, context: context, now: now)
        }
        if APNsBroadcastRequest.isBroadcastPath(request.path) { return admitBroadcast(request, context: context, now: now) }
        let state = Self.connectionState(context.connection)
        let environment: APNsEnvironment
        if let cached = state.lastEnvironment, request.authority == state.lastAuthority {
            environment = cached  // SNI and listener are fixed per connection; only :authority varies
        } else {
            environment = self.environment(of: request)
            state.lastAuthority = request.authority
            state.lastEnvironment = environment
        }
        var admission = Admission(endpoint: Self.endpoint, environment: environment.rawValue)

        // A client certificate authenticates the whole connection (docs/apns.md
        // "Certificate-based provider authentication"); `authorization` is then ignored.
        let certificate = certificateAuth(of: request, state: state)
        if let refused = certificateRefusal(certificate, environment: environment) {
            admission.auth = refused.identity
            admission.refusal = refused.response
            return admission
        }
        let (headers, headerFailure) = APNsRequestValidator.checkHeaders(request, defaultTopic: certificate.providerCertificate?.defaultTopic)
        // Hex tokens name bytes, so case does not matter to APNs: device lookups, fault
        // matching and the history use the lowercase form.
        admission.token = headers.token.map(Self.lowercasedHex)
        admission.topic = headers.topic
        // Decoded when the history is read, not here (see `recordedNotification`).
        admission.notificationMaker = Self.recordedNotification
        let apnsID = headers.apnsID  // generated only if a refusal needs one
        admission.messageID = apnsID

        // A connection blocked after a too-early token update refuses everything.
        if let blocked = APNsTokenRules.blockedReason(state: state, now: now) {
            admission.auth = state.currentClaims?.identity
            admission.refusal = refusal(blocked, apnsID: apnsID, stage: .auth, detail: "connection blocked until \(state.blockedUntil.map { "\($0)" } ?? "?")")
            return admission
        }
        if let headerFailure {
            admission.refusal = refusal(headerFailure, apnsID: apnsID, stage: .validation)
            return admission
        }

        if let failure = authenticateConnection(headers, certificate: certificate, state: state, environment: environment,
                                                context: context, now: now, admission: &admission) {
            admission.refusal = refusal(failure.reason, apnsID: apnsID, stage: failure.stage, detail: failure.detail)
            return admission
        }
        // Then the body, then the token format.
        if request.body.isEmpty {
            admission.refusal = refusal(.payloadEmpty, apnsID: apnsID, stage: .validation)
            return admission
        }
        let limit = headers.pushType.payloadLimit
        if request.body.count > limit {
            admission.refusal = refusal(.payloadTooLarge, apnsID: apnsID, stage: .validation,
                                        detail: "\(request.body.count) bytes > \(limit) for \(headers.pushType.rawValue)")
            return admission
        }
        if let token = headers.token, !APNsRequestValidator.isWellFormedToken(token) {
            admission.refusal = refusal(.badDeviceToken, apnsID: apnsID, stage: .validation, detail: "malformed device token")
            return admission
        }
        return admission
    }

    /// Who sent the request (the connection's provider certificate, else the JWT under the
    /// token rules), then whether they may use the topic; raises the stream limit after the
    /// first success. Sets `admission.auth`; returns the failure, nil when authenticated.
    func authenticateConnection(_ headers: APNsPushHeaders, certificate: APNsCertificateAuth, state: APNsConnectionState,
                                environment: APNsEnvironment, context: RequestContext, now: Date,
                                admission: inout Admission) -> (reason: APNsReason, stage: Decision.Stage, detail: String?)? {
        let providerCertificate = certificate.providerCertificate
        if let providerCertificate {
            admission.auth = providerCertificate.identity
        } else {
            let (identity, authFailure, detail) = authenticate(headers, state: state, environment: environment, now: now)
            admission.auth = identity
            if let authFailure { return (authFailure, .auth, detail) }
        }
        if !state.streamsRaised {
            state.streamsRaised = true
            context.connection.updateSettings(maxConcurrentStreams: configuration.maxConcurrentStreamsAfterAuth)
        }
        let topic = headers.topic ?? ""
        let bundleID = headers.bundleID ?? topic
        if let providerCertificate {
            if !providerCertificate.allowedTopics.contains(topic) {
                return (.topicDisallowed, .validation,
                        "topic \(topic) not in the certificate (\(providerCertificate.allowedTopics.joined(separator: ", ")))")
            }
        } else if !isTopicAllowed(bundleID: bundleID, topic: topic, keyTopics: state.currentClaims?.keyTopics, state: state) {
            return (.topicDisallowed, .validation, "bundle id \(bundleID) not allowed")
        }
        return nil
    }

    /// Parses `authorization` and applies the token rules. Returns the identity for the
    /// history, the failure (if any) and a short explanation.
    func authenticate(_ headers: APNsPushHeaders, state: APNsConnectionState, environment: APNsEnvironment,
                      now: Date) -> (AuthIdentity?, APNsReason?, String?) {
        guard let authorization = headers.authorization else {
            return (AuthIdentity(scheme: "none", valid: false), .missingProviderToken, "no authorization header")
        }
        let claims: APNsVerifiedToken
        let jwt: String
        if authorization == state.currentAuthorization, let current = state.currentClaims, let t = state.currentToken {
            // Fast path: the connection's current token again.
            claims = current
            jwt = t
        } else {
            guard let token = Self.bearerToken(authorization) else {
                return (AuthIdentity(scheme: "none", valid: false, extra: ["authorization": "not a bearer token"]),
                        .missingProviderToken, "authorization is not `bearer <JWT>`")
            }
            if token.isEmpty { return (AuthIdentity(scheme: "none", valid: false), .missingProviderToken, "empty bearer token") }
            switch verifier.verify(token) {
            case .invalid(let identity, let detail): return (identity, .invalidProviderToken, detail)
            case .valid(let c): claims = c; jwt = token
            }
        }
        let failure = APNsTokenRules.evaluate(token: jwt, claims: claims, state: state, environment: environment,
                                              topic: headers.topic, bundleID: headers.bundleID, now: now,
                                              timing: configuration.tokenTiming)
        if let failure {
            var identity = claims.identity
            identity.valid = false
            return (identity, failure, Self.explain(failure, claims: claims, state: state, now: now, maxAge: configuration.tokenTiming.maxAge))
        }
        state.currentAuthorization = authorization
        return (state.currentIdentity ?? claims.identity, nil, nil)
    }

    static func explain(_ reason: APNsReason, claims: APNsVerifiedToken, state: APNsConnectionState, now: Date, maxAge: Double) -> String {
        switch reason {
        case .expiredProviderToken:
            let age = Int64((now.timeIntervalSince1970 - claims.issuedAtSeconds).rounded(.down))
            if Double(age) <= maxAge { return "token already answered ExpiredProviderToken on this connection (iat \(claims.issuedAt), \(age) s old)" }
            return "iat \(claims.issuedAt) is \(age) s old"
        case .tooManyProviderTokenUpdates: return "token replaced too early; connection blocked until \(state.blockedUntil.map { "\($0)" } ?? "?")"
        case .unrelatedKeyIdInToken: return "connection bound to key \(state.keyID ?? "?"), token uses \(claims.keyID)"
        case .invalidProviderToken:
            if let team = state.teamID, team != claims.teamID { return "connection bound to team \(team), token from \(claims.teamID)" }
            return "iat in the future or topic not allowed for key \(claims.keyID)"
        case .badEnvironmentKeyInToken: return "key \(claims.keyID) is limited to \(claims.keyEnvironments.rawValue)"
        default: return reason.rawValue
        }
    }

    /// The JWT after a case-insensitive `bearer` scheme and spaces; nil if another scheme.
    static func bearerToken(_ authorization: String) -> String? {
        let u = authorization.utf8
        guard u.count >= 6 else { return nil }
        var i = u.startIndex
        for expected in "bearer".utf8 {
            guard u[i] | 0x20 == expected else { return nil }
            i = u.index(after: i)
        }
        if i == u.endIndex { return "" }
        guard u[i] == 0x20 || u[i] == 0x09 else { return nil }
        while i != u.endIndex, u[i] == 0x20 || u[i] == 0x09 { i = u.index(after: i) }
        var end = u.endIndex
        while end > i, u[u.index(before: end)] == 0x20 || u[u.index(before: end)] == 0x09 { end = u.index(before: end) }
        return String(Substring(u[i..<end]))
    }

    func isTopicAllowed(bundleID: String, topic: String, keyTopics: Set<String>?, state: APNsConnectionState) -> Bool {
        let generation = keys.generation
        if state.allowedBundle == bundleID && state.allowedBundleGeneration == generation { return true }
        guard keys.isAllowed(bundleID: bundleID, topic: topic, keyTopics: keyTopics) else { return false }
        state.allowedBundle = bundleID
        state.allowedBundleGeneration = generation
        return true
    }

    /// The connection's certificate, read once (the handshake fixed it).
    func certificateAuth(of request: HTTPRequest, state: APNsConnectionState) -> APNsCertificateAuth {
        if case .unknown = state.certificateAuth {
            if let der = request.info.connection.tls?.clientCertificateDER {
                if let c = try? APNsProviderCertificate(der: der), !c.environments.isEmpty {
                    state.certificateAuth = .certificate(c)
                } else {
                    state.certificateAuth = .notAProviderCertificate(subject: (try? X509Certificate(der: der))?.subjectLine ?? "unreadable")
                }
            } else {
                state.certificateAuth = .none
            }
        }
        return state.certificateAuth
    }

    /// A certificate APNs turns away: one for the other environment gets a GOAWAY (last
    /// stream 0, NO_ERROR, debug `{"reason":"BadCertificateEnvironment"}`) and the connection
    /// closes, as Apple's servers do right after the handshake; a verified certificate
    /// without Apple's environment extensions is 403 `BadCertificate` (UNCONFIRMED which
    /// certificates Apple answers so).
    func certificateRefusal(_ auth: APNsCertificateAuth, environment: APNsEnvironment,
                            idHeader: String = "apns-id") -> (identity: AuthIdentity, response: ProviderResponse)? {
        switch auth {
        case .unknown, .none: return nil
        case .certificate(let c):
            guard !c.environments.contains(environment) else { return nil }
            var identity = c.identity
            identity.valid = false
            let reason = APNsReason.badCertificateEnvironment.rawValue
            let debug = APNsResponseBuilder.errorBody(reason: reason, timestampMilliseconds: nil)
            return (identity, ProviderResponse(action: .goAway(lastStreamID: .explicit(0), errorCode: .noError, debugData: debug, then: nil),
                                               reason: reason,
                                               decidedBy: Decision(.auth, "\(c.environmentLabel) certificate on the \(environment.rawValue) host")))
        case .notAProviderCertificate(let subject):
            return (AuthIdentity(scheme: "apns-certificate", subject: subject, valid: false),
                    refusal(.badCertificate, apnsID: nil, stage: .auth, detail: "no APNs environment extension in \(subject)",
                            idHeader: idHeader))
        }
    }

    func refusal(_ reason: APNsReason, apnsID: String?, stage: Decision.Stage, detail: String? = nil,
                 idHeader: String = "apns-id") -> ProviderResponse {
        // Only reasons of the device stage are 410, and those are answered in `deliver`.
        let timestamp = reason.status == 410 ? Self.milliseconds(faultClock.now()) : nil
        return ProviderResponse(responses.error(reason, apnsID: apnsID ?? APNsMessageID.generate(), timestampMilliseconds: timestamp,
                                                idHeader: idHeader),
                                reason: responses.environmentKeySpelling.string(for: reason),
                                decidedBy: Decision(stage, detail ?? reason.rawValue))
    }

    // MARK: deliver

    public func deliver(_ request: HTTPRequest, admission: Admission, device: DeviceLookup, context: RequestContext,
                        services: ProviderServices) -> ProviderResponse {
        let environment = admission.environment.flatMap(APNsEnvironment.init(rawValue:)) ?? environment(of: request)
        let now = services.now
        switch admission.endpoint {
        case Self.endpoint: break
        case Self.broadcastEndpoint: return deliverBroadcast(request, admission: admission, environment: environment, now: now, devices: services.devices)
        default: return deliverChannelRequest(request, admission: admission, environment: environment, now: now)
        }
        let apnsID = admission.messageID ?? APNsMessageID.generate()
        func fail(_ reason: APNsReason, _ detail: String, timestamp: Date? = nil) -> ProviderResponse {
            let ts = reason.status == 410 ? Self.milliseconds(timestamp ?? now) : nil
            return ProviderResponse(responses.error(reason, apnsID: apnsID, timestampMilliseconds: ts),
                                    reason: responses.environmentKeySpelling.string(for: reason),
                                    decidedBy: Decision(.device, "\(device.deviceID ?? admission.token ?? "?"): \(detail)"))
        }
        if device.source == .unknown { return fail(.badDeviceToken, "unknown token (closed world)") }
        if let e = device.environment.flatMap(APNsEnvironment.init(rawValue:)), e != environment {
            return fail(.badDeviceToken, "\(e.rawValue) token sent to \(environment.rawValue)")
        }
        switch device.state {
        case .active: break
        case .invalid: return fail(.badDeviceToken, "invalid token")
        case .unregistered(let since): return fail(.unregistered, "unregistered", timestamp: since)
        case .expired: return fail(.expiredToken, "expired token")
        case .otherApp: return fail(.deviceTokenNotForTopic, "token of another app")
        case .rateLimited: return fail(.tooManyRequests, "rate-limited device")
        }
        if let deviceTopic = device.topic, let topic = admission.topic, deviceTopic != topic,
           deviceTopic != APNsPushType.splitTopic(topic).bundleID {
            return fail(.deviceTokenNotForTopic, "token belongs to \(deviceTopic)")
        }
        if let limiter = rateLimiter, let token = admission.token, !limiter.admit(token: token, now: now) {
            return fail(.tooManyRequests, "more than \(limiter.limit) pushes in one second")
        }
        let unique = environment == .sandbox ? APNsMessageID.generate() : nil
        return ProviderResponse(responses.success(apnsID: apnsID, uniqueID: unique), reason: nil,
                                decidedBy: Decision(.accepted, device.source.rawValue))
    }

    // MARK: fault rules

    /// The reasons ``errorResponse(reason:status:headers:request:admission:)`` renders: every
    /// ``APNsReason`` and Apple's documented spelling of the environment-key reason.
    public static var faultReasons: [String] {
        APNsReason.allCases.map(\.rawValue) + [APNsReason.documentedEnvironmentKeySpelling]
    }

    public func errorResponse(reason: String, status: Int?, headers: HTTPHeaders, request: HTTPRequest,
                              admission: Admission) -> HTTPResponse? {
        guard let known = APNsReason(wireString: reason) else { return nil }
        let finalStatus = status ?? known.status
        let wire = reason == APNsReason.documentedEnvironmentKeySpelling ? reason : responses.environmentKeySpelling.string(for: known)
        let isPush = admission.endpoint == Self.endpoint
        return responses.error(reasonString: wire, status: finalStatus, apnsID: admission.messageID ?? Self.apnsID(of: request),
                               timestampMilliseconds: finalStatus == 410 ? Self.milliseconds(faultClock.now()) : nil,
                               extraHeaders: headers, idHeader: isPush ? "apns-id" : Self.requestIDHeader)
    }

    /// A reason Apple does not document, from a fault rule: APNs's error shape around it,
    /// `{"reason":"…"}` as JSON (no `apns-id`: the rule, not the fake, answers).
    public func unknownReasonResponse(reason: String?, status: Int, headers: HTTPHeaders) -> HTTPResponse {
        var h = headers
        guard let reason else { return HTTPResponse(status: status, headers: h, body: []) }
        h.replaceOrAdd(name: "content-type", value: "application/json")
        return HTTPResponse(status: status, headers: h, body: APNsResponseBuilder.errorBody(reason: reason, timestampMilliseconds: nil))
    }

    /// A fault rule answered `ExpiredProviderToken` (or any reason of that name): the
    /// connection forgets its current token and treats the request's JWT as expired from now
    /// on, exactly as after the fake's own age check (``APNsConnectionState/tokenExpired(_:)``).
    /// So the new JWT a correct sender mints is accepted on the same connection without
    /// counting as a TooManyProviderTokenUpdates update.
    public func faultReasonRendered(_ reason: String, response: HTTPResponse, request: HTTPRequest, context: RequestContext) {
        guard reason == APNsReason.expiredProviderToken.rawValue else { return }
        let state = Self.connectionState(context.connection)
        let jwt = request.headers.first(name: "authorization").flatMap(Self.bearerToken)
        state.tokenExpired(jwt.flatMap { $0.isEmpty ? nil : $0 } ?? state.currentToken)
    }

    /// Bodies over the transport's `maxBodySize` (1 MiB) get the exact APNs answer
    /// 413 `{"reason":"PayloadTooLarge"}`, as any body over 4096 bytes does. Other transport
    /// limits (header list over `MAX_HEADER_LIST_SIZE`) keep the transport's answer: Apple
    /// documents no reason for them (UNCONFIRMED).
    public func limitRefusal(_ violation: LimitViolation, request: HTTPRequest, context: RequestContext) -> Admission? {
        guard violation.kind == .bodyTooLarge else { return nil }
        if let oversized = oversizedBundleRequest(request, violation: violation) { return oversized }
        var admission = Admission(endpoint: Self.endpoint, environment: environment(of: request).rawValue)
        let (headers, _) = APNsRequestValidator.checkHeaders(request)
        admission.token = headers.token.map(Self.lowercasedHex)
        admission.topic = headers.topic
        admission.refusal = refusal(.payloadTooLarge, apnsID: headers.apnsID, stage: .validation, detail: violation.message)
        return admission
    }

    // MARK: tokens

    public func magicDevice(token: String) -> MagicDevice? { APNsMagicTokens.device(for: token) }

    public func isWellFormedToken(_ token: String) -> Bool { APNsRequestValidator.isWellFormedToken(token) }

    // MARK: helpers

    /// The environment a request addresses: a real APNs host in `:authority` wins, then one
    /// in SNI, then the listener's name, then ``APNsConfiguration/defaultEnvironment``.
    public func environment(of request: HTTPRequest) -> APNsEnvironment {
        if let a = request.authority, let e = APNsEnvironment.fromHost(a) { return e }
        if let sni = request.info.connection.tls?.serverName, let e = APNsEnvironment.fromHost(sni) { return e }
        if let e = APNsEnvironment.fromListener(request.info.connection.listener) { return e }
        return configuration.defaultEnvironment
    }

    /// The connection's token-auth state, created on first use.
    static func connectionState(_ connection: any ConnectionControl) -> APNsConnectionState {
        if let s = connection.storage as? APNsConnectionState { return s }
        let s = APNsConnectionState()
        connection.storage = s
        return s
    }

    /// The request's `apns-id` in canonical form, or a fresh one.
    static func apnsID(of request: HTTPRequest) -> String {
        if let v = request.headers.first(name: "apns-id"), let c = APNsMessageID.canonical(v) { return c }
        return APNsMessageID.generate()
    }

    /// `token` with A–F folded to a–f (no allocation when already lowercase).
    static func lowercasedHex(_ token: String) -> String {
        var t = token
        // Over the contiguous bytes: the generic `utf8.contains` showed up at ~1% per request.
        guard t.withUTF8({ u in u.contains { $0 &- 0x41 < 26 } }) else { return token }
        return String(decoding: token.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    /// `apns-` at the start of a header name, any case, without allocating.
    static func hasAPNsPrefix(_ name: String) -> Bool {
        let u = name.utf8
        guard u.count > 5 else { return false }
        var i = u.startIndex
        for expected in "apns-".utf8 {
            let c = u[i]
            guard (c >= 0x41 && c <= 0x5A ? c | 0x20 : c) == expected else { return false }
            i = u.index(after: i)
        }
        return true
    }

    static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded(.down)) }

    /// ``notification(_:_:)`` for the history, from the request alone (the header checks are a
    /// pure function of it), so the payload is decoded only when someone reads the history.
    @Sendable static func recordedNotification(_ request: HTTPRequest) -> JSONValue? {
        notification(APNsRequestValidator.checkHeaders(request).0, request)
    }

    /// The notification as recorded in the history:
    /// `{"headers":{<apns-* headers as sent>},"pushType":"alert","priority":10,"payload":<JSON>}`
    /// plus `"payloadError"` when the body is not valid JSON (APNs documents no reason for that,
    /// so such a push is not refused).
    static func notification(_ headers: APNsPushHeaders, _ request: HTTPRequest) -> JSONValue {
        var sent: [(String, JSONValue)] = []
        for f in request.headers where hasAPNsPrefix(f.name) {
            // HTTP/2 names arrive lowercase; only HTTP/1.1-style names need folding.
            let name = f.name.utf8.contains(where: { $0 >= 0x41 && $0 <= 0x5A }) ? f.name.lowercased() : f.name
            sent.append((name, .string(f.value)))
        }
        var members: [(String, JSONValue)] = [
            ("headers", .object(sent)),
            ("pushType", .string(headers.pushType.rawValue)),
            ("priority", .int(Int64(headers.priority))),
        ]
        if !request.body.isEmpty {
            switch APNsPayloadDecoder.decode(request.body) {
            case .success(let v):
                members.append(("payload", v))
                if v.objectValue == nil { members.append(("payloadError", .string("payload is not a JSON object"))) }
                else if v["aps"]?.objectValue == nil { members.append(("payloadError", .string("payload has no aps dictionary"))) }
            case .failure(let e):
                members.append(("payload", .null))
                members.append(("payloadError", .string(e.description)))
            }
        } else {
            members.append(("payload", .null))
        }
        return .object(members)
    }
}
