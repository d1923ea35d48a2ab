import Foundation
import XCTest
import PushDoubleCore
import PushDoubleTransport

/// A tiny provider fake for the core's tests: path `/push/<token>`, `authorization: ok`
/// required, `x-topic` header as topic, APNs-like reasons.
struct TestFake: ProviderFake {
    var provider: ProviderID { "test" }
    var rateLimitReason: String? { "TooManyRequests" }

    static let reasons: [String: Int] = [
        "BadDeviceToken": 400, "DeviceTokenNotForTopic": 400, "Forbidden": 403, "Unregistered": 410,
        "ExpiredToken": 410, "TooManyRequests": 429, "InternalServerError": 500, "ServiceUnavailable": 503, "Shutdown": 503,
    ]

    func admit(_ request: HTTPRequest, context: RequestContext, services: ProviderServices) -> Admission {
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

    func deliver(_ request: HTTPRequest, admission: Admission, device: DeviceLookup, context: RequestContext, services: ProviderServices) -> ProviderResponse {
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

    func render(_ reason: String, status: Int?, headers: HTTPHeaders) -> HTTPResponse {
        HTTPResponse(status: status ?? Self.reasons[reason] ?? 500, contentType: "application/json", body: "{\"reason\":\"\(reason)\"}", headers: headers)
    }

    func errorResponse(reason: String, status: Int?, headers: HTTPHeaders, request: HTTPRequest, admission: Admission) -> HTTPResponse? {
        guard Self.reasons[reason] != nil else { return nil }
        return render(reason, status: status, headers: headers)
    }

    func magicDevice(token: String) -> MagicDevice? {
        switch token {
        case "magic-dead": return MagicDevice(state: .unregistered(since: Date(timeIntervalSince1970: 1_700_000_000)))
        case "magic-expired": return MagicDevice(state: .expired)
        default: return nil
        }
    }

    func isWellFormedToken(_ token: String) -> Bool {
        !token.isEmpty && token.utf8.allSatisfy { ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 45 }
    }
}

/// A connection for calling a Responder directly (no sockets).
final class TestConnection: ConnectionControl {
    let info: ConnectionInfo
    var version: HTTPVersion = .http2
    var storage: AnyObject? = nil
    var settingsUpdates: [UInt32?] = []
    var closedWith: (HTTP2ErrorCode, [UInt8])? = nil
    init(id: UInt64 = 1) {
        info = ConnectionInfo(id: id, listener: "test", peer: "127.0.0.1:5000", localPort: 8721, tls: nil, acceptedAt: Date())
    }
    func updateSettings(maxConcurrentStreams: UInt32?) { settingsUpdates.append(maxConcurrentStreams) }
    func closeGracefully(errorCode: HTTP2ErrorCode, debugData: [UInt8]) { closedWith = (errorCode, debugData) }
}

/// Builds requests and drives a responder in-process.
final class Harness {
    let connection = TestConnection()
    var stream: UInt32 = 1

    func request(_ path: String, method: String = "POST", headers: [(String, String)] = [("authorization", "ok")],
                 body: String = "") -> HTTPRequest {
        let now = Date()
        let info = RequestInfo(connection: connection.info, streamID: stream, version: .http2, headReceivedAt: now, bodyReceivedAt: now)
        stream += 2
        return HTTPRequest(method: method, path: path, scheme: "https", authority: "localhost", headers: HTTPHeaders(headers),
                           body: Array(body.utf8), info: info)
    }

    func send(_ responder: any Responder, _ path: String, method: String = "POST",
              headers: [(String, String)] = [("authorization", "ok")], body: String = "") -> ResponseAction {
        responder.respond(to: request(path, method: method, headers: headers, body: body), context: RequestContext(connection: connection))
    }
}

extension ResponseAction {
    /// The status of a plain response, nil otherwise.
    var status: Int? { if case .respond(let r) = self { return r.status }; return nil }
    var response: HTTPResponse? { if case .respond(let r) = self { return r }; return nil }
    var bodyText: String? { response.map { String(decoding: $0.body, as: UTF8.self) } }
}

func XCTAssertStatus(_ action: ResponseAction, _ status: Int, file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertEqual(action.status, status, "action was \(action)", file: file, line: line)
}
