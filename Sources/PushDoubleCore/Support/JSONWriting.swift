/// Compact JSON serialisation that keeps object keys in document order (JSONEncoder does
/// not promise an order): used for GOAWAY debug data and JSON Lines output.
extension JSONValue {
    /// The value as compact JSON text (`{"reason":"Shutdown"}`), keys in stored order.
    public var compactJSON: String {
        var out = ""
        JSONValue.write(self, into: &out)
        return out
    }

    static func write(_ v: JSONValue, into out: inout String) {
        switch v {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let i): out += String(i)
        case .double(let d):
            if d.isFinite {
                if d == d.rounded(), abs(d) < 1e15 { out += String(Int64(d)) } else { out += String(d) }
            } else { out += "null" }
        case .string(let s): writeString(s, into: &out)
        case .array(let a):
            out += "["
            for (i, e) in a.enumerated() { if i > 0 { out += "," }; write(e, into: &out) }
            out += "]"
        case .object(let o):
            out += "{"
            for (i, (k, e)) in o.enumerated() {
                if i > 0 { out += "," }
                writeString(k, into: &out); out += ":"; write(e, into: &out)
            }
            out += "}"
        }
    }

    /// Appends `s` as a JSON string literal (RFC 8259 §7 escaping).
    public static func writeString(_ s: String, into out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}
