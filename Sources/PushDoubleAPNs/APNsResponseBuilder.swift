import PushDoubleTransport

/// Builds every APNs response to the byte: the single place success and error answers
/// are rendered, used by validation, auth, device state and fault rules alike.
///
/// - Success (docs/apns.md §6): `200`, `apns-id` (+ `apns-unique-id` on sandbox), no body,
///   one HEADERS frame with END_STREAM (``ResponseFraming/headersOnly``).
/// - Error (docs/apns.md §7.1): the status, `apns-id`, `content-type: application/json`, and a
///   compact JSON body `{"reason":"…"}` (plus `"timestamp":<ms>` when the status is 410,
///   and only then) in exactly one DATA frame (``ResponseFraming/singleDataFrame``).
public struct APNsResponseBuilder: Sendable {
    /// Which spelling of the environment-key reason is sent.
    public var environmentKeySpelling: APNsEnvironmentKeySpelling

    public init(environmentKeySpelling: APNsEnvironmentKeySpelling = .wire) {
        self.environmentKeySpelling = environmentKeySpelling
    }

    /// The 200 answer.
    public func success(apnsID: String, uniqueID: String? = nil) -> HTTPResponse {
        var headers = HTTPHeaders()
        headers.add(name: "apns-id", value: apnsID)
        if let uniqueID { headers.add(name: "apns-unique-id", value: uniqueID) }
        return HTTPResponse(status: 200, headers: headers, body: [], framing: .headersOnly)
    }

    /// The error answer for a known reason.
    /// - Parameters:
    ///   - status: overrides the reason's own status (fault rules may ask for that).
    ///   - timestampMilliseconds: sent only if the final status is 410; when it is 410 and
    ///     this is nil, the caller must supply one (use the clock), so it is required there.
    ///   - extraHeaders: appended after the standard ones (e.g. `retry-after`).
    ///   - idHeader: the header that carries `apnsID`: `apns-id` on pushes, `apns-request-id`
    ///     on channel management and broadcast answers.
    public func error(_ reason: APNsReason, status: Int? = nil, apnsID: String, timestampMilliseconds: Int64? = nil,
                      extraHeaders: HTTPHeaders = HTTPHeaders(), idHeader: String = "apns-id") -> HTTPResponse {
        error(reasonString: environmentKeySpelling.string(for: reason), status: status ?? reason.status, apnsID: apnsID,
              timestampMilliseconds: timestampMilliseconds, extraHeaders: extraHeaders, idHeader: idHeader)
    }

    /// The error answer for a reason string as given (used for both spellings).
    public func error(reasonString: String, status: Int, apnsID: String, timestampMilliseconds: Int64?,
                      extraHeaders: HTTPHeaders = HTTPHeaders(), idHeader: String = "apns-id") -> HTTPResponse {
        var headers = HTTPHeaders()
        headers.add(name: idHeader, value: apnsID)
        headers.add(name: "content-type", value: "application/json")
        for field in extraHeaders { headers.add(name: field.name, value: field.value) }
        let body = Self.errorBody(reason: reasonString, timestampMilliseconds: status == 410 ? timestampMilliseconds : nil)
        return HTTPResponse(status: status, headers: headers, body: body, framing: .singleDataFrame)
    }

    /// `{"reason":"X"}` or `{"reason":"X","timestamp":N}`: compact, no spaces. Reason strings
    /// are plain ASCII identifiers; anything that would need escaping is escaped anyway.
    public static func errorBody(reason: String, timestampMilliseconds: Int64?) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(reason.utf8.count + 40)
        out.append(contentsOf: #"{"reason":""#.utf8)
        appendEscaped(reason, to: &out)
        out.append(0x22)
        if let ts = timestampMilliseconds {
            out.append(contentsOf: #","timestamp":"#.utf8)
            out.append(contentsOf: String(ts).utf8)
        }
        out.append(0x7D)
        return out
    }

    static func appendEscaped(_ s: String, to out: inout [UInt8]) {
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        for c in s.utf8 {
            switch c {
            case 0x22: out.append(0x5C); out.append(0x22)
            case 0x5C: out.append(0x5C); out.append(0x5C)
            case 0x00..<0x20:
                out.append(contentsOf: [0x5C, 0x75, 0x30, 0x30, hex[Int(c >> 4)], hex[Int(c & 0xF)]])
            default: out.append(c)
            }
        }
    }
}
