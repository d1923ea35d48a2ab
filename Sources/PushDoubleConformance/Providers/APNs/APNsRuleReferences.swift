/// Where Apple states the generic rules (``ConformanceProvider/ruleReferences``).
extension APNsConformance {
    public var ruleReferences: [String: String] {
        let retry = "apns.md §7.2 (429: retry after a delay; 5xx: retry with backoff)"
        return ["no-retry-permanent": "apns.md §7.2 (Apple's retry rule)",
                "dead-token-not-reused": "apns.md §7.2 (410 Unregistered: stop sending)",
                "transient-retried": retry, "no-tight-retry-loop": retry, "backoff-grows": retry,
                "connection-reuse": "Apple, Sending notification requests to APNs (keep connections open and reuse them)"]
    }
}
