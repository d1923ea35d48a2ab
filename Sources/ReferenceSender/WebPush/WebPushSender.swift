import Foundation
import PushDoubleCrypto
import Synchronization

/// The `providers.webpush` member of `initialize`, each field falling back to its environment
/// variable: `vapidPrivateKeyFile` (VAPID_PRIVATE_KEY_FILE), `vapidPublicKey`
/// (VAPID_PUBLIC_KEY, checked against the key), `subject` (VAPID_SUBJECT), `caFile`
/// (PUSHDOUBLE_CA_FILE, then SSL_CERT_FILE).
struct WebPushConfiguration: Sendable {
    var vapidKey: P256PrivateKey
    var subject: String
    var caFile: String?

    /// nil when neither params nor environment name a VAPID key (Web Push not enabled).
    init?(_ p: ProviderParameters) throws(DriverError) {
        guard let keyFile = try p.string("vapidPrivateKeyFile", "VAPID_PRIVATE_KEY_FILE") else { return nil }
        do {
            vapidKey = try P256PrivateKey(pem: try String(contentsOfFile: keyFile, encoding: .utf8))
        } catch {
            throw .invalidParams("providers.webpush.vapidPrivateKeyFile \(keyFile) is not a readable P-256 key: \(error)")
        }
        if let pub = try p.string("vapidPublicKey", "VAPID_PUBLIC_KEY"),
           (try? Base64URL.encode(vapidKey.publicKey.rawRepresentation)) != pub {
            throw .invalidParams("providers.webpush.vapidPublicKey is not the public key of vapidPrivateKeyFile")
        }
        subject = try p.string("subject", "VAPID_SUBJECT") ?? "mailto:pushdouble-reference-sender@example.com"
        caFile = try p.caFile()
    }
}

/// A subscription as `send` names it: `{"subscription":{"endpoint","keys":{"p256dh","auth"}}}`.
struct WebPushTarget: Sendable {
    var endpoint: HTTPSEndpoint
    /// Path and query of the endpoint URL.
    var path: String
    /// `https://host[:port]`: the VAPID `aud` (webpush.md §5).
    var origin: String
    var userAgentKey: P256PublicKey
    var authSecret: [UInt8]

    init(json: JSON, device: String) throws(DriverError) {
        guard let s = json["subscription"], let url = s["endpoint"]?.stringValue else {
            throw .invalidParams("device \(device): a webpush device needs subscription.endpoint")
        }
        guard url.lowercased().hasPrefix("https://"), let ep = HTTPSEndpoint(url: url) else {
            throw .invalidParams("device \(device): subscription.endpoint \(url) is not an https URL")
        }
        let afterScheme = url.dropFirst("https://".count)
        path = afterScheme.firstIndex(of: "/").map { String(afterScheme[$0...]) } ?? "/"
        endpoint = ep
        origin = "https://" + ep.authority
        do {
            userAgentKey = try P256PublicKey(rawRepresentation: Base64URL.decode(s["keys"]?["p256dh"]?.stringValue ?? ""))
            authSecret = try Base64URL.decode(s["keys"]?["auth"]?.stringValue ?? "")
        } catch {
            throw .invalidParams("device \(device): subscription.keys: \(error)")
        }
        guard authSecret.count == WebPushCipher.authSecretLength else {
            throw .invalidParams("device \(device): subscription.keys.auth is not 16 bytes")
        }
    }
}

/// Sends one neutral notification to Web Push subscriptions (RFC 8030 / 8291 / 8292) and
/// reports an outcome for each, retries included: the payload is the notification as JSON,
/// encrypted with aes128gcm to the subscription's keys; VAPID with the configured key, one JWT
/// per audience reused for 12 h; TTL, Urgency from the priority, Topic from the collapse key.
/// Dead subscriptions (404/410) are remembered and skipped.
final class WebPushSender: Sendable {
    let configuration: WebPushConfiguration
    let pool: ConnectionPool
    let dead = DeadTokenRegistry()
    let clock: any SenderClock
    let mutant: MutantSet
    /// Backoff and bounds; a correct `--variant` changes the jitter scheme (as for APNs and Expo).
    let policy: RetryPolicy
    let random: JitterSource
    private let jwts = JWTPerAudience()

    /// The largest plaintext one aes128gcm record of 4096 bytes carries (webpush.md §2.2).
    static let maxPlaintextBytes = 3993
    /// TTL when the notification names none: four weeks (node web-push's default, webpush.md §7.1).
    static let defaultTTL = 2_419_200

    init(configuration: WebPushConfiguration, connector: any PushConnector, clock: any SenderClock, mutant: MutantSet,
         random: JitterSource, variant: Variant? = nil) {
        self.configuration = configuration
        self.policy = RetryPolicy.forVariant(variant).planting(mutant)
        self.pool = ConnectionPool(connector: connector, clock: clock, size: 1)
        self.clock = clock
        self.mutant = mutant
        self.random = random
    }

    func send(_ n: NeutralNotification, to devices: [(TargetDevice, JSON)]) async -> [DeviceResult] {
        await withTaskGroup(of: (Int, DeviceResult).self) { group in
            for (i, (device, json)) in devices.enumerated() { group.addTask { (i, await self.deliver(n, to: device, json: json)) } }
            var out = [DeviceResult?](repeating: nil, count: devices.count)
            for await (i, r) in group { out[i] = r }
            return out.map { $0! }
        }
    }

    /// The notification as the page's service worker receives it: the neutral fields as JSON.
    static func payload(_ n: NeutralNotification) -> [UInt8] {
        var o: JSONObject = [:]
        if let t = n.title { o["title"] = .string(t) }
        if let b = n.body { o["body"] = .string(b) }
        if let d = n.data { o["data"] = .object(d) }
        if let i = n.imageUrl { o["image"] = .string(i) }
        if let l = n.link { o["link"] = .string(l) }
        return JSON.object(o).bytes
    }

    /// The declarative push message (docs/webpush.md "Declarative Web Push") for a subscription
    /// the application marked `"declarative": true`: `web_push` 8030, the title, body and the
    /// link as `navigate`, the data as the notification's `data`, the badge as `app_badge`.
    /// Without a title or a link it cannot be one: the ordinary payload then.
    func declarativePayload(_ n: NeutralNotification) -> [UInt8]? {
        guard let title = n.title, var link = n.link else { return nil }
        if mutant.contains(.webpushDeclarativeRelativeNavigate), let url = URL(string: link) { link = url.path.isEmpty ? "/" : url.path }
        var notification: JSONObject = ["title": .string(title), "navigate": .string(link)]
        if let b = n.body { notification["body"] = .string(b) }
        if let d = n.data { notification["data"] = .object(d) }
        if let i = n.imageUrl { notification["image"] = .string(i) }
        var o: JSONObject = ["web_push": .int(8030), "notification": .object(notification)]
        if let badge = n.badge, badge >= 0 { o["app_badge"] = .int(badge) }
        return JSON.object(o).bytes
    }

    /// `Topic` from the collapse key when it has the recorded form (≤ 32 base64url characters,
    /// webpush.md §1.1); otherwise none (a collapse key is optional).
    static func topic(_ key: String?) -> String? {
        guard let k = key, !k.isEmpty, k.utf8.count <= 32,
              k.utf8.allSatisfy({ ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D || $0 == 0x5F })
        else { return nil }
        return k
    }

    private func deliver(_ n: NeutralNotification, to device: TargetDevice, json: JSON) async -> DeviceResult {
        let target: WebPushTarget
        do { target = try WebPushTarget(json: json, device: device.id) } catch {
            return DeviceResult(device: device.id, outcome: .rejected, reason: "InvalidSubscription")
        }
        let key = target.origin + target.path
        if let registered = device.registeredAt, dead.revive(key, registeredAt: registered) {
            Log.info("device \(device.id): subscription registered again; using it again")
        }
        if !mutant.contains(.retryDeadTokens), let reason = dead.reason(for: key) {
            return DeviceResult(device: device.id, outcome: .skipped, reason: reason)
        }
        let plaintext = json["declarative"]?.boolValue == true ? declarativePayload(n) ?? Self.payload(n) : Self.payload(n)
        if plaintext.count > Self.maxPlaintextBytes && !mutant.contains(.webpushOversized) {
            return DeviceResult(device: device.id, outcome: .rejected, reason: "PayloadTooLarge")
        }
        var state = (attempts: 0, retries: 0)
        /// The last backoff drawn (decorrelated jitter grows from it).
        var previousBackoff: Double? = nil
        let started = clock.now()
        while true {
            guard let result = await attempt(n, plaintext: plaintext, target: target) else {
                return DeviceResult(device: device.id, outcome: .rejected, reason: "EncryptionFailed")
            }
            state.attempts += 1
            let wait: Double
            switch result {
            case .response(let r) where (200..<300).contains(r.status):
                return DeviceResult(device: device.id, outcome: .sent, providerMessageId: r.header("location"))
            case .response(let r) where r.status == 404 || r.status == 410:
                dead.markDead(key, reason: "Gone\(r.status)", at: clock.now())
                if mutant.contains(.retryDeadTokens), state.attempts < 2 { wait = 0; break }
                return DeviceResult(device: device.id, outcome: .dead, reason: "Gone\(r.status)")
            case .response(let r) where r.status == 429 || r.status == 406 || r.status >= 500:
                if mutant.contains(.neverRetryTransient) || state.attempts >= policy.maxAttempts
                    || (mutant.contains(.giveUp429WithoutRetryAfter) && r.status == 429 && r.header("retry-after") == nil) {
                    return DeviceResult(device: device.id, outcome: .failed, reason: "HTTP\(r.status)")
                }
                state.retries += 1
                let backoff = mutant.contains(.noBackoff) ? 0 : policy.backoff(retry: state.retries, previous: previousBackoff, random: random.unit())
                previousBackoff = backoff
                if !mutant.contains(.ignoreRetryAfter), let ra = r.header("retry-after"), let s = RetryAfter.seconds(ra, now: clock.now()) {
                    if s > policy.maxRetryAfter { return DeviceResult(device: device.id, outcome: .failed, reason: "RetryAfterTooLong") }
                    wait = max(s, backoff)
                } else { wait = backoff }
            case .response(let r):
                // 400/401/403 (request or VAPID error), 413: not retried.
                return DeviceResult(device: device.id, outcome: .rejected, reason: "HTTP\(r.status)")
            case .failure(let f):
                if mutant.contains(.neverRetryTransient) || state.attempts >= policy.maxAttempts + policy.maxUnprocessedResends {
                    return DeviceResult(device: device.id, outcome: .failed, reason: f.reason)
                }
                if case .notProcessed = f { wait = 0 } else {
                    state.retries += 1
                    wait = mutant.contains(.noBackoff) ? 0 : policy.backoff(retry: state.retries, previous: previousBackoff, random: random.unit())
                    previousBackoff = wait
                }
            }
            if clock.now() + wait - started > policy.maxTotalSeconds {
                return DeviceResult(device: device.id, outcome: .failed, reason: "NoTimeLeft")
            }
            await clock.sleep(seconds: wait)
        }
    }

    /// One POST: a fresh encryption (new salt and sender key), the audience's JWT. nil when
    /// the message cannot be encrypted or signed (nothing is sent).
    private func attempt(_ n: NeutralNotification, plaintext: [UInt8], target: WebPushTarget) async -> AttemptResult? {
        let body: [UInt8]
        var headers: [(name: String, value: String)] = []
        do {
            let auth = mutant.contains(.webpushWrongAuthSecret) ? Array(target.authSecret.reversed()) : target.authSecret
            // webpush-wrong-receiver-key: encrypted to a fresh key pair's public key, not the subscription's p256dh.
            let receiver = mutant.contains(.webpushWrongReceiverKey) ? try P256PrivateKey.generate().publicKey : target.userAgentKey
            if mutant.contains(.webpushAESGCM) {
                let m = try WebPushCipher.encryptLegacyAESGCM(plaintext: plaintext, uaPublicKey: receiver, authSecret: auth)
                body = m.body
                headers += [("content-encoding", "aesgcm"), ("encryption", m.encryptionHeader), ("crypto-key", m.cryptoKeyHeader)]
            } else {
                // The oversized mutant grows the record to fit, as a sender without the size check would.
                let rs = max(WebPushCipher.defaultRecordSize, plaintext.count + 18)
                body = try WebPushCipher.encrypt(plaintext: plaintext, uaPublicKey: receiver, authSecret: auth, recordSize: rs)
                headers.append(("content-encoding", "aes128gcm"))
            }
            if !mutant.contains(.webpushNoVAPID) {
                headers.append(("authorization", try vapidHeader(target.origin + (mutant.contains(.webpushAudienceWithPath) ? target.path : ""))))
            }
        } catch {
            Log.info("encryption or VAPID signing failed: \(error)")
            return nil
        }
        if !mutant.contains(.webpushNoTTL) {
            // webpush-ttl-changed: a requested TTL becomes 0 (delivered only to a device online now).
            let ttl = mutant.contains(.webpushTTLChanged) && n.ttlSeconds != nil ? 0 : n.ttlSeconds ?? Self.defaultTTL
            headers.append(("ttl", String(ttl)))
        }
        let urgency = mutant.contains(.webpushUrgencyIgnored) ? "normal" : (n.priority == .high ? "high" : "normal")
        headers.append(("urgency", urgency))
        if mutant.contains(.webpushRawTopic), let k = n.collapseKey { headers.append(("topic", k)) }
        else if let t = Self.topic(n.collapseKey) { headers.append(("topic", t)) }
        headers.append(("content-type", "application/octet-stream"))
        let connection: any PushConnection
        switch await pool.connection(for: ConnectionPool.Key(endpoint: target.endpoint, account: "")) {
        case .failure(let f): return .failure(f)
        case .success(let c): connection = c
        }
        return await connection.send(WireRequest(path: target.path, authority: target.endpoint.authority, headers: headers, body: body))
    }

    /// `vapid t=<JWT>, k=<key>`: one JWT per audience (exp = now + 12 h, the libraries'
    /// default, webpush.md §5), renewed an hour before it expires.
    private func vapidHeader(_ audience: String) throws -> String {
        let now = Int64(clock.now().rounded(.down))
        let lifetime: Int64 = mutant.contains(.webpushLongExpiry) ? 48 * 3600 : 12 * 3600
        let jwt = try jwts.token(for: audience, now: now) {
            var claims: JOSEObject = ["aud": .string(audience), "exp": .int(now + lifetime), "sub": .string(configuration.subject)]
            if mutant.contains(.webpushMissingSubject) { claims["sub"] = nil }
            return try JWT.sign(header: ["typ": "JWT", "alg": "ES256"], claims: claims, key: .es256(configuration.vapidKey))
        } expires: { now + lifetime - 3600 }
        return "vapid t=\(jwt), k=\(Base64URL.encode(try configuration.vapidKey.publicKey.rawRepresentation))"
    }

    func shutdown() async { await pool.closeAll() }
}

/// VAPID JWTs by audience, reused until their refresh time.
final class JWTPerAudience: Sendable {
    private let tokens = Mutex<[String: (jwt: String, refreshAt: Int64)]>([:])

    func token(for audience: String, now: Int64, make: () throws -> String, expires: () -> Int64) throws -> String {
        if let t = tokens.withLock({ $0[audience] }), now < t.refreshAt { return t.jwt }
        let jwt = try make()
        let at = expires()
        tokens.withLock { $0[audience] = (jwt, at) }
        return jwt
    }
}
