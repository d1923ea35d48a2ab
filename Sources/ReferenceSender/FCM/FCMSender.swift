import Foundation
import PushDoubleCrypto
import PushDoubleTransport
import Synchronization

/// Static FCM settings from `initialize` (`providers.fcm`) or the environment
/// (`FCM_URL`, `FCM_SERVICE_ACCOUNT_FILE`, `FCM_PROJECT_ID`).
struct FCMSettings: Sendable {
    var endpoint: APNsEndpoint
    var projectId: String
    var clientEmail: String
    var privateKeyID: String?
    var privateKey: RSAPrivateKey
    var tokenEndpoint: APNsEndpoint
    var tokenPath: String
    var caFile: String?

    /// Reads the service-account key file (fcm.md §6.1): `client_email`, `private_key`,
    /// `private_key_id`, `token_uri`, `project_id`.
    static func load(url: String, serviceAccountFile: String, projectId: String?, caFile: String?) throws(DriverError) -> FCMSettings {
        guard let endpoint = APNsEndpoint(url: url) else { throw .invalidParams("fcm.url \(url) is not an https URL") }
        let text: String
        do { text = try String(contentsOfFile: serviceAccountFile, encoding: .utf8) } catch {
            throw .invalidParams("fcm.serviceAccountFile \(serviceAccountFile) cannot be read: \(error.localizedDescription)")
        }
        guard let sa = try? JSON.parse(text), let email = sa["client_email"]?.stringValue, let pem = sa["private_key"]?.stringValue,
              let tokenURI = sa["token_uri"]?.stringValue else {
            throw .invalidParams("fcm.serviceAccountFile \(serviceAccountFile) is not a service-account key file")
        }
        guard let key = try? RSAPrivateKey(pem: pem) else { throw .invalidParams("fcm.serviceAccountFile: private_key is not an RSA key") }
        guard let tokenEndpoint = APNsEndpoint(url: tokenURI) else { throw .invalidParams("token_uri \(tokenURI) is not an https URL") }
        var path = "/token"
        if let r = tokenURI.range(of: tokenEndpoint.authority) { path = String(tokenURI[r.upperBound...]); if path.isEmpty { path = "/" } }
        guard let project = projectId ?? sa["project_id"]?.stringValue else { throw .invalidParams("fcm.projectId is required") }
        return FCMSettings(endpoint: endpoint, projectId: project, clientEmail: email, privateKeyID: sa["private_key_id"]?.stringValue,
                           privateKey: key, tokenEndpoint: tokenEndpoint, tokenPath: path, caFile: caFile)
    }
}

/// Sends neutral notifications to FCM devices (HTTP v1, fcm.md §1–§6) with an OAuth2 access
/// token from the service account, cached until shortly before it expires and re-minted once
/// after a 401; one HTTP/2 connection reused; dead tokens remembered; 429/5xx retried with
/// growing jittered backoff, honouring Retry-After.
final class FCMSender: Sendable {
    static let maxConcurrent = 64
    static let maxAttempts = 5
    /// Re-mint this long before the token's expiry.
    static let refreshMargin = 60.0
    static let maxTotalSeconds = 30.0
    /// fcm.md §2.1: reserved data keys and prefixes.
    static let reservedKeys: Set<String> = ["from", "message_type"]
    static let reservedPrefixes = ["google", "gcm"]
    /// fcm.md §4.5: payload limit (keys and values of data and notification).
    static let payloadLimit = 4096

    let settings: FCMSettings
    let clock: any SenderClock
    let mutant: Mutant?
    let random: JitterSource
    let dead = DeadTokenRegistry()
    private let tokens: FCMTokenSource
    private let fcmConnection = Mutex<HTTPClientConnection?>(nil)

    init(settings: FCMSettings, clock: any SenderClock, mutant: Mutant?, random: JitterSource) {
        self.settings = settings; self.clock = clock; self.mutant = mutant; self.random = random
        tokens = FCMTokenSource(clock: clock)
    }

    func send(_ n: NeutralNotification, to devices: [TargetDevice]) async -> [DeviceResult?] {
        var results = [DeviceResult?](repeating: nil, count: devices.count)
        await withTaskGroup(of: (Int, DeviceResult).self) { group in
            var next = 0
            func addNext() {
                let i = next
                next += 1
                group.addTask { (i, await self.deliver(n, to: devices[i])) }
            }
            while next < devices.count && next < Self.maxConcurrent {
                if devices[next].provider == "fcm" { addNext() } else { next += 1 }
            }
            while let (i, r) = await group.next() {
                results[i] = r
                while next < devices.count, devices[next].provider != "fcm" { next += 1 }
                if next < devices.count { addNext() }
            }
        }
        return results
    }

    // MARK: message

    enum Plan { case body([UInt8]), rejected(String) }

    /// The v1 `Message` for one device (fcm.md §2), or why it cannot be sent.
    func plan(_ n: NeutralNotification, token: String) -> Plan {
        var message: JSONObject = ["token": .string(token)]
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
                if mutant != .fcmNoLocalChecks,
                   Self.reservedKeys.contains(k) || Self.reservedPrefixes.contains(where: { k.hasPrefix($0) }) {
                    return .rejected("ReservedDataKey")
                }
                // fcm.md §2.1: data values must be strings.
                let s = v.stringValue ?? v.compactJSON
                strings[k] = mutant == .fcmNumericData ? v : .string(s)
                size += k.utf8.count + s.utf8.count
            }
            message["data"] = .object(strings)
        }
        size += (n.title?.utf8.count ?? 0) + (n.body?.utf8.count ?? 0)
        if size > Self.payloadLimit && mutant != .fcmNoLocalChecks { return .rejected("MessageTooBig") }
        var android = JSONObject()
        if let p = n.priority { android["priority"] = .string(p == .high ? "high" : "normal") }
        if let ttl = n.ttlSeconds {
            // fcm.md §2.2: a google-duration string, 0 to 4 weeks.
            let seconds = max(0, min(ttl, 2_419_200))
            android["ttl"] = mutant == .fcmTTLNumber ? .int(seconds) : .string("\(seconds)s")
        }
        if let c = n.collapseKey { android["collapse_key"] = .string(c) }
        if let ch = n.channelId { android["notification"] = .object(["channel_id": .string(ch)]) }
        if !android.isEmpty { message["android"] = .object(android) }
        return .body(JSON.object(["message": .object(message)]).bytes)
    }

    // MARK: delivery

    private func deliver(_ n: NeutralNotification, to device: TargetDevice) async -> DeviceResult {
        if let registered = device.registeredAt, dead.revive(device.token, registeredAt: registered) {
            Log.info("fcm device \(device.id): registered again; using it again")
        }
        if mutant != .fcmRetryUnregistered, let reason = dead.reason(for: device.token) {
            return DeviceResult(device: device.id, outcome: .skipped, reason: reason)
        }
        let body: [UInt8]
        switch plan(n, token: device.token) {
        case .rejected(let reason): return DeviceResult(device: device.id, outcome: .rejected, reason: reason)
        case .body(let b): body = b
        }
        let started = clock.now()
        var attempt = 0, reminted = false
        var lastReason = "?"
        while attempt < Self.maxAttempts {
            attempt += 1
            guard let bearer = await accessToken() else {
                lastReason = "TokenRequestFailed"
                if !(await wait(attempt: attempt, retryAfter: nil, started: started)) { break }
                continue
            }
            let answer = await post(body, bearer: bearer)
            switch answer {
            case .failure(let why):
                lastReason = why.description
                if !(await wait(attempt: attempt, retryAfter: nil, started: started)) { break }
                continue
            case .success(let r):
                let (code, status) = Self.errorCode(r.body)
                let reason = code ?? status ?? "HTTP \(r.status)"
                switch r.status {
                case 200:
                    let name = (try? JSON.parse(r.body))?["name"]?.stringValue
                    return DeviceResult(device: device.id, outcome: .sent, providerMessageId: name)
                case _ where code == "UNREGISTERED" || code == "SENDER_ID_MISMATCH":
                    if mutant == .fcmRetryUnregistered {
                        lastReason = reason
                        if !(await wait(attempt: attempt, retryAfter: nil, started: started)) { break }
                        continue
                    }
                    dead.markDead(device.token, reason: reason, at: clock.now())
                    return DeviceResult(device: device.id, outcome: .dead, reason: reason)
                case 401 where code == nil && !reminted:
                    // The access token was refused: mint a new one and retry once (fcm.md §4.3).
                    reminted = true
                    if mutant != .fcmNoRemintOn401 { await invalidate(bearer) }
                    attempt -= 1
                    continue
                case 429, 500...599:
                    lastReason = reason
                    if mutant == .fcmNeverRetryTransient { break }
                    let retryAfter = mutant == .fcmIgnoreRetryAfter ? nil : r.header("retry-after")
                    if !(await wait(attempt: attempt, retryAfter: retryAfter, started: started)) { break }
                    continue
                case 400:
                    if mutant == .fcmRetryInvalidArgument {
                        lastReason = reason
                        if !(await wait(attempt: attempt, retryAfter: nil, started: started)) { break }
                        continue
                    }
                    return DeviceResult(device: device.id, outcome: .rejected, reason: reason)
                default:
                    return DeviceResult(device: device.id, outcome: .failed, reason: reason)
                }
            }
            break
        }
        return DeviceResult(device: device.id, outcome: .failed, reason: lastReason)
    }

    /// Sleeps before the next attempt: Retry-After when given, else 0.1 s × 2^(n-1), equal jitter.
    /// False when no attempt is left or the wait would pass the time budget.
    private func wait(attempt: Int, retryAfter: String?, started: Double) async -> Bool {
        guard attempt < Self.maxAttempts else { return false }
        var delay: Double
        if let ra = retryAfter, let s = RetryAfter.seconds(ra, now: clock.now()) {
            delay = s
        } else if mutant == .fcmNoBackoff {
            delay = 0
        } else {
            let cap = 0.1 * pow(2, Double(attempt - 1))
            delay = cap / 2 + cap / 2 * random.unit()
        }
        if clock.now() + delay - started > Self.maxTotalSeconds { return false }
        await clock.sleep(seconds: delay)
        return true
    }

    /// `(FcmError errorCode, error.status)` of a Google error envelope (fcm.md §4.1).
    static func errorCode(_ body: [UInt8]) -> (String?, String?) {
        guard let e = (try? JSON.parse(body))?["error"] else { return (nil, nil) }
        let code = e["details"]?.arrayValue?.first {
            $0["@type"]?.stringValue == "type.googleapis.com/google.firebase.fcm.v1.FcmError"
        }?["errorCode"]?.stringValue
        return (code, e["status"]?.stringValue)
    }

    // MARK: OAuth2 access token (fcm.md §6)

    private func accessToken() async -> String? {
        if mutant == .fcmTokenPerMessage { return await mint()?.value }
        return await tokens.token { await self.mint() }
    }

    private func invalidate(_ bearer: String) async { await tokens.invalidate(bearer) }

    /// One token request (fcm.md §6.2): an RS256 assertion of the service account.
    private func mint() async -> FCMTokenSource.Token? {
        let now = Int64(clock.now())
        let claims: JOSEObject = ["iss": .string(settings.clientEmail), "scope": "https://www.googleapis.com/auth/firebase.messaging",
                                  "aud": .string(mutant == .fcmWrongAudience ? "https://\(settings.endpoint.authority)/"
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
            // Refreshed a minute before expiry (half its lifetime for short-lived tokens).
            let lifetime = Double(expires)
            return FCMTokenSource.Token(value: t, refreshAt: clock.now() + max(lifetime - Self.refreshMargin, lifetime / 2))
        } catch {
            Log.info("fcm token request failed: \(error)")
            return nil
        }
    }

    // MARK: transport

    private struct TransportError: Error { var description: String }

    private struct Answer: Sendable {
        var status: Int
        var headers: [(String, String)]
        var body: [UInt8]
        func header(_ name: String) -> String? { headers.first { $0.0.lowercased() == name }?.1 }
    }

    private func connection() async throws -> HTTPClientConnection {
        if mutant != .fcmConnectionPerMessage, let c = fcmConnection.withLock({ $0 }), c.isUsable { return c }
        let config = HTTPClientConfiguration(caFile: settings.caFile, alpn: ["h2"], connectTimeout: 5, requestTimeout: 10)
        let c = try await HTTPClientConnection.connect(host: settings.endpoint.host, port: settings.endpoint.port, tls: true, configuration: config)
        if mutant == .fcmConnectionPerMessage { return c }
        return fcmConnection.withLock { current in
            if let existing = current, existing.isUsable { c.close(); return existing }
            current = c
            return c
        }
    }

    private func post(_ body: [UInt8], bearer: String) async -> Result<Answer, TransportError> {
        do {
            let c = try await connection()
            var h = HTTPHeaders()
            h.add(name: "authorization", value: "Bearer " + bearer)
            h.add(name: "content-type", value: "application/json")
            let r = try await c.send(HTTPClientRequest(method: "POST", path: "/v1/projects/\(settings.projectId)/messages:send",
                                                       authority: settings.endpoint.authority, scheme: "https", headers: h, body: body))
            if mutant == .fcmConnectionPerMessage { c.close() }
            return .success(Answer(status: r.status, headers: r.headers.fields.map { ($0.name, $0.value) }, body: r.body))
        } catch {
            fcmConnection.withLock { if let c = $0, !c.isUsable { $0 = nil } }
            return .failure(TransportError(description: "transport: \(error)"))
        }
    }

    func shutdown() async { fcmConnection.withLock { $0?.close(); $0 = nil } }
}

/// The cached access token: one mint at a time (concurrent sends wait for the same request),
/// reused until its refresh time, dropped when FCM refuses it.
actor FCMTokenSource {
    struct Token: Sendable { var value: String; var refreshAt: Double }
    private var current: Token?
    private var inflight: Task<Token?, Never>?
    let clock: any SenderClock

    init(clock: any SenderClock) { self.clock = clock }

    func token(mint: @escaping @Sendable () async -> Token?) async -> String? {
        if let t = current, clock.now() < t.refreshAt { return t.value }
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
