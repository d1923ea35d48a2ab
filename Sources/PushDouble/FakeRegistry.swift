import Foundation
import PushDoubleCore
import PushDoubleAPNs
import PushDoubleFCM
import PushDoubleExpo
import PushDoubleWebPush
import PushDoubleCrypto

/// The registration point of provider modules and of the embedded test credentials: the one
/// place that names every provider the in-process server serves by default.
///
/// A new provider adds its module folder and one line to ``modules`` (and one line to the
/// conformance runner's `ConformanceProviders.all`); see docs/adding-a-provider.md.
public enum FakeRegistry {
    /// Every provider module served by default, in banner and environment order.
    public static let modules: [any ProviderModule] = [
        APNsModule(),
        FCMModule(),
        ExpoModule(),
        WebPushModule(),
    ]

    /// Each registered provider's inbox view (``InboxView``), in ``modules`` order.
    public static var inboxViews: [(provider: ProviderID, view: InboxView)] {
        modules.compactMap { m in m.inboxView.map { (m.provider, $0) } }
    }

    /// The module of `provider`, if registered.
    public static func module(_ provider: ProviderID) -> (any ProviderModule)? {
        modules.first { $0.provider == provider }
    }

    /// Listener specs of every registered module with default options and default ports.
    /// `clock` should be the double's clock (fakes date some answers with it).
    public static func defaultListeners(clock: any DoubleClock = SystemClock()) -> [FakeListenerSpec] {
        modules.flatMap { m in
            (try? m.instantiate(options: nil, context: ProviderBuildContext(clock: clock, optionsPath: m.provider.rawValue)))?.listeners ?? []
        }
    }

    /// Every listener name and default port: the admin API first, then each module's.
    public static var listenerDefaults: [ListenerDefault] {
        [ListenerDefault(name: "admin", defaultPort: DefaultPorts.admin, summary: "admin API (devices, faults, history), plain HTTP")]
            + modules.flatMap(\.listenerDefaults)
            + [ListenerDefault(name: PushDoubleServer.proxyListener, defaultPort: DefaultPorts.proxy,
                               summary: "HTTPS CONNECT proxy: the providers' real host names to the fakes, nothing else; plain HTTP (serve only)")]
    }

    /// Every registered provider's share of the test credentials (its module's
    /// ``TestCredentialSource`` conformance), in ``modules`` order: what `pushdouble certs`
    /// writes and the server certificate's names come from.
    public static var credentialSources: [any TestCredentialSource] {
        modules.compactMap { $0 as? any TestCredentialSource }
    }

    /// The shipped test CA and server certificate (PushDoubleCrypto's
    /// `EmbeddedTestCredentials`). Never trust them outside tests.
    public static var embeddedCredentials: DoubleCredentials? {
        DoubleCredentials(caPEM: EmbeddedTestCredentials.caPEM,
                          serverCertificatePEM: EmbeddedTestCredentials.serverCertificatePEM,
                          serverKeyPEM: EmbeddedTestCredentials.serverKeyPEM)
    }
}
