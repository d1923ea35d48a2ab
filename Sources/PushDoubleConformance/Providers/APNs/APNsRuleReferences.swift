/// Where Apple states the generic rules (``ConformanceProvider/ruleReferences``).
extension APNsConformance {
    public var ruleReferences: [String: String] {
        Self.citations(permanent: "apns.md §7.2 (Apple's retry rule)", dead: "apns.md §7.2 (410 Unregistered: stop sending)",
                       retry: "apns.md §7.2 (429: retry after a delay; 5xx: retry with backoff)",
                       connection: "Apple, Sending notification requests to APNs (keep connections open and reuse them)")
    }
}
