import Synchronization
import PushDoubleCrypto

/// The service accounts one FCM fake knows and the access tokens it issued: the token
/// endpoint (``GoogleTokenEndpoint``) behind a lock, so the admin API can add accounts while
/// requests are served (a test may add accounts and projects while its sender runs).
public final class FCMAccountDirectory: Sendable {
    /// Every access token issued by this fake (shared by the token and send endpoints).
    public let store: FCMAccessTokenStore
    private let endpoint: Mutex<GoogleTokenEndpoint>

    public init(accounts: [GoogleKnownAccount], store: FCMAccessTokenStore, configuration: GoogleTokenEndpointConfiguration) {
        self.store = store
        endpoint = Mutex(GoogleTokenEndpoint(accounts: accounts, store: store, configuration: configuration))
    }

    /// The token endpoint as it is now (a value: later additions do not change it).
    public var tokenEndpoint: GoogleTokenEndpoint { endpoint.withLock { $0 } }

    /// Adds (or replaces, by `client_email`) an account.
    public func add(_ account: GoogleKnownAccount) {
        endpoint.withLock { e in
            var all = Array(e.accounts.values.filter { $0.clientEmail != account.clientEmail })
            all.append(account)
            e = GoogleTokenEndpoint(accounts: all, store: store, configuration: e.configuration)
        }
    }

    /// The known accounts, sorted by `client_email`.
    public var accounts: [GoogleKnownAccount] {
        endpoint.withLock { $0.accounts.values.sorted { $0.clientEmail < $1.clientEmail } }
    }
}
