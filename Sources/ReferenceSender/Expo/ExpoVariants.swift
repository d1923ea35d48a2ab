/// The Expo sender's correct variants (``Variant``).
extension Variant {
    static let expoTooBigFromReceipt = Variant("expo-too-big-from-receipt",
        "no local 4096-byte check: an oversized message is sent, reported pending, and rejected once its receipt says MessageTooBig (never resent)")
}

extension ExpoSenderProvider {
    static var variants: [Variant] { [.expoTooBigFromReceipt] }
}
