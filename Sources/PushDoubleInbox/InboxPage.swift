import Foundation
import PushDoubleCore
import PushDoubleTransport

/// The inbox web UI as the admin listener serves it (docs/inbox.md): the page at `GET /`
/// (for a browser, see ``AdminPage/acceptsHTML(_:)``) and `GET /inbox`, and its compiled-in
/// assets at `GET /inbox/<name>`. The page reads only the admin JSON API.
///
/// Every answer carries a strict `content-security-policy` (scripts, styles and connections
/// from the admin listener only, no inline script, no external image): the history holds
/// text chosen by whoever sent to the fakes, and the page never turns it into markup.
public enum InboxPage {
    /// The route prefix of the assets.
    public static let assetPrefix = "/inbox/"

    /// The page.
    public static let page = InboxAsset.page

    /// The inbox's own assets under ``assetPrefix``, by path: the page's script and style, the
    /// retry-timeline renderer shared with the HTML report, the notification preview and the
    /// device story renderers, and the console's scripts and style.
    public static let assets: [InboxAsset] = [.inboxScript, .inboxStyle, .timelineScript, .timelineStyle,
                                              .previewScript, .previewStyle, .storyScript, .storyStyle,
                                              .consoleStyle, .rulesScript, .actionsScript, .libraryScript]

    /// The inbox's own asset at `path` ("/inbox/inbox.js"), if there is one.
    public static func asset(at path: String) -> InboxAsset? { assets.first { $0.path == path } }

    /// The providers' views assembled (``InboxView``): `/inbox/views.js`, every provider's script
    /// in the order given, and `/inbox/views.css`, their styles. The page loads both before
    /// inbox.js; with no views they hold only their header comment.
    public static func viewAssets(_ views: [(provider: ProviderID, view: InboxView)]) -> [InboxAsset] {
        func joined(_ part: (InboxView) -> String, _ comment: (String) -> String) -> String {
            views.map { comment($0.provider.rawValue) + "\n" + part($0.view) }.joined(separator: "\n")
        }
        let script = "// PushDouble inbox: each provider's notification view (window.PushDoubleInboxViews), from its Inbox/ folder.\n"
            + joined(\.script) { "// ---- " + $0 }
        let style = "/* PushDouble inbox: each provider's notification style, from its Inbox/ folder. */\n"
            + joined(\.style) { "/* ---- " + $0 + " */" }
        return [InboxAsset(path: assetPrefix + "views.js", contentType: "text/javascript; charset=utf-8", text: script),
                InboxAsset(path: assetPrefix + "views.css", contentType: "text/css; charset=utf-8", text: style)]
    }

    /// What the admin API is handed: `GET /` for browsers, `GET /inbox`, `GET /inbox/*` (the
    /// inbox's assets and the providers' `views`).
    public static func adminPage(views: [(provider: ProviderID, view: InboxView)]) -> AdminPage {
        let all = assets + viewAssets(views)
        return AdminPage(index: { request in
            // `GET /` answers JSON or this page by `accept`: say so to any cache.
            var r = serve(page, request)
            r.headers.add(name: "vary", value: "accept")
            return r
        }, routes: [
            AdminRoute("GET", "/inbox") { request, _ in serve(page, request) },
            AdminRoute("GET", "/inbox/*") { request, params in
                let path = assetPrefix + (params.wildcard ?? "")
                if params.wildcard?.isEmpty ?? true { return serve(page, request) }
                guard let a = all.first(where: { $0.path == path }) else { return AdminRoute.error(404, "no such inbox asset: \(path)") }
                return serve(a, request)
            },
        ])
    }

    /// `content-security-policy` of every inbox answer.
    public static let contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
        + "img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    /// 200 with the asset (or 304 when `if-none-match` names its entity tag), revalidated on
    /// every use (`cache-control: no-cache`): the bytes change with the binary, not the URL.
    static func serve(_ asset: InboxAsset, _ request: HTTPRequest) -> HTTPResponse {
        var h = HTTPHeaders()
        h.add(name: "etag", value: asset.entityTag)
        h.add(name: "cache-control", value: "no-cache")
        h.add(name: "x-content-type-options", value: "nosniff")
        h.add(name: "content-security-policy", value: contentSecurityPolicy)
        h.add(name: "referrer-policy", value: "no-referrer")
        if let tags = request.headers["if-none-match"], tags.split(separator: ",").contains(where: {
            $0.trimmingCharacters(in: .whitespaces) == asset.entityTag }) {
            return HTTPResponse(status: 304, headers: h)
        }
        h.add(name: "content-type", value: asset.contentType)
        return HTTPResponse(status: 200, headers: h, body: Array(asset.text.utf8))
    }
}

extension InboxAsset {
    /// A strong entity tag from the bytes (FNV-1a 64, hex): equal bytes, equal tag.
    public var entityTag: String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in text.utf8 { hash = (hash ^ UInt64(b)) &* 0x0000_0100_0000_01b3 }
        return "\"" + String(hash, radix: 16) + "\""
    }
}
