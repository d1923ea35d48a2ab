import Foundation
import PushDoubleCore

/// What `replay` prints before `ready`: what the loaded scenarios armed, so a QA run shows what
/// it will answer before the first push — each scenario's id and title, every device with its
/// state (and when it died), environment, topic and pending transitions, every rule as loaded.
///
/// ```
/// armed:
///   scenario apns.unregistered: A token whose app was uninstalled
///   device d1 apns 7c3e…a9f1 unregistered since 2026-11-30T07:00:00Z environment=production
///   rule busy {"action":{"reason":"ServiceUnavailable","type":"respond"},"id":"busy","times":1}
/// ```
enum ArmedSummary {
    /// The block, or "" when nothing is armed (no scenario, device or rule).
    static func text(scenarios: [Scenario], devices: [Device], rules: [FaultRule]) -> String {
        guard !(scenarios.isEmpty && devices.isEmpty && rules.isEmpty) else { return "" }
        var s = "armed:\n"
        for sc in scenarios { s += "  scenario \(sc.id)" + (sc.title.map { ": " + $0 } ?? "") + "\n" }
        for d in devices { s += "  device " + device(d) + "\n" }
        let encoder = ExchangeEncoding.makeEncoder(pretty: false)
        for r in rules {
            let json = (try? encoder.encode(r)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
            s += "  rule \(r.id) \(json)\n"
        }
        if devices.isEmpty { s += "  (no device registered)\n" }
        if rules.isEmpty { s += "  (no fault rule)\n" }
        return s
    }

    /// `id provider token state[ since …][ environment=…][ topic=…][ N transitions]`; a token
    /// longer than 16 characters is shown by its ends.
    static func device(_ d: Device) -> String {
        let token = d.token.count > 16 ? String(d.token.prefix(6)) + "…" + String(d.token.suffix(4)) : d.token
        var s = "\(d.id) \(d.provider) \(token) \(DeviceStateKind(d.state).rawValue)"
        if case .unregistered(let since) = d.state { s += " since " + DateFormats.iso8601(since) }
        if let e = d.environment { s += " environment=" + e }
        if let t = d.topic { s += " topic=" + t }
        if !d.transitions.isEmpty { s += " \(d.transitions.count) transition" + (d.transitions.count == 1 ? "" : "s") }
        for (k, v) in d.attributes.sorted(by: { $0.key < $1.key }) where v.stringValue != nil && k != "privateKey" && k != "applicationServerKey" {
            s += " \(k)=\(v.stringValue ?? "")"
        }
        return s
    }
}
