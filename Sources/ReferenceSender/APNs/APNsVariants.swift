/// The APNs sender's correct variants (``Variant``).
extension Variant {
    static let jwtRefresh50min = Variant("jwt-refresh-50min",
        "starts with a shared JWT already about 50 min old (as from a team-wide token cache), refreshes it when 50 min old and moves to a new connection with the new token")
    static let jwtPerConnection = Variant("jwt-per-connection",
        "a pool of \(Variant.poolSize) connections, each signing and reusing its own provider JWT (as clients that keep a token per connection)")
    static let apnsNoPushType = Variant("apns-no-push-type",
        "a library with no way to name the APNs push type: sends every push as alert or background and declares in initialize that it cannot express apns pushType")
}

extension APNsSenderProvider {
    static var variants: [Variant] { [.jwtRefresh50min, .jwtPerConnection, .apnsNoPushType] }

    /// `apns-no-push-type` cannot express `pushType`; otherwise every field.
    static func expressibleFields(variant: Variant?) -> [String]? {
        variant == .apnsNoPushType ? NeutralNotification.fieldNames.filter { $0 != "pushType" } : nil
    }
}
