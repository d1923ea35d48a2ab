import Foundation
import PushDoubleCore
import PushDoubleAPNs
import PushDoubleCrypto

/// The registration point of provider fakes and of the embedded test credentials: the
/// one place that names every provider module the in-process server serves by default.
///
/// Wired today: APNs (`apns-production` 8721, `apns-sandbox` 8722). FCM (+ OAuth), Expo
/// and Web Push plug in here the same way once their modules provide listener specs.
public enum FakeRegistry {
    /// Listener specs of every wired provider module, with their default ports. `clock`
    /// should be the double's clock (fakes date some answers with it).
    public static func defaultListeners(clock: any DoubleClock = SystemClock()) -> [FakeListenerSpec] {
        APNsFake.listenerSpecs(configuration: .shipped, clock: clock)
    }

    /// The shipped test CA, server certificate and APNs key (PushDoubleCrypto's
    /// `EmbeddedTestCredentials`). Never trust them outside tests.
    public static var embeddedCredentials: DoubleCredentials? {
        DoubleCredentials(caPEM: EmbeddedTestCredentials.caPEM,
                          serverCertificatePEM: EmbeddedTestCredentials.serverCertificatePEM,
                          serverKeyPEM: EmbeddedTestCredentials.serverKeyPEM,
                          apnsKeyPEM: EmbeddedTestCredentials.apnsKeyPEM,
                          apnsKeyID: EmbeddedTestCredentials.apnsKeyID,
                          apnsTeamID: EmbeddedTestCredentials.apnsTeamID,
                          apnsTopic: EmbeddedTestCredentials.apnsTopic)
    }
}
