import Foundation
import PushDoubleCore
import PushDoubleTransport

extension ProviderID {
    /// Expo's push service (exp.host).
    public static let expo: ProviderID = "expo"
}

/// The state one Expo fake shares between its routes: configuration, receipt store (whose
/// receipts know their send's history entry, ``ExpoSendRecord``), the per-project rate and the access token. The routes are
/// ``ExpoSendFake`` (`POST /--/api/v2/push/send`), ``ExpoReceiptsFake``
/// (`POST /--/api/v2/push/getReceipts`) and ``ExpoFallbackFake`` (everything else).
public final class ExpoService: Sendable {
    public let configuration: ExpoFakeConfiguration
    /// The double's clock (admin releases; the request path uses the pipeline's services).
    public let clock: any DoubleClock
    public let receipts: ExpoReceiptStore
    let rateLimiter: ExpoRateLimiter?
    let decoder: ExpoSendRequestDecoder
    let accessCheck: ExpoAccessTokenCheck
    let receiptsHandler: ExpoGetReceiptsHandler
    /// `configuration.decoder.acceptedTokenForms`, asked on every device lookup.
    let acceptedTokenForms: ExpoTokenForms

    public static let sendPath = "/--/api/v2/push/send"
    public static let receiptsPath = "/--/api/v2/push/getReceipts"

    public init(configuration: ExpoFakeConfiguration = ExpoFakeConfiguration(), clock: any DoubleClock = SystemClock(),
                idGenerator: (@Sendable () -> String)? = nil) {
        self.configuration = configuration
        self.clock = clock
        receipts = ExpoReceiptStore(configuration: ExpoReceiptStoreConfiguration(capacity: configuration.receiptCapacity,
                                                                                 maxBytes: configuration.receiptMaxBytes,
                                                                                 retention: configuration.receiptRetention,
                                                                                 availability: configuration.receiptAvailability),
                                    idGenerator: idGenerator)
        rateLimiter = configuration.rateLimitPerSecond > 0 ? ExpoRateLimiter(limit: configuration.rateLimitPerSecond) : nil
        decoder = ExpoSendRequestDecoder(configuration: configuration.decoder)
        acceptedTokenForms = ExpoTokenForms(configuration.decoder.acceptedTokenForms)
        accessCheck = ExpoAccessTokenCheck(required: configuration.requireAccessToken, statuses: configuration.decoder.statuses,
                                           refuseInvalidBearer: configuration.refuseInvalidAccessToken)
        receiptsHandler = ExpoGetReceiptsHandler(store: receipts, body: configuration.decoder.body, statuses: configuration.decoder.statuses)
    }

    /// The three fakes of the `expo` listener.
    public var sendFake: ExpoSendFake { ExpoSendFake(service: self) }
    public var receiptsFake: ExpoReceiptsFake { ExpoReceiptsFake(service: self) }
    public var fallbackFake: ExpoFallbackFake { ExpoFallbackFake(service: self) }

    // MARK: tokens (the same for the three fakes: the core may consult any of them)

    /// The device a magic token implies (``ExpoMagicTokens``).
    public func magicDevice(token: String) -> MagicDevice? { ExpoMagicTokens.entry(for: token)?.device }

    /// A push token of an accepted form (docs/expo.md §5).
    public func isWellFormedToken(_ token: String) -> Bool {
        acceptedTokenForms.form(of: token) != nil
    }

    // MARK: shared answers

    /// A JSON answer with Expo's `content-type`.
    static func json(_ status: Int, _ body: [UInt8], headers: HTTPHeaders = HTTPHeaders()) -> HTTPResponse {
        var h = headers
        h.replaceOrAdd(name: "content-type", value: "application/json; charset=utf-8")
        return HTTPResponse(status: status, headers: h, body: body)
    }

    /// A request-level failure (docs/expo.md §3.2) as the pipeline records it.
    static func refusal(_ error: ExpoRequestError, stage: Decision.Stage, detail: String? = nil) -> ProviderResponse {
        ProviderResponse(json(error.httpStatus, error.body), reason: error.code.rawValue,
                         decidedBy: Decision(stage, detail ?? error.rule.rawValue))
    }

    /// The history's record of who authenticated: scheme `expo-access-token`.
    func identity(_ authorization: String?) -> AuthIdentity {
        guard let authorization else { return AuthIdentity(scheme: "none", valid: !configuration.requireAccessToken) }
        guard let token = ExpoAccessTokenCheck.bearerToken(authorization) else {
            return AuthIdentity(scheme: "none", valid: !configuration.requireAccessToken, extra: ["authorization": "not a bearer token"])
        }
        let valid = token == configuration.accessToken
        return AuthIdentity(scheme: "expo-access-token",
                            valid: valid || (!configuration.requireAccessToken && !configuration.refuseInvalidAccessToken),
                            extra: valid ? [:] : ["token": "not the project's access token"])
    }

    /// A request-level error a fault rule names by its code (docs/expo.md §3.2 table), with the
    /// recorded text where there is one; nil for another reason.
    func requestError(code reason: String, recipients: Int) -> ExpoRequestError? {
        guard let code = ExpoErrorCode(rawValue: reason) else { return nil }
        let s = configuration.decoder.statuses
        switch code {
        case .tooManyRequests: return .tooManyRequests(limitPerSecond: configuration.rateLimitPerSecond, statuses: s)
        case .unauthorized: return .unauthorized(statuses: s)
        case .invalidToken: return .invalidToken(statuses: s)
        case .tooManyNotifications: return .tooManyNotifications(received: recipients, statuses: s)
        case .tooManyReceipts: return .tooManyReceipts(received: recipients, statuses: s)
        case .tooManyExperienceIDs: return .tooManyExperienceIDs([], statuses: s)
        case .apiError: return .apiError(.bodyShape, "\"value\" must be of type object.", statuses: s)
        }
    }

    /// A fault rule's answer for a reason Expo does not know (or none), in Expo's error shape:
    /// `{"errors":[{"code":<reason or "SYSTEM_ERROR">,"message":…}]}` (codes and texts ours).
    static func unknownReason(_ reason: String?, status: Int, headers: HTTPHeaders) -> HTTPResponse {
        let code = reason ?? "SYSTEM_ERROR"
        let message = reason.map { "The push service answered \($0)." } ?? "The push service could not handle the request (HTTP \(status))."
        return json(status, errorsBody(code: code, message: message), headers: headers)
    }

    /// `{"errors":[{"code":…,"message":…}]}`.
    static func errorsBody(code: String, message: String) -> [UInt8] {
        JSONValue.object([("errors", .array([.object([("code", .string(code)), ("message", .string(message))])]))]).compactJSONBytes
    }
}

/// Per-connection state of the `expo` listener: the last decoded request, handed from
/// `admit` to `deliver` of the same request (both run on the connection's loop, one after
/// the other), so a body is inflated and parsed once. One slot per connection: bounded.
final class ExpoConnectionState {
    var stream: UInt32 = 0
    var send: ExpoSendRequest?
    var ids: [String]?

    static func of(_ connection: any ConnectionControl) -> ExpoConnectionState {
        if let s = connection.storage as? ExpoConnectionState { return s }
        let s = ExpoConnectionState()
        connection.storage = s
        return s
    }
}
