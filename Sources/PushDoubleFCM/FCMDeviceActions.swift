import PushDoubleCore

extension FCMModule {
    /// The inbox's actions on an FCM device, in the v1 API's answers (docs/fcm.md): dead (404
    /// `UNREGISTERED`), another sender's token (403 `SENDER_ID_MISMATCH`), and the next sends
    /// throttled (429 `QUOTA_EXCEEDED`), failed (500 `INTERNAL` / 503 `UNAVAILABLE`) or dropped.
    public var deviceActions: [DeviceAction] {
        [.dead("404 UNREGISTERED"),
         DeviceAction(id: "not-for-topic", label: "Other sender's token",
                      summary: "a token of another project: 403 SENDER_ID_MISMATCH", state: .otherApp),
         .respond(id: "throttle", label: "Throttle", summary: "429 QUOTA_EXCEEDED", reason: FCMErrorCode.quotaExceeded.rawValue),
         .respond(id: "fail-500", label: "Fail with 500", summary: "500 INTERNAL", reason: FCMErrorCode.internal.rawValue),
         .respond(id: "fail-503", label: "Fail with 503", summary: "503 UNAVAILABLE", reason: FCMErrorCode.unavailable.rawValue),
         .dropNextConnection, .revive()]
    }
}
