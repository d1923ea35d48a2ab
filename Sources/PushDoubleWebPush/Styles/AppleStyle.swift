/// Apple Web Push answers (docs/webpush.md §6.3 [O]).
enum AppleStyle {
    /// `{"reason":"BadJwtToken"}`: the body of every VAPID problem (§6.3), Apple's causes
    /// including a missing JWT.
    static let badJwtTokenBody = #"{"reason":"BadJwtToken"}"#

    static func response(_ outcome: WebPushOutcome, _ options: WebPushStyleOptions) -> WebPushResponse {
        switch outcome {
        case .accepted:
            // §6.3: 201 (https://github.com/web-push-libs/web-push/issues/947); no header or body recorded.
            return WebPushResponse(status: 201)
        case .rejected(let r):
            if r.rule.isVAPID, r.rule != .vapidKeyEqualsECDHKey {
                return WebPushResponse(status: 403, headers: [.init("Content-Type", "application/json")],
                                       body: Array(badJwtTokenBody.utf8))
            }
            // Reasons other than BadJwtToken are UNCONFIRMED (§6.3): RFC status, empty body.
            return WebPushResponse(status: r.rule.rfcStatus)
        case .gone:
            return WebPushResponse(status: options.appleGoneStatus, body: options.appleGoneBody)
        case .throttled(let s):
            return rfcThrottle(s)
        }
    }
}
