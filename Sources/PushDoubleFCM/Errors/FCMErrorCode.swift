/// The `google.firebase.fcm.v1.FcmError.errorCode` values, each with the HTTP status and
/// canonical `google.rpc` status FCM answers it with (docs/fcm.md §4.4 [A]).
public enum FCMErrorCode: String, Sendable, Equatable, CaseIterable {
    /// "No further information"; docs/fcm.md §4.4 records no HTTP status for it (500 / `UNKNOWN` is used here).
    case unspecifiedError = "UNSPECIFIED_ERROR"
    case invalidArgument = "INVALID_ARGUMENT"
    case unregistered = "UNREGISTERED"
    case senderIDMismatch = "SENDER_ID_MISMATCH"
    case quotaExceeded = "QUOTA_EXCEEDED"
    case unavailable = "UNAVAILABLE"
    case `internal` = "INTERNAL"
    case thirdPartyAuthError = "THIRD_PARTY_AUTH_ERROR"
    /// Deprecated old name of `THIRD_PARTY_AUTH_ERROR`; the SDKs still map it (docs/fcm.md §4.4).
    case apnsAuthError = "APNS_AUTH_ERROR"

    /// The HTTP status of the table in docs/fcm.md §4.4.
    public var httpStatus: Int {
        switch self {
        case .unspecifiedError: return 500
        case .invalidArgument: return 400
        case .unregistered: return 404
        case .senderIDMismatch: return 403
        case .quotaExceeded: return 429
        case .unavailable: return 503
        case .internal: return 500
        case .thirdPartyAuthError, .apnsAuthError: return 401
        }
    }

    /// The usual canonical `status` string of docs/fcm.md §4.4.
    public var status: GoogleRPCStatus {
        switch self {
        case .unspecifiedError: return .unknown
        case .invalidArgument: return .invalidArgument
        case .unregistered: return .notFound
        case .senderIDMismatch: return .permissionDenied
        case .quotaExceeded: return .resourceExhausted
        case .unavailable: return .unavailable
        case .internal: return .internal
        case .thirdPartyAuthError, .apnsAuthError: return .unauthenticated
        }
    }
}

/// The canonical `google.rpc.Code` names that appear in `error.status`, with the HTTP status
/// each maps to (docs/fcm.md §5.1 step 3, the Python SDK's table [L]).
public enum GoogleRPCStatus: String, Sendable, Equatable, CaseIterable {
    case invalidArgument = "INVALID_ARGUMENT"
    case unauthenticated = "UNAUTHENTICATED"
    case permissionDenied = "PERMISSION_DENIED"
    case notFound = "NOT_FOUND"
    case conflict = "CONFLICT"
    case failedPrecondition = "FAILED_PRECONDITION"
    case resourceExhausted = "RESOURCE_EXHAUSTED"
    case `internal` = "INTERNAL"
    case unavailable = "UNAVAILABLE"
    case unknown = "UNKNOWN"

    /// The HTTP status of docs/fcm.md §5.1's table (`UNKNOWN` has none there; 500 is used).
    public var httpStatus: Int {
        switch self {
        case .invalidArgument: return 400
        case .unauthenticated: return 401
        case .permissionDenied: return 403
        case .notFound: return 404
        case .conflict: return 409
        case .failedPrecondition: return 412
        case .resourceExhausted: return 429
        case .internal, .unknown: return 500
        case .unavailable: return 503
        }
    }
}
