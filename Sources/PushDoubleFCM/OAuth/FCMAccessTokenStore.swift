import PushDoubleCrypto
import Synchronization

/// One issued access token and what it was issued for.
public struct FCMAccessGrant: Sendable, Equatable {
    /// The opaque bearer token (`ya29.…`, docs/fcm.md §6.3).
    public let token: String
    /// The service account (`client_email`) it was issued to.
    public let clientEmail: String
    /// Project ids (and numbers) the token may send for.
    public let projects: Set<String>
    /// The scopes of the assertion, in order.
    public let scopes: [String]
    /// Epoch seconds.
    public let issuedAt: Double
    public let expiresAt: Double

    /// Whether the token may send for `project` (an id or a number, docs/fcm.md §1).
    public func covers(project: String) -> Bool { projects.contains(project) }
}

/// What a bearer token turned out to be.
public enum FCMAccessTokenLookup: Sendable, Equatable {
    case valid(FCMAccessGrant)
    /// Past `expiresAt`.
    case expired(FCMAccessGrant)
    /// Revoked (e.g. by a scenario, to see the sender re-mint after a 401) and not yet evicted.
    case revoked(FCMAccessGrant)
    /// Never issued here, or evicted.
    case unknown
}

/// Issues opaque access tokens and answers lookups (the FCM fake's side of the OAuth flow,
/// docs/fcm.md §1 "Accept only Bearer access tokens issued by a fake token endpoint").
///
/// Thread-safe (one `Mutex`); bounded: beyond `capacity` tokens the oldest is evicted.
/// Every token has the same lifetime, so the oldest is also the first to expire.
public final class FCMAccessTokenStore: Sendable {
    /// Token lifetime in seconds, also the `expires_in` answered (docs/fcm.md §6.3: 3599).
    public let lifetime: Int
    public let capacity: Int
    private let generate: @Sendable () -> String

    private enum Status { case active, revoked }
    private struct Entry { var grant: FCMAccessGrant; var status: Status }
    private struct State {
        var entries: [String: Entry] = [:]
        /// Tokens in issue order; `head` skips the evicted prefix.
        var order: [String] = []
        var head = 0
    }
    private let state = Mutex(State())
    private let changes = Atomic<UInt64>(0)

    /// Changes whenever a lookup's answer for an existing token may have changed: a token
    /// issued (possibly evicting the oldest, or replacing one with the same text), revoked.
    /// Bumped inside the lock after the change, read with acquiring order.
    public var generation: UInt64 { changes.load(ordering: .acquiring) }
    private func changed() { changes.add(1, ordering: .releasing) }

    /// `tokenGenerator` makes the opaque strings (tests inject a deterministic one); the
    /// default is `ya29.` followed by 48 random bytes in base64url.
    public init(lifetime: Int = 3599, capacity: Int = 10_000, tokenGenerator: (@Sendable () -> String)? = nil) {
        precondition(lifetime > 0 && capacity > 0, "lifetime and capacity must be positive")
        self.lifetime = lifetime
        self.capacity = capacity
        self.generate = tokenGenerator ?? FCMAccessTokenStore.randomToken
    }

    /// `ya29.` + 64 base64url characters of system randomness.
    @Sendable public static func randomToken() -> String {
        var rng = SystemRandomNumberGenerator()
        let bytes = (0..<48).map { _ in UInt8.random(in: 0...255, using: &rng) }
        return "ya29." + Base64URL.encode(bytes)
    }

    /// Issues a token valid from `now` for `lifetime` seconds.
    public func issue(clientEmail: String, projects: Set<String>, scopes: [String], now: Double) -> FCMAccessGrant {
        let token = generate()
        let grant = FCMAccessGrant(token: token, clientEmail: clientEmail, projects: projects, scopes: scopes,
                                   issuedAt: now, expiresAt: now + Double(lifetime))
        state.withLock { s in
            if s.entries.updateValue(Entry(grant: grant, status: .active), forKey: token) == nil { s.order.append(token) }
            while s.entries.count > capacity, s.head < s.order.count {
                s.entries[s.order[s.head]] = nil
                s.head += 1
            }
            if s.head > 1024, s.head * 2 > s.order.count {
                s.order.removeFirst(s.head)
                s.head = 0
            }
            changed()
        }
        return grant
    }

    /// What `token` is at `now`.
    public func lookup(_ token: String, now: Double) -> FCMAccessTokenLookup {
        guard let e = state.withLock({ $0.entries[token] }) else { return .unknown }
        switch e.status {
        case .revoked: return .revoked(e.grant)
        case .active: return now < e.grant.expiresAt ? .valid(e.grant) : .expired(e.grant)
        }
    }

    /// Revokes one token; false when unknown.
    @discardableResult
    public func revoke(_ token: String) -> Bool {
        state.withLock { s in
            guard s.entries[token] != nil else { return false }
            s.entries[token]?.status = .revoked
            changed()
            return true
        }
    }

    /// Revokes every token of an account; returns how many were active.
    @discardableResult
    public func revokeAll(clientEmail: String) -> Int {
        state.withLock { s in
            var n = 0
            for (k, e) in s.entries where e.grant.clientEmail == clientEmail && e.status == .active {
                s.entries[k]?.status = .revoked
                n += 1
            }
            changed()
            return n
        }
    }

    /// Revokes every active token; returns how many.
    @discardableResult
    public func revokeAll() -> Int {
        state.withLock { s in
            var n = 0
            for (k, e) in s.entries where e.status == .active {
                s.entries[k]?.status = .revoked
                n += 1
            }
            changed()
            return n
        }
    }

    /// Tokens held (any status).
    public var count: Int { state.withLock { $0.entries.count } }
}
