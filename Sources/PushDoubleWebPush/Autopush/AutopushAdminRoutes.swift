import Foundation
import PushDoubleCore
import PushDoubleTransport

/// Admin routes over the browsers connected to the autopush listener:
///
/// - `GET /webpush/browsers` → `[{"uaid","connected","unacked":[{"channelID","version"}]}]`.
/// - `POST /webpush/browsers/:uaid/disconnect` with `{}` (cut the TCP connection: the browser
///   reconnects) or `{"code":4774}` (close frame 4774: the browser does not reconnect until it
///   next needs the service) → 204, or 404 when that agent is not connected.
/// - `POST /webpush/browsers/read` with `{"endpoint","text"}`: what a test page's service
///   worker read from a push to its subscription (`text` null: no data), noted on that
///   message's exchange as the annotation `serviceWorker` → 204, or 404 when no message sent
///   to that subscription awaits it (``AutopushHub/serviceWorkerRead(endpoint:text:)``).
public struct AutopushAdminRoutes: Sendable {
    let hub: AutopushHub

    public init(hub: AutopushHub) { self.hub = hub }

    public var routes: [AdminRoute] {
        let hub = self.hub
        return [
            AdminRoute("GET", "/webpush/browsers") { _, _ in AdminRoute.json(200, hub.agentsJSON) },
            AdminRoute("POST", "/webpush/browsers/:uaid/disconnect") { request, p in
                var code: UInt16? = nil
                if !request.body.isEmpty {
                    guard let body = try? JSONValue.parse(request.body), body.objectValue != nil else {
                        return AdminRoute.error(400, "expected a JSON object {\"code\"?}")
                    }
                    if let c = body["code"] {
                        guard let n = c.intValue, (1000...4999).contains(n) else { return AdminRoute.error(400, "code must be a close code in 1000...4999") }
                        code = UInt16(n)
                    }
                }
                let uaid = p["uaid"] ?? ""
                guard hub.disconnect(uaid: uaid, code: code) else { return AdminRoute.error(404, "no connected browser \"\(uaid)\"") }
                return HTTPResponse(status: 204, headers: HTTPHeaders(), body: [])
            },
            AdminRoute("POST", "/webpush/browsers/read") { request, _ in
                guard let body = try? JSONValue.parse(request.body), let endpoint = body["endpoint"]?.stringValue,
                      let text = body["text"], text.isNull || text.stringValue != nil else {
                    return AdminRoute.error(400, "expected {\"endpoint\": string, \"text\": string or null}")
                }
                guard hub.serviceWorkerRead(endpoint: endpoint, text: text.stringValue) else {
                    return AdminRoute.error(404, "no message sent to \(endpoint) awaits a read")
                }
                return HTTPResponse(status: 204, headers: HTTPHeaders(), body: [])
            },
        ]
    }
}
