/// The real push service a subscription imitates: it shapes the endpoint URL
/// (``WebPushSubscription``) and the answers (``WebPushServiceStyle``).
///
/// Endpoint shapes, webpush.md §6:
/// - `mozilla`: `https://updates.push.services.mozilla.com/wpush/v1/<token>`, `v2` for
///   VAPID-restricted subscriptions (§6.2 [L]);
/// - `fcm`: `https://fcm.googleapis.com/fcm/send/<token>` (§6.1 [O]);
/// - `apple`: `https://web.push.apple.com/<token>` (§6.3 [O]);
/// - `wns`: `https://*.notify.windows.com/w/?token=<token>` (§6.4 [A]). webpush.md does not
///   record the `*` label; ``defaultOrigin`` uses `wns.notify.windows.com` (a choice, see
///   docs/webpush.md).
public enum WebPushService: String, Sendable, Equatable, Hashable, CaseIterable {
    case mozilla
    case fcm
    case apple
    case wns

    /// The origin (`scheme://host`) of the real service's endpoints.
    public var defaultOrigin: String {
        switch self {
        case .mozilla: return "https://updates.push.services.mozilla.com"
        case .fcm: return "https://fcm.googleapis.com"
        case .apple: return "https://web.push.apple.com"
        case .wns: return "https://wns.notify.windows.com"
        }
    }

    /// The path and query of an endpoint, after the origin: `/wpush/v1/<token>` (Mozilla; `v2`
    /// when `restricted`, i.e. made with an `applicationServerKey`), `/fcm/send/<token>`,
    /// `/<token>` (Apple), `/w/?token=<token>` (WNS). webpush.md §6.1–§6.4.
    public func endpointPath(token: String, restricted: Bool) -> String {
        switch self {
        case .mozilla: return "/wpush/\(restricted ? "v2" : "v1")/\(token)"
        case .fcm: return "/fcm/send/\(token)"
        case .apple: return "/\(token)"
        case .wns: return "/w/?token=\(token)"
        }
    }
}
