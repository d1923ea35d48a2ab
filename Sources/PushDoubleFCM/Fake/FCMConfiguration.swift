import PushDoubleCrypto

/// The settings of one ``FCMFake``: the accounts it trusts, token lifetime, and the knobs of
/// the token endpoint and the message validator (docs/fcm.md has each default's source).
public struct FCMConfiguration: Sendable {
    /// Service accounts whose assertions the token endpoint accepts (default: the shipped one,
    /// Certificates/firebase-test-service-account.json).
    public var serviceAccounts: [GoogleServiceAccount]
    /// Project numbers accepted in place of the project ids (docs/fcm.md §1); also named in the
    /// QUOTA_EXCEEDED text.
    public var projectNumbers: Set<String> = [FCMConfiguration.shippedProjectNumber]
    /// `expires_in` of issued access tokens (docs/fcm.md §6.3: 3599); shorten it to watch a sender refresh.
    public var accessTokenLifetimeSeconds = 3599
    public var tokenEndpoint: GoogleTokenEndpointConfiguration
    public var validator = FCMValidatorConfiguration()
    /// The body for an invalid registration token: the current documented form (docs/fcm.md §4.3
    /// "doc example 2") or ``GoogleErrorEnvelope/invalidRegistrationTokenLegacy``.
    public var invalidTokenEnvelope = GoogleErrorEnvelope.invalidRegistrationToken
    /// `Retry-After` of the QUOTA_EXCEEDED answer to a rate-limited device. docs/fcm.md §4.6 records
    /// "at least 1 minute" (UNCONFIRMED) when there is none, so 60.
    public var quotaRetryAfterSeconds = 60

    /// The project number of the shipped project (not in the key file; PushDouble's choice).
    public static let shippedProjectNumber = "123456789012"

    /// The shipped account, parsed once from PushDoubleCrypto's embedded copy of the key file
    /// (a constant that `TestCredentialsTests` keeps equal to Certificates/, and that
    /// `FCMOAuthSupportTests` parses: a parse failure here is a build defect).
    public static let shippedServiceAccount: GoogleServiceAccount =
        try! GoogleServiceAccount(jsonText: FCMTestCredentials.serviceAccountJSON)

    public init(serviceAccounts: [GoogleServiceAccount] = [FCMConfiguration.shippedServiceAccount]) {
        self.serviceAccounts = serviceAccounts
        tokenEndpoint = GoogleTokenEndpointConfiguration()
        // The shipped key file's token_uri (https://127.0.0.1:8724/token) is also an accepted aud.
        for sa in serviceAccounts { if let uri = sa.tokenURI { tokenEndpoint.audiences.insert(uri) } }
    }
}
