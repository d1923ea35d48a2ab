import PushDoubleJSON

/// The request-level error codes of the Expo push service (docs/expo.md §3.2 table).
public enum ExpoErrorCode: String, Sendable, Equatable, Hashable, CaseIterable {
    /// Messages for more than one project in one request (docs/expo.md §1, §3.2 [O]).
    case tooManyExperienceIDs = "PUSH_TOO_MANY_EXPERIENCE_IDS"
    /// More than 100 recipients in one send request (docs/expo.md §1, §3.2 [O]).
    case tooManyNotifications = "PUSH_TOO_MANY_NOTIFICATIONS"
    /// More than 1000 ids in one getReceipts request (docs/expo.md §1, §3.2 [A]).
    case tooManyReceipts = "PUSH_TOO_MANY_RECEIPTS"
    /// Over 600 notifications / s / project (docs/expo.md §1 [A]); HTTP 429.
    case tooManyRequests = "TOO_MANY_REQUESTS"
    /// Enhanced push security on and no valid access token (docs/expo.md §1 [A]).
    case unauthorized = "UNAUTHORIZED"
    /// A bearer token that is not a valid access token, with or without enhanced push security:
    /// answered `{"error":"invalid_token","error_description":"The bearer token is invalid"}`
    /// (docs/expo.md §3.2a [O]), not in the `errors` form.
    case invalidToken = "invalid_token"
    /// A body that fails validation, with Joi-style text (docs/expo.md §3.2 [O] https://github.com/expo/expo/issues/9290, [L]).
    case apiError = "API_ERROR"

    /// The HTTP status docs/expo.md records or presumes (§3.2 table, §1 "Auth"): 429 for
    /// `TOO_MANY_REQUESTS` (the only confirmed one), 401 for `UNAUTHORIZED` (UNCONFIRMED),
    /// 400 for the rest (UNCONFIRMED except `API_ERROR`). Overridable per code in
    /// ``ExpoErrorStatuses``.
    public var defaultHTTPStatus: Int {
        switch self {
        case .tooManyRequests: return 429
        case .unauthorized, .invalidToken: return 401
        default: return 400
        }
    }
}

/// The HTTP status answered for each request-level code. docs/expo.md §7 leaves all but 429
/// UNCONFIRMED, so every one can be changed.
public struct ExpoErrorStatuses: Sendable, Equatable {
    public var overrides: [ExpoErrorCode: Int] = [:]
    public init(overrides: [ExpoErrorCode: Int] = [:]) { self.overrides = overrides }
    public func status(for code: ExpoErrorCode) -> Int { overrides[code] ?? code.defaultHTTPStatus }
}

/// One request-level failure: the HTTP status and the `{"errors":[{"code","message","details"?}]}`
/// body (docs/expo.md §3.2: each error object has `code`, `message`, optional `details`, optional `stack`).
public struct ExpoRequestError: Error, Sendable, Equatable {
    public let httpStatus: Int
    /// The check that refused the request.
    public let rule: ExpoRule
    public let code: ExpoErrorCode
    public let message: String
    /// Rendered after `message` when present (docs/expo.md §3.2 capture order).
    public let details: JSONValue?

    public init(httpStatus: Int, rule: ExpoRule, code: ExpoErrorCode, message: String, details: JSONValue? = nil) {
        self.httpStatus = httpStatus; self.rule = rule; self.code = code; self.message = message; self.details = details
    }

    /// The error object: `{"code":…,"message":…,"details":…}` in that order (docs/expo.md §3.2).
    public var errorObject: JSONValue {
        var o: JSONObject = ["code": .string(code.rawValue), "message": .string(message)]
        if let details { o["details"] = details }
        return .object(o)
    }

    /// The whole body, compact: `{"errors":[{…}]}` (docs/expo.md §3.2); an invalid bearer token
    /// gets the OAuth form `{"error":"invalid_token","error_description":…}` (§3.2a).
    public var body: [UInt8] {
        if code == .invalidToken {
            return JSONValue.object([("error", .string(code.rawValue)), ("error_description", .string(message))]).compactJSONBytes
        }
        return JSONValue.object([("errors", .array([errorObject]))]).compactJSONBytes
    }
    public var bodyText: String { String(decoding: body, as: UTF8.self) }

    // MARK: The recorded errors

    /// `PUSH_TOO_MANY_NOTIFICATIONS` with the observed text (docs/expo.md §3.2 [O],
    /// https://github.com/ctwillie/expo-server-sdk-php/issues/34): `You can send a maximum of 100 notifications per
    /// request (received 115); divide your requests.` The limit in the text is the
    /// configured one.
    public static func tooManyNotifications(received: Int, limit: Int = 100, statuses: ExpoErrorStatuses = .init()) -> ExpoRequestError {
        ExpoRequestError(httpStatus: statuses.status(for: .tooManyNotifications), rule: .tooManyRecipients, code: .tooManyNotifications,
                         message: "You can send a maximum of \(limit) notifications per request (received \(received)); divide your requests.")
    }

    /// The observed `PUSH_TOO_MANY_EXPERIENCE_IDS` text (docs/expo.md §3.2 [O],
    /// https://github.com/expo/expo/issues/6771 , https://github.com/expo/expo/issues/43172).
    public static let tooManyExperienceIDsMessage =
        "All push notification messages in the same request must be for the same project; check the details field to investigate conflicting tokens."

    /// `PUSH_TOO_MANY_EXPERIENCE_IDS` with `details` `{project: [tokens…], …}` (docs/expo.md §3.2
    /// capture), projects and tokens in the order they first appear in the request.
    public static func tooManyExperienceIDs(_ tokensByProject: [(project: String, tokens: [String])],
                                            statuses: ExpoErrorStatuses = .init()) -> ExpoRequestError {
        let details = JSONValue.object(tokensByProject.map { ($0.project, .array($0.tokens.map { .string($0) })) })
        return ExpoRequestError(httpStatus: statuses.status(for: .tooManyExperienceIDs), rule: .oneProject, code: .tooManyExperienceIDs,
                                message: tooManyExperienceIDsMessage, details: details)
    }

    /// `PUSH_TOO_MANY_RECEIPTS` (docs/expo.md §1, §3.2 [A]). docs/expo.md records no message; this
    /// text is ours, modelled on the observed `PUSH_TOO_MANY_NOTIFICATIONS` one.
    public static func tooManyReceipts(received: Int, limit: Int = 1000, statuses: ExpoErrorStatuses = .init()) -> ExpoRequestError {
        ExpoRequestError(httpStatus: statuses.status(for: .tooManyReceipts), rule: .tooManyReceiptIDs, code: .tooManyReceipts,
                         message: "You can request a maximum of \(limit) receipts per request (received \(received)); divide your requests.")
    }

    /// `TOO_MANY_REQUESTS`, HTTP 429 (docs/expo.md §1 [A]). No message recorded; the text is ours.
    public static func tooManyRequests(limitPerSecond: Int = 600, statuses: ExpoErrorStatuses = .init()) -> ExpoRequestError {
        ExpoRequestError(httpStatus: statuses.status(for: .tooManyRequests), rule: .rateLimit, code: .tooManyRequests,
                         message: "You are sending more than \(limitPerSecond) notifications per second for this project; slow down.")
    }

    /// `UNAUTHORIZED` (docs/expo.md §1 "Auth" [A]; status 401 UNCONFIRMED). No message recorded;
    /// the text is ours.
    public static func unauthorized(statuses: ExpoErrorStatuses = .init()) -> ExpoRequestError {
        ExpoRequestError(httpStatus: statuses.status(for: .unauthorized), rule: .accessToken, code: .unauthorized,
                         message: "The request is not authorized: enhanced push security requires a valid access token in the Authorization header (Bearer <token>).")
    }

    /// A bearer token that is not the project's access token (docs/expo.md §3.2a [O],
    /// https://github.com/expo/expo/issues/21220): `The bearer token is invalid`, status 401
    /// (RFC 6750 §3.1 for `invalid_token`; the capture does not show the status).
    public static func invalidToken(statuses: ExpoErrorStatuses = .init()) -> ExpoRequestError {
        ExpoRequestError(httpStatus: statuses.status(for: .invalidToken), rule: .accessToken, code: .invalidToken,
                         message: "The bearer token is invalid")
    }

    /// `API_ERROR` with `message` (docs/expo.md §3.2: HTTP 400, Joi-style text).
    public static func apiError(_ rule: ExpoRule, _ message: String, statuses: ExpoErrorStatuses = .init()) -> ExpoRequestError {
        ExpoRequestError(httpStatus: statuses.status(for: .apiError), rule: rule, code: .apiError, message: message)
    }
}
