import Foundation
import PushDoubleTransport

/// A web UI served by the admin listener next to the JSON API (the inbox, built by the
/// PushDoubleInbox module and handed in by the server, so the core does not depend on it):
/// the answer to a `GET /` that asks for HTML, and its own routes (`GET /inbox`, its assets).
/// Every other `GET /` keeps the JSON index, which lists these routes too.
public struct AdminPage: Sendable {
    /// Answers `GET /` when ``acceptsHTML(_:)`` holds.
    public var index: @Sendable (HTTPRequest) -> HTTPResponse
    /// The page's other routes, matched after the admin API's own.
    public var routes: [AdminRoute]

    public init(index: @escaping @Sendable (HTTPRequest) -> HTTPResponse, routes: [AdminRoute]) {
        self.index = index; self.routes = routes
    }

    /// Whether the request's `accept` names `text/html` (what a browser sends for a page;
    /// curl and the SDKs send `*/*` or `application/json` and keep getting JSON).
    public static func acceptsHTML(_ request: HTTPRequest) -> Bool {
        request.headers.values(name: "accept").contains { value in
            value.split(separator: ",").contains { range in
                let type = range.split(separator: ";", maxSplits: 1).first ?? ""
                return type.trimmingCharacters(in: .whitespaces).lowercased() == "text/html"
            }
        }
    }
}
