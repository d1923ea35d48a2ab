/// A provider's scripted test mode (`--scripted-<id>`): an in-memory provider with scripted
/// answers and virtual time replace the network and the clock, so the sender's own logic can be
/// tested through the process with no network and no waiting. A provider offers one through
/// ``SenderProvider/scriptedMode()``; the driver knows only this protocol.
protocol ScriptedMode: AnyObject, Sendable {
    /// The virtual clock every sender of the process uses in this mode.
    var clock: VirtualSenderClock { get }
    /// Opens in-memory connections to the scripted provider.
    var connector: any PushConnector { get }
    /// Serves the mode's extra JSON-RPC methods (`test/…`).
    func handle(method: String, params: JSON, server: DriverServer) async throws(DriverError) -> JSON
}
