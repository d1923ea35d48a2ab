/// The registered providers of the reference sender: one line per provider. The driver,
/// `--list-mutants` and `--list-variants` read this list and nothing else; the order is the
/// order of the `initialize` result's `providers` and of sending within one `send`.
enum SenderProviders {
    static let all: [any SenderProvider.Type] = [
        APNsSenderProvider.self,
        FCMSenderProvider.self,
        WebPushSenderProvider.self,
        ExpoSenderProvider.self,
    ]
}
