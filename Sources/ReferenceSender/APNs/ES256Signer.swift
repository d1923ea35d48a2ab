import PushDoubleCrypto

/// Signs APNs provider JWTs with the team's `.p8` key: header exactly
/// `{"alg":"ES256","kid":…}`, claims exactly `{"iss":team,"iat":seconds}` (apns.md §5).
struct ES256ProviderTokenSigner: ProviderTokenSigner {
    let key: P256PrivateKey

    init(pem: String) throws(CryptoError) { key = try P256PrivateKey(pem: pem) }

    func sign(keyId: String, teamId: String, issuedAt: Int64) throws -> String {
        let header: JOSEObject = ["alg": "ES256", "kid": .string(keyId)]
        let claims: JOSEObject = ["iss": .string(teamId), "iat": .int(issuedAt)]
        return try JWT.sign(header: header, claims: claims, key: .es256(key))
    }
}
