import Foundation
@testable import PushDoubleInbox

/// Static reading of the inbox assets, shared by the fast and the node-tier tests.
enum InboxAssetChecks {
    /// The page and every asset under /inbox/.
    static var all: [InboxAsset] { [InboxPage.page] + InboxPage.assets }

    /// The scripts.
    static var scripts: [InboxAsset] { all.filter { $0.contentType.hasPrefix("text/javascript") } }

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
