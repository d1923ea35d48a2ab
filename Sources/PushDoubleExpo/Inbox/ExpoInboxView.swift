import PushDoubleCore

extension ExpoModule {
    /// How the inbox shows this provider's notifications: `Inbox/expo-view.js` and
    /// `Inbox/expo-view.css`, compiled in (`.embedInCode` in Package.swift).
    public var inboxView: InboxView? {
        InboxView(script: PackageResources.expo_view_js, style: PackageResources.expo_view_css)
    }
}
