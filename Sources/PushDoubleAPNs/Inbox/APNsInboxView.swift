import PushDoubleCore

extension APNsModule {
    /// How the inbox shows this provider's notifications: `Inbox/apns-view.js` and
    /// `Inbox/apns-view.css`, compiled in (`.embedInCode` in Package.swift).
    public var inboxView: InboxView? {
        InboxView(script: PackageResources.apns_view_js, style: PackageResources.apns_view_css)
    }
}
