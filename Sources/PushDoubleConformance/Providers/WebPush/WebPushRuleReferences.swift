/// Where the Web Push documents state the generic rules (``ConformanceProvider/ruleReferences``).
extension WebPushConformance {
    public var ruleReferences: [String: String] {
        Self.citations(permanent: "webpush.md \"Service answers\" (400/403/413: the request is wrong, do not resend it)",
                       dead: "webpush.md \"Service answers\" (404/410: the subscription is gone, delete it)",
                       retry: "RFC 8030 §8.4 (429 with Retry-After); webpush.md \"Service answers\" (throttled, 5xx)")
    }
}
