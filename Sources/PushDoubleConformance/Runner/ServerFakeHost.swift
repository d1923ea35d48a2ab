import Foundation
import PushDoubleCore

/// The fakes the CLI uses: PushDoubleCore's loader checks the fake-side parts of each
/// scenario; the in-process server starts them on ephemeral ports.
public struct ServerFakeHost: FakeHost {
    public init() {}

    public func validate(_ scenario: ConformanceScenario) throws {
        _ = try ScenarioLoader.decode(scenario.raw, file: scenario.file.map { ($0 as NSString).lastPathComponent } ?? scenario.id)
    }

    public func start(_ scenario: ConformanceScenario, seed: UInt64) throws -> any FakeSession {
        throw ConformCommand.UsageError("the in-process fakes (PushDoubleServer) are not merged into this build yet")
    }
}

extension ConformCommand {
    /// The host `run(_:)` uses.
    static func defaultHost() -> any FakeHost { ServerFakeHost() }
}
