import PushDoubleCrypto
import PushDoubleJSON

/// A push subscription made the way a browser makes one: a P-256 key pair (`p256dh`), a
/// 16-byte `auth` secret, an endpoint shaped like the imitated service's, and optionally the
/// `applicationServerKey` (VAPID public key) that restricts it.
///
/// Sources: docs/webpush.md §2.3 (`ua_public` is the subscription's `p256dh`, `auth_secret` its
/// 16-byte `auth`), §5 "Restricted subscriptions (created with `applicationServerKey`)",
/// §6 (endpoint shapes, see ``WebPushService``). The JSON form is the browser's
/// `PushSubscription.toJSON()`: `{"endpoint","expirationTime":null,"keys":{"p256dh","auth"}}`.
public struct WebPushSubscription: Sendable {
    /// The service imitated.
    public let service: WebPushService
    /// `scheme://host[:port]` the endpoint starts with: what VAPID `aud` must equal (§5).
    public let origin: String
    /// The opaque token in the endpoint path.
    public let token: String
    /// The user agent's ECDH private key (`ua_private`, §2.3).
    public let privateKey: P256PrivateKey
    /// `ua_public`: the 65-byte uncompressed point published as `keys.p256dh`.
    public let publicKey: P256PublicKey
    /// The 16-byte `keys.auth` secret.
    public let authSecret: [UInt8]
    /// The VAPID public key the subscription was created with, if any (§5: such a
    /// subscription requires VAPID, and `k` must be this key).
    public let applicationServerKey: P256PublicKey?

    /// A fresh subscription: a new random key pair, auth secret and (unless given) token.
    /// `origin` defaults to the real service's (``WebPushService/defaultOrigin``); a fake
    /// passes the address it is reached at.
    public init(service: WebPushService, origin: String? = nil, token: String? = nil,
                applicationServerKey: P256PublicKey? = nil) throws(CryptoError) {
        try self.init(service: service, origin: origin, token: token, privateKey: try P256PrivateKey.generate(),
                      authSecret: try WebPushCipher.randomBytes(WebPushCipher.authSecretLength),
                      applicationServerKey: applicationServerKey)
    }

    /// A subscription from fixed keys (reproducible runs, published test vectors). Throws
    /// `invalidKeyLength` unless `authSecret` has 16 bytes.
    public init(service: WebPushService, origin: String? = nil, token: String? = nil,
                privateKey: P256PrivateKey, authSecret: [UInt8], applicationServerKey: P256PublicKey? = nil) throws(CryptoError) {
        guard authSecret.count == WebPushCipher.authSecretLength else {
            throw .invalidKeyLength(what: "auth secret", expected: WebPushCipher.authSecretLength, actual: authSecret.count)
        }
        self.service = service
        self.origin = origin ?? service.defaultOrigin
        if let token { self.token = token } else { self.token = try Self.randomToken() }
        self.privateKey = privateKey
        self.publicKey = try privateKey.publicKey
        self.authSecret = authSecret
        self.applicationServerKey = applicationServerKey
    }

    /// Whether VAPID is mandatory (§5 "Restricted subscriptions").
    public var isRestricted: Bool { applicationServerKey != nil }

    /// The endpoint path and query after the origin.
    public var endpointPath: String { service.endpointPath(token: token, restricted: isRestricted) }

    /// The full endpoint URL: origin + service-shaped path.
    public var endpoint: String { origin + endpointPath }

    /// `keys.p256dh`: base64url (no padding) of the 65-byte public point.
    public var p256dh: String { Base64URL.encode(publicKey.rawRepresentation) }

    /// `keys.auth`: base64url (no padding) of the 16-byte secret.
    public var auth: String { Base64URL.encode(authSecret) }

    /// The browser's PushSubscription JSON, members in the browser's order.
    public var json: JSONValue {
        ["endpoint": .string(endpoint), "expirationTime": .null,
         "keys": ["p256dh": .string(p256dh), "auth": .string(auth)]]
    }

    /// ``json`` as compact UTF-8 text.
    public var jsonText: String { json.compactJSON }

    /// A random token: 32 random bytes as base64url (docs/webpush.md records no token format).
    static func randomToken() throws(CryptoError) -> String { Base64URL.encode(try WebPushCipher.randomBytes(32)) }
}
