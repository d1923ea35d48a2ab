import PushDoubleCore

/// The scenario step `{"type": "broadcast", "channel": "match-1", "environment": "sandbox",
/// "messageStoragePolicy": 0, "event": "update", "contentState": {…}}`: an APNs Live Activity
/// broadcast on a channel the sender manages (docs/conformance.md "broadcast").
extension ConformanceScenario {
    /// The step members a sender is given (all but `type`), with `provider` set to `apns`.
    static func decodeBroadcast(_ s: JSONValue, index i: Int, fail: (String) -> ScenarioError) throws -> ScenarioStep {
        guard let channel = s["channel"]?.stringValue, !channel.isEmpty else {
            throw fail("steps[\(i)]: broadcast needs a \"channel\" (the scenario's name for the channel)")
        }
        if let e = s["environment"], e.stringValue != "production" && e.stringValue != "sandbox" {
            throw fail("steps[\(i)]: broadcast \"environment\" must be \"production\" or \"sandbox\"")
        }
        guard let policy = s["messageStoragePolicy"]?.intValue, policy == 0 || policy == 1 else {
            throw fail("steps[\(i)]: broadcast needs \"messageStoragePolicy\" 0 (no message stored) or 1 (most recent message stored)")
        }
        let event = s["event"]?.stringValue
        guard event == "update" || event == "end" else { throw fail("steps[\(i)]: broadcast needs \"event\" \"update\" or \"end\"") }
        if event == "update", s["contentState"]?.objectValue == nil {
            throw fail("steps[\(i)]: an update broadcast needs a \"contentState\" object")
        }
        var members = (s.objectValue ?? []).filter { $0.0 != "type" && $0.0 != "provider" }
        members.insert(("provider", .string(ProviderID.apns.rawValue)), at: 0)
        if s["environment"] == nil { members.append(("environment", .string("production"))) }
        return .broadcast(channel: channel, params: .object(members))
    }
}
