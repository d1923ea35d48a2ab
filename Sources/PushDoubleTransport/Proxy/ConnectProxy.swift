import Foundation

/// What a CONNECT proxy listener tunnels where (``ListenerService/connectProxy(_:)``): a table
/// from `host:port` authorities to the names of listeners of the same ``HTTPServer``. The
/// proxy never connects anywhere: an authority in the table is served by that listener's own
/// connection machinery on the accepted socket; anything else is refused.
///
/// An authority may be a wildcard, `*.notify.windows.com:443`: it matches a host of exactly
/// one more label (`db5p.notify.windows.com`, not `a.b.notify.windows.com` nor
/// `notify.windows.com`), as a wildcard certificate name does (RFC 6125 §6.4.3). An exact
/// authority wins over a wildcard.
public struct ConnectProxyConfiguration: Sendable {
    /// Normalized authority (``ConnectProxyRequest/normalize(authority:)``, or
    /// `*.` + a normalized one for a wildcard) → listener name.
    public private(set) var routes: [String: String] = [:]
    /// The longest request head (request line and headers) read before refusing with 400.
    public var maxHeadBytes: Int = 8 * 1024
    /// Called on the loop thread for every refused request (keep it cheap).
    public var onRefusal: @Sendable (ConnectProxyRefusal) -> Void

    public init(onRefusal: @escaping @Sendable (ConnectProxyRefusal) -> Void = { _ in }) {
        self.onRefusal = onRefusal
    }

    /// Routes `authority` ("api.example.com:443") to `listener`. The first listener to claim an
    /// authority keeps it; returns false when it was claimed already.
    @discardableResult
    public mutating func addRoute(_ authority: String, to listener: String) -> Bool {
        let key: String
        if authority.hasPrefix("*.") {
            guard let rest = ConnectProxyRequest.normalize(authority: String(authority.dropFirst(2))), !rest.hasPrefix("[") else { return false }
            key = "*." + rest
        } else {
            guard let k = ConnectProxyRequest.normalize(authority: authority) else { return false }
            key = k
        }
        guard routes[key] == nil else { return false }
        routes[key] = listener
        return true
    }

    /// The wildcard a normalized authority would match: its first label replaced by `*`
    /// (`db5p.notify.windows.com:443` → `*.notify.windows.com:443`); "" for a single-label host
    /// or an IPv6 literal, which no wildcard matches.
    static func wildcardKey(_ authority: String) -> String {
        guard !authority.hasPrefix("["), let colon = authority.lastIndex(of: ":"),
              let name = wildcardName(ofHost: authority[..<colon]) else { return "" }
        return name + authority[colon...]
    }

    /// The wildcard name a host matches (RFC 6125 §6.4.3: `*` stands for exactly its first
    /// label): `db5p.notify.windows.com` → `*.notify.windows.com`; nil for a single-label
    /// host, an empty first label or an IPv6 literal. The one rule for the proxy's routes and
    /// the fakes that answer to a wildcard name (Web Push's `*.notify.windows.com`).
    public static func wildcardName(ofHost host: Substring) -> String? {
        guard !host.hasPrefix("["), let dot = host.firstIndex(of: "."), dot != host.startIndex,
              host.index(after: dot) != host.endIndex else { return nil }
        return "*" + host[dot...]
    }

    /// Every routed authority, sorted (the refusal body lists them).
    public var allowedAuthorities: [String] { routes.keys.sorted() }

    /// What to do with one request head.
    public func decide(_ head: ConnectProxyRequest) -> ConnectProxyDecision {
        switch head {
        case .malformed(let why):
            return .refuse(ConnectProxyRefusal(status: 400, reason: why, request: nil, allowed: allowedAuthorities))
        case .notConnect(let method, let target):
            return .refuse(ConnectProxyRefusal(status: 403, reason: "only CONNECT is served; plain-HTTP proxy requests are refused",
                                               request: method + " " + target, allowed: allowedAuthorities))
        case .connect(let authority):
            if let listener = routes[authority] ?? routes[Self.wildcardKey(authority)] {
                return .tunnel(authority: authority, listener: listener)
            }
            return .refuse(ConnectProxyRefusal(status: 403, reason: "not a host this double serves (no outbound connection is made)",
                                               request: "CONNECT " + authority, allowed: allowedAuthorities))
        }
    }
}

/// The proxy's verdict on one request head.
public enum ConnectProxyDecision: Sendable, Equatable {
    /// `200 Connection established`, then the socket is served by `listener`.
    case tunnel(authority: String, listener: String)
    case refuse(ConnectProxyRefusal)
}

/// One refused proxy request: the status and text body sent, and what was asked.
public struct ConnectProxyRefusal: Sendable, Equatable, CustomStringConvertible {
    /// 400 (not a proxy request), 403 (not an allowed CONNECT target), 503 (target listener full).
    public var status: Int
    public var reason: String
    /// The method and target as received ("CONNECT example.com:443", "GET http://x/"), cut
    /// to 200 printable characters; nil when the head could not be parsed.
    public var request: String?
    /// The authorities the proxy tunnels.
    public var allowed: [String]
    /// The client's address, set by the connection.
    public var peer: String = ""

    public init(status: Int, reason: String, request: String?, allowed: [String]) {
        self.status = status; self.reason = reason; self.allowed = allowed
        self.request = request.map(Self.printable)
    }

    /// One log line: `refused CONNECT example.com:443 from 127.0.0.1:5555: 403 not a host …`.
    public var description: String {
        "refused " + (request ?? "unparsable request") + (peer.isEmpty ? "" : " from " + peer) + ": \(status) " + reason
    }

    /// The response: status line, `Content-Type: text/plain`, `Connection: close`, and a body
    /// naming the allowed hosts.
    public var response: [UInt8] {
        let phrase = status == 400 ? "Bad Request" : status == 403 ? "Forbidden" : "Service Unavailable"
        var body = "pushdouble proxy: " + (request.map { $0 + ": " } ?? "") + reason + ".\n"
        body += allowed.isEmpty ? "This proxy tunnels no host.\n"
            : "This proxy only tunnels CONNECT to: " + allowed.joined(separator: ", ") + ".\n"
        let head = "HTTP/1.1 \(status) \(phrase)\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n"
        return Array((head + body).utf8)
    }

    static func printable(_ s: String) -> String {
        String(String.UnicodeScalarView(s.unicodeScalars.prefix(200).map { $0.value >= 0x20 && $0.value < 0x7F ? $0 : "?" }))
    }
}

/// A proxy request head, parsed (RFC 9110 §9.3.6: `CONNECT host:port HTTP/1.1`, the target in
/// authority form). Only the request line matters; header lines are checked for shape only.
public enum ConnectProxyRequest: Sendable, Equatable {
    /// CONNECT to a normalized authority (lower-case host without a trailing dot, `:port`;
    /// IPv6 literals in brackets).
    case connect(authority: String)
    /// Any other method (`GET http://…`: a plain-HTTP proxy request).
    case notConnect(method: String, target: String)
    case malformed(String)

    /// The end of the head in `bytes` (index after `\r\n\r\n`, or after `\n\n`), if complete.
    public static func headEnd(in bytes: [UInt8]) -> Int? {
        var i = 0
        while i < bytes.count {
            if bytes[i] == 0x0A {
                if i + 1 < bytes.count && bytes[i + 1] == 0x0A { return i + 2 }
                if i + 2 < bytes.count && bytes[i + 1] == 0x0D && bytes[i + 2] == 0x0A { return i + 3 }
            }
            i += 1
        }
        return nil
    }

    /// Parses a complete head (as delimited by ``headEnd(in:)``).
    public static func parse(_ head: [UInt8]) -> ConnectProxyRequest {
        guard head.allSatisfy({ $0 < 0x80 }) else { return .malformed("request head is not ASCII text") }
        // Split on bytes: in a Swift String "\r\n" is one Character.
        let lines = head.split(separator: 0x0A, omittingEmptySubsequences: false)
            .map { String(decoding: $0.last == 0x0D ? $0.dropLast() : $0[...], as: UTF8.self) }
        guard let requestLine = lines.first, !requestLine.isEmpty else { return .malformed("empty request line") }
        let parts = requestLine.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty else { return .malformed("request line is not METHOD SP TARGET SP VERSION") }
        guard parts[2] == "HTTP/1.1" || parts[2] == "HTTP/1.0" else { return .malformed("not HTTP/1.x") }
        for line in lines.dropFirst() where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":"), colon != line.startIndex,
                  !line[..<colon].contains(where: { $0 == " " || $0 == "\t" }) else {
                return .malformed("bad header line")
            }
        }
        guard parts[0] == "CONNECT" else { return .notConnect(method: parts[0], target: parts[1]) }
        guard let authority = normalize(authority: parts[1]) else { return .malformed("CONNECT target is not host:port") }
        return .connect(authority: authority)
    }

    /// `host:port` normalized for lookup: host lower-cased, one trailing dot dropped, port
    /// 1–65535 without leading zeros; `[v6]:port` kept in brackets. nil when not of that shape.
    public static func normalize(authority: String) -> String? {
        guard let colon = authority.lastIndex(of: ":") else { return nil }
        var host = String(authority[..<colon]).lowercased()
        let portText = authority[authority.index(after: colon)...]
        guard let port = Int(portText), (1...65535).contains(port), String(port) == portText else { return nil }
        if host.hasPrefix("[") {
            guard host.hasSuffix("]"), host.count > 2,
                  host.dropFirst().dropLast().allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else { return nil }
        } else {
            if host.hasSuffix(".") { host.removeLast() }
            guard !host.isEmpty, host.count <= 253,
                  host.allSatisfy({ ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "-" || $0 == "." }),
                  !host.hasPrefix("."), !host.contains("..") else { return nil }
        }
        return host + ":" + String(port)
    }
}
