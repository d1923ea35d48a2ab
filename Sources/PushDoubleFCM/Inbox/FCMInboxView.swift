import PushDoubleCore

extension FCMModule {
    /// How the inbox shows this provider's notifications: `Inbox/fcm-view.js` and
    /// `Inbox/fcm-view.css`, compiled in (`.embedInCode` in Package.swift).
    public var inboxView: InboxView? {
        InboxView(script: PackageResources.fcm_view_js, style: PackageResources.fcm_view_css)
    }
}
