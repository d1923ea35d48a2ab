/// The reference sender's FCM half: configuration from `initialize.params.providers.fcm` (or
/// `FCM_URL`, `FCM_SERVICE_ACCOUNT_FILE`, `FCM_PROJECT_ID`), then ``FCMSender``. FCM is sent
/// over real sockets only: the scripted test mode is an in-memory APNs.
final class FCMSenderProvider: SenderProvider {
    static let id = "fcm"
    static var targetKinds: [String] { SendTarget.supportedKinds }
    let sender: FCMSender

    init(sender: FCMSender) { self.sender = sender }

    static func configure(_ params: JSONObject?, context: SenderContext) throws(DriverError) -> FCMSenderProvider? {
        guard context.scripted == nil else { return nil }
        let p = ProviderParameters(provider: id, params: params, environment: context.environment)
        guard let url = try p.string("url", "FCM_URL") else {
            if p.given { throw .invalidParams("providers.fcm.url (or FCM_URL) is required") }
            return nil
        }
        let file = try p.required("serviceAccountFile", "FCM_SERVICE_ACCOUNT_FILE")
        let settings = try FCMSettings.load(url: url, serviceAccountFile: file, projectId: try p.string("projectId", "FCM_PROJECT_ID"),
                                            caFile: try p.caFile())
        let sender = FCMSender(settings: settings, clock: SystemSenderClock(), mutant: context.mutant, variant: context.variant,
                               random: context.jitterSource())
        Log.info("initialize: fcm \(url) project \(settings.projectId) account \(settings.clientEmail)"
                 + (context.mutant.isEmpty ? "" : " mutant \(context.mutant.names)") + (context.variant.map { " variant \($0.rawValue)" } ?? ""))
        return FCMSenderProvider(sender: sender)
    }

    func send(_ notification: NeutralNotification, to devices: [DriverDevice], targets: [SendTarget]) async -> [DeviceResult] {
        let r = await sender.send(notification, to: devices.map(\.device), targets: targets)
        return r.devices.enumerated().map { i, d in
            d ?? DeviceResult(device: devices[i].device.id, outcome: .skipped, reason: "UnsupportedProvider")
        } + r.targets
    }

    func subscribe(topic: String, devices: [TargetDevice]) async -> [DeviceResult]? {
        await sender.subscribe(topic: topic, devices: devices)
    }

    func shutdown() async { await sender.shutdown() }
}
