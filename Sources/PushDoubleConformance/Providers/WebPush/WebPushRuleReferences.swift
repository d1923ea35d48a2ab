/// Where the Web Push documents state the generic rules (``ConformanceProvider/ruleReferences``).
extension WebPushConformance {
    public var ruleReferences: [String: String] {
        let retry = "RFC 8030 §8.4 (429 with Retry-After); webpush.md \"Service answers\" (throttled, 5xx)"
        return ["no-retry-permanent": "webpush.md \"Service answers\" (400/403/413: the request is wrong, do not resend it)",
                "dead-token-not-reused": "webpush.md \"Service answers\" (404/410: the subscription is gone, delete it)",
                "transient-retried": retry, "no-tight-retry-loop": retry, "backoff-grows": retry]
    }
}
