import PushDoubleJSON

/// One `google.rpc.BadRequest.FieldViolation`: `{"field":…,"description":…}` (docs/fcm.md §4.1).
public struct GoogleFieldViolation: Sendable, Equatable {
    public var field: String
    public var description: String
    public init(field: String, description: String) { self.field = field; self.description = description }
}

/// One entry of `error.details[]` (docs/fcm.md §4.1 [A]); the envelope writes them in the order
/// given, because the observed order differs from case to case (§4.3).
public enum GoogleErrorDetail: Sendable, Equatable {
    /// `{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":…}`.
    case fcmError(FCMErrorCode)
    /// `{"@type":"type.googleapis.com/google.rpc.BadRequest","fieldViolations":[…]}`; with nil
    /// violations only the `@type` member is written (the 2023+ "Android message is too big"
    /// capture, §4.3).
    case badRequest([GoogleFieldViolation]?)
    /// `{"@type":"type.googleapis.com/google.rpc.QuotaFailure"}`. docs/fcm.md §4.1/§4.4 names the
    /// type but records no member of it, so none is written; use `.custom` for more.
    case quotaFailure
    /// Any other detail object, written as given (e.g. an `ApnsError`, §4.4).
    case custom(JSONObject)

    public static let fcmErrorType = "type.googleapis.com/google.firebase.fcm.v1.FcmError"
    public static let badRequestType = "type.googleapis.com/google.rpc.BadRequest"
    public static let quotaFailureType = "type.googleapis.com/google.rpc.QuotaFailure"

    /// The detail as a JSON object, members in Google's order (`@type` first).
    public var json: JSONValue {
        switch self {
        case .fcmError(let code):
            return ["@type": .string(Self.fcmErrorType), "errorCode": .string(code.rawValue)]
        case .badRequest(nil):
            return ["@type": .string(Self.badRequestType)]
        case .badRequest(let violations?):
            let list: [JSONValue] = violations.map { ["field": .string($0.field), "description": .string($0.description)] }
            return ["@type": .string(Self.badRequestType), "fieldViolations": .array(list)]
        case .quotaFailure:
            return ["@type": .string(Self.quotaFailureType)]
        case .custom(let o):
            return o.jsonValue
        }
    }
}

/// The Google `google.rpc.Status` error envelope, v2 error format:
/// `{"error":{"code":…,"message":…,"status":…,"details":[…]}}` (docs/fcm.md §4.1 [A]).
///
/// `body()` writes it the way Google does (docs/fcm.md §4.2 [O]): pretty-printed with 2-space
/// indentation, keys in the order `code`, `message`, `status`, `details`, each array element
/// on its own lines. A nil `details` omits the member (the no-details captures of §4.3).
public struct GoogleErrorEnvelope: Sendable, Equatable {
    /// The HTTP status, also written as `error.code`.
    public var code: Int
    public var message: String
    /// The canonical status name (`error.status`).
    public var status: String
    /// `error.details`, in order; nil omits the member.
    public var details: [GoogleErrorDetail]?

    public init(code: Int, message: String, status: String, details: [GoogleErrorDetail]?) {
        self.code = code; self.message = message; self.status = status; self.details = details
    }

    public init(code: Int, message: String, status: GoogleRPCStatus, details: [GoogleErrorDetail]?) {
        self.init(code: code, message: message, status: status.rawValue, details: details)
    }

    /// The HTTP status to answer with (the same as `code`).
    public var httpStatus: Int { code }

    /// The first FcmError code in `details`, as the SDKs look it up (docs/fcm.md §5.1 step 2, §5.3).
    public var fcmErrorCode: FCMErrorCode? {
        for d in details ?? [] { if case .fcmError(let c) = d { return c } }
        return nil
    }

    /// The `error` object alone.
    public var errorObject: JSONValue {
        var members: [(String, JSONValue)] = [("code", .int(Int64(code))), ("message", .string(message)), ("status", .string(status))]
        if let details { members.append(("details", .array(details.map(\.json)))) }
        return .object(members)
    }

    /// The whole `{"error":{…}}` document as a JSON value.
    public var json: JSONValue { .object([("error", errorObject)]) }

    /// The response body as Google writes it (docs/fcm.md §4.2). Whether Google ends the body
    /// with a newline is UNCONFIRMED (§4.2), so it is an option, off by default.
    public func body(trailingNewline: Bool = false) -> [UInt8] {
        var out = json.serialized(.pretty)
        if trailingNewline { out.append(0x0A) }
        return out
    }
}

/// Response metadata of Google's JSON answers.
public enum GoogleResponseHeaders {
    /// `Content-Type` of FCM's JSON answers (docs/fcm.md §1 for 200, §4.2 for errors [A]/[O]). Its
    /// exact casing on errors is UNCONFIRMED (§4.2): the wiring should make it configurable.
    public static let jsonContentType = "application/json; charset=UTF-8"
}
