import Foundation
import PushDoubleCrypto
import PushDoubleClient
import PushDoubleTransport
import Synchronization

/// Static FCM settings from `initialize` (`providers.fcm`) or the environment
/// (`FCM_URL`, `FCM_SERVICE_ACCOUNT_FILE`, `FCM_PROJECT_ID`).
struct FCMSettings: Sendable {
    var endpoint: HTTPSEndpoint
    var projectId: String
    var clientEmail: String
    var privateKeyID: String?
    var privateKey: RSAPrivateKey
    var tokenEndpoint: HTTPSEndpoint
    var tokenPath: String
    var caFile: String?

    /// Reads the service-account key file (fcm.md §6.1): `client_email`, `private_key`,
    /// `private_key_id`, `token_uri`, `project_id`.
    static func load(url: String, serviceAccountFile: String, projectId: String?, caFile: String?) throws(DriverError) -> FCMSettings {
        guard let endpoint = HTTPSEndpoint(url: url) else { throw .invalidParams("fcm.url \(url) is not an https URL") }
        let text: String
        do { text = try String(contentsOfFile: serviceAccountFile, encoding: .utf8) } catch {
            throw .invalidParams("fcm.serviceAccountFile \(serviceAccountFile) cannot be read: \(error.localizedDescription)")
        }
        guard let sa = try? JSON.parse(text), let email = sa["client_email"]?.stringValue, let pem = sa["private_key"]?.stringValue,
              let tokenURI = sa["token_uri"]?.stringValue else {
            throw .invalidParams("fcm.serviceAccountFile \(serviceAccountFile) is not a service-account key file")
        }
        guard let key = try? RSAPrivateKey(pem: pem) else { throw .invalidParams("fcm.serviceAccountFile: private_key is not an RSA key") }
        guard let tokenEndpoint = HTTPSEndpoint(url: tokenURI) else { throw .invalidParams("token_uri \(tokenURI) is not an https URL") }
        var path = "/token"
        if let r = tokenURI.range(of: tokenEndpoint.authority) { path = String(tokenURI[r.upperBound...]); if path.isEmpty { path = "/" } }
        guard let project = projectId ?? sa["project_id"]?.stringValue else { throw .invalidParams("fcm.projectId is required") }
        return FCMSettings(endpoint: endpoint, projectId: project, clientEmail: email, privateKeyID: sa["private_key_id"]?.stringValue,
                           privateKey: key, tokenEndpoint: tokenEndpoint, tokenPath: path, caFile: caFile)
    }
}

/// Sends neutral notifications to FCM devices, topics and conditions (HTTP v1, fcm.md §1–§6)
/// with an OAuth2 access token from the service account, cached and refreshed before it
/// expires (``FCMTokenRefresh``) and re-minted once after a 401; one HTTP/2 connection reused
/// (a pool of them for `multi-connection`); dead tokens remembered; 429/5xx retried with
/// growing jittered backoff (the `--variant`'s scheme), honouring Retry-After.
final class FCMSender: Sendable {
    static let maxConcurrent = 64
    /// fcm.md §2.1: reserved data keys and prefixes.
    static let reservedKeys: Set<String> = ["from", "message_type"]
    static let reservedPrefixes = ["google", "gcm"]
    /// fcm.md §4.5: payload limit (keys and values of data and notification); 2048 bytes
    /// for topic messages (applied to conditions too, the safe reading).
    static let payloadLimit = 4096
    static let topicPayloadLimit = 2048

    let settings: FCMSettings
    let clock: any SenderClock
    let mutant: MutantSet
    let variant: Variant?
    let random: JitterSource
    /// Backoff, attempt cap and time budget (``retryPolicy(for:)``).
    let policy: RetryPolicy
    let refresh: FCMTokenRefresh
    let dead = DeadTokenRegistry()
    private let tokens: FCMTokenSource
    private let connections: FCMConnections

    init(settings: FCMSettings, clock: any SenderClock, mutant: MutantSet, variant: Variant? = nil, random: JitterSource) {
        self.settings = settings; self.clock = clock; self.mutant = mutant; self.variant = variant; self.random = random
        policy = Self.retryPolicy(for: variant).planting(mutant)
        refresh = FCMTokenRefresh(variant: variant)
        tokens = FCMTokenSource(clock: clock, singleFlight: variant != .fcmColdStartStampede)
        connections = FCMConnections(size: variant == .multiConnection ? Variant.poolSize : variant == .fcmHTTP1Pool ? Variant.http1PoolSize : 1)
    }

    /// FCM's retry policy: by default 5 attempts within 30 s, backoff 0.1 s · 2^(n−1) with
    /// equal jitter; a jitter `--variant` uses its own scheme (``RetryPolicy/forVariant(_:)``)
    /// with the same attempt cap and budget. Retry-After wins in every variant.
    static func retryPolicy(for variant: Variant?) -> RetryPolicy {
        var p = RetryPolicy.forVariant(variant)
        if variant?.jitter == nil {
            p.base = 0.1; p.multiplier = 2; p.jitter = .equal
        }
        p.maxAttempts = 5
        p.maxTotalSeconds = 30
        return p
    }

    /// Sends `n` to the FCM devices of `devices` (nil for the others) and to every FCM
    /// `targets` entry (topic or condition), at most ``maxConcurrent`` messages at a time.
    func send(_ n: NeutralNotification, to devices: [TargetDevice], targets: [SendTarget] = []) async -> (devices: [DeviceResult?], targets: [DeviceResult]) {
        enum Job { case device(Int), target(Int) }
        var jobs: [Job] = devices.indices.filter { devices[$0].provider == "fcm" }.map { .device($0) }
        jobs += targets.indices.filter { targets[$0].provider == "fcm" }.map { .target($0) }
        var results = [DeviceResult?](repeating: nil, count: devices.count)
        var targetResults = targets.map { DeviceResult(device: $0.id, outcome: .skipped, reason: "ProviderNotConfigured") }
        await withTaskGroup(of: (Job, DeviceResult).self) { group in
            var next = 0
            func addNext() {
                let job = jobs[next]
                next += 1
                group.addTask {
                    switch job {
                    case .device(let i): return (job, await self.deliver(n, to: devices[i]))
                    case .target(let i): return (job, await self.deliver(n, to: targets[i]))
                    }
                }
            }
            while next < jobs.count && next < Self.maxConcurrent { addNext() }
            while let (job, r) = await group.next() {
                switch job {
                case .device(let i): results[i] = r
                case .target(let i): targetResults[i] = r
                }
                if next < jobs.count { addNext() }
            }
        }
        return (results, targetResults)
    }

    // MARK: message

    enum Plan { case body([UInt8]), rejected(String) }

    /// Where one message goes (fcm.md §2.1: exactly one of token, topic, condition).
    enum Recipient: Sendable, Equatable {
        case token(String), topic(String), condition(String)
    }

    /// The v1 `Message` for one device (fcm.md §2), or why it cannot be sent.
    func plan(_ n: NeutralNotification, token: String) -> Plan { plan(n, to: .token(token)) }

    /// The v1 `Message` for one recipient (fcm.md §2), or why it cannot be sent.
    func plan(_ n: NeutralNotification, to recipient: Recipient) -> Plan {
        var message: JSONObject
        let limit: Int
        switch recipient {
        case .token(let t): message = ["token": .string(t)]; limit = Self.payloadLimit
        case .topic(let t):
            // fcm.md §2.1: the v1 `topic` is the bare name (the SDKs strip a `/topics/` prefix).
            message = ["topic": .string(mutant.contains(.fcmTopicPrefix) ? "/topics/" + t : t)]; limit = Self.topicPayloadLimit
        case .condition(let c): message = ["condition": .string(c)]; limit = Self.topicPayloadLimit
        }
        if n.title != nil || n.body != nil || n.imageUrl != nil {
            if n.title == "" || n.body == "" { return .rejected("EmptyTitleOrBody") }
            var notification = JSONObject()
            if let t = n.title { notification["title"] = .string(t) }
            if let b = n.body { notification["body"] = .string(b) }
            if let i = n.imageUrl { notification["image"] = .string(i) }
            message["notification"] = .object(notification)
        }
        var size = 0
        if let data = n.data, !data.isEmpty {
            var strings = JSONObject()
            for (k, v) in data.members {
                if !mutant.contains(.fcmNoLocalChecks),
                   Self.reservedKeys.contains(k) || Self.reservedPrefixes.contains(where: { k.hasPrefix($0) }) {
                    return .rejected("ReservedDataKey")
                }
                // fcm.md §2.1: data values must be strings.
                let s = v.stringValue ?? v.compactJSON
                strings[k] = mutant.contains(.fcmNumericData) ? v : .string(s)
                size += k.utf8.count + s.utf8.count
            }
            message["data"] = .object(strings)
        }
        size += (n.title?.utf8.count ?? 0) + (n.body?.utf8.count ?? 0)
        if size > limit && !mutant.contains(.fcmNoLocalChecks) { return .rejected("MessageTooBig") }
        var android = JSONObject()
        if let p = n.priority { android["priority"] = .string(p == .high ? "high" : "normal") }
        if let ttl = n.ttlSeconds {
            // fcm.md §2.2: a google-duration string, 0 to 4 weeks.
            let seconds = max(0, min(ttl, 2_419_200))
            android["ttl"] = mutant.contains(.fcmTTLNumber) ? .int(seconds) : .string("\(seconds)s")
        }
        if let c = n.collapseKey { android["collapse_key"] = .string(c) }
        var androidNotification = JSONObject()
        if let ch = n.channelId { androidNotification["channel_id"] = .string(ch) }
        if let sound = n.sound?.stringValue { androidNotification["sound"] = .string(sound) }
        if !androidNotification.isEmpty { android["notification"] = .object(androidNotification) }
        if !android.isEmpty { message["android"] = .object(android) }
        if let apns = apnsBlock(n) { message["apns"] = .object(apns) }
        return .body(JSON.object(["message": .object(message)]).bytes)
    }

    /// The `apns` block (docs/fcm.md §2.3): what only Apple devices take — subtitle, sound,
    /// badge, thread id, category, content-available — and, for a background notification
    /// (content-available with nothing to show), the headers APNs needs for one: priority 5
    /// and push type background (FCM would otherwise send priority 10, which APNs refuses for
    /// a background push).
    private func apnsBlock(_ n: NeutralNotification) -> JSONObject? {
        var aps = JSONObject()
        if let s = n.subtitle { aps["alert"] = .object(["subtitle": .string(s)]) }
        if let sound = n.sound { aps["sound"] = sound }
        if let b = n.badge { aps["badge"] = .int(b) }
        if let t = n.threadId { aps["thread-id"] = .string(t) }
        if let c = n.category { aps["category"] = .string(c) }
        if n.contentAvailable { aps["content-available"] = .int(1) }
        guard !aps.isEmpty else { return nil }
        var apns: JSONObject = ["payload": .object(["aps": .object(aps)])]
        let showsNothing = n.title == nil && n.subtitle == nil && n.body == nil && n.sound == nil && n.badge == nil
        if n.contentAvailable && showsNothing && !mutant.contains(.fcmBackgroundPriority10) {
            apns["headers"] = .object(["apns-priority": .string("5"), "apns-push-type": .string("background")])
        }
        return apns
    }

    // MARK: delivery

    private func deliver(_ n: NeutralNotification, to device: TargetDevice) async -> DeviceResult {
        if let registered = device.registeredAt, dead.revive(device.token, registeredAt: registered) {
            Log.info("fcm device \(device.id): registered again; using it again")
        }
        if !mutant.contains(.fcmRetryUnregistered), let reason = dead.reason(for: device.token) {
            return DeviceResult(device: device.id, outcome: .skipped, reason: reason)
        }
        switch plan(n, token: device.token) {
        case .rejected(let reason): return DeviceResult(device: device.id, outcome: .rejected, reason: reason)
        case .body(let body): return await exchange(body, id: device.id, token: device.token)
        }
    }

    /// A topic or condition send (driver protocol `targets`): no token, so nothing to mark dead.
    private func deliver(_ n: NeutralNotification, to target: SendTarget) async -> DeviceResult {
        let recipient: Recipient
        switch target.address {
        case .topic(let t): recipient = .topic(t)
        case .condition(let c): recipient = .condition(c)
        }
        switch plan(n, to: recipient) {
        case .rejected(let reason): return DeviceResult(device: target.id, outcome: .rejected, reason: reason)
        case .body(let body): return await exchange(body, id: target.id, token: nil)
        }
    }

    /// Posts one message until it is answered for good: 200 → sent; UNREGISTERED /
    /// SENDER_ID_MISMATCH → dead (the token remembered); 401 → one re-mint; 429/5xx and lost
    /// connections → retried (``wait(attempt:retryAfter:started:previous:label:reason:)``); 400 → rejected.
    private func exchange(_ body: [UInt8], id: String, token: String?) async -> DeviceResult {
        let started = clock.now()
        var attempt = 0, reminted = false
        var previous: Double? = nil
        var lastReason = "?"
        func retry(after reason: String, retryAfter: String? = nil) async -> Bool {
            lastReason = reason
            return await wait(attempt: attempt, retryAfter: retryAfter, started: started, previous: &previous, label: id, reason: reason)
        }
        while attempt < policy.maxAttempts {
            attempt += 1
            guard let bearer = await accessToken() else {
                if !(await retry(after: "TokenRequestFailed")) { break }
                continue
            }
            let answer = await post(body, bearer: bearer)
            switch answer {
            case .failure(let why):
                if !(await retry(after: why.description)) { break }
                continue
            case .success(let r):
                let (code, status) = Self.errorCode(r.body)
                let reason = code ?? status ?? "HTTP \(r.status)"
                switch r.status {
                case 200:
                    let name = (try? JSON.parse(r.body))?["name"]?.stringValue
                    return DeviceResult(device: id, outcome: .sent, providerMessageId: name)
                case _ where code == "UNREGISTERED" || code == "SENDER_ID_MISMATCH":
                    if mutant.contains(.fcmRetryUnregistered) {
                        if !(await retry(after: reason)) { break }
                        continue
                    }
                    if let token { dead.markDead(token, reason: reason, at: clock.now()) }
                    return DeviceResult(device: id, outcome: .dead, reason: reason)
                case 400 where Self.isInvalidRegistrationToken(r.body) && !mutant.contains(.fcmInvalidTokenKept):
                    // fcm.md §4.3: INVALID_ARGUMENT about the token itself ("not a valid FCM
                    // registration token"): the token is unusable, like UNREGISTERED.
                    if let token { dead.markDead(token, reason: reason, at: clock.now()) }
                    return DeviceResult(device: id, outcome: .dead, reason: reason)
                case 401 where (code == nil || mutant.contains(.fcmRemintOnAny401)) && !reminted:
                    // The access token was refused: mint a new one and retry once (fcm.md §4.3).
                    reminted = true
                    if !mutant.contains(.fcmNoRemintOn401) { await invalidate(bearer) }
                    attempt -= 1
                    continue
                case 429, 500...599:
                    if mutant.contains(.fcmNeverRetryTransient) { lastReason = reason; break }
                    if mutant.contains(.giveUp429WithoutRetryAfter), r.status == 429, r.header("retry-after") == nil { lastReason = reason; break }
                    let retryAfter = mutant.contains(.fcmIgnoreRetryAfter) ? nil : r.header("retry-after")
                    if !(await retry(after: reason, retryAfter: retryAfter)) { break }
                    continue
                case 400:
                    if mutant.contains(.fcmRetryInvalidArgument) {
                        if !(await retry(after: reason)) { break }
                        continue
                    }
                    // A message-level INVALID_ARGUMENT: the message is refused, the token stays alive.
                    if mutant.contains(.fcmInvalidArgumentKillsToken), code == nil || code == "INVALID_ARGUMENT", let token {
                        dead.markDead(token, reason: reason, at: clock.now())
                        return DeviceResult(device: id, outcome: .dead, reason: reason)
                    }
                    return DeviceResult(device: id, outcome: .rejected, reason: reason)
                default:
                    return DeviceResult(device: id, outcome: .failed, reason: reason)
                }
            }
            break
        }
        return DeviceResult(device: id, outcome: .failed, reason: lastReason)
    }

    /// Sleeps before the next attempt: Retry-After when given (fcm.md §4.6, in every variant),
    /// else the policy's jittered backoff (decorrelated jitter grows from `previous`).
    /// False when no attempt is left or the wait would pass the time budget.
    func wait(attempt: Int, retryAfter: String?, started: Double, previous: inout Double?, label: String,
                      reason: String) async -> Bool {
        guard attempt < policy.maxAttempts else { return false }
        var delay: Double
        if let ra = retryAfter, let s = RetryAfter.seconds(ra, now: clock.now()) {
            delay = s
        } else if mutant.contains(.fcmNoBackoff) {
            delay = 0
        } else {
            delay = policy.backoff(retry: attempt, previous: previous, random: random.unit())
            previous = delay
        }
        if clock.now() + delay - started > policy.maxTotalSeconds { return false }
        Log.info("fcm \(label): retrying after \(reason) in \(String(format: "%.3f", delay)) s")
        await clock.sleep(seconds: delay)
        return true
    }

    /// `(FcmError errorCode, error.status)` of a Google error envelope (fcm.md §4.1).
    /// Whether a 400 says the registration token itself is malformed (fcm.md §4.3: INVALID_ARGUMENT
    /// with the message "The registration token is not a valid FCM registration token").
    static func isInvalidRegistrationToken(_ body: [UInt8]) -> Bool {
        guard let e = (try? JSON.parse(body))?["error"], e["status"]?.stringValue == "INVALID_ARGUMENT" else { return false }
        return e["message"]?.stringValue?.contains("not a valid FCM registration token") == true
    }

    static func errorCode(_ body: [UInt8]) -> (String?, String?) {
        guard let e = (try? JSON.parse(body))?["error"] else { return (nil, nil) }
        let code = e["details"]?.arrayValue?.first {
            $0["@type"]?.stringValue == "type.googleapis.com/google.firebase.fcm.v1.FcmError"
        }?["errorCode"]?.stringValue
        return (code, e["status"]?.stringValue)
    }

    // MARK: OAuth2 access token (fcm.md §6)

    func accessToken() async -> String? {
        if mutant.contains(.fcmTokenPerMessage) { return await mint()?.value }
        return await tokens.token { await self.mint() }
    }

    func invalidate(_ bearer: String) async { await tokens.invalidate(bearer) }

    /// One token request (fcm.md §6.2): an RS256 assertion of the service account.
    private func mint() async -> FCMTokenSource.Token? {
        let now = Int64(clock.now())
        let claims: JOSEObject = ["iss": .string(settings.clientEmail), "scope": "https://www.googleapis.com/auth/firebase.messaging",
                                  "aud": .string(mutant.contains(.fcmWrongAudience) ? "https://\(settings.endpoint.authority)/"
                                                 : "https://\(settings.tokenEndpoint.authority)\(settings.tokenPath)"),
                                  "iat": .int(now), "exp": .int(now + 3600)]
        guard let jwt = try? JWT.signRS256(keyID: settings.privateKeyID, claims: claims, key: settings.privateKey) else { return nil }
        let form = "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=" + jwt
        let config = HTTPClientConfiguration(caFile: settings.caFile, alpn: ["h2"], connectTimeout: 5, requestTimeout: 10)
        do {
            let c = try await HTTPClientConnection.connect(host: settings.tokenEndpoint.host, port: settings.tokenEndpoint.port, tls: true,
                                                           configuration: config)
            defer { c.close() }
            var h = HTTPHeaders()
            h.add(name: "content-type", value: "application/x-www-form-urlencoded")
            let r = try await c.send(HTTPClientRequest(method: "POST", path: settings.tokenPath, authority: settings.tokenEndpoint.authority,
                                                       scheme: "https", headers: h, body: Array(form.utf8)))
            guard r.status == 200, let v = try? JSON.parse(r.body), let t = v["access_token"]?.stringValue,
                  let expires = v["expires_in"]?.intValue, expires > 0 else {
                Log.info("fcm token request refused: \(r.status) \(String(decoding: r.body, as: UTF8.self))")
                return nil
            }
            return FCMTokenSource.Token(value: t, refreshAt: clock.now() + refresh.refreshAfter(lifetime: Double(expires)))
        } catch {
            Log.info("fcm token request failed: \(error)")
            return nil
        }
    }

    // MARK: transport

    struct TransportError: Error { var description: String }

    struct Answer: Sendable {
        var status: Int
        var headers: [(String, String)]
        var body: [UInt8]
        func header(_ name: String) -> String? { headers.first { $0.0.lowercased() == name }?.1 }
    }

    private func connection() async throws -> HTTPClientConnection {
        let open: @Sendable () async throws -> HTTPClientConnection = { [settings] in
            // fcm-http1-pool: HTTP/1.1, one request at a time per connection (as requests/urllib3 do).
            let alpn = self.variant == .fcmHTTP1Pool ? ["http/1.1"] : ["h2"]
            let config = HTTPClientConfiguration(caFile: settings.caFile, alpn: alpn, connectTimeout: 5, requestTimeout: 10)
            return try await HTTPClientConnection.connect(host: settings.endpoint.host, port: settings.endpoint.port, tls: true,
                                                          configuration: config)
        }
        if mutant.contains(.fcmConnectionPerMessage) { return try await open() }
        return try await connections.connection(open: open)
    }

    /// POSTs `body` to `path` (default: the v1 send) on the FCM connection; `headers` are added.
    func post(_ body: [UInt8], bearer: String, path: String? = nil, headers extra: [(String, String)] = []) async -> Result<Answer, TransportError> {
        do {
            let c = try await connection()
            var h = HTTPHeaders()
            h.add(name: "authorization", value: "Bearer " + bearer)
            h.add(name: "content-type", value: "application/json")
            for (name, value) in extra { h.add(name: name, value: value) }
            let r = try await c.send(HTTPClientRequest(method: "POST", path: path ?? "/v1/projects/\(settings.projectId)/messages:send",
                                                       authority: settings.endpoint.authority, scheme: "https", headers: h, body: body))
            if mutant.contains(.fcmConnectionPerMessage) { c.close() }
            return .success(Answer(status: r.status, headers: r.headers.fields.map { ($0.name, $0.value) }, body: r.body))
        } catch {
            connections.dropUnusable()
            return .failure(TransportError(description: "transport: \(error)"))
        }
    }

    func shutdown() async { connections.closeAll() }
}

/// When a minted access token is replaced (fcm.md §6.3: it lives `expires_in` seconds).
/// By default a minute before expiry, or at 90 % of a short lifetime; `fcm-early-refresh`
/// at half the lifetime; `fcm-refresh-on-401` never ahead of time: only after FCM refuses it.
struct FCMTokenRefresh: Sendable, Equatable {
    enum Schedule: Sendable, Equatable { case beforeExpiry, early, onRefusal, clientMargin }
    var schedule: Schedule

    /// A minute before expiry by default.
    static let margin = 60.0
    /// `fcm-early-refresh`: the share of the lifetime after which the token is re-minted.
    static let earlyShare = 0.5
    /// The default's share for tokens living under ten minutes.
    static let lateShare = 0.9
    /// `fcm-refresh-margin`: google-auth for Python's `REFRESH_THRESHOLD` (3 min 45 s): a token
    /// counts as expired this long before its expiry, so a shorter-lived one is minted anew for
    /// every message.
    static let clientMargin = 225.0

    init(variant: Variant?) {
        switch variant {
        case .fcmEarlyRefresh?: schedule = .early
        case .fcmRefreshOn401?: schedule = .onRefusal
        case .fcmRefreshMargin?: schedule = .clientMargin
        default: schedule = .beforeExpiry
        }
    }

    /// Seconds after the mint at which the token is replaced by a new one.
    func refreshAfter(lifetime: Double) -> Double {
        switch schedule {
        case .beforeExpiry: return max(lifetime - Self.margin, lifetime * Self.lateShare)
        case .early: return lifetime * Self.earlyShare
        case .onRefusal: return .infinity
        case .clientMargin: return lifetime - Self.clientMargin
        }
    }
}

/// The FCM connections: one, or a pool (`multi-connection`) handed out round-robin; each
/// opened on first use, reused, and replaced once it is no longer usable.
final class FCMConnections: Sendable {
    private struct Slots { var connections: [HTTPClientConnection?]; var next = 0 }
    private let slots: Mutex<Slots>

    init(size: Int) { slots = Mutex(Slots(connections: Array(repeating: nil, count: max(1, size)))) }

    func connection(open: @Sendable () async throws -> HTTPClientConnection) async throws -> HTTPClientConnection {
        let (index, current) = slots.withLock { s -> (Int, HTTPClientConnection?) in
            let i = s.next % s.connections.count
            s.next += 1
            return (i, s.connections[i])
        }
        if let c = current, c.isUsable { return c }
        let c = try await open()
        return slots.withLock { s in
            if let existing = s.connections[index], existing.isUsable { c.close(); return existing }
            s.connections[index] = c
            return c
        }
    }

    /// Forgets the connections that died (a failed request), so the next use opens anew.
    func dropUnusable() {
        slots.withLock { s in for i in s.connections.indices where s.connections[i].map({ !$0.isUsable }) ?? false { s.connections[i] = nil } }
    }

    func closeAll() {
        slots.withLock { s in for i in s.connections.indices { s.connections[i]?.close(); s.connections[i] = nil } }
    }
}

/// The cached access token: one mint at a time (concurrent sends wait for the same request),
/// reused until its refresh time, dropped when FCM refuses it. Without `singleFlight` (the
/// `fcm-cold-start-stampede` variant) every send that finds no valid token mints its own, as a
/// thread-per-message sender whose credential refresh takes no lock does; the last one stays.
actor FCMTokenSource {
    struct Token: Sendable { var value: String; var refreshAt: Double }
    private var current: Token?
    private var inflight: Task<Token?, Never>?
    let clock: any SenderClock
    let singleFlight: Bool

    init(clock: any SenderClock, singleFlight: Bool = true) { self.clock = clock; self.singleFlight = singleFlight }

    func token(mint: @escaping @Sendable () async -> Token?) async -> String? {
        if let t = current, clock.now() < t.refreshAt { return t.value }
        if !singleFlight {
            let t = await mint()
            if let t { current = t }
            return t?.value
        }
        if let task = inflight { return await task.value?.value }
        let task = Task { await mint() }
        inflight = task
        let t = await task.value
        inflight = nil
        if let t { current = t }
        return t?.value
    }

    func invalidate(_ value: String) { if current?.value == value { current = nil } }
}
