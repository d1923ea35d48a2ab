/// The APNs sender's correct variants (``Variant``).
extension Variant {
    static let jwtRefresh50min = Variant("jwt-refresh-50min",
        "starts with a shared JWT already about 50 min old (as from a team-wide token cache), refreshes it when 50 min old and moves to a new connection with the new token")
    static let jwtPerConnection = Variant("jwt-per-connection",
        "a pool of \(Variant.poolSize) connections, each signing and reusing its own provider JWT (as clients that keep a token per connection)")
}

extension APNsSenderProvider {
    static var variants: [Variant] { [.jwtRefresh50min, .jwtPerConnection] }
}
