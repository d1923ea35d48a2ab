import PushDoubleJSON

/// Mozilla autopush answers (docs/webpush.md §6.2 [L]): `201` + `Location` + `TTL`, and errors
/// as the 5-key JSON `{"code","errno","error","message","more_info"}`.
enum AutopushStyle {
    /// `more_info` of every error (§6.2).
    static let moreInfo = "http://autopush.readthedocs.io/en/latest/http.html#error-codes"

    /// One autopush error: HTTP status, `errno`, `message`. Messages quoted in docs/webpush.md
    /// §6.2 are used verbatim; ``chosenMessages`` lists the ones it does not record.
    struct Error: Equatable {
        let status: Int
        let errno: Int?
        let message: String
    }

    /// The canonical reason phrase in `error` (§6.2 "canonical reason e.g. Gone").
    static func reason(_ status: Int) -> String {
        switch status {
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 404: return "Not Found"
        case 410: return "Gone"
        case 413: return "Payload Too Large"
        case 503: return "Service Unavailable"
        default: return "Error"
        }
    }

    /// Messages docs/webpush.md does not record (placeholders; docs/webpush.md lists them).
    static let chosenMessages: Set<String> = [
        "Invalid TTL value", "Invalid Urgency header", "Invalid Topic header", "Payload too large",
        "Missing dh value in Crypto-Key header", "Invalid dh value in Crypto-Key header",
        "Do not include salt or dh with aes128gcm", "Missing VAPID authorization", "Invalid VAPID authorization header",
        "Invalid VAPID public key", "Invalid VAPID token", "Invalid VAPID signature", "Invalid VAPID subject",
        "VAPID key equals the ECDH key", "Please slow the message send rate down",
    ]

    /// Status, errno and message of each rule (§6.2 table).
    static func error(for rule: WebPushRule) -> Error {
        switch rule {
        case .missingTTL, .invalidTTL: return Error(status: 400, errno: 111, message: "Missing TTL value")
        case .negativeTTL: return Error(status: 400, errno: 114, message: "Invalid TTL value")
        case .invalidUrgency, .multipleUrgency: return Error(status: 400, errno: nil, message: "Invalid Urgency header")
        case .invalidTopic: return Error(status: 400, errno: 113, message: "Invalid Topic header")
        case .payloadTooLarge: return Error(status: 413, errno: 104, message: "Payload too large")
        case .missingContentEncoding: return Error(status: 400, errno: 110, message: "Missing Content-Encoding header")
        case .unknownContentEncoding: return Error(status: 400, errno: 110, message: "Unknown Content-Encoding header")
        case .missingEncryptionHeader: return Error(status: 400, errno: 110, message: "Missing Encryption header")
        case .invalidSalt: return Error(status: 400, errno: 110, message: "Invalid salt value in Encryption header")
        case .missingDH: return Error(status: 400, errno: 110, message: "Missing dh value in Crypto-Key header")
        case .invalidDH: return Error(status: 400, errno: 110, message: "Invalid dh value in Crypto-Key header")
        case .legacyParametersWithAES128GCM: return Error(status: 400, errno: 110, message: "Do not include salt or dh with aes128gcm")
        case .vapidMissing: return Error(status: 401, errno: 109, message: "Missing VAPID authorization")
        case .unknownAuthScheme: return Error(status: 401, errno: 109, message: "Unknown auth scheme")
        case .vapidMalformed: return Error(status: 401, errno: 109, message: "Invalid VAPID authorization header")
        case .vapidInvalidKey: return Error(status: 401, errno: 109, message: "Invalid VAPID public key")
        case .vapidTokenMalformed: return Error(status: 401, errno: 109, message: "Invalid VAPID token")
        case .vapidSignatureInvalid: return Error(status: 401, errno: 109, message: "Invalid VAPID signature")
        case .vapidAudience: return Error(status: 401, errno: 109, message: "Invalid VAPID audience")
        case .vapidExpiryInvalid, .vapidExpired: return Error(status: 401, errno: 109, message: "Invalid VAPID expiry")
        case .vapidExpiryTooLong: return Error(status: 401, errno: 109, message: "The VAPID token expiration is too long")
        case .vapidSubjectMissing: return Error(status: 401, errno: 109, message: "Missing sub")
        case .vapidSubjectInvalid: return Error(status: 401, errno: 109, message: "Invalid VAPID subject")
        case .vapidKeyMismatch: return Error(status: 401, errno: 109, message: "VAPID public key mismatch")
        case .vapidKeyEqualsECDHKey: return Error(status: 400, errno: 110, message: "VAPID key equals the ECDH key")
        }
    }

    /// Dead subscriptions: 404 errno 102 `Invalid token`, 410 errno 103 `UAID not found`,
    /// 410 errno 106 `No such subscription` (§6.2). FCM's "stale" has no autopush
    /// counterpart; it is answered like an expired endpoint.
    static func error(for reason: WebPushGoneReason) -> Error {
        switch reason {
        case .invalidEndpoint: return Error(status: 404, errno: 102, message: "Invalid token")
        case .expired, .stale: return Error(status: 410, errno: 103, message: "UAID not found")
        case .unsubscribed: return Error(status: 410, errno: 106, message: "No such subscription")
        }
    }

    /// The throttling answer: 503 errno 201 ("back off"), `Retry-After: 120` (§6.2).
    static let throttle = Error(status: 503, errno: 201, message: "Please slow the message send rate down")

    /// The 5-key body, members in docs/webpush.md's order, compact JSON.
    static func body(_ e: Error) -> [UInt8] {
        let json: JSONValue = ["code": .int(Int64(e.status)), "errno": e.errno.map { .int(Int64($0)) } ?? .null,
                               "error": .string(reason(e.status)), "message": .string(e.message),
                               "more_info": .string(moreInfo)]
        return json.compactJSONBytes
    }

    /// The error answer: JSON body, plus `Cache-Control: max-age=86400` on 410 and
    /// `Retry-After: 120` on 503 (§6.2 "Extra headers").
    static func render(_ e: Error) -> WebPushResponse {
        var headers: [WebPushResponse.Header] = [.init("Content-Type", "application/json")]
        if e.status == 410 { headers.append(.init("Cache-Control", "max-age=86400")) }
        if e.status == 503 { headers.append(.init("Retry-After", "120")) }
        return WebPushResponse(status: e.status, headers: headers, body: body(e))
    }

    static func response(_ outcome: WebPushOutcome, _ options: WebPushStyleOptions) -> WebPushResponse {
        switch outcome {
        case let .accepted(messageID, endpoint, ttl):
            // §6.2: 201, Location <endpoint_url>/m/<message_id>, TTL actually used (clamped to 30 days), no body.
            return WebPushResponse(status: 201, headers: [.init("Location", messageLocation(endpoint: endpoint, messageID: messageID)),
                                                          .init("TTL", String(min(ttl, options.mozillaMaxTTL)))])
        case .rejected(let r): return render(error(for: r.rule))
        case .gone(let reason): return render(error(for: reason))
        case .throttled: return render(throttle)
        }
    }
}
