import Foundation
import PushDoubleCore
import PushDoubleTransport

/// The legacy HTTP API, `POST https://fcm.googleapis.com/fcm/send` with `Authorization: key=…`,
/// shut down in 2024 (docs/fcm.md "Legacy API"). Old senders and some notifier libraries still
/// call it; the fake answers as Google answers it now, with the recorded body
/// `{"multicast_id":…,"success":0,"failure":n,"canonical_ids":0,"results":[{"error":"DeprecatedApi"},…]}`
/// (one result per addressed token), so the sender sees the service's own refusal and the
/// conformance runner can name the cause (`fcm.legacy-api`).
extension FCMFake {
    /// Endpoint id recorded in the history.
    public static let legacyEndpoint = "fcm.legacy"
    /// The legacy send path (a Web Push `/fcm/send/<token>` is another route).
    public static let legacySendPath = "/fcm/send"
    /// The per-result error the shut-down API answers (docs/fcm.md "Legacy API" [O]).
    public static let legacyDeprecatedError = "DeprecatedApi"
    /// What the history's decision says about such a request.
    public static let legacyShutdownNote = "legacy FCM API, shut down in 2024: migrate to HTTP v1"

    func admitLegacy(_ request: HTTPRequest) -> Admission {
        var admission = Admission(endpoint: Self.legacyEndpoint)
        let header = request.headers.first(name: "authorization") ?? ""
        admission.auth = AuthIdentity(scheme: header.lowercased().hasPrefix("key=") ? "server-key" : (header.isEmpty ? "none" : "other"), valid: false)
        let json = try? JSONValue.parse(request.body)
        admission.notification = json
        let tokens = json?["registration_ids"]?.arrayValue?.compactMap(\.stringValue) ?? json?["to"]?.stringValue.map { [$0] } ?? []
        admission.token = tokens.first
        let results = JSONValue.array(Array(repeating: .object([("error", .string(Self.legacyDeprecatedError))]), count: max(1, tokens.count)))
        let body = JSONValue.object([("multicast_id", .int(Int64(bitPattern: nextMessageTag() >> 1))), ("success", .int(0)),
                                     ("failure", .int(Int64(max(1, tokens.count)))), ("canonical_ids", .int(0)), ("results", results)])
        admission.refusal = ProviderResponse(Self.jsonResponse(200, body.compactJSONBytes), reason: Self.legacyDeprecatedError,
                                             decidedBy: Decision(.validation, Self.legacyShutdownNote))
        return admission
    }
}
