/// An HTTPS origin a sender talks to (an APNs environment, FCM, the OAuth2 token endpoint,
/// Expo, a Web Push service).
struct HTTPSEndpoint: Hashable, Sendable {
    var host: String
    var port: Int
    /// `:authority` value: host, plus `:port` when the URL named one.
    var authority: String

    /// Parses `https://host[:port][/…]` (the path is ignored). Only https is accepted: every
    /// provider is reached over TLS.
    init?(url: String) {
        var rest = Substring(url)
        guard rest.lowercased().hasPrefix("https://") else { return nil }
        rest = rest.dropFirst("https://".count)
        if let slash = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) { rest = rest[..<slash] }
        guard !rest.isEmpty, !rest.contains("@") else { return nil }
        authority = String(rest)
        if rest.hasPrefix("[") {  // IPv6 literal
            guard let close = rest.firstIndex(of: "]") else { return nil }
            host = String(rest[rest.index(after: rest.startIndex)..<close])
            let after = rest[rest.index(after: close)...]
            if after.isEmpty { port = 443 }
            else if after.hasPrefix(":"), let p = Int(after.dropFirst()), (1...65535).contains(p) { port = p }
            else { return nil }
        } else if let colon = rest.lastIndex(of: ":") {
            host = String(rest[..<colon])
            guard let p = Int(rest[rest.index(after: colon)...]), (1...65535).contains(p), !host.isEmpty else { return nil }
            port = p
        } else {
            host = String(rest)
            port = 443
        }
    }

    init(host: String, port: Int, authority: String) {
        self.host = host; self.port = port; self.authority = authority
    }
}

/// One request as it goes on the wire.
struct WireRequest: Sendable {
    var path: String
    var authority: String
    var headers: [(name: String, value: String)]
    var body: [UInt8]
    /// `POST` for every push; APNs channel management also reads (`GET`) and deletes.
    var method = "POST"
}

/// An open HTTP/2 connection to a provider. Implementations are thread-safe: many pushes send
/// on one connection concurrently, and the connection itself keeps to the peer's
/// MAX_CONCURRENT_STREAMS.
protocol PushConnection: AnyObject, Sendable {
    /// A small number for logs and tests.
    var connectionID: Int { get }
    /// False once the connection is closed, broken, or has received GOAWAY.
    var isUsable: Bool { get }
    /// True once a GOAWAY arrived on it.
    var receivedGoAway: Bool { get }
    /// True while a `send` on it has not returned: closing the connection then would fail a
    /// push the server may still answer (a stream at or below a GOAWAY's last-stream-id).
    var hasSendsInFlight: Bool { get }
    func send(_ request: WireRequest) async -> AttemptResult
    func close() async
}

/// Opens connections. Production uses PushDoubleTransport's HTTP/2 client; the scripted
/// test mode uses an in-memory fake.
protocol PushConnector: Sendable {
    func connect(to endpoint: HTTPSEndpoint) async -> Result<any PushConnection, TransportFailure>
}
