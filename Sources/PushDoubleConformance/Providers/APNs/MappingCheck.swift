import Foundation
import PushDoubleCore

/// `apns.mapping`: the provider-neutral notification of `send` becomes the APNs request
/// it describes (the driver protocol's fields → apns.md §2 headers and the `aps` dictionary).
enum MappingCheck {
    static func payload(_ p: APNsPush) -> JSONValue? {
        guard let b = p.exchange.request.body else { return nil }
        return try? JSONDecoder().decode(JSONValue.self, from: Data(b.utf8))
    }

    /// Differences between what `n` asks for and what push `p` carries, each naming its field.
    static func differences(_ n: JSONValue, _ p: APNsPush) -> [FieldDifference] {
        var bad: [FieldDifference] = []
        guard let body = payload(p), let aps = body["aps"] else { return [FieldDifference(.body, "payload is not JSON with an aps dictionary")] }
        let alert = aps["alert"]
        func expectAlert(_ field: NotificationField, _ key: String) {
            guard let want = n[field.rawValue]?.stringValue else { return }
            let got = alert?[key]?.stringValue ?? (key == "body" ? alert?.stringValue : nil)
            if got != want { bad.append(FieldDifference(field, "\(field.rawValue) \"\(want)\" → aps.alert.\(key) is \(got.map { "\"\($0)\"" } ?? "missing")")) }
        }
        expectAlert(.title, "title"); expectAlert(.subtitle, "subtitle"); expectAlert(.body, "body")
        if let s = n["sound"]?.stringValue {
            let got = aps["sound"]?.stringValue ?? aps["sound"]?["name"]?.stringValue
            if got != s { bad.append(FieldDifference(.sound, "sound \"\(s)\" → aps.sound is \(got ?? "missing")")) }
        }
        if let b = n["badge"]?.intValue, aps["badge"]?.intValue != b {
            bad.append(FieldDifference(.badge, "badge \(b) → aps.badge is \(aps["badge"]?.compactJSON ?? "missing")"))
        }
        for (field, key) in [(NotificationField.threadId, "thread-id"), (.category, "category")] {
            if let v = n[field.rawValue]?.stringValue, aps[key]?.stringValue != v {
                bad.append(FieldDifference(field, "\(field.rawValue) \"\(v)\" → aps.\(key) is \(aps[key]?.stringValue ?? "missing")"))
            }
        }
        let wantType = HeaderChecks.requestedPushType(n)
        if let got = p.header("apns-push-type") ?? (HeaderChecks.implicitPushTypes.contains(wantType) ? nil : "absent"), got != wantType {
            bad.append(FieldDifference(HeaderChecks.pushTypeField(n), "pushType \(wantType) → apns-push-type is \(got)"))
        }
        if APNsFacts.contentChangedPushTypes.contains(wantType), aps["content-changed"]?.boolValue != true {
            bad.append(FieldDifference(HeaderChecks.pushTypeField(n), "pushType \(wantType) → aps.content-changed is \(aps["content-changed"]?.compactJSON ?? "missing"), expected true"))
        }
        if n["contentAvailable"]?.boolValue == true, aps["content-available"]?.intValue != 1 {
            bad.append(FieldDifference(.contentAvailable, "contentAvailable → aps.content-available is not 1"))
        }
        for (k, v) in n["data"]?.objectValue ?? [] where k != "aps" {
            if body[k] != v { bad.append(FieldDifference(.data, "data.\(k) → top-level \(k) is \(body[k]?.compactJSON ?? "missing")")) }
        }
        if let c = n["collapseKey"]?.stringValue, c.utf8.count <= APNsFacts.collapseIDLimit, p.header("apns-collapse-id") != c {
            bad.append(FieldDifference(.collapseKey, "collapseKey \"\(c)\" → apns-collapse-id is \(p.header("apns-collapse-id") ?? "missing")"))
        }
        if let pr = n["priority"]?.stringValue, n["contentAvailable"]?.boolValue != true {
            let got = p.header("apns-priority") ?? "10"
            if pr == "high" && got != "10" { bad.append(FieldDifference(.priority, "priority high → apns-priority is \(got)")) }
            if pr == "normal" && got != "5" { bad.append(FieldDifference(.priority, "priority normal → apns-priority is \(got)")) }
        }
        if let ttl = n["ttlSeconds"]?.intValue {
            let got = p.header("apns-expiration").flatMap { Int64($0) }
            if ttl == 0 {
                if got != 0 { bad.append(FieldDifference(.ttlSeconds, "ttlSeconds 0 → apns-expiration is \(got.map(String.init) ?? "missing"), expected 0")) }
            } else if let g = got {
                let want = Int64(p.start.timeIntervalSince1970) + ttl
                if abs(g - want) > 120 { bad.append(FieldDifference(.ttlSeconds, "ttlSeconds \(ttl) → apns-expiration \(g), expected about \(want)")) }
            } else { bad.append(FieldDifference(.ttlSeconds, "ttlSeconds \(ttl) → no apns-expiration")) }
        }
        return bad
    }

    static let check = CheckDefinition(
        id: "apns.mapping", title: "The notification's fields reach the APNs request",
        reference: "driver protocol notification fields; apns.md §2, §3, §9", severity: .must
    ) { ctx in
        let h = APNsHistory(ctx)
        return MappingJudgement.finding(ctx, provider: .apns, noun: "push(es)", none: "no pushes") { step, n in
            h.pushes.filter { $0.step == step.index }.map { p in
                MappedRequest(describe: h.describe(p), seq: p.seq, differences: differences(n, p))
            }
        }
    }
}
