import PushDoubleInflate
import PushDoubleJSON

/// Bounds on a request body (a decompression bomb is refused before it is built).
public struct ExpoBodyLimits: Sendable, Equatable {
    /// The largest body, after decompression, that is parsed. The default, 1 MiB, holds 100
    /// messages of 4096 bytes (docs/expo.md §1) with their `to` arrays several times over.
    public var maxBodyBytes: Int
    /// Optional expansion-ratio bound for compressed bodies (see docs/inflate.md).
    public var maxExpansionRatio: Int?
    /// Accept `Content-Encoding: deflate` too (docs/expo.md §1 names only gzip for request bodies;
    /// accepting is the lenient choice, ours).
    public var acceptDeflate: Bool

    public init(maxBodyBytes: Int = 1 << 20, maxExpansionRatio: Int? = nil, acceptDeflate: Bool = true) {
        self.maxBodyBytes = maxBodyBytes; self.maxExpansionRatio = maxExpansionRatio; self.acceptDeflate = acceptDeflate
    }
}

/// Turns a request body into JSON: `Content-Encoding` (none, `identity`, `gzip`, optionally
/// `deflate`; docs/expo.md §1 [A] "may optionally be gzip-compressed"), bounded inflate through
/// PushDoubleInflate, then strict JSON. Shared by send and getReceipts (the Node SDK gzips
/// any JSON body longer than 1024 characters, docs/expo.md §6.1).
///
/// docs/expo.md records no error for a bad encoding, a broken or oversized gzip body or invalid
/// JSON. They are all answered as a bad request, `API_ERROR` (§3.2: HTTP 400), with texts of ours.
public enum ExpoRequestBody {
    /// The decoded JSON of `body` sent with the `Content-Encoding` header value `contentEncoding`
    /// (nil when absent). A list of codings is undone last-applied first (RFC 9110 §8.4).
    public static func json(_ body: [UInt8], contentEncoding: String?, limits: ExpoBodyLimits = .init(),
                            statuses: ExpoErrorStatuses = .init()) throws(ExpoRequestError) -> JSONValue {
        let bytes = try decoded(body, contentEncoding: contentEncoding, limits: limits, statuses: statuses)
        do { return try JSONValue.parse(bytes) } catch { throw notJSON(error, statuses) }
    }

    /// ``json(_:contentEncoding:limits:statuses:)`` read into a ``JSONTape`` (the same parser,
    /// so the same errors), for the send path that reads each message once.
    static func tape(_ body: [UInt8], contentEncoding: String?, limits: ExpoBodyLimits,
                     statuses: ExpoErrorStatuses) throws(ExpoRequestError) -> JSONTape {
        let bytes = try decoded(body, contentEncoding: contentEncoding, limits: limits, statuses: statuses)
        do { return try JSONTape.parse(bytes) } catch { throw notJSON(error, statuses) }
    }

    static func notJSON(_ error: JSONParseError, _ statuses: ExpoErrorStatuses) -> ExpoRequestError {
        .apiError(.bodyNotJSON, "The request body is not valid JSON: \(error.description).", statuses: statuses)
    }

    /// The body with its content codings removed, never more than `limits.maxBodyBytes`.
    public static func decoded(_ body: [UInt8], contentEncoding: String?, limits: ExpoBodyLimits = .init(),
                               statuses: ExpoErrorStatuses = .init()) throws(ExpoRequestError) -> [UInt8] {
        var bytes = body
        for coding in codings(contentEncoding).reversed() {
            guard let format = InflateFormat(httpContentCoding: coding), format == .gzip || limits.acceptDeflate else {
                throw .apiError(.contentEncoding, "Unsupported Content-Encoding \"\(coding)\"; send the request body as plain or gzip-compressed JSON.",
                                statuses: statuses)
            }
            let inflateLimits = InflateLimits(maxOutputBytes: limits.maxBodyBytes, maxExpansionRatio: limits.maxExpansionRatio)
            do { bytes = try Inflate.decompress(bytes, format: format, limits: inflateLimits) } catch {
                switch error {
                case .outputLimitExceeded, .expansionRatioExceeded:
                    throw tooLarge(limits, compressed: true, statuses)
                default:
                    throw .apiError(.compressedBody, "The request body could not be decompressed (\(coding)): \(error).", statuses: statuses)
                }
            }
        }
        guard bytes.count <= limits.maxBodyBytes else { throw tooLarge(limits, compressed: false, statuses) }
        return bytes
    }

    /// The codings named in the header, lowercased, `identity` and empty items dropped.
    static func codings(_ header: String?) -> [String] {
        guard let header else { return [] }
        return header.split(separator: ",").map { $0.trimmingASCIISpaces().lowercased() }.filter { !$0.isEmpty && $0 != "identity" }
    }

    static func tooLarge(_ limits: ExpoBodyLimits, compressed: Bool, _ statuses: ExpoErrorStatuses) -> ExpoRequestError {
        .apiError(.bodyTooLarge, "The request body is larger than \(limits.maxBodyBytes) bytes\(compressed ? " once decompressed" : "").",
                  statuses: statuses)
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs (HTTP OWS).
    func trimmingASCIISpaces() -> String {
        var s = self[...]
        while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" { s = s.dropLast() }
        return String(s)
    }
}
