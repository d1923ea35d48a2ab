/// The reference sender's Expo half: configuration from `initialize.params.providers.expo` (or
/// `EXPO_URL`, `EXPO_ACCESS_TOKEN`), then ``ExpoSender``, whose tickets wait for receipts in
/// `settle`.
final class ExpoSenderProvider: SenderProvider {
    static let id = "expo"
    let sender: ExpoSender

    init(sender: ExpoSender) { self.sender = sender }

    static func configure(_ params: JSONObject?, context: SenderContext) throws(DriverError) -> ExpoSenderProvider? {
        guard let expo = try ExpoConfiguration(ProviderParameters(provider: id, params: params, environment: context.environment)) else {
            return nil
        }
        guard let endpoint = HTTPSEndpoint(url: expo.url) else { throw .invalidParams("expo.url \(expo.url) is not an https URL") }
        let sender = ExpoSender(configuration: expo, endpoint: endpoint, clock: context.clock, mutant: context.mutant,
                                variant: context.variant, random: context.jitterSource())
        Log.info("initialize: expo \(expo.url)" + (expo.accessToken == nil ? "" : " with an access token"))
        return ExpoSenderProvider(sender: sender)
    }

    func send(_ notification: NeutralNotification, to devices: [DriverDevice], targets: [SendTarget]) async -> [DeviceResult] {
        await sender.send(notification, to: devices.map(\.device))
    }

    func settle() async -> [DeviceResult] { await sender.settle() }
    func shutdown() async { sender.shutdown() }
}
