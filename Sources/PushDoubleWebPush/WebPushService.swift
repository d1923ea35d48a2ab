import PushDoubleTransport

/// The real push service a subscription imitates: it shapes the endpoint URL
/// (``WebPushSubscription``) and the answers (``WebPushServiceStyle``).
///
/// Endpoint shapes, docs/webpush.md §6:
/// - `mozilla`: `https://updates.push.services.mozilla.com/wpush/v1/<token>`, `v2` for
///   VAPID-restricted subscriptions (§6.2 [L]);
/// - `fcm`: `https://fcm.googleapis.com/wp/<token>` for a VAPID-restricted subscription (what
///   browsers hand out today, §6.1b), `https://fcm.googleapis.com/fcm/send/<token>` otherwise (§6.1 [O]);
/// - `apple`: `https://web.push.apple.com/<token>` (§6.3 [O]);
/// - `wns`: `https://*.notify.windows.com/w/?token=<token>` (§6.4 [A]). docs/webpush.md does not
///   record the `*` label; ``defaultOrigin`` uses `wns.notify.windows.com` (a choice, see
///   docs/webpush.md).
public enum WebPushService: String, Sendable, Equatable, Hashable, CaseIterable {
    case mozilla
    case fcm
    case apple
    case wns

    /// The origin (`scheme://host`) of the real service's endpoints.
    public var defaultOrigin: String {
        switch self {
        case .mozilla: return "https://updates.push.services.mozilla.com"
        case .fcm: return "https://fcm.googleapis.com"
        case .apple: return "https://web.push.apple.com"
        case .wns: return "https://wns.notify.windows.com"
        }
    }

    /// The real service's host name, as the CONNECT proxy and the test certificate name it
    /// (docs/webpush.md §6.1–§6.4): WNS's is the wildcard `*.notify.windows.com` (§6.4 records
    /// `https://*.notify.windows.com/w/?token=…`), which stands for exactly one label.
    public var realHost: String {
        switch self {
        case .mozilla: return "updates.push.services.mozilla.com"
        case .fcm: return "fcm.googleapis.com"
        case .apple: return "web.push.apple.com"
        case .wns: return "*.notify.windows.com"
        }
    }

    /// The service whose real host `authority` names (`:authority`, `Host` or SNI; a port,
    /// a trailing dot and ASCII case are ignored; `*.notify.windows.com` matches one label),
    /// or nil for any other host (a local address).
    public static func fromHost(_ authority: String) -> WebPushService? {
        var host = Substring(authority)
        if !host.hasPrefix("["), let colon = host.lastIndex(of: ":") { host = host[..<colon] }
        if host.hasSuffix(".") { host = host.dropLast() }
        let name = host.lowercased()
        let wildcard = ConnectProxyConfiguration.wildcardName(ofHost: name[...])
        return allCases.first { $0.realHost == name || $0.realHost == wildcard }
    }

    /// Whether `origin` (`https://host[:443]`) is one of this service's real origins: what a
    /// production-shaped subscription endpoint may start with.
    public func isRealOrigin(_ origin: String) -> Bool {
        let lower = origin.lowercased()
        guard lower.hasPrefix("https://") else { return false }
        var host = String(lower.dropFirst("https://".count))
        if host.hasSuffix(":443") { host.removeLast(4) }
        guard !host.isEmpty, !host.contains("/"), !host.contains(":") else { return false }
        return Self.fromHost(host) == self
    }

    /// The path and query of an endpoint, after the origin: `/wpush/v1/<token>` (Mozilla; `v2`
    /// when `restricted`, i.e. made with an `applicationServerKey`), `/wp/<token>` (FCM,
    /// restricted; `/fcm/send/<token>` otherwise), `/<token>` (Apple), `/w/?token=<token>` (WNS).
    /// docs/webpush.md §6.1–§6.4.
    public func endpointPath(token: String, restricted: Bool) -> String {
        switch self {
        case .mozilla: return "/wpush/\(restricted ? "v2" : "v1")/\(token)"
        case .fcm: return restricted ? "/wp/\(token)" : "/fcm/send/\(token)"
        case .apple: return "/\(token)"
        case .wns: return "/w/?token=\(token)"
        }
    }

    /// Whether restricted and unrestricted subscriptions have different paths (Mozilla, FCM).
    public var shapeDependsOnRestriction: Bool { endpointPath(token: "t", restricted: true) != endpointPath(token: "t", restricted: false) }
}

/// Where a delivery request was sent, as the endpoint path shows it (docs/webpush.md §6.1–§6.4):
/// the service whose path shape it has and the subscription token in it.
public struct WebPushEndpointPath: Sendable, Equatable {
    public let service: WebPushService
    public let token: String
    /// Mozilla's `/wpush/v2/…`: the shape of a VAPID-restricted subscription (§6.2).
    public let restricted: Bool

    public init(service: WebPushService, token: String, restricted: Bool) {
        self.service = service; self.token = token; self.restricted = restricted
    }

    /// The path and query it was parsed from (``WebPushService/endpointPath(token:restricted:)``).
    public var path: String { service.endpointPath(token: token, restricted: restricted) }

    /// Parses a request target (path plus query): `/wpush/v1|v2/<token>` (Mozilla),
    /// `/wp/<token>` or `/fcm/send/<token>` (FCM), `/w/?token=<token>` (WNS), `/<token>` (Apple). nil for any
    /// other shape, or a token that is empty or holds a character outside base64url.
    public static func parse(_ target: String) -> WebPushEndpointPath? {
        target.utf8.allSatisfy({ $0 < 0x80 }) ? parseASCII(target) : parseCharacters(target)
    }

    /// ``parse(_:)`` by `Character`s (any text).
    static func parseCharacters(_ target: String) -> WebPushEndpointPath? {
        func token(_ s: Substring) -> String? {
            guard !s.isEmpty, s.utf8.allSatisfy(WebPushRequestValidator.isBase64URLByte) else { return nil }
            return String(s)
        }
        if target.hasPrefix("/w/?token=") {
            return token(target.dropFirst("/w/?token=".count)).map { WebPushEndpointPath(service: .wns, token: $0, restricted: false) }
        }
        if target.contains("?") { return nil }
        let parts = target.split(separator: "/", omittingEmptySubsequences: false)
        // "/a/b" splits into ["", "a", "b"].
        guard parts.first == "" else { return nil }
        switch parts.count {
        case 2: return token(parts[1]).map { WebPushEndpointPath(service: .apple, token: $0, restricted: false) }
        case 3 where parts[1] == "wp":
            return token(parts[2]).map { WebPushEndpointPath(service: .fcm, token: $0, restricted: true) }
        case 4 where parts[1] == "wpush" && (parts[2] == "v1" || parts[2] == "v2"):
            return token(parts[3]).map { WebPushEndpointPath(service: .mozilla, token: $0, restricted: parts[2] == "v2") }
        case 4 where parts[1] == "fcm" && parts[2] == "send":
            return token(parts[3]).map { WebPushEndpointPath(service: .fcm, token: $0, restricted: false) }
        default: return nil
        }
    }

    /// ``parse(_:)`` on the bytes of an ASCII target: there every byte is one `Character` but
    /// the pair CR LF, so the byte prefix, search and split on `/` and `?` are the `Character`
    /// ones (a few instructions a byte instead of hundreds a `Character`).
    static func parseASCII(_ target: String) -> WebPushEndpointPath? {
        func token(_ s: Substring.UTF8View) -> String? {
            guard !s.isEmpty, s.allSatisfy(WebPushRequestValidator.isBase64URLByte) else { return nil }
            return String(Substring(s))
        }
        let u = target.utf8
        let wns = "/w/?token=".utf8
        if u.starts(with: wns) {
            return token(Substring(target).utf8.dropFirst(wns.count)).map { WebPushEndpointPath(service: .wns, token: $0, restricted: false) }
        }
        if u.contains(UInt8(ascii: "?")) { return nil }
        let parts = Substring(target).utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        func named(_ i: Int, _ name: String) -> Bool { parts[i].elementsEqual(name.utf8) }
        guard parts.first?.isEmpty == true else { return nil }
        switch parts.count {
        case 2: return token(parts[1]).map { WebPushEndpointPath(service: .apple, token: $0, restricted: false) }
        case 3 where named(1, "wp"):
            return token(parts[2]).map { WebPushEndpointPath(service: .fcm, token: $0, restricted: true) }
        case 4 where named(1, "wpush") && (named(2, "v1") || named(2, "v2")):
            return token(parts[3]).map { WebPushEndpointPath(service: .mozilla, token: $0, restricted: named(2, "v2")) }
        case 4 where named(1, "fcm") && named(2, "send"):
            return token(parts[3]).map { WebPushEndpointPath(service: .fcm, token: $0, restricted: false) }
        default: return nil
        }
    }

    /// Splits an endpoint URL `https://host[:port]/path` into its origin and this path; a bare
    /// path (starting with `/`) has no origin. nil when the path has no recorded shape.
    public static func parseEndpoint(_ endpoint: String) -> (origin: String?, path: WebPushEndpointPath)? {
        if endpoint.hasPrefix("/") { return parse(endpoint).map { (nil, $0) } }
        guard endpoint.lowercased().hasPrefix("https://") else { return nil }
        let afterScheme = endpoint.dropFirst("https://".count)
        guard let slash = afterScheme.firstIndex(of: "/"), slash != afterScheme.startIndex else { return nil }
        let origin = String(endpoint[..<slash])
        return parse(String(afterScheme[slash...])).map { (origin, $0) }
    }
}
