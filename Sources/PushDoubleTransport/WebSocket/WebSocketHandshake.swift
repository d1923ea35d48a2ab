import Foundation
import COpenSSL

/// An opening handshake as the server reads it (RFC 6455 §4.2.1): the request target, the
/// fields, and the subprotocols the client offers (`Sec-WebSocket-Protocol`, in its order).
public struct WebSocketUpgradeRequest: Sendable {
    public var target: String
    public var headers: HTTPHeaders
    public var protocols: [String]
    public var connection: ConnectionInfo
}

/// What a ``WebSocketService`` makes of an upgrade request.
public enum WebSocketUpgradeDecision: Sendable {
    /// `101 Switching Protocols`, naming `subprotocol` (one the client offered) if not nil.
    case accept(subprotocol: String?)
    /// This answer, then the connection closes.
    case refuse(HTTPResponse)
}

/// The server side of the opening handshake: the head's syntax, the checks of RFC 6455
/// §4.2.1 and the `Sec-WebSocket-Accept` of §4.2.2 (base64 of SHA-1 of the key and the GUID).
public enum WebSocketHandshake {
    /// The GUID of RFC 6455 §1.3.
    public static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
    /// Largest request head read before answering 431 (no client sends a large one).
    public static let maxHeadBytes = 16 * 1024

    /// `Sec-WebSocket-Accept` for a `Sec-WebSocket-Key` (§4.2.2 step 5.4).
    public static func accept(key: String) -> String {
        let input = Array((key + guid).utf8)
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        _ = input.withUnsafeBytes { EVP_Digest($0.baseAddress, input.count, &digest, &length, EVP_sha1(), nil) }
        return Data(digest.prefix(Int(length))).base64EncodedString()
    }

    /// The index just past the head's `\r\n\r\n`, nil while incomplete.
    static func headEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for i in 3..<bytes.count where bytes[i] == 10 && bytes[i - 1] == 13 && bytes[i - 2] == 10 && bytes[i - 3] == 13 { return i + 1 }
        return nil
    }

    /// A head's verdict.
    enum Parsed {
        case upgrade(WebSocketUpgradeRequest)
        case refusal(HTTPResponse)
    }

    /// Parses and checks a complete head: the upgrade request, or the answer that refuses it
    /// (400, or 426 with `Sec-WebSocket-Version: 13` for another version, §4.4).
    static func parse(_ head: [UInt8], connection: ConnectionInfo) -> Parsed {
        func refuse(_ status: Int, _ message: String, _ extra: [(String, String)] = []) -> Parsed {
            var h = HTTPHeaders(extra)
            h.add(name: "content-type", value: "text/plain; charset=utf-8")
            h.add(name: "connection", value: "close")
            return .refusal(HTTPResponse(status: status, headers: h, body: Array((message + "\n").utf8)))
        }
        guard let text = String(validating: head, as: UTF8.self) else { return refuse(400, "the request head is not UTF-8") }
        var lines = text.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ", omittingEmptySubsequences: false)
        guard requestLine.count == 3, requestLine[2].hasPrefix("HTTP/1.") else { return refuse(400, "not an HTTP/1.1 request line") }
        guard requestLine[0] == "GET" else { return refuse(400, "a WebSocket opening handshake is a GET (RFC 6455 §4.2.1), not \(requestLine[0])") }
        guard requestLine[2] != "HTTP/1.0" else { return refuse(400, "a WebSocket opening handshake needs HTTP/1.1 or later") }
        var headers = HTTPHeaders()
        for line in lines where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { return refuse(400, "a header line without a colon") }
            headers.add(name: line[..<colon].lowercased(), value: line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        func tokens(_ name: String) -> [String] {
            headers.filter { $0.name == name }.flatMap { $0.value.split(separator: ",") }
                .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        }
        guard headers.first(name: "host") != nil else { return refuse(400, "no Host") }
        guard tokens("upgrade").contains("websocket") else {
            return refuse(426, "this listener speaks WebSocket only: Upgrade: websocket is required", [("upgrade", "websocket")])
        }
        guard tokens("connection").contains("upgrade") else { return refuse(400, "Connection must include the upgrade token") }
        guard headers.first(name: "sec-websocket-version") == "13" else {
            return refuse(426, "Sec-WebSocket-Version must be 13", [("sec-websocket-version", "13")])
        }
        guard let key = headers.first(name: "sec-websocket-key"), Data(base64Encoded: key)?.count == 16 else {
            return refuse(400, "Sec-WebSocket-Key must be base64 of 16 bytes")
        }
        let offered = headers.filter { $0.name == "sec-websocket-protocol" }.flatMap { $0.value.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces) }
        return .upgrade(WebSocketUpgradeRequest(target: String(requestLine[1]), headers: headers, protocols: offered, connection: connection))
    }

    /// The `101` answer (§4.2.2 step 5).
    static func switchingProtocols(key: String, subprotocol: String?) -> [UInt8] {
        var s = "HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: Upgrade\r\nsec-websocket-accept: \(accept(key: key))\r\n"
        if let p = subprotocol { s += "sec-websocket-protocol: \(p)\r\n" }
        return Array((s + "\r\n").utf8)
    }
}
