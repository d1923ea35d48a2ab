/// Where Firebase states the generic rules (``ConformanceProvider/ruleReferences``): the FCM
/// HTTP v1 ErrorCode reference, https://firebase.google.com/docs/reference/fcm/rest/v1/ErrorCode.
extension FCMConformance {
    public var ruleReferences: [String: String] {
        Self.citations(permanent: "FCM v1 ErrorCode (INVALID_ARGUMENT, SENDER_ID_MISMATCH: do not retry unchanged); fcm.md §4.4",
                       dead: "FCM v1 ErrorCode (UNREGISTERED: the registration token is no longer valid); fcm.md §4.4",
                       retry: "FCM v1 ErrorCode (UNAVAILABLE, INTERNAL, QUOTA_EXCEEDED: retry with exponential backoff); fcm.md §4.4")
    }
}
