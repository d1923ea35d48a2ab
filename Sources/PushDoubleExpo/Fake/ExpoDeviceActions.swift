import PushDoubleCore

extension ExpoModule {
    /// The inbox's actions on an Expo device (docs/expo.md "Devices"): dead at the ticket
    /// (`DeviceNotRegistered` error ticket), dead only in the receipt (the `receipt`
    /// attribute), the next sends throttled (429 `TOO_MANY_REQUESTS`), failed with a bare 500 /
    /// 503 (Expo documents no error code for either) or dropped.
    public var deviceActions: [DeviceAction] {
        [.dead("DeviceNotRegistered error ticket"),
         DeviceAction(id: "receipt-dead", label: "Dead in the receipt",
                      summary: "ok ticket, receipt DeviceNotRegistered",
                      effect: .device(state: .active, attributes: [ExpoDeviceOutcome.receiptAttribute:
                                                                    .string(ExpoPushErrorKind.deviceNotRegistered.rawValue)])),
         .respond(id: "throttle", label: "Throttle", summary: "429 TOO_MANY_REQUESTS", reason: ExpoErrorCode.tooManyRequests.rawValue),
         .respond(id: "fail-500", label: "Fail with 500", summary: "500, no body", status: 500),
         .respond(id: "fail-503", label: "Fail with 503", summary: "503, no body", status: 503),
         .dropNextConnection,
         .revive(attributes: [ExpoDeviceOutcome.receiptAttribute: .string("ok")])]
    }

    /// A token and the receipt its ok tickets get (``ExpoDeviceOutcome/receiptValues``).
    public var deviceForm: DeviceForm {
        DeviceForm(fields: [.token, .init(ExpoDeviceOutcome.receiptAttribute, label: "Receipt outcome", values: ExpoDeviceOutcome.receiptValues)])
    }
}
