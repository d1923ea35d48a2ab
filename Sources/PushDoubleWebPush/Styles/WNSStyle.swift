/// Microsoft WNS answers (docs/webpush.md §6.4 [A]): 200/201 accepted, 400 bad headers, 401 bad
/// authentication, 403 not authorised for this channel, 404 invalid channel, 406 throttled,
/// 410 channel expired, 413 too large. No bodies are recorded.
enum WNSStyle {
    static func response(_ outcome: WebPushOutcome, _ options: WebPushStyleOptions) -> WebPushResponse {
        switch outcome {
        case .accepted:
            return WebPushResponse(status: options.wnsSuccessStatus)
        case .rejected(let r):
            switch r.rule {
            case .payloadTooLarge: return WebPushResponse(status: 413)
            case .vapidKeyMismatch: return WebPushResponse(status: 403)  // not authorised for this channel URI
            case .vapidKeyEqualsECDHKey: return WebPushResponse(status: 400)
            default: return WebPushResponse(status: r.rule.isVAPID ? 401 : 400)
            }
        case .gone(let reason):
            return WebPushResponse(status: reason == .invalidEndpoint ? 404 : 410)
        case .throttled:
            // §6.4: "WNS uses 406, not 429"; no Retry-After recorded.
            return WebPushResponse(status: 406)
        }
    }
}
