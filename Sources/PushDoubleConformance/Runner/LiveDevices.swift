import Foundation
import PushDoubleCore

/// Devices of a case that a real client plays instead of the fake's own device records (a
/// browser subscribing through the Web Push fake's autopush listener). A provider offers them
/// (``ConformanceProvider/liveDevices(for:)``); the runner starts them once the sender has
/// initialized and the case applies, hands the sender the devices they made, waits for what
/// was sent to them before reading the history, and stops them when the case ends.
public protocol LiveDevices: AnyObject, Sendable {
    /// Starts the clients against the case's running fakes.
    func start(session: any FakeSession) -> LiveDevicesStart
    /// Returns once everything the fakes accepted for the clients has reached them (or after
    /// a bounded wait), so the history read next holds what they made of it.
    func settle(session: any FakeSession)
    /// Ends the clients (idempotent).
    func stop()
}

/// How starting ``LiveDevices`` went.
public enum LiveDevicesStart: Sendable {
    /// The devices as the sender is to be told them (replacing the scenario's of the same id).
    case ready([ScenarioDevice])
    /// The case cannot run here (e.g. no browser installed): every check is n/a, with this reason.
    case notApplicable(String)
    /// The client failed: the case fails with this text.
    case failed(String)
}
