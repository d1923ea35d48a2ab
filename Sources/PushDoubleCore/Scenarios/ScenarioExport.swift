import Foundation

/// The double's current set-up as a scenario file (`GET /scenario/export`): what a manual QA
/// session built through the admin API (or the inbox page), written so that `POST /scenarios`
/// and `pushdouble replay` rebuild it.
///
/// Exported: every registered device (state, `unregisteredAt`, transitions and delivery count
/// as they are now, provider attributes), every rule in evaluation order (quotas as `faults`
/// entries with their `quota` action, the rule as it was loaded: its `matched`/`fired`
/// counters are not part of a scenario), the world mode of every provider that has a fake,
/// the fault engine's seed, and the fakes' options the double was built with. Not exported:
/// the history, and a conformance scenario's `steps`/`checks` (the double does not keep them).
public enum ScenarioExport {
    /// `attachment; filename="pushdouble-scenario.json"`.
    public static let fileName = "pushdouble-scenario.json"

    /// The scenario of `double` now. `fakeOptions` are the options the fakes were built with
    /// (``Scenario/fakeOptions``; the double itself does not keep them).
    public static func scenario(of double: DoubleState, id: String = "exported", fakeOptions: [String: JSONValue] = [:],
                                now: Date? = nil) -> Scenario {
        var providers: [String: ProviderOptions] = [:]
        for p in double.providers { providers[p.rawValue] = ProviderOptions(world: double.devices.world(for: p)) }
        let at = DateFormats.iso8601(now ?? double.clock.now())
        return Scenario(id: id, title: "Exported from a running pushdouble",
                        description: "GET /scenario/export at \(at): the devices, rules, world modes, seed and fake options of that moment.",
                        providers: providers, seed: double.faults.seed, devices: double.devices.list(),
                        faults: double.faults.list().map(\.rule), fakeOptions: fakeOptions)
    }

    /// The scenario as the file's bytes: pretty-printed, keys sorted (the same state gives the
    /// same file), ending in a newline.
    public static func document(_ scenario: Scenario) -> [UInt8] {
        let encoder = ExchangeEncoding.makeEncoder(pretty: true)
        return ((try? encoder.encode(scenario)).map(Array.init) ?? Array("{}".utf8)) + [0x0a]
    }
}
