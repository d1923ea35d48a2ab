import Foundation
@testable import PushDoubleInbox
import PushDouble

/// Static reading of the inbox assets, shared by the fast and the node-tier tests.
enum InboxAssetChecks {
    /// The page and every asset under /inbox/.
    static var all: [InboxAsset] { own + views }

    /// The inbox's own files: the page and its assets.
    static var own: [InboxAsset] { [InboxPage.page] + InboxPage.assets }

    /// The registered providers' views, assembled (`/inbox/views.js`, `/inbox/views.css`).
    static var views: [InboxAsset] { InboxPage.viewAssets(FakeRegistry.inboxViews) }

    /// The scripts.
    static var scripts: [InboxAsset] { all.filter { $0.contentType.hasPrefix("text/javascript") } }

    /// The repository's `Sources/` directory (found from this file's path).
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sources")

    /// The source file each inbox asset is compiled from (`Sources/PushDoubleInbox/Assets/<name>`).
    static func sourceFile(of asset: InboxAsset) -> URL {
        let name = asset.path == InboxPage.page.path ? "inbox.html" : String(asset.path.split(separator: "/").last!)
        return sources.appendingPathComponent("PushDoubleInbox/Assets").appendingPathComponent(name)
    }

    /// Each provider's inbox view files (`Sources/PushDouble<Name>/Inbox/*.js|*.css`).
    static var providerViewFiles: [URL] {
        let modules = (try? FileManager.default.contentsOfDirectory(atPath: sources.path)) ?? []
        return modules.sorted().flatMap { module -> [URL] in
            let dir = sources.appendingPathComponent(module).appendingPathComponent("Inbox")
            let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
            return names.sorted().filter { $0.hasSuffix(".js") || $0.hasSuffix(".css") }.map { dir.appendingPathComponent($0) }
        }
    }

    /// Every JavaScript source file of the inbox, of the providers' views and of the HTML
    /// report, as it is in the tree.
    static var scriptFiles: [URL] {
        own.filter { $0.contentType.hasPrefix("text/javascript") }.map(sourceFile(of:))
            + providerViewFiles.filter { $0.pathExtension == "js" }
            + [sources.appendingPathComponent("PushDoubleConformance/Reporters/Assets/report.js")]
    }

    /// Every `href="…"` / `src="…"` value of an HTML text, in order.
    static func references(in html: String) -> [String] {
        matches(of: #"(?:href|src)\s*=\s*"([^"]*)""#, in: html)
    }

    /// The first capture group of every match of `pattern`.
    static func matches(of pattern: String, in text: String) -> [String] {
        let re = try! NSRegularExpression(pattern: pattern)
        let ns = text as NSString
        return re.matches(in: text, range: NSRange(location: 0, length: ns.length)).map {
            $0.numberOfRanges > 1 ? ns.substring(with: $0.range(at: 1)) : ns.substring(with: $0.range)
        }
    }

    /// Lines of `text` containing `needle`, with their 1-based numbers.
    static func lines(of text: String, containing needle: String) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            .filter { $0.element.contains(needle) }.map { "\($0.offset + 1): \($0.element)" }
    }
}
