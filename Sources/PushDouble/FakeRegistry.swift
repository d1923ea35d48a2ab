import Foundation
import PushDoubleCore

/// The registration point of provider fakes and of the embedded test credentials: the
/// one place that names every provider module the in-process server serves by default.
///
/// Status: no provider module exposes listener specs yet, so `defaultListeners` is empty;
/// wiring APNs in is one line (`APNsFake.listenerSpecs(...)`) once PushDoubleAPNs has it.
/// Until then callers pass their fakes in ``PushDoubleConfiguration/fakes``.
public enum FakeRegistry {
    /// Listener specs of every wired provider module, with their default ports.
    public static func defaultListeners(credentials: DoubleCredentials?) -> [FakeListenerSpec] {
        []
    }

    /// The shipped test CA, server certificate and APNs key, when PushDoubleCrypto provides them.
    public static var embeddedCredentials: DoubleCredentials? { nil }
}
