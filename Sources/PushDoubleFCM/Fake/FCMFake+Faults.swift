import PushDoubleCore
import PushDoubleTransport

/// Fault-rule answers in FCM's and the token endpoint's own shapes.
extension FCMFake {
    /// The reason that renders Google's HTML 502 page (docs/fcm.md §4.3 "Front-end 502"); also
    /// accepted on the token endpoint.
    public static let badGatewayReason = "BAD_GATEWAY"

    /// Reasons a fault rule may name on `fcm.send`: every FcmError code (docs/fcm.md §4.4),
    /// `UNAUTHENTICATED` (the invalid-token 401), `PERMISSION_DENIED` (the IAM 403) and
    /// ``badGatewayReason``. On `oauth.token`: `invalid_grant` (with `Invalid JWT Signature.`),
    /// `invalid_request`, `unsupported_grant_type`, `invalid_scope` and ``badGatewayReason``;
    /// any other reason there (a custom one) is answered as `{"error":"<reason>"}` with 500
    /// unless the rule gives a status.
    /// The reasons ``errorResponse(reason:status:headers:request:admission:)`` renders on `fcm.send`.
    public static var sendReasons: [String] {
        FCMErrorCode.allCases.map(\.rawValue)
            + [GoogleRPCStatus.unauthenticated.rawValue, GoogleRPCStatus.permissionDenied.rawValue, badGatewayReason]
    }

    /// The reasons ``errorResponse(reason:status:headers:request:admission:)`` renders on `oauth.token`.
    public static var tokenReasons: [String] {
        [GoogleOAuthError.invalidSignature, .invalidRequest, .unsupportedGrantType, .invalidScope].map(\.error) + [badGatewayReason]
    }

    public func errorResponse(reason: String, status: Int?, headers: HTTPHeaders, request: HTTPRequest,
                              admission: Admission) -> HTTPResponse? {
        if reason == Self.badGatewayReason {
            var h = headers
            h.replaceOrAdd(name: "content-type", value: "text/html; charset=UTF-8")
            return HTTPResponse(status: status ?? GoogleFrontEndErrorPage.badGatewayStatus, headers: h,
                                body: Array(GoogleFrontEndErrorPage.badGatewayHTML.utf8))
        }
        if admission.endpoint == Self.tokenEndpoint {
            var e = oauthError(reason)
            // A reason the token endpoint never sends (a rule marked custom): 500 unless the
            // rule gives a status, as for every provider's unknown reason (docs/core.md).
            if !Self.tokenReasons.contains(reason) { e.httpStatus = 500 }
            if let status { e.httpStatus = status }
            return Self.oauthResponse(e.httpStatus, e.body(layout: configuration.tokenEndpoint.errorLayout), headers: headers)
        }
        guard var envelope = sendEnvelope(reason: reason, project: admission.topic ?? "") else { return nil }
        if let status { envelope.code = status }
        return Self.jsonResponse(envelope.code, envelope.body(), headers: headers)
    }

    /// The recorded body for a send-side reason (docs/fcm.md §4.3 catalog), nil when unknown.
    func sendEnvelope(reason: String, project: String) -> GoogleErrorEnvelope? {
        if let code = FCMErrorCode(rawValue: reason) {
            switch code {
            case .invalidArgument: return .invalidArgument
            case .unregistered: return .unregistered
            case .senderIDMismatch: return .senderIDMismatch
            case .quotaExceeded: return quotaEnvelope
            case .unavailable: return .unavailable
            case .internal: return .internal
            case .thirdPartyAuthError, .apnsAuthError: return .thirdPartyAuthError(code: code)
            case .unspecifiedError:
                return GoogleErrorEnvelope(code: 500, message: "Unknown error.", status: .unknown, details: [.fcmError(.unspecifiedError)])
            }
        }
        switch reason {
        case GoogleRPCStatus.unauthenticated.rawValue: return .invalidCredentials
        case GoogleRPCStatus.permissionDenied.rawValue: return .permissionDenied(project: project)
        default: return nil
        }
    }

    /// The token endpoint's body for a reason (docs/fcm.md §6.3; RFC 6749 §5.2 codes).
    func oauthError(_ reason: String) -> GoogleOAuthError {
        switch reason {
        case GoogleOAuthError.invalidSignature.error: return .invalidSignature
        case GoogleOAuthError.invalidRequest.error: return .invalidRequest
        case GoogleOAuthError.unsupportedGrantType.error: return .unsupportedGrantType
        case GoogleOAuthError.invalidScope.error: return .invalidScope
        default: return GoogleOAuthError(error: reason, description: nil)
        }
    }

    /// A reason FCM does not document, from a fault rule: Google's envelope around it, with the
    /// canonical status of the HTTP status (docs/fcm.md §5.1 table) and no `details`.
    public func unknownReasonResponse(reason: String?, status: Int, headers: HTTPHeaders) -> HTTPResponse {
        let rpc = GoogleRPCStatus.allCases.first { $0.httpStatus == status && $0 != .unknown } ?? .unknown
        let e = GoogleErrorEnvelope(code: status, message: reason ?? "Unknown error.", status: rpc, details: nil)
        return Self.jsonResponse(status, e.body(), headers: headers)
    }
}
