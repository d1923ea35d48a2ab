import Foundation

/// How the inbox (the admin listener's web UI, docs/inbox.md) shows one provider's
/// notifications: a script and a style that the inbox serves, assembled with every other
/// provider's, at `/inbox/views.js` and `/inbox/views.css`. A provider keeps them next to its
/// fake (`Sources/PushDouble<Name>/Inbox/`) and hands them over through
/// ``ProviderModule/inboxView``.
///
/// The script registers one function under the provider id:
///
///     (window.PushDoubleInboxViews = window.PushDoubleInboxViews || {}).apns =
///       function (ex, index, h) { … return {platform, app, title, subtitle, body, silent, silentWhy, badge, meta, decryptError}; };
///
/// `ex` is the exchange as `GET /history` returns it, `index` the recipient of a batch (-1 for
/// one), `h` the inbox's helpers (`str`, `isObject`, `pick`, `otherKeys`, `pretty`, `decodeJWT`).
/// The style dresses `.notification[data-platform="<platform>"]`. Both reach the DOM only as text.
///
/// What else differs by provider the script sets as optional hooks on that function
/// (docs/inbox.md, "Provider hooks"): `delivers(ex, index, h)`, `decodeAuthorization(scheme,
/// rest, h)`, `credentialDetails(ex, h)` and `messageIdentity(req, t)`; the last one is also read
/// by the retry timeline of the HTML conformance report, which inlines the views.
public struct InboxView: Sendable, Equatable {
    /// The view's JavaScript (registers `window.PushDoubleInboxViews.<provider>`).
    public var script: String
    /// Its CSS (empty for none).
    public var style: String

    public init(script: String, style: String = "") {
        self.script = script; self.style = style
    }

    /// A view from the bytes SwiftPM embeds (`.embedInCode`), UTF-8 text.
    public init(script: [UInt8], style: [UInt8] = []) {
        self.init(script: String(decoding: script, as: UTF8.self), style: String(decoding: style, as: UTF8.self))
    }
}
