import Foundation

/// One APNs push ready for the wire, minus the `authorization` header (added per
/// attempt from the JWT cache). Retries reuse it unchanged, `apns-id` included, so
/// APNs can collapse duplicates.
struct PreparedPush: Sendable {
    var token: String
    var environment: TargetDevice.Environment
    var pushType: APNsPushType
    var topic: String
    var apnsId: String
    /// Header fields in send order; each name appears once (apns.md §2 `DuplicateHeaders`).
    var headers: [(name: String, value: String)]
    var body: [UInt8]

    var path: String { APNs.devicePathPrefix + token }
}

/// What the builder made of a (notification, device) pair.
enum PushPlan: Sendable {
    case push(PreparedPush)
    /// Refused locally, never sent: the message is invalid for APNs.
    case rejected(reason: String)
    /// Refused locally, never sent: the device token cannot be used (not a path segment).
    case unusableToken(reason: String)
}

/// Maps a neutral notification onto an APNs request: payload, headers, limits.
///
/// Pure: the time (for `apns-expiration`) and the `apns-id` are inputs, so the mapping is
/// deterministic and testable. Rules and sources are listed in docs/reference-sender.md.
struct APNsRequestBuilder: Sendable {
    var mutant: MutantSet
    /// Whether the notification's `pushType` is used: false for the `apns-no-push-type` variant,
    /// a library with no way to name the push type (it declares so in `initialize`).
    var expressesPushType = true

    init(mutant: MutantSet = MutantSet(), variant: Variant? = nil) {
        self.mutant = mutant
        expressesPushType = variant != .apnsNoPushType
    }

    func plan(_ n: NeutralNotification, device: TargetDevice, defaultTopic: String?, now: Int64, apnsId: String) -> PushPlan {
        // The token goes into :path; refuse anything that is not a plain path segment.
        guard !device.token.isEmpty else { return .unusableToken(reason: APNsReason.missingDeviceToken) }
        guard device.token.utf8.allSatisfy(Self.isTokenByte) else { return .unusableToken(reason: APNsReason.badDeviceToken) }
        guard let bundle = (device.topic ?? defaultTopic), !bundle.isEmpty else { return .rejected(reason: APNsReason.missingTopic) }

        let hasAlert = n.title != nil || n.subtitle != nil || n.body != nil
        let pushType: APNsPushType
        if let explicit = n.pushType, !mutant.contains(.pushTypeDropped), expressesPushType {
            guard let t = APNsPushType(rawValue: explicit) else { return .rejected(reason: APNsReason.invalidPushType) }
            pushType = t
        } else if n.contentAvailable && !hasAlert && n.sound == nil && n.badge == nil {
            pushType = .background
        } else {
            pushType = .alert
        }

        // Headers (apns.md §2, §3, §9).
        var headers: [(name: String, value: String)] = []
        headers.reserveCapacity(8)
        headers.append((APNs.Header.pushType, pushType.rawValue))
        let topic = mutant.contains(.wrongTopicSuffix) ? bundle : pushType.topic(forBundleID: bundle)
        headers.append((APNs.Header.topic, topic))
        let priority: Int
        if pushType == .background {
            priority = mutant.contains(.backgroundPriority10) ? 10 : 5
        } else {
            priority = n.priority == .normal ? 5 : 10
        }
        headers.append((APNs.Header.priority, String(priority)))
        if let ttl = n.ttlSeconds {
            guard ttl >= 0 else { return .rejected(reason: APNsReason.badExpirationDate) }
            // 0 means "deliver now or never" for APNs too; otherwise epoch seconds.
            headers.append((APNs.Header.expiration, ttl == 0 ? "0" : String(now + Int64(ttl))))
        }
        if let collapse = n.collapseKey, !collapse.isEmpty {
            guard collapse.utf8.count <= APNs.maxCollapseIdBytes else { return .rejected(reason: APNsReason.badCollapseId) }
            headers.append((APNs.Header.collapseId, collapse))
        }
        headers.append((APNs.Header.id, apnsId))
        headers.append((APNs.Header.contentType, "application/json"))

        let body = Self.payload(n, pushType: pushType).bytes
        if body.isEmpty { return .rejected(reason: APNsReason.payloadEmpty) }
        if body.count > pushType.payloadLimit && !mutant.contains(.oversizedPayloads) {
            return .rejected(reason: APNsReason.payloadTooLarge)
        }
        return .push(PreparedPush(token: device.token, environment: device.environment, pushType: pushType,
                                  topic: topic, apnsId: apnsId, headers: headers, body: body))
    }

    /// The APNs JSON payload: `aps` first, then the custom `data` members at top level.
    static func payload(_ n: NeutralNotification, pushType: APNsPushType) -> JSON {
        var aps = JSONObject()
        // A background push carries no alert, sound or badge (apns.md §3, §9).
        let userVisible = pushType != .background
        if userVisible {
            var alert = JSONObject()
            if let t = n.title { alert["title"] = .string(t) }
            if let s = n.subtitle { alert["subtitle"] = .string(s) }
            if let b = n.body { alert["body"] = .string(b) }
            if !alert.isEmpty { aps["alert"] = .object(alert) }
            if let b = n.badge { aps["badge"] = .int(b) }
            if let s = n.sound { aps["sound"] = s }
        }
        if let t = n.threadId { aps["thread-id"] = .string(t) }
        if let c = n.category { aps["category"] = .string(c) }
        if n.contentAvailable || pushType == .background { aps["content-available"] = .int(1) }
        if userVisible && n.imageUrl != nil { aps["mutable-content"] = .int(1) }
        // WidgetKit and control pushes tell the system to reload: `content-changed: true` (apns.md §3).
        if pushType.signalsContentChanged { aps["content-changed"] = .bool(true) }

        var root = JSONObject()
        root["aps"] = .object(aps)
        if let data = n.data {
            // `aps` belongs to Apple; a custom member of that name would replace it.
            for m in data.members where m.key != "aps" { root[m.key] = m.value }
        }
        // The notification service extension downloads the image; the link is for the app.
        if let url = n.imageUrl, root["image-url"] == nil { root["image-url"] = .string(url) }
        if let link = n.link, root["link"] == nil { root["link"] = .string(link) }
        return .object(root)
    }

    /// Unreserved URI characters (RFC 3986 §2.3): safe in a path segment as is.
    static func isTokenByte(_ b: UInt8) -> Bool {
        switch b {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"): return true
        default: return false
        }
    }

    /// A fresh `apns-id`: a canonical lowercase UUID (apns.md §2).
    static func newApnsId() -> String { UUID().uuidString.lowercased() }
}
