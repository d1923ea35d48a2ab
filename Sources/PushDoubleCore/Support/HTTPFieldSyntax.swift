import PushDoubleTransport

/// What a header field a rule sends may contain, so that no accepted rule puts invalid
/// bytes on the wire (checked when the rule is loaded).
///
/// * name: an RFC 9110 §5.6.2 `token` (``HTTPToken``, the transport's HTTP/1.1 parser's table), not a field the transport owns: `content-length` and `transfer-encoding`
///   (framing; the transport computes them from the body, RFC 9110 §8.6 / RFC 9112 §6)
///   and the connection-specific fields RFC 9113 §8.2.2 forbids in HTTP/2.
/// * value: RFC 9110 §5.5 `field-value`: visible ASCII, obs-text, SP and HTAB, so no
///   CR, LF, NUL or other control characters, and no leading or trailing whitespace
///   (RFC 9113 §8.2.1 makes both malformed in HTTP/2).
public enum HTTPFieldSyntax {
    /// Whether the transport owns `name` (lowercase): `content-length` (framing, computed from
    /// the body) and the connection-specific fields HTTP/2 forbids (``HTTPHeaders/isConnectionSpecific(_:)``).
    public static func isReserved(_ name: String) -> Bool {
        name == "content-length" || HTTPHeaders.isConnectionSpecific(name)
    }

    /// Why `name` cannot be sent, or nil.
    public static func problem(name: String) -> String? {
        if name.isEmpty { return "a header name must not be empty" }
        guard name.utf8.allSatisfy(HTTPToken.isTChar) else {
            return "header name \(quoted(name)) is not an RFC 9110 token (letters, digits and !#$%&'*+-.^_`|~ only)"
        }
        if isReserved(name.lowercased()) {
            return "header \(name.lowercased()) is written by the transport (framing / connection-specific) and cannot be set by a rule"
        }
        return nil
    }

    /// Why `value` cannot be sent as the value of `name`, or nil.
    public static func problem(value: String, of name: String) -> String? {
        for b in value.utf8 where (b < 0x20 && b != 0x09) || b == 0x7f {
            return "the value of \(name) contains a control character (0x\(String(b, radix: 16, uppercase: true))); CR, LF, NUL and other controls are not allowed in a header value (RFC 9110 §5.5)"
        }
        if let first = value.utf8.first, let last = value.utf8.last, [0x20, 0x09].contains(first) || [0x20, 0x09].contains(last) {
            return "the value of \(name) starts or ends with whitespace (RFC 9110 §5.5, RFC 9113 §8.2.1)"
        }
        return nil
    }

    private static func quoted(_ s: String) -> String {
        var out = ""
        JSONValue.writeString(s, into: &out)
        return out
    }
}
