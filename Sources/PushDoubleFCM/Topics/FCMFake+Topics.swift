import Foundation
import PushDoubleCore

/// Topic subscriptions as state of the double (docs/fcm.md "Topic subscriptions"): what one
/// subscribe or unsubscribe does to one token, shared by both topic-management APIs (the
/// Instance ID API and FCM's `topicSubscriptions` resource), and the audience a topic or
/// condition send reaches.
extension FCMFake {
    /// The device attribute that declares a registered FCM device's topics (`"topics": ["news"]`).
    public static let topicsAttribute = "topics"

    /// The outcome of one token's subscribe or unsubscribe, named as the Instance ID API's batch
    /// results name them (docs/fcm.md "Topic subscriptions" [A]); `ok` is the empty result `{}`.
    public enum TopicResult: String, Sendable, Equatable {
        case ok = ""
        /// The token was deleted or its app uninstalled (a dead, expired or unknown token).
        case notFound = "NOT_FOUND"
        /// The token is not a registration token, or not one of this project.
        case invalidArgument = "INVALID_ARGUMENT"
        /// The token is already subscribed to ``FCMTopicSubscriptions/maxTopicsPerToken`` topics.
        case tooManyTopics = "TOO_MANY_TOPICS"
    }

    /// Which change a topic-management request makes.
    public enum TopicOperation: String, Sendable, Equatable { case subscribe, unsubscribe }

    /// `topic` without the `/topics/` prefix the Instance ID API's `to` carries; nil when the
    /// name is not a valid topic (docs/fcm.md §2.1 characters, at most 900 of them).
    static func topicName(_ raw: String) -> String? {
        let name = raw.hasPrefix("/topics/") ? String(raw.dropFirst("/topics/".count)) : raw
        guard name.utf8.count <= 900, FCMTopicSyntax.isValidTopic(name, allowTopicsPrefix: false) else { return nil }
        return name
    }

    /// The topics a registered device declares (its `topics` attribute).
    static func declaredTopics(_ device: Device?) -> [String] {
        device?.attributes[topicsAttribute]?.arrayValue?.compactMap(\.stringValue) ?? []
    }

    /// The declared topics of the device `lookup` found (none for an open-world token).
    func declaredTopics(_ lookup: DeviceLookup, devices: DeviceRegistry) -> [String] {
        guard lookup.source == .registered, let id = lookup.deviceID else { return [] }
        return Self.declaredTopics(devices.device(id: id))
    }

    /// What the token's device state makes of a topic-management request, before any change:
    /// a dead or unknown token is `NOT_FOUND` (docs/fcm.md "Topic subscriptions": "deleted or
    /// the app has been uninstalled"), a malformed or foreign one `INVALID_ARGUMENT`.
    func topicRefusal(token: String, lookup: DeviceLookup, project: String?) -> TopicResult? {
        guard Self.isWellFormedToken(token) else { return .invalidArgument }
        if lookup.source == .unknown { return .notFound }
        switch lookup.state {
        case .unregistered, .expired: return .notFound
        case .invalid, .otherApp: return .invalidArgument
        case .active, .rateLimited: break
        }
        if let project, let owner = lookup.topic, owner != project { return .invalidArgument }
        return nil
    }

    /// Subscribes or unsubscribes one token (unsubscribing a token that is not subscribed is
    /// no error, as both APIs' batch forms report it).
    func applyTopic(_ operation: TopicOperation, token: String, topic: String, lookup: DeviceLookup, project: String?,
                    devices: DeviceRegistry, now: Date) -> TopicResult {
        if let refusal = topicRefusal(token: token, lookup: lookup, project: project) { return refusal }
        let declared = declaredTopics(lookup, devices: devices)
        switch operation {
        case .subscribe:
            return subscriptions.subscribe(token, to: topic, declared: declared, now: now.timeIntervalSince1970) == .tooManyTopics ? .tooManyTopics : .ok
        case .unsubscribe:
            subscriptions.unsubscribe(token, from: topic, declared: declared)
            return .ok
        }
    }

    /// The tokens a topic or condition send reaches, in order: registered FCM devices first
    /// (registration order), then open-world tokens an API subscribed. Dead devices are in it
    /// (the send still names them; the fan-out records that they got nothing).
    func audience(of target: FCMTarget, devices: DeviceRegistry) -> [String] {
        let matches: ([String]) -> Bool
        switch target {
        case .topic(let raw):
            let topic = Self.topicName(raw) ?? raw
            matches = { $0.contains(topic) }
        case .condition(let condition):
            matches = { topics in FCMTopicSyntax.matches(condition, isMember: topics.contains) ?? false }
        case .token, .fid:
            return []
        }
        var out: [String] = []
        var seen = Set<String>()
        for d in devices.list(provider: .fcm) where seen.insert(d.token).inserted {
            if matches(subscriptions.topics(of: d.token, declared: Self.declaredTopics(d)).map(\.topic)) { out.append(d.token) }
        }
        for t in subscriptions.tokensWithChanges() where seen.insert(t).inserted {
            if matches(subscriptions.topics(of: t, declared: []).map(\.topic)) { out.append(t) }
        }
        return out
    }

    /// One recipient of a topic or condition send: delivered when its device can receive.
    static func fanOutOutcome(token: String, lookup: DeviceLookup) -> RecipientOutcome {
        switch lookup.state {
        case .active, .rateLimited: return RecipientOutcome(token: token, accepted: true)
        case .unregistered, .expired: return RecipientOutcome(token: token, accepted: false, reason: FCMErrorCode.unregistered.rawValue)
        case .invalid: return RecipientOutcome(token: token, accepted: false, reason: FCMErrorCode.invalidArgument.rawValue)
        case .otherApp: return RecipientOutcome(token: token, accepted: false, reason: FCMErrorCode.senderIDMismatch.rawValue)
        }
    }
}
