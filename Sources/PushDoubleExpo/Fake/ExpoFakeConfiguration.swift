import PushDoubleCore
import PushDoubleCrypto

/// The settings of one Expo fake (``ExpoService``): the module's options
/// (`fakeOptions.expo` of a scenario) decoded by ``ExpoModule/configuration(options:context:)``.
/// Defaults follow docs/expo.md; docs/expo.md lists each option with its source.
public struct ExpoFakeConfiguration: Sendable {
    /// Enhanced push security (docs/expo.md §1 "Auth" [A]): a send needs
    /// `Authorization: Bearer <accessToken>`. On by default (option `requireAccessToken`).
    public var requireAccessToken = true
    /// The project's access token the fake accepts (option `accessToken`); senders are told it
    /// as `EXPO_ACCESS_TOKEN`.
    public var accessToken = ExpoFakeConfiguration.shippedAccessToken
    /// When receipts become visible (options `receiptDelaySeconds`, `holdReceipts`).
    public var receiptAvailability = ExpoReceiptAvailability.afterDelay(seconds: 0)
    /// Seconds a receipt is kept (docs/expo.md §1 [A]: 24 h; option `receiptRetentionSeconds`).
    public var receiptRetention: Double = 24 * 60 * 60
    /// Notifications per second per project (docs/expo.md §1 [A]: 600; option `rateLimitPerSecond`,
    /// 0 = off).
    public var rateLimitPerSecond = 600
    /// The project of tokens no registered device names (open world), for the rate only:
    /// every real token belongs to some project (option `defaultProject`).
    public var defaultProject = "@pushdouble/app"
    /// Decoding and validation of send bodies (option `messageTooBig`: "receipt" | "ticket").
    public var decoder = ExpoSendDecoderConfiguration()
    /// `data` of a one-message, one-recipient request whose body is an object (docs/expo.md
    /// §3.1): one ticket object by default, as documented; option `singleTicket: "array"` keeps
    /// the array form.
    public var singleTicket = ExpoSingleTicketShape.object
    /// Refuse a bearer token that is not the access token with `invalid_token`, whether or not
    /// ``requireAccessToken`` is on (docs/expo.md §3.2a); off: such a request is treated as one
    /// without a token.
    public var refuseInvalidAccessToken = true
    /// Most receipts kept (with them, the send records that annotate the history).
    public var receiptCapacity = 100_000
    /// Most bytes of receipts kept (``ExpoReceiptStoreConfiguration/maxBytes``).
    public var receiptMaxBytes = ExpoReceiptStoreConfiguration.defaultMaxBytes

    /// The access token the fake accepts unless configured otherwise: the shipped test token
    /// (`Certificates/expo-test-access-token.txt`, embedded as `EmbeddedTestCredentials`),
    /// never a real Expo token.
    public static var shippedAccessToken: String { ExpoTestCredentials.accessToken }

    public init() {}
}
