import Foundation

/// One static file of the inbox page or the HTML report, compiled into the binary (no
/// resource bundle to lose, no CDN): its path under the admin listener, its media type
/// and its bytes. The files themselves are in `Assets/`, listed in `InboxAssets.swift`.
public struct InboxAsset: Sendable {
    /// Path under the admin listener ("/inbox/timeline.js").
    public let path: String
    /// `content-type` value ("text/javascript; charset=utf-8").
    public let contentType: String
    /// The file's text.
    public let text: String

    public init(path: String, contentType: String, text: String) {
        self.path = path; self.contentType = contentType; self.text = text
    }

    /// An asset from a file's bytes as SwiftPM embeds them (UTF-8 text).
    public init(path: String, contentType: String, bytes: [UInt8]) {
        self.init(path: path, contentType: contentType, text: String(decoding: bytes, as: UTF8.self))
    }
}
