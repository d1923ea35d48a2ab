/// Signs APNs provider JWTs with the team's `.p8` key (PushDoubleCrypto).
struct ES256ProviderTokenSigner: ProviderTokenSigner {
    struct Unavailable: Error {}
    init(pem: String) throws { throw Unavailable() }
    func sign(keyId: String, teamId: String, issuedAt: Int64) throws -> String { throw Unavailable() }
}
