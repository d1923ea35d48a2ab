// The provider fake and exchanges shared by the core's and the CLI's tests.
import Foundation
import PushDoubleCore
import PushDoubleTransport

/// A tiny provider fake for the core's tests: path `/push/<token>`, `authorization: ok`
/// required, `x-topic` header as topic, APNs-like reasons.
public struct TestFake: ProviderFake {
    public init() {}
    public var provider: ProviderID { "test" }
    public var rateLimitReason: String? { "TooManyRequests" }

    public static let reasons: [String: Int] = [
        "BadDeviceToken": 400, "DeviceTokenNotForTopic": 400, "Forbidden": 403, "Unregistered": 410,
        "ExpiredToken": 410, "TooManyRequests": 429, "InternalServerError": 500, "ServiceUnavailable": 503, "Shutdown": 503,
    ]

    public func admit(_ request: HTTPRequest, context: RequestContext, services: ProviderServices) -> Admission {
        let path = String(request.pathWithoutQuery)
        var a = Admission(endpoint: path.hasPrefix("/push/") ? "test.push" : "test.other")
        if path.hasPrefix("/push/") { a.token = String(path.dropFirst(6)) }
        a.topic = request.headers["x-topic"]
        let ok = request.headers["authorization"] == "ok"
        a.auth = AuthIdentity(scheme: "test", valid: ok)
        if !ok {
            a.refusal = ProviderResponse(render("Forbidden", status: nil, headers: HTTPHeaders()), reason: "Forbidden", decidedBy: Decision(.auth, "bad auth"))
        }
        return a
    }

    public func deliver(_ request: HTTPRequest, admission: Admission, device: DeviceLookup, context: RequestContext, services: ProviderServices) -> ProviderResponse {
        let reason: String
        switch device.state {
        case .active:
            if device.source == .unknown { reason = "BadDeviceToken"; break }
            return ProviderResponse(HTTPResponse(status: 200, headers: ["apns-id": "id-1"], body: [], framing: .headersOnly),
                                    decidedBy: Decision(.accepted))
        case .unregistered(let since):
            let body = "{\"reason\":\"Unregistered\",\"timestamp\":\(Int64(since.timeIntervalSince1970 * 1000))}"
            return ProviderResponse(HTTPResponse(status: 410, contentType: "application/json", body: body), reason: "Unregistered",
                                    decidedBy: Decision(.device, device.deviceID))
        case .expired: reason = "ExpiredToken"
        case .invalid: reason = "BadDeviceToken"
        case .otherApp: reason = "DeviceTokenNotForTopic"
        case .rateLimited: reason = "TooManyRequests"
        }
        return ProviderResponse(render(reason, status: nil, headers: HTTPHeaders()), reason: reason, decidedBy: Decision(.device, device.deviceID))
    }

    public func render(_ reason: String, status: Int?, headers: HTTPHeaders) -> HTTPResponse {
        HTTPResponse(status: status ?? Self.reasons[reason] ?? 500, contentType: "application/json", body: "{\"reason\":\"\(reason)\"}", headers: headers)
    }

    public func errorResponse(reason: String, status: Int?, headers: HTTPHeaders, request: HTTPRequest, admission: Admission) -> HTTPResponse? {
        guard Self.reasons[reason] != nil else { return nil }
        return render(reason, status: status, headers: headers)
    }

    public func magicDevice(token: String) -> MagicDevice? {
        switch token {
        case "magic-dead": return MagicDevice(state: .unregistered(since: Date(timeIntervalSince1970: 1_700_000_000)))
        case "magic-expired": return MagicDevice(state: .expired)
        default: return nil
        }
    }

    public func isWellFormedToken(_ token: String) -> Bool {
        !token.isEmpty && token.utf8.allSatisfy { ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 45 }
    }
}

/// An exchange as the history records it (one clock reading, a `POST /p` request, 200).
public func makeExchange(provider: ProviderID = "test", token: String? = "t", device: String? = nil, endpoint: String = "test.push",
                  at: Date = Date(timeIntervalSince1970: 1_800_000_000.123)) -> Exchange {
    let conn = ConnectionInfo(id: 1, listener: "l", peer: "127.0.0.1:1", localPort: 1, tls: nil, acceptedAt: at)
    let info = RequestInfo(connection: conn, streamID: 1, version: .http2, headReceivedAt: at, bodyReceivedAt: at)
    let req = HTTPRequest(method: "POST", path: "/p", scheme: "https", authority: nil, headers: ["a": "b"], body: Array("{}".utf8), info: info)
    return Exchange(seq: 0, provider: provider, endpoint: endpoint, transport: info, request: RecordedRequest(req), token: token,
                    topic: nil, environment: nil, deviceID: device, auth: nil, notification: nil,
                    response: RecordedResponse(action: "respond", status: 200), decidedBy: Decision(.accepted), receivedAt: at, respondedAt: at)
}
