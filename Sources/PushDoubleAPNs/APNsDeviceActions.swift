import PushDoubleCore

extension APNsModule {
    /// The inbox's actions on an APNs device, in Apple's answers (docs/apns.md): dead (410
    /// `Unregistered` with the timestamp), the other environment's token (400
    /// `BadDeviceToken`), another app's token (400 `DeviceTokenNotForTopic`), and the next
    /// pushes throttled (429 `TooManyRequests`), failed (500 / 503) or dropped.
    public var deviceActions: [DeviceAction] {
        [.dead("410 Unregistered with the timestamp of the click"),
         DeviceAction(id: "wrong-environment", label: "Wrong environment",
                      summary: "a token of the other environment: 400 BadDeviceToken",
                      effect: .environment([APNsEnvironment.sandbox.rawValue, APNsEnvironment.production.rawValue])),
         DeviceAction(id: "not-for-topic", label: "Token not for topic",
                      summary: "another app's token: 400 DeviceTokenNotForTopic", state: .otherApp),
         .respond(id: "throttle", label: "Throttle", summary: "429 TooManyRequests", reason: APNsReason.tooManyRequests.rawValue),
         .respond(id: "fail-500", label: "Fail with 500", summary: "500 InternalServerError", reason: APNsReason.internalServerError.rawValue),
         .respond(id: "fail-503", label: "Fail with 503", summary: "503 ServiceUnavailable", reason: APNsReason.serviceUnavailable.rawValue),
         .dropNextConnection, .revive()]
    }

    /// A token, the environment it belongs to (empty = either) and the app (topic) it belongs to.
    public var deviceForm: DeviceForm {
        DeviceForm(fields: [.token, .init("environment", label: "Environment", values: [""] + APNsEnvironment.allCases.map(\.rawValue)),
                            .init("topic", label: "Topic (bundle id)")])
    }
}
