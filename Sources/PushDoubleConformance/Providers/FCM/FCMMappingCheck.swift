import Foundation
import PushDoubleCore

/// `fcm.mapping` and `fcm.apns-background`: the provider-neutral notification of `send` reaches
/// the FCM message of each device token as asked (docs/fcm.md §2: the `message` fields and its
/// `android`, `apns` and `webpush` blocks).
///
/// A field counts as mapped when **any** place FCM offers for it carries the value asked for
/// (e.g. `title` in `message.notification.title`, or only in the `android` / `apns` / `webpush`
/// block of a sender that writes platform blocks): the check judges what reaches the device,
/// not one library's layout. Members are read in either spelling FCM takes (snake_case or
/// lowerCamelCase). Fields the sender declared it cannot express for `fcm` are not judged.
enum FCMMappingCheck {
    /// `value` at `path`, each step taken in snake_case or lowerCamelCase.
    static func at(_ value: JSONValue?, _ path: String...) -> JSONValue? {
        var v = value
        for key in path {
            guard let current = v else { return nil }
            v = current[key] ?? current[camel(key)]
        }
        return v.flatMap { $0.isNull ? nil : $0 }
    }

    static func camel(_ snake: String) -> String {
        let parts = snake.split(separator: "_")
        guard parts.count > 1 else { return snake }
        return String(parts[0]) + parts.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }

    /// A header of a platform block (`apns.headers`, `webpush.headers`), any case.
    static func header(_ message: JSONValue?, _ block: String, _ name: String) -> String? {
        at(message, block, "headers")?.objectValue?.first { $0.0.lowercased() == name }?.1.stringValue
    }

    /// Seconds of a google-duration string ("3600s", "3.5s").
    static func durationSeconds(_ v: JSONValue?) -> Double? {
        guard let s = v?.stringValue, s.hasSuffix("s") else { return nil }
        return Double(s.dropLast())
    }

    /// The longest TTL FCM keeps a message (four weeks, docs/fcm.md §2.2): a longer one may be capped.
    static let longestTTL: Int64 = 2_419_200

    /// What `message` (the fake's record of one send) lacks of notification `n`, field by field.
    static func differences(_ n: JSONValue, _ message: JSONValue?, sentAt: Date) -> [FieldDifference] {
        var bad: [FieldDifference] = []
        let aps = at(message, "apns", "payload", "aps")
        func text(_ field: NotificationField, _ places: [(String, JSONValue?)]) {
            guard let want = n[field.rawValue]?.stringValue else { return }
            if places.contains(where: { $0.1?.stringValue == want }) { return }
            let seen = places.compactMap { p in p.1.map { "\(p.0) \($0.compactJSON)" } }
            bad.append(FieldDifference(field, "\(field.rawValue) \"\(want)\" is in none of \(places.map(\.0).joined(separator: ", "))"
                + (seen.isEmpty ? "" : " (found \(seen.joined(separator: ", ")))")))
        }
        let alertBody = at(aps, "alert").flatMap { $0.stringValue != nil ? $0 : at($0, "body") }
        text(.title, [("notification.title", at(message, "notification", "title")), ("android.notification.title", at(message, "android", "notification", "title")),
                      ("apns aps.alert.title", at(aps, "alert", "title")), ("webpush.notification.title", at(message, "webpush", "notification", "title"))])
        text(.body, [("notification.body", at(message, "notification", "body")), ("android.notification.body", at(message, "android", "notification", "body")),
                     ("apns aps.alert.body", alertBody), ("webpush.notification.body", at(message, "webpush", "notification", "body"))])
        text(.subtitle, [("apns aps.alert.subtitle", at(aps, "alert", "subtitle"))])
        text(.imageUrl, [("notification.image", at(message, "notification", "image")), ("android.notification.image", at(message, "android", "notification", "image")),
                         ("apns.fcm_options.image", at(message, "apns", "fcm_options", "image")), ("webpush.notification.image", at(message, "webpush", "notification", "image"))])
        text(.channelId, [("android.notification.channel_id", at(message, "android", "notification", "channel_id"))])
        text(.threadId, [("apns aps.thread-id", aps?["thread-id"])])
        text(.category, [("apns aps.category", aps?["category"]), ("android.notification.click_action", at(message, "android", "notification", "click_action"))])
        text(.collapseKey, [("android.collapse_key", at(message, "android", "collapse_key")),
                            ("apns-collapse-id", header(message, "apns", "apns-collapse-id").map(JSONValue.string)),
                            ("webpush Topic", header(message, "webpush", "topic").map(JSONValue.string))])
        if let want = n["sound"]?.stringValue {
            let places = [at(message, "android", "notification", "sound")?.stringValue, aps?["sound"]?.stringValue, aps?["sound"]?["name"]?.stringValue]
            if !places.contains(want) { bad.append(FieldDifference(.sound, "sound \"\(want)\" is in neither android.notification.sound nor apns aps.sound")) }
        }
        if let want = n["badge"]?.intValue, aps?["badge"]?.intValue != want,
           at(message, "android", "notification", "notification_count")?.intValue != want {
            bad.append(FieldDifference(.badge, "badge \(want) is in neither apns aps.badge nor android.notification.notification_count"))
        }
        for (k, v) in n["data"]?.objectValue ?? [] {
            // The value as a string (FCM's data is a map of strings; a number sent as a number is
            // fcm.valid-messages' finding, not a mapping difference).
            let want = v.stringValue ?? v.compactJSON
            let got = at(message, "data")?[k]
            if got.map({ $0.stringValue ?? $0.compactJSON }) != want {
                bad.append(FieldDifference(.data, "data.\(k) is \(got?.compactJSON ?? "absent"), not \"\(want)\""))
            }
        }
        if let ttl = n["ttlSeconds"]?.intValue { bad += ttlDifference(ttl, message, sentAt: sentAt) }
        if let p = n["priority"]?.stringValue, n["contentAvailable"]?.boolValue != true { bad += priorityDifference(p, message) }
        if n["contentAvailable"]?.boolValue == true, aps?["content-available"]?.intValue != 1 {
            bad.append(FieldDifference(.contentAvailable, "contentAvailable → apns aps.content-available is \(aps?["content-available"]?.compactJSON ?? "absent"), not 1"))
        }
        if let t = n["pushType"]?.stringValue, let got = header(message, "apns", "apns-push-type"), got != t {
            bad.append(FieldDifference(.pushType, "pushType \(t) → apns apns-push-type is \(got)"))
        }
        return bad
    }

    /// ttlSeconds → `android.ttl` (a duration), `apns-expiration` (send time + ttl, ± 120 s; 0 → 0)
    /// or `webpush` `TTL`: one of them must carry it; none may contradict it.
    static func ttlDifference(_ ttl: Int64, _ message: JSONValue?, sentAt: Date) -> [FieldDifference] {
        let want = min(ttl, longestTTL)
        var found: [(String, Bool)] = []
        if let v = at(message, "android", "ttl") {
            let s = durationSeconds(v)
            found.append(("android.ttl \(v.compactJSON)", s.map { abs($0 - Double(want)) < 1 || (ttl > longestTTL && $0 >= Double(longestTTL)) } ?? false))
        }
        if let e = header(message, "apns", "apns-expiration") {
            let got = Int64(e) ?? -1
            let ok = ttl == 0 ? got == 0 : abs(got - (Int64(sentAt.timeIntervalSince1970) + ttl)) <= 120
            found.append(("apns-expiration \(e)", ok))
        }
        if let t = header(message, "webpush", "ttl") {
            found.append(("webpush TTL \(t)", Int64(t) == want || (ttl > longestTTL && (Int64(t) ?? 0) >= longestTTL)))
        }
        if found.isEmpty { return [FieldDifference(.ttlSeconds, "ttlSeconds \(ttl) → no android.ttl, apns-expiration or webpush TTL")] }
        return found.filter { !$0.1 }.map { FieldDifference(.ttlSeconds, "ttlSeconds \(ttl) → \($0.0)") }
    }

    /// priority → `android.priority` (high / normal; absent is FCM's normal), `apns-priority`
    /// (10 / 5) or `webpush` `Urgency`: `high` must be asked for somewhere; nothing may contradict it.
    static func priorityDifference(_ p: String, _ message: JSONValue?) -> [FieldDifference] {
        var bad: [String] = []
        let android = at(message, "android", "priority")?.stringValue?.lowercased()
        let apns = header(message, "apns", "apns-priority")
        let urgency = header(message, "webpush", "urgency")?.lowercased()
        if p == "high" {
            if android != "high" && apns != "10" && urgency != "high" { bad.append("priority high → neither android.priority high, apns-priority 10 nor Urgency high") }
            if let a = android, a != "high" { bad.append("priority high → android.priority \(a)") }
            if let a = apns, a != "10" { bad.append("priority high → apns-priority \(a)") }
        } else if p == "normal" {
            if android == "high" { bad.append("priority normal → android.priority high") }
            if apns == "10" { bad.append("priority normal → apns-priority 10") }
            if urgency == "high" { bad.append("priority normal → webpush Urgency high") }
        }
        return bad.map { FieldDifference(.priority, $0) }
    }

    static let check = CheckDefinition(
        id: "fcm.mapping", title: "The notification's fields reach each device's FCM message (any place FCM offers for a field)",
        reference: "driver protocol notification fields; Google, FCM HTTP v1 reference (Message, AndroidConfig, ApnsConfig, WebpushConfig); docs/fcm.md §2",
        severity: .must
    ) { ctx in
        let h = FCMHistory(ctx)
        // Device-token messages; topic and condition messages are fcm.topic-target's.
        return MappingJudgement.finding(ctx, provider: .fcm, noun: "message(s)", none: "no FCM messages to device tokens") { step, n in
            h.sends.filter { $0.step == step.index && $0.exchange.token != nil && $0.exchange.notification?["bodyError"] == nil }.map { s in
                MappedRequest(describe: h.describe(s), seq: s.seq, differences: differences(n, s.exchange.notification, sentAt: s.start))
            }
        }
    }

    /// `fcm.apns-background`: a notification that asks for a background push (contentAvailable with
    /// nothing to show) reaches Apple devices as one: the `apns` block carries
    /// `aps.content-available: 1`, `apns-priority: 5` and `apns-push-type: background`, and no
    /// alert, sound or badge. FCM forwards the block's headers to APNs, and APNs refuses priority
    /// 10 for a background push and requires the push type on watchOS (docs/apns.md §3, §9;
    /// docs/fcm.md §2.1: data-only messages to iOS use `apns-priority: 5`; §2.4 ApnsConfig).
    static let background = CheckDefinition(
        id: "fcm.apns-background", title: "A background notification's apns block: content-available 1, apns-priority 5, apns-push-type background",
        reference: "Google, FCM ApnsConfig (headers are APNs request headers); Apple, Pushing background updates (priority 5, push type background); docs/fcm.md §2.1, §2.4",
        severity: .must
    ) { ctx in
        if let reason = ctx.fields.inexpressible(.contentAvailable, for: .fcm) { return .notApplicable(reason) }
        let h = FCMHistory(ctx)
        var problems: [Evidence] = []
        var judged = 0
        for step in ctx.steps where step.type == "send" {
            guard let n = step.notification, NotificationField.requestedPushType(n) == "background", n["pushType"] == nil else { continue }
            for s in h.sends where s.step == step.index && s.exchange.token != nil {
                judged += 1
                let m = s.exchange.notification
                var bad: [String] = []
                let aps = at(m, "apns", "payload", "aps")
                if aps?["content-available"]?.intValue != 1 { bad.append("apns aps.content-available is \(aps?["content-available"]?.compactJSON ?? "absent")") }
                if let p = header(m, "apns", "apns-priority"), p == "5" {} else {
                    bad.append("apns-priority is \(header(m, "apns", "apns-priority") ?? "absent (FCM sends 10)"), must be 5")
                }
                if header(m, "apns", "apns-push-type") != "background" {
                    bad.append("apns-push-type is \(header(m, "apns", "apns-push-type") ?? "absent"), must be background")
                }
                for k in ["alert", "sound", "badge"] where aps?[k] != nil { bad.append("aps has \(k)") }
                if at(m, "notification") != nil { bad.append("message.notification is set (FCM makes it an alert)") }
                if !bad.isEmpty { problems.append(Evidence("\(h.describe(s)): " + bad.joined(separator: "; "), seqs: [s.seq])) }
            }
        }
        return .judged(judged, Array(problems.prefix(8)), none: "no background notification was sent to an FCM token",
                      held: "\(judged) background message(s) with the apns block Apple needs",
                      violated: "background notification not sent as an APNs background push")
    }
}
