import Foundation
import PushDoubleCore

/// When the app (re)registered a device's token, per `send` step: the scenario's
/// `"registeredAt": {"d1": "now", "d2": "2025-06-01T00:00:00.000Z"}` on a send step.
///
/// The runner tells the sender through the driver protocol: each device object of that
/// `send` carries `"registeredAt": "<ISO 8601 UTC>"` (the driver protocol's device fields;
/// docs/conformance.md "Re-registered tokens"). `"now"` is the moment the step starts, so a
/// case can say "registered again after the sender learnt the token was dead" without
/// knowing when the run happens. A sender that learnt a token was dead must use it again
/// when a `registeredAt` later than that moment arrives, and keep skipping it otherwise.
///
/// Read from the scenario's raw JSON (the step decoder keeps one step per entry, in order).
public struct Registrations: Sendable, Equatable {
    /// One device's registration moment as the scenario wrote it.
    public enum Moment: Sendable, Equatable {
        /// When the step starts.
        case now
        case at(Date)
    }

    /// Scenario step index (``ConformanceScenario/steps``) → device id → moment.
    public var byStep: [Int: [String: Moment]]

    public init(byStep: [Int: [String: Moment]] = [:]) { self.byStep = byStep }

    /// Reads and validates the `registeredAt` members of the scenario's send steps.
    public init(_ scenario: ConformanceScenario) throws {
        byStep = [:]
        guard let root = try? JSONDecoder().decode(JSONValue.self, from: scenario.raw),
              let raw = root["steps"]?.arrayValue else { return }
        let file = scenario.file ?? scenario.id
        for (i, s) in raw.enumerated() {
            guard let r = s["registeredAt"] else { continue }
            let path = "steps[\(i)].registeredAt"
            guard i < scenario.steps.count, case let .send(_, devices, _, _) = scenario.steps[i] else {
                throw ScenarioError(file: file, path: path, message: "only a send step may carry registeredAt")
            }
            guard let members = r.objectValue else {
                throw ScenarioError(file: file, path: path, message: "expected an object {\"<device id>\": \"now\" or an ISO 8601 date}")
            }
            var step: [String: Moment] = [:]
            for (device, v) in members {
                guard devices.contains(device) else {
                    throw ScenarioError(file: file, path: path + "." + device, message: "device \"\(device)\" is not one of this step's devices")
                }
                if v.stringValue == "now" { step[device] = .now }
                else if let text = v.stringValue, let d = DateFormats.parseISO8601(text) { step[device] = .at(d) }
                else { throw ScenarioError(file: file, path: path + "." + device, message: "expected \"now\" or an ISO 8601 date, got \(v.compactJSON)") }
            }
            byStep[i] = step
        }
    }

    /// The dates the sender is told in scenario step `index` starting at `now`, as they go
    /// on the wire (ISO 8601 with milliseconds, read back); nil when the step names none.
    /// `now` is rounded up to the next millisecond, so that it is never earlier than
    /// anything the sender saw before the step (a death it learnt a fraction of a
    /// millisecond ago).
    public func dates(step index: Int, now: Date) -> [String: Date]? {
        guard let step = byStep[index], !step.isEmpty else { return nil }
        return step.mapValues { m in
            let d: Date
            switch m {
            case .now: d = Date(timeIntervalSince1970: (now.timeIntervalSince1970 * 1000).rounded(.up) / 1000)
            case .at(let t): d = t
            }
            return DateFormats.parseISO8601(DateFormats.iso8601(d)) ?? d
        }
    }
}
