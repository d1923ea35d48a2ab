import Foundation
import PushDoubleCore

/// Per-request checks: headers, payload, host (A12, A13, A14).
enum HeaderChecks {
    /// Runs `judge` on every push; nil = fine, text = violation.
    static func perPush(_ ctx: CheckContext, filter: (APNsPush) -> Bool = { _ in true }, none: String,
                        summary: String, violation: String, _ judge: (APNsPush) -> String?) -> Finding {
        let h = APNsHistory(ctx)
        let ps = h.pushes.filter(filter)
        if ps.isEmpty { return .notApplicable(none) }
        var problems: [Evidence] = []
        for p in ps { if let why = judge(p) { problems.append(h.evidence(p, why)) } }
        return .judged(problems, held: "\(ps.count) push(es) \(summary)", violated: violation)
    }

    static func pushType(_ p: APNsPush) -> String { p.header("apns-push-type") ?? "alert" }

    static func aps(_ p: APNsPush) -> JSONValue? {
        guard let b = p.exchange.request.body, let v = try? JSONDecoder().decode(JSONValue.self, from: Data(b.utf8)) else { return nil }
        return v["aps"]
    }

    /// The push type a notification asks for (``NotificationField/requestedPushType(_:)``).
    static func requestedPushType(_ n: JSONValue) -> String { NotificationField.requestedPushType(n) }

    /// The field that decides the requested push type: `pushType` when the notification names
    /// one, else `contentAvailable` (a background push is asked for by it).
    static func pushTypeField(_ n: JSONValue) -> NotificationField {
        n["pushType"]?.stringValue.map { $0.isEmpty ? .contentAvailable : .pushType } ?? .contentAvailable
    }

    /// The n/a reason when a push's requested type rests on a field the sender declared it
    /// cannot express (nil: judge it).
    static func pushTypeNotExpressible(_ ctx: CheckContext, step: Int) -> String? {
        guard let n = ctx.notification(step: step) else { return nil }
        let field = pushTypeField(n)
        // A plain alert asks nothing of pushType or contentAvailable.
        if field == .contentAvailable && requestedPushType(n) == "alert" { return nil }
        return ctx.fields.inexpressible(field, for: .apns)
    }

    /// Push types a sender may leave unnamed: Apple requires `apns-push-type` only on watchOS 6
    /// and later and recommends it elsewhere (docs/apns.md §2), so an alert or background push
    /// without it is tolerated here (strict only where Apple is); a voip, location or other
    /// typed push is not what was asked for unless its type is named.
    static let implicitPushTypes: Set<String> = ["alert", "background"]

    static let topicSuffix = CheckDefinition(
        id: "apns.header.topic-suffix", title: "apns-push-type is the type the notification asks for, and apns-topic has its suffix",
        reference: "Apple, Sending notification requests to APNs (apns-push-type, apns-topic); docs/apns.md \"Request validation order\" (§3 push types)", severity: .must
    ) { ctx in
        let skipped = APNsHistory(ctx).pushes.compactMap { pushTypeNotExpressible(ctx, step: $0.step) }
        if let reason = skipped.first, skipped.count == APNsHistory(ctx).pushes.count { return .notApplicable(reason) }
        return perPush(ctx, filter: { pushTypeNotExpressible(ctx, step: $0.step) == nil }, none: "no pushes",
                       summary: "with the requested push type and its topic", violation: "wrong apns-push-type or apns-topic") { p in
            var bad: [String] = []
            let header = p.header("apns-push-type")
            // The type comes from what the runner asked for; only a push outside every send
            // step (none in a shipped case) is judged by its own header.
            let want = ctx.notification(step: p.step).map(requestedPushType) ?? pushType(p)
            if let header, header != want {
                bad.append("apns-push-type \(header) for a notification that asks for \(want)")
            } else if header == nil, !implicitPushTypes.contains(want) {
                bad.append("no apns-push-type for a \(want) notification")
            }
            guard let entry = APNsFacts.topicSuffix[want] else { return (bad + ["unknown push type \(want)"]).joined(separator: "; ") }
            if let suffix = entry {  // nil: not judged (certificate-defined or unconfirmed)
                if let topic = p.header("apns-topic") {
                    let base = ctx.scenario.device(p.device)?.topic ?? ctx.configuration?.apns?.topic
                    if let base {
                        if topic != base + suffix { bad.append("apns-topic \(topic) for a \(want) push; expected \(base + suffix)") }
                    } else if !topic.hasSuffix(suffix) {
                        bad.append("apns-topic \(topic) lacks suffix \(suffix) for \(want)")
                    }
                } else {
                    bad.append("no apns-topic")
                }
            }
            return bad.isEmpty ? nil : bad.joined(separator: "; ")
        }
    }

    static let background = CheckDefinition(
        id: "apns.header.background", title: "Background pushes use priority 5 and carry no alert, sound or badge",
        reference: "A12; apns.md §3, §9", severity: .must
    ) { ctx in
        let required = ctx.params["requirePushType"]?.stringValue
        if let n = ctx.steps.first(where: { $0.type == "send" })?.notification,
           let reason = ctx.fields.inexpressible(.contentAvailable, for: .apns), n["contentAvailable"] != nil {
            return .notApplicable(reason)
        }
        return perPush(ctx, filter: { p in
            required != nil || pushType(p) == "background" || ctx.notification(step: p.step).map(requestedPushType) == "background"
        }, none: "no background pushes",
                       summary: "follow the background rules", violation: "background push rules broken") { p in
            // Every broken rule is listed, not only the first.
            var bad: [String] = []
            if let r = required, pushType(p) != r || p.header("apns-push-type") == nil {
                bad.append("apns-push-type is \(p.header("apns-push-type") ?? "absent"), expected \(r) for a content-available push")
            }
            if p.header("apns-priority") != "5" { bad.append("apns-priority is \(p.header("apns-priority") ?? "absent (10)"), must be 5") }
            if let a = aps(p) {
                for k in ["alert", "sound", "badge"] where a[k] != nil { bad.append("aps has \(k) (\(a[k]!.compactJSON))") }
                if a["content-available"]?.intValue != 1 { bad.append("aps lacks content-available: 1") }
            } else { bad.append("payload has no aps dictionary") }
            return bad.isEmpty ? nil : bad.joined(separator: "; ")
        }
    }

    static let expiration = CheckDefinition(
        id: "apns.header.expiration", title: "apns-expiration is UNIX time in seconds",
        reference: "A12; apns.md §2", severity: .must
    ) { ctx in
        perPush(ctx, filter: { $0.header("apns-expiration") != nil }, none: "no apns-expiration sent",
                summary: "with a valid apns-expiration", violation: "bad apns-expiration") { p in
            let v = p.header("apns-expiration")!
            guard let n = Int64(v), n >= 0 else { return "apns-expiration \(v) is not a non-negative integer" }
            if n == 0 { return nil }
            let now = p.start.timeIntervalSince1970
            if Double(n) > now + 400 * 86400 { return "apns-expiration \(v) is too far in the future: milliseconds instead of seconds?" }
            if Double(n) < now - 86400 { return "apns-expiration \(v) is in the past" }
            return nil
        }
    }

    static let collapseID = CheckDefinition(
        id: "apns.header.collapse-id", title: "apns-collapse-id is at most 64 bytes (a longer collapse key is refused locally)",
        reference: "Apple, Sending notification requests to APNs (apns-collapse-id: at most 64 bytes); severity: SHOULD, "
            + "a sender that sends it, gets 400 and reports rejected loses nothing", severity: .should
    ) { ctx in
        perPush(ctx, filter: { $0.header("apns-collapse-id") != nil }, none: "no apns-collapse-id sent",
                summary: "with a collapse id within 64 bytes", violation: "collapse id too long") { p in
            let n = p.header("apns-collapse-id")!.utf8.count
            return n <= APNsFacts.collapseIDLimit ? nil : "apns-collapse-id is \(n) bytes (limit \(APNsFacts.collapseIDLimit))"
        }
    }

    static func isLowercaseUUID(_ s: String) -> Bool {
        let u = Array(s.utf8)
        guard u.count == 36 else { return false }
        for (i, c) in u.enumerated() {
            if [8, 13, 18, 23].contains(i) { if c != UInt8(ascii: "-") { return false } }
            else if !((c >= 48 && c <= 57) || (c >= 97 && c <= 102)) { return false }
        }
        return true
    }

    static let apnsID = CheckDefinition(
        id: "apns.header.apns-id", title: "apns-id, when sent, is a lowercase canonical UUID",
        reference: "A12; apns.md §2", severity: .must
    ) { ctx in
        perPush(ctx, filter: { $0.header("apns-id") != nil }, none: "no apns-id sent",
                summary: "with a valid apns-id", violation: "bad apns-id") { p in
            let v = p.header("apns-id")!
            return isLowercaseUUID(v) ? nil : "apns-id \(v) is not a lowercase 8-4-4-4-12 UUID"
        }
    }

    static let noDuplicateHeaders = CheckDefinition(
        id: "apns.header.no-duplicates", title: "No header is repeated",
        reference: "A12; apns.md §2 (DuplicateHeaders)", severity: .must
    ) { ctx in
        perPush(ctx, none: "no pushes", summary: "without repeated headers", violation: "repeated headers") { p in
            var seen: Set<String> = [], dup: Set<String> = []
            for (n, _) in p.headers where !seen.insert(n).inserted { dup.insert(n) }
            return dup.isEmpty ? nil : "repeated: " + dup.sorted().joined(separator: ", ")
        }
    }

    static let payloadLimits = CheckDefinition(
        id: "apns.payload-limits", title: "Payload within 4096 bytes (5120 for voip): an over-limit notification is rejected locally",
        reference: "Apple, Sending notification requests to APNs (payload size limits); severity: SHOULD, a sender that sends it, "
            + "gets 413 and reports rejected loses nothing", severity: .should
    ) { ctx in
        perPush(ctx, none: "no pushes", summary: "with a payload within limits", violation: "payload size out of limits") { p in
            let size = p.exchange.request.bodySize
            let limit = pushType(p) == "voip" ? APNsFacts.voipPayloadLimit : APNsFacts.payloadLimit
            if size == 0 { return "empty payload" }
            return size <= limit ? nil : "payload is \(size) bytes (limit \(limit)); it should have been rejected locally"
        }
    }

    static let environmentHost = CheckDefinition(
        id: "apns.environment-host", title: "Sandbox tokens go to the sandbox host, production tokens to production",
        reference: "A14; apns.md §8", severity: .must
    ) { ctx in
        perPush(ctx, filter: { ctx.scenario.device($0.device)?.environment != nil && $0.exchange.environment != nil },
                none: "no pushes with a known environment", summary: "sent to the right host", violation: "wrong host for the token's environment") { p in
            let want = ctx.scenario.device(p.device)!.environment!
            let got = p.exchange.environment!
            return want == got ? nil : "\(want) token sent to the \(got) host"
        }
    }
}
