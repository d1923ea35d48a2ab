import Foundation
import PushDoubleCore

/// `expo.mapping`: the provider-neutral notification of `send` reaches each recipient's Expo
/// message as asked (docs/expo.md §2, the message fields of Expo's push API). Fields with no
/// Expo counterpart (`collapseKey`, `threadId`, `imageUrl`, `link`, `pushType`) are not
/// compared; fields the sender declared it cannot express for `expo` are not judged.
enum ExpoMappingCheck {
    /// What `message` lacks of notification `n`, field by field.
    static func differences(_ n: JSONValue, _ message: JSONValue, sentAt: Date) -> [FieldDifference] {
        var bad: [FieldDifference] = []
        for (field, key) in [(NotificationField.title, "title"), (.subtitle, "subtitle"), (.body, "body"), (.channelId, "channelId"),
                             (.category, "categoryId")] {
            guard let want = n[field.rawValue]?.stringValue, message[key]?.stringValue != want else { continue }
            bad.append(FieldDifference(field, "\(field.rawValue) \"\(want)\" → \(key) is \(message[key]?.compactJSON ?? "absent")"))
        }
        if n["sound"] != nil, n["sound"] != .null, message["sound"] == nil || message["sound"] == .null {
            // Expo plays "default" or a named sound; which name is the platform's business.
            bad.append(FieldDifference(.sound, "sound asked for → no sound"))
        }
        if let b = n["badge"]?.intValue, message["badge"]?.intValue != b {
            bad.append(FieldDifference(.badge, "badge \(b) → badge is \(message["badge"]?.compactJSON ?? "absent")"))
        }
        for (k, v) in n["data"]?.objectValue ?? [] {
            let got = message["data"]?[k]
            if got != v && got?.stringValue != (v.stringValue ?? v.compactJSON) {
                bad.append(FieldDifference(.data, "data.\(k) is \(got?.compactJSON ?? "absent"), not \(v.compactJSON)"))
            }
        }
        if let ttl = n["ttlSeconds"]?.intValue {
            let byTTL = message["ttl"]?.intValue ?? message["ttl"]?.doubleValue.map { Int64($0) }
            let byExpiration = message["expiration"]?.intValue.map { $0 - Int64(sentAt.timeIntervalSince1970) }
            if byTTL != ttl && !(byExpiration.map { abs($0 - ttl) <= 120 } ?? false) {
                bad.append(FieldDifference(.ttlSeconds, "ttlSeconds \(ttl) → ttl is \(message["ttl"]?.compactJSON ?? "absent")"
                    + (message["expiration"].map { ", expiration \($0.compactJSON)" } ?? "")))
            }
        }
        if let p = n["priority"]?.stringValue {
            let got = message["priority"]?.stringValue
            let fits = p == "high" ? got == "high" : got != "high"
            if !fits { bad.append(FieldDifference(.priority, "priority \(p) → priority is \(got ?? "absent (Expo's default)")")) }
        }
        if n["contentAvailable"]?.boolValue == true, message["_contentAvailable"]?.boolValue != true {
            bad.append(FieldDifference(.contentAvailable, "contentAvailable → _contentAvailable is \(message["_contentAvailable"]?.compactJSON ?? "absent")"))
        }
        return bad
    }

    static let check = CheckDefinition(
        id: "expo.mapping", title: "The notification's fields reach each recipient's Expo message",
        reference: "driver protocol notification fields; Expo, Sending notifications with Expo's push API (message request format); docs/expo.md §2",
        severity: .must
    ) { ctx in
        let h = ExpoHistory(ctx.history)
        let t0 = AttemptLog.timeZero(ctx)
        return MappingJudgement.finding(ctx, provider: ExpoHistory.provider, noun: "message(s)", none: "no Expo messages") { step, n in
            h.sends.filter { AttemptLog.step(at: $0.exchange.transport.headReceivedAt, ctx.steps) == step.index }.flatMap { send in
                let start = send.exchange.transport.headReceivedAt
                return send.recipients.filter { $0.message != .null }.map { r in
                    let device = ctx.scenario.devices.first { $0.provider == ExpoHistory.provider.rawValue && $0.token == r.token }?.id ?? r.token
                    return MappedRequest(describe: AttemptLog.describe(device: device, exchange: send.exchange, status: send.exchange.response.status,
                                                                       reason: nil, at: start, t0: t0),
                                         seq: send.exchange.seq, differences: differences(n, r.message, sentAt: start))
                }
            }
        }
    }
}
