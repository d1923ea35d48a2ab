import PushDoubleCore

extension WebPushModule {
    /// How the inbox shows this provider's notifications: `Inbox/webpush-view.js` and
    /// `Inbox/webpush-view.css`, compiled in (`.embedInCode` in Package.swift).
    public var inboxView: InboxView? {
        InboxView(script: PackageResources.webpush_view_js, style: PackageResources.webpush_view_css)
    }
}
