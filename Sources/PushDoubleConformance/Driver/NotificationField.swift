import Foundation
import PushDoubleCore

/// The fields of the provider-neutral notification of driver protocol v1 (`send.params.notification`),
/// by name. A sender may declare, per provider, which of them it can express (`"fields"` in its
/// `initialize` result, an opt-in addition within v1): many libraries have no way to set, say,
/// the APNs push type or the Web Push TTL, and a check must then say so, not pass.
public enum NotificationField: String, Sendable, CaseIterable, Codable {
    case title, subtitle, body, data, collapseKey, ttlSeconds, priority, contentAvailable, sound, badge, threadId, category
    case channelId, imageUrl, link, pushType

    /// The kind of push a notification asks for, in APNs' words (the one platform that names
    /// it): its `pushType`, else `background` for a `contentAvailable` notification with
    /// nothing to show (no title, subtitle, body, sound or badge), else `alert`. Derived from
    /// the request, never from what the sender chose to send.
    public static func requestedPushType(_ n: JSONValue) -> String {
        if let t = n["pushType"]?.stringValue, !t.isEmpty { return t }
        let shows = [title, subtitle, body, sound, badge].contains { n[$0.rawValue] != nil && n[$0.rawValue] != .null }
        return n["contentAvailable"]?.boolValue == true && !shows ? "background" : "alert"
    }

    /// Reads the `fields` member of an `initialize` result: an object whose members are provider
    /// ids and whose values are arrays of field names. An unknown field name is kept (a sender
    /// may know fields of a later runner) and ignored; anything else is the reason it is malformed.
    public static func declaration(_ value: JSONValue) -> Result<[String: [String]], DeclarationError> {
        guard let members = value.objectValue else {
            return .failure(DeclarationError("\"fields\" must be an object: provider id → array of notification field names"))
        }
        var out: [String: [String]] = [:]
        for (provider, list) in members {
            guard let names = list.arrayValue, names.allSatisfy({ $0.stringValue != nil }) else {
                return .failure(DeclarationError("\"fields\".\(provider) must be an array of notification field names (strings)"))
            }
            out[provider] = names.compactMap(\.stringValue)
        }
        return .success(out)
    }

    /// Why a `fields` declaration is malformed.
    public struct DeclarationError: Error, Sendable {
        public var problem: String
        init(_ problem: String) { self.problem = problem }
    }
}

/// What a sender can express of the notification, per provider, as it declared in `initialize`
/// (``SenderIdentity/fields``). A sender that declared nothing, or nothing for a provider, can
/// express every field there.
public struct SenderFields: Sendable, Equatable {
    /// provider id → the fields declared; a provider absent = every field.
    public var declared: [String: Set<String>]

    public init(_ fields: [String: [String]]?) {
        declared = (fields ?? [:]).mapValues { Set($0) }
    }

    /// Every field, for every provider (no declaration).
    public static let all = SenderFields(nil)

    /// Whether the sender can express `field` for `provider`.
    public func canExpress(_ field: NotificationField, for provider: ProviderID) -> Bool {
        declared[provider.rawValue]?.contains(field.rawValue) ?? true
    }

    /// The n/a reason for a check of `field` on `provider` when the sender declared it cannot
    /// express it ("sender cannot express apns pushType"); nil when it can.
    public func inexpressible(_ field: NotificationField, for provider: ProviderID) -> String? {
        canExpress(field, for: provider) ? nil : "sender cannot express \(provider.rawValue) \(field.rawValue)"
    }

    /// The fields the notification `n` sets that the sender cannot express for `provider`, in
    /// declaration order.
    public func unexpressed(in n: JSONValue?, for provider: ProviderID) -> [NotificationField] {
        guard let members = n?.objectValue else { return [] }
        let present = Set(members.map(\.0))
        return NotificationField.allCases.filter { present.contains($0.rawValue) && !canExpress($0, for: provider) }
    }
}

/// One way a wire request differs from the notification asked for, naming the field it
/// concerns so a check can leave out a field the sender declared it cannot express.
public struct FieldDifference: Sendable, Equatable {
    public var field: NotificationField
    public var text: String
    public init(_ field: NotificationField, _ text: String) { self.field = field; self.text = text }

    /// "; not judged: apns pushType, ttlSeconds (the sender cannot express them)", or "" when
    /// every requested field was judged.
    public static func notJudgedNote(_ fields: Set<NotificationField>, provider: ProviderID) -> String {
        guard !fields.isEmpty else { return "" }
        let names = NotificationField.allCases.filter(fields.contains).map(\.rawValue).joined(separator: ", ")
        return "; not judged: \(provider.rawValue) \(names) (the sender cannot express \(fields.count == 1 ? "it" : "them"))"
    }
}

extension Array where Element == FieldDifference {
    /// The differences of fields the sender can express for `provider`.
    public func expressible(by fields: SenderFields, for provider: ProviderID) -> [FieldDifference] {
        filter { fields.canExpress($0.field, for: provider) }
    }
}

/// One request a mapping check compares with its step's notification: how the evidence names
/// it, its history seq, and what it lacks of the notification.
public struct MappedRequest: Sendable {
    public var describe: String
    public var seq: UInt64
    public var differences: [FieldDifference]
    public init(describe: String, seq: UInt64, differences: [FieldDifference]) {
        self.describe = describe; self.seq = seq; self.differences = differences
    }
}

/// The one loop of every provider's mapping check (`apns.mapping`, `fcm.mapping`,
/// `expo.mapping`): per send step with a notification, the provider's requests of that step and
/// their differences, leaving out the fields the sender declared it cannot express for
/// `provider` and saying which were left out.
public enum MappingJudgement {
    /// - Parameters:
    ///   - noun: what the held message counts ("push(es)", "message(s)").
    ///   - none: the n/a reason when no request was judged.
    ///   - requests: the requests of `step` compared with notification `n`.
    public static func finding(_ ctx: CheckContext, provider: ProviderID, noun: String, none: String,
                               requests: (_ step: StepRecord, _ n: JSONValue) -> [MappedRequest]) -> Finding {
        var problems: [Evidence] = []
        var judged = 0
        var unexpressed: Set<NotificationField> = []
        for step in ctx.steps where step.type == "send" {
            guard let n = step.notification else { continue }
            unexpressed.formUnion(ctx.fields.unexpressed(in: n, for: provider))
            for r in requests(step, n) {
                judged += 1
                let d = r.differences.expressible(by: ctx.fields, for: provider)
                if !d.isEmpty { problems.append(Evidence(r.describe + "; " + d.map(\.text).joined(separator: "; "), seqs: [r.seq])) }
            }
        }
        if judged == 0 { return .notApplicable(none) }
        let note = FieldDifference.notJudgedNote(unexpressed, provider: provider)
        return .judged(Array(problems.prefix(8)), held: "\(judged) \(noun) carry the notification as asked" + note,
                       violated: "notification mapped wrongly" + note)
    }
}
