/// The reference sender's Web Push half: configuration from `initialize.params.providers.webpush`
/// (or `VAPID_PRIVATE_KEY_FILE`, `VAPID_PUBLIC_KEY`, `VAPID_SUBJECT`), then ``WebPushSender``.
/// Each device carries its subscription (`{"subscription": {"endpoint", "keys"}}`).
final class WebPushSenderProvider: SenderProvider {
    static let id = "webpush"
    let sender: WebPushSender
    private let mutant: MutantSet

    init(sender: WebPushSender, mutant: MutantSet) { self.sender = sender; self.mutant = mutant }

    static func configure(_ params: JSONObject?, context: SenderContext) throws(DriverError) -> WebPushSenderProvider? {
        guard let w = try WebPushConfiguration(ProviderParameters(provider: id, params: params, environment: context.environment)) else {
            return nil
        }
        let connector: any PushConnector = context.scripted?.connector ?? HTTP2PushConnector(caFile: w.caFile)
        let sender = WebPushSender(configuration: w, connector: connector, clock: context.clock, mutant: context.mutant,
                                   random: context.jitterSource(), variant: context.variant)
        Log.info("initialize: webpush, VAPID subject \(w.subject)")
        return WebPushSenderProvider(sender: sender, mutant: context.mutant)
    }

    func send(_ notification: NeutralNotification, to devices: [DriverDevice], targets: [SendTarget]) async -> [DeviceResult] {
        let results = await sender.send(notification, to: devices.map { ($0.device, $0.json) })
        // Planted bug (generic): every device reported sent, whatever happened.
        if mutant.contains(.reportSentAlways) { return results.map { DeviceResult(device: $0.device, outcome: .sent) } }
        return results
    }

    func shutdown() async { await sender.shutdown() }
}
