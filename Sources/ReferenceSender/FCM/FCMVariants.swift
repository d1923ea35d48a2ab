/// The FCM sender's correct variants (``Variant``).
extension Variant {
    static let fcmEarlyRefresh = Variant("fcm-early-refresh",
        "re-mints the FCM OAuth2 access token once half its expires_in has passed (not a minute before expiry), never per message")
    static let fcmRefreshOn401 = Variant("fcm-refresh-on-401",
        "keeps the FCM access token until FCM refuses it (401 UNAUTHENTICATED), then mints a new one once and retries")
    static let fcmRefreshMargin = Variant("fcm-refresh-margin",
        "google-auth's refresh margin: the access token counts as expired 3 min 45 s before its expiry (a token living less is minted for every message)")
    static let fcmColdStartStampede = Variant("fcm-cold-start-stampede",
        "thread-per-message sends whose token refresh takes no lock: at cold start every concurrent message mints its own token, then all reuse the last")
    static let fcmHTTP1Pool = Variant("fcm-http1-pool",
        "FCM over HTTP/1.1 with a pool of \(Variant.http1PoolSize) connections, one request at a time each (as requests/urllib3 under firebase-admin)")

    /// Connections of `fcm-http1-pool` (requests' default pool keeps ten; six is a pool that
    /// leaves some connections with a single request).
    static let http1PoolSize = 6
}

extension FCMSenderProvider {
    static var variants: [Variant] { [.fcmEarlyRefresh, .fcmRefreshOn401, .fcmRefreshMargin, .fcmColdStartStampede, .fcmHTTP1Pool] }
}
