import Foundation
import FuzzSupport
import PushDoubleCore

/// The scenario loader (`ScenarioLoader.decode`, the core's typed reading of
/// `Scenarios/*.json`).
///
/// Input: the file's bytes.
/// Invariants: the loader throws only ``ScenarioError`` (never a raw `DecodingError`),
/// and decoding is deterministic; an accepted scenario has a non-empty id, unique device
/// and rule ids, and its rule list is faults then quotas; its devices and fault rules,
/// once written with `JSONEncoder`, read back and are written the same way again.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzScenario(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Data(bytes: data, count: size)
    let scenario: Scenario
    do {
        scenario = try ScenarioLoader.decode(bytes, file: "fuzz.json")
    } catch let error as ScenarioError {
        fuzzCheck(error.file == "fuzz.json", "error names \(error.file)")
        _ = error.description
        return 0
    } catch {
        fuzzCheck(false, "the loader threw \(type(of: error)), not ScenarioError: \(error)")
        return 0
    }
    fuzzCheck(!scenario.id.isEmpty, "empty id accepted")
    fuzzCheck(Set(scenario.devices.map(\.id)).count == scenario.devices.count, "duplicate device ids accepted")
    let rules = scenario.rules
    fuzzCheck(Set(rules.map(\.id)).count == rules.count, "duplicate rule ids accepted")
    fuzzCheck(rules.count == scenario.faults.count + scenario.quotas.count, "rules are not faults + quotas")
    fuzzCheck((try? ScenarioLoader.decode(bytes, file: "fuzz.json")) == scenario, "decoding is not deterministic")
    // Devices and fault rules are also written (admin API, history): what is written reads back.
    for device in scenario.devices { roundTrip(device) }
    for rule in scenario.faults { roundTrip(rule) }
    return 0
}

/// Writing is a fixed point after one round: what is written reads back and is written
/// the same way again. (Not `again == value`: times are kept to the millisecond, so a
/// scenario's `2026-01-01T00:00:00.0004Z` reads back as `…00.000Z`, by design.)
private func roundTrip<T: Codable & Equatable>(_ value: T) {
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    do {
        let written = try encoder.encode(value)
        let again = try JSONDecoder().decode(T.self, from: written)
        let rewritten = try encoder.encode(again)
        fuzzCheck(rewritten == written, "\(T.self) written differently after a round trip: \(String(decoding: written, as: UTF8.self)) vs \(String(decoding: rewritten, as: UTF8.self))")
        let third = try JSONDecoder().decode(T.self, from: rewritten)
        fuzzCheck(third == again, "\(T.self) \(again) does not read back the same")
    } catch {
        fuzzCheck(false, "\(T.self) \(value) does not round-trip: \(error)")
    }
}
