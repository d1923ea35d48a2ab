import Foundation

/// Turns history records into JSON, lazily (on query, never on the request path).
///
/// Stable output: object keys sorted, dates as ISO 8601 UTC with milliseconds
/// (`2026-11-30T07:35:08.123Z`), no escaped slashes.
public enum ExchangeEncoding {
    /// A fresh encoder with the history's conventions (JSONEncoder is not shared across threads).
    public static func makeEncoder(pretty: Bool = false) -> JSONEncoder {
        let e = JSONEncoder()
        e.outputFormatting = pretty ? [.sortedKeys, .withoutEscapingSlashes, .prettyPrinted] : [.sortedKeys, .withoutEscapingSlashes]
        e.dateEncodingStrategy = .custom { date, encoder in
            var c = encoder.singleValueContainer()
            try c.encode(DateFormats.iso8601(date))
        }
        return e
    }

    /// A decoder matching ``makeEncoder``.
    public static func makeDecoder() -> JSONDecoder {
        let d = JSONDecoder()
        d.dateDecodingStrategy = .custom { decoder in
            let c = try decoder.singleValueContainer()
            let s = try c.decode(String.self)
            guard let date = DateFormats.parseISO8601(s) else {
                throw DecodingError.dataCorruptedError(in: c, debugDescription: "expected an ISO 8601 date")
            }
            return date
        }
        return d
    }

    /// One exchange as compact JSON.
    public static func json(_ exchange: Exchange) -> [UInt8] {
        (try? Array(makeEncoder().encode(exchange))) ?? Array("{}".utf8)
    }

    /// JSON Lines: one compact exchange per line, each line ending in `\n`.
    public static func jsonLines(_ exchanges: [Exchange]) -> [UInt8] {
        let encoder = makeEncoder()
        var out: [UInt8] = []
        out.reserveCapacity(exchanges.count * 1024)
        for e in exchanges {
            if let d = try? encoder.encode(e) { out.append(contentsOf: d); out.append(0x0a) }
        }
        return out
    }

    /// The admin API's history document: `{"count":…,"dropped":…,"exchanges":[…],"nextSeq":…}`.
    public static func document(_ exchanges: [Exchange], dropped: UInt64, nextSeq: UInt64) -> [UInt8] {
        struct Doc: Encodable { let count: Int; let dropped: UInt64; let exchanges: [Exchange]; let nextSeq: UInt64 }
        return (try? Array(makeEncoder().encode(Doc(count: exchanges.count, dropped: dropped, exchanges: exchanges, nextSeq: nextSeq)))) ?? []
    }
}
