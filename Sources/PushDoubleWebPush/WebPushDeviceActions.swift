import PushDoubleCore

extension WebPushModule {
    /// The inbox's actions on a Web Push subscription, answered in the subscription's service
    /// style (docs/webpush.md): gone (410), the next pushes throttled (429 with `Retry-After`),
    /// failed with a bare 500 / 503 or dropped.
    public var deviceActions: [DeviceAction] {
        [.dead("410 Gone in the service's style"),
         .respond(id: "throttle", label: "Throttle", summary: "429 in the service's style", reason: WebPushFake.throttledReason),
         .respond(id: "fail-500", label: "Fail with 500", summary: "500, no body", status: 500),
         .respond(id: "fail-503", label: "Fail with 503", summary: "503, no body", status: 503),
         .dropNextConnection, .revive()]
    }

    /// A subscription made as a browser makes it (`POST /webpush/subscriptions`), in the style
    /// of one push service.
    public var deviceForm: DeviceForm {
        DeviceForm(route: "/webpush/subscriptions", fields: [.init("service", label: "Service style", values: WebPushService.allCases.map(\.rawValue))])
    }
}
