import PushDoubleCore
import PushDoubleCrypto

/// A subscription as a device of provider `webpush` holds it: the device JSON members the core
/// does not know (``Device/attributes``), judged by ``validate(_:)``.
///
/// ```json
/// {"id":"s1","provider":"webpush",
///  "subscription":{"endpoint":"https://127.0.0.1:8726/wpush/v2/<token>","expirationTime":null,
///                  "keys":{"p256dh":"<65-byte point>","auth":"<16 bytes>"}},
///  "privateKey":"<32-byte ua_private scalar>","applicationServerKey":"<VAPID public key>"}
/// ```
///
/// - `subscription`: the browser's PushSubscription JSON (docs/webpush.md §2.3: `p256dh` is
///   `ua_public`, `auth` the 16-byte secret), required. The endpoint is an `https://` URL or a
///   bare path, with a path shape of §6 (``WebPushEndpointPath``); the device's `token` is the
///   token in it (given, it must be that one).
/// - `privateKey` (base64url): `ua_private`, which a browser never publishes; the double needs
///   it to play the browser and decrypt. Must match `p256dh`. Without it messages are accepted
///   but recorded as undecryptable (`noPrivateKey`).
/// - `applicationServerKey` (base64url VAPID public key): the subscription is restricted
///   (docs/webpush.md §5: VAPID required, `k` must be this key).
///
/// - `autopush` (`{"uaid","channelID"}`): a channel a real browser registered over the autopush
///   WebSocket protocol (``AutopushHub``). The browser keeps its keys, so `subscription.keys` is
///   absent and the double relays each message to the browser instead of decrypting it.
///
/// - `declarative` (boolean): the application sends this subscription declarative Web Push
///   messages (docs/webpush.md "Declarative Web Push"; the conformance feature `declarative`).
///   The double does not read it: the browser half reads what arrives.
///
/// All values are base64url (unpadded or padded).
public enum WebPushDeviceSchema {
    /// The attribute names a `webpush` device may carry.
    public static let attributeNames: Set<String> = ["subscription", "privateKey", "applicationServerKey", "autopush", "declarative"]

    /// Checks the attributes of `device`, fills in its token and re-homes its endpoint
    /// (``portableEndpoint(_:)``): an endpoint on the double's own listener is kept as its bare
    /// path, so a device outlives the port it was made on (an exported scenario, `replay`).
    public static func validate(_ device: inout Device) throws {
        try DeviceSchemaError.refuseAttributes(of: device, allowed: attributeNames)
        if let d = device.attributes["declarative"], d.boolValue == nil {
            throw DeviceSchemaError(deviceID: device.id, field: "declarative", message: "must be a boolean, not \(d.compactJSON)")
        }
        let parsed = try parse(device)
        if parsed.endpoint.origin != nil, let text = parsed.json["endpoint"]?.stringValue, let bare = portableEndpoint(text),
           case .object(var members) = parsed.json, let i = members.firstIndex(where: { $0.0 == "endpoint" }) {
            members[i].1 = .string(bare)
            device.attributes["subscription"] = .object(members)
        }
        if device.token.isEmpty { device.token = parsed.endpoint.path.token }
        else if device.token != parsed.endpoint.path.token {
            throw DeviceSchemaError(deviceID: device.id, field: "token",
                                    message: "\"\(device.token)\" is not the token of the endpoint (\(parsed.endpoint.path.token))")
        }
    }

    /// The bare path of an absolute `endpoint` that is not on a real push service's origin
    /// (``WebPushService/isRealOrigin(_:)``): every such origin is this double's own listener
    /// (`https://127.0.0.1:8726`, an advertised host, the listener of an earlier run), whose port
    /// a scenario cannot know. nil for a bare path or a real origin, which are kept as they are.
    public static func portableEndpoint(_ endpoint: String) -> String? {
        guard let parsed = WebPushEndpointPath.parseEndpoint(endpoint), let origin = parsed.origin,
              !WebPushService.allCases.contains(where: { $0.isRealOrigin(origin) }) else { return nil }
        return String(endpoint.dropFirst(origin.count))
    }

    /// `endpoint` as a client must be told it: a bare path on `origin` (the bound listener's
    /// URL; kept bare when the listener is not bound), an absolute one as it is.
    public static func resolvedEndpoint(_ endpoint: String, origin: String?) -> String {
        guard endpoint.hasPrefix("/"), let origin else { return endpoint }
        return origin + endpoint
    }

    /// The attributes of a subscription the double made (admin `POST /webpush/subscriptions`).
    public static func attributes(of s: WebPushSubscription) throws(CryptoError) -> [String: JSONValue] {
        var a: [String: JSONValue] = ["subscription": s.json, "privateKey": .string(Base64URL.encode(try s.privateKey.rawPrivateScalar))]
        if let k = s.applicationServerKey { a["applicationServerKey"] = .string(Base64URL.encode(k.rawRepresentation)) }
        return a
    }

    /// What a device's attributes say, decoded.
    public struct Parsed: Sendable {
        /// The endpoint's origin (nil for a bare path) and path.
        public var endpoint: (origin: String?, path: WebPushEndpointPath)
        /// `keys.p256dh` and `keys.auth`: nil for a browser's autopush channel.
        public var publicKey: P256PublicKey?
        public var authSecret: [UInt8]?
        public var applicationServerKey: P256PublicKey?
        /// The browser's side, when the private key is known.
        public var subscription: WebPushSubscription?
        /// The `subscription` member as given (the browser's JSON).
        public var json: JSONValue
        /// The browser's autopush channel, when a real browser registered it.
        public var autopush: AutopushChannelRef? = nil
    }

    /// Decodes the attributes of `device` (throws ``DeviceSchemaError`` naming the member at fault).
    public static func parse(_ device: Device) throws -> Parsed {
        func fail(_ field: String, _ message: String) -> DeviceSchemaError {
            DeviceSchemaError(deviceID: device.id, field: field, message: message)
        }
        func bytes(_ value: JSONValue?, _ field: String, count: Int) throws -> [UInt8] {
            guard let text = value?.stringValue else { throw fail(field, "expected a base64url string") }
            guard let b = try? Base64URL.decode(text), b.count == count else { throw fail(field, "expected base64url of \(count) bytes") }
            return b
        }
        func point(_ value: JSONValue?, _ field: String) throws -> P256PublicKey {
            guard let key = try? P256PublicKey(rawRepresentation: try bytes(value, field, count: 65)) else {
                throw fail(field, "not an uncompressed P-256 point")
            }
            return key
        }
        guard let sub = device.attributes["subscription"], let members = sub.objectValue else {
            throw fail("subscription", "required: the browser's PushSubscription JSON {\"endpoint\",\"keys\":{\"p256dh\",\"auth\"}}")
        }
        for (k, _) in members where !["endpoint", "expirationTime", "keys"].contains(k) {
            throw fail("subscription." + k, "unknown member; expected endpoint, expirationTime, keys")
        }
        guard let endpointText = sub["endpoint"]?.stringValue else { throw fail("subscription.endpoint", "required string") }
        guard let endpoint = WebPushEndpointPath.parseEndpoint(endpointText) else {
            throw fail("subscription.endpoint", "\"\(endpointText)\" is not https://host[:port] plus a path of a recorded shape "
                       + "(/wpush/v1/<token>, /wpush/v2/<token>, /fcm/send/<token>, /<token>, /w/?token=<token>)")
        }
        if let e = sub["expirationTime"], !e.isNull, e.doubleValue == nil {
            throw fail("subscription.expirationTime", "expected null or a number")
        }
        let autopush = try device.attributes["autopush"].map { try AutopushChannelRef(json: $0, deviceID: device.id) }
        let keys = sub["keys"]
        if autopush != nil && keys == nil {
            return Parsed(endpoint: endpoint, publicKey: nil, authSecret: nil, applicationServerKey: try device.attributes["applicationServerKey"].map {
                try point($0, "applicationServerKey") }, subscription: nil, json: sub, autopush: autopush)
        }
        guard let keys, keys.objectValue != nil else { throw fail("subscription.keys", "required object {\"p256dh\",\"auth\"}") }
        let publicKey = try point(keys["p256dh"], "subscription.keys.p256dh")
        let auth = try bytes(keys["auth"], "subscription.keys.auth", count: WebPushCipher.authSecretLength)
        let asKey = try device.attributes["applicationServerKey"].map { try point($0, "applicationServerKey") }
        var browser: WebPushSubscription? = nil
        if let p = device.attributes["privateKey"] {
            let scalar = try bytes(p, "privateKey", count: 32)
            guard let key = try? P256PrivateKey(rawPrivateScalar: scalar), let pub = try? key.publicKey, pub == publicKey else {
                throw fail("privateKey", "is not the private key of keys.p256dh")
            }
            browser = try? WebPushSubscription(service: endpoint.path.service, origin: endpoint.origin ?? "", token: endpoint.path.token,
                                               privateKey: key, authSecret: auth, applicationServerKey: asKey)
        }
        return Parsed(endpoint: endpoint, publicKey: publicKey, authSecret: auth, applicationServerKey: asKey,
                      subscription: browser, json: sub, autopush: autopush)
    }
}
