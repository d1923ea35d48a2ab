import Foundation
import XCTest
@testable import PushDoubleInbox
import PushDouble

/// Static checks of the compiled-in assets (fast tier, no tool):
/// - nothing external: no `http://` / `https://` / `url(` / `@import` anywhere in an asset
///   (but the SVG namespace name), so the page works offline and leaks nothing (URLs from the
///   history are displayed as text: they come from data, not from the assets);
/// - no markup from data: the history holds text chosen by whoever sent to the fakes, so the
///   scripts never use an HTML-parsing sink (`innerHTML`, `outerHTML`, `insertAdjacentHTML`,
///   `document.write`, `DOMParser`, `createContextualFragment`) nor evaluate strings
///   (`eval`, `new Function`, string timers). A history entry with `<script>` in its body
///   therefore reaches the DOM only as text (textContent / text nodes); the node tier renders
///   such an entry through the real script to show it (InboxScriptNodeTests);
/// - the page has no inline script or handler (the content-security-policy forbids them).
final class InboxAssetSafetyTests: XCTestCase {
    /// The SVG namespace name timeline.js passes to createElementNS: an identifier, never fetched.
    static let allowedURLs = ["http://www.w3.org/2000/svg"]

    /// The served bytes are the files under `Sources/PushDoubleInbox/Assets/`, byte for byte
    /// (SwiftPM compiles them in; a stale build or a wrong file name would show here).
    func testEveryAssetIsItsSourceFile() throws {
        for asset in InboxAssetChecks.own {
            let file = InboxAssetChecks.sourceFile(of: asset)
            let served = Array(asset.text.utf8), source = [UInt8](try Data(contentsOf: file))
            XCTAssertTrue(served == source, "\(asset.path) (\(served.count) bytes) is not \(file.path) (\(source.count) bytes): rebuild")
        }
    }

    /// `/inbox/views.js` and `views.css` hold every provider's view file, byte for byte, and
    /// every registered provider has one.
    func testTheViewsAreEachProvidersFiles() throws {
        let files = InboxAssetChecks.providerViewFiles
        XCTAssertEqual(files.count, 2 * FakeRegistry.modules.count, files.map(\.lastPathComponent).joined(separator: " "))
        XCTAssertEqual(FakeRegistry.inboxViews.map(\.provider), FakeRegistry.modules.map(\.provider))
        let assembled = Dictionary(uniqueKeysWithValues: InboxAssetChecks.views.map { ($0.path, $0.text) })
        for file in files {
            let text = String(decoding: try Data(contentsOf: file), as: UTF8.self)
            let path = "/inbox/views." + file.pathExtension
            XCTAssertTrue(assembled[path]?.contains(text) ?? false, "\(path) lacks \(file.path): rebuild")
        }
    }

    /// A provider adds files, not branches in shared code: outside comments, no registered
    /// provider id appears in the inbox's own scripts, the timeline or the HTML report's script
    /// (what differs by provider is in its view's hooks, docs/inbox.md "Provider hooks").
    func testSharedScriptsNameNoProvider() throws {
        let ids = FakeRegistry.modules.map(\.provider.rawValue)
        XCTAssertFalse(ids.isEmpty)
        let report = InboxAssetChecks.sources.appendingPathComponent("PushDoubleConformance/Reporters/Assets/report.js")
        let shared = InboxAssetChecks.own.filter { $0.contentType.hasPrefix("text/javascript") }.map { ($0.path, $0.text) }
            + [(report.lastPathComponent, String(decoding: try Data(contentsOf: report), as: UTF8.self))]
        XCTAssertEqual(Set(shared.map(\.0)), ["/inbox/inbox.js", "/inbox/timeline.js", "/inbox/preview.js", "/inbox/story.js", "/inbox/rules.js",
                                                "/inbox/actions.js", "/inbox/library.js", "report.js"])
        for (name, text) in shared {
            let code = text.replacingOccurrences(of: #"/\*[\s\S]*?\*/"#, with: "", options: .regularExpression)
                .replacingOccurrences(of: #"//[^\n]*"#, with: "", options: .regularExpression)
            for id in ids {
                XCTAssertNil(code.range(of: "\\b\(id)\\b", options: [.regularExpression, .caseInsensitive]), "\(name) names \(id) outside a comment")
            }
        }
    }

    func testNoAssetReferencesAnythingExternal() {
        for asset in InboxAssetChecks.all {
            var text = asset.text
            for allowed in Self.allowedURLs { text = text.replacingOccurrences(of: "'" + allowed + "'", with: "''") }
            for scheme in ["http://", "https://", "//cdn", "@import", "url("] {
                XCTAssertEqual(InboxAssetChecks.lines(of: text, containing: scheme), [], "\(asset.path) contains \(scheme)")
            }
        }
    }

    func testScriptsHaveNoHTMLSinkAndNoStringEvaluation() {
        let sinks = ["innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "DOMParser", "createContextualFragment",
                     "eval(", "new Function", "setTimeout('", "setTimeout(\"", "setInterval('", "setInterval(\""]
        XCTAssertFalse(InboxAssetChecks.scripts.isEmpty)
        for asset in InboxAssetChecks.scripts {
            for sink in sinks {
                XCTAssertEqual(InboxAssetChecks.lines(of: asset.text, containing: sink), [], "\(asset.path) uses \(sink)")
            }
        }
    }

    /// The one element builder sets text through `textContent`; no attribute that loads or
    /// navigates (`href`, `src`) is set from a variable.
    func testTheElementBuilderWritesTextOnly() throws {
        let js = try XCTUnwrap(InboxPage.asset(at: "/inbox/inbox.js")).text
        XCTAssertTrue(js.contains("if (k === 'text') e.textContent = String(v);"))
        let dynamic = InboxAssetChecks.matches(of: #"(?:href|src)\s*:\s*([^'\s][^,}]*)"#, in: js)
        XCTAssertEqual(dynamic, [], "href/src set from a variable")
        XCTAssertEqual(InboxAssetChecks.lines(of: js, containing: "setAttribute('href'"), [])
        XCTAssertEqual(InboxAssetChecks.lines(of: js, containing: "setAttribute('src'"), [])
    }

    func testThePageHasNoInlineScriptOrHandler() {
        let html = InboxPage.page.text
        let scripts = InboxAssetChecks.matches(of: #"<script([^>]*)>"#, in: html)
        XCTAssertFalse(scripts.isEmpty)
        for attrs in scripts { XCTAssertTrue(attrs.contains("src=\""), "inline <script\(attrs)>") }
        XCTAssertEqual(InboxAssetChecks.matches(of: #"\s(on[a-z]+)\s*="#, in: html), [], "inline handlers")
        XCTAssertTrue(InboxPage.contentSecurityPolicy.contains("script-src 'self'"))
        XCTAssertFalse(InboxPage.contentSecurityPolicy.contains("unsafe-inline"))
    }

    /// The DOM contract of docs/inbox.md: every data-testid the browser tests use is in the
    /// page or made by the script.
    func testTheDOMContractIsPresent() {
        let html = InboxPage.page.text
        let js = InboxPage.asset(at: "/inbox/inbox.js")?.text ?? ""
        let inPage = ["timeline", "filter-provider", "filter-device", "filter-status", "filter-search", "dropped-banner",
                      "connection-state", "device-list", "device-inbox", "exchange-detail", "detail-request", "detail-auth",
                      "detail-body", "detail-response", "detail-decided", "detail-timing", "retry-timeline", "device-state",
                      "device-state-apply", "fault-form", "fault-json", "fault-add", "fault-list", "reset", "clear-history", "export-scenario", "counts"]
        for id in inPage { XCTAssertTrue(html.contains("data-testid=\"\(id)\""), id) }
        let made = ["exchange-row", "row-text", "device-item", "notification", "notification-title", "notification-body", "decrypt-error",
                    "auth-verdict", "fault-item", "fault-remove"]
        for id in made { XCTAssertTrue(js.contains("'data-testid': '\(id)'"), id) }
        XCTAssertTrue(html.contains("href=\"/scenario/export\""))
    }
}
