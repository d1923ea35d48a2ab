import PushDoubleJSON

/// Parses and checks the body of `POST /v1/projects/{project}/messages:send`
/// (`{"message":{…},"validate_only":…}`, docs/fcm.md §2) the way FCM does, and returns the
/// decoded ``FCMMessage`` or the exact ``FCMError``.
///
/// Field names are accepted in snake_case and lowerCamelCase (docs/fcm.md §2). The checks run in
/// two phases, as a proto3 JSON front end followed by FCM's own checks would:
///
/// 1. **Decoding** (`decode…`): JSON syntax, object shapes, each field's JSON type
///    (`Invalid value at '…' (TYPE_…), …`, §4.3), unknown fields (policy), enum names,
///    duration and timestamp syntax.
/// 2. **FCM's checks** (`check…`), in this order: exactly one target (§2.1), `fid`
///    accepted, topic name / condition syntax (§2.1), reserved `data` keys (§2.1),
///    `android.ttl` range (§2.2, §4.5), `color` format (§2.3), webpush `link` HTTPS
///    (§2.5), analytics labels (off by default, §2.1), payload size (§4.5), data-only
///    `apns-priority` (off by default, §2.1).
///
/// The rule list with sources is ``FCMValidationRule``; docs/fcm.md has the table.
public struct FCMSendRequestValidator: Sendable {
    public var configuration: FCMValidatorConfiguration

    public init(configuration: FCMValidatorConfiguration = FCMValidatorConfiguration()) {
        self.configuration = configuration
    }

    /// Validates a request body.
    public func validate<Bytes: Collection>(body: Bytes) throws(FCMError) -> FCMMessage where Bytes.Element == UInt8 {
        let tape: JSONTape
        do { tape = try JSONTape.parse(Array(body)) } catch {
            throw FCMError(rule: .bodyNotJSON, field: nil, envelope: configuration.error(for: .bodyNotJSON))
        }
        var reader = FCMFieldReader(configuration: configuration, tape: tape)
        guard tape.kind(tape.root) == .object else { throw reader.fail(.bodyNotObject, nil) }
        var raw = try decodeRequest(tape.root, &reader)
        try check(&raw, reader)
        // Moved out (a swap), not copied: the message is a large value.
        var message = FCMMessage(target: .token(""), validateOnly: false)
        swap(&message, &raw.message)
        return message
    }

    /// Validates a request body given as text.
    public func validate(json: String) throws(FCMError) -> FCMMessage { try validate(body: Array(json.utf8)) }

    // MARK: Schemas (docs/fcm.md §2)

    static let requestSchema = FCMFieldSchema(["message", "validate_only"])
    static let messageSchema = FCMFieldSchema(["name", "token", "topic", "condition", "fid", "data", "notification",
                                               "android", "webpush", "apns", "fcm_options"])
    static let notificationSchema = FCMFieldSchema(["title", "body", "image"])
    static let labelOptionsSchema = FCMFieldSchema(["analytics_label"])
    static let apnsOptionsSchema = FCMFieldSchema(["analytics_label", "image"])
    static let webpushOptionsSchema = FCMFieldSchema(["link", "analytics_label"])
    static let androidSchema = FCMFieldSchema(["collapse_key", "priority", "ttl", "restricted_package_name", "data",
                                               "notification", "fcm_options", "direct_boot_ok",
                                               "bandwidth_constrained_ok", "restricted_satellite_ok"])
    static let androidNotificationStrings = ["title", "body", "icon", "color", "sound", "tag", "click_action",
                                             "body_loc_key", "title_loc_key", "channel_id", "ticker", "image"]
    static let androidNotificationFlags = ["sticky", "local_only", "default_sound", "default_vibrate_timings",
                                           "default_light_settings", "bypass_proxy_notification"]
    static let androidNotificationSchema = FCMFieldSchema(androidNotificationStrings + androidNotificationFlags +
        ["body_loc_args", "title_loc_args", "event_time", "vibrate_timings", "notification_count", "light_settings",
         "notification_priority", "visibility", "proxy"])
    static let lightSettingsSchema = FCMFieldSchema(["color", "light_on_duration", "light_off_duration"])
    static let colorSchema = FCMFieldSchema(["red", "green", "blue", "alpha"])
    static let apnsSchema = FCMFieldSchema(["headers", "payload", "fcm_options"])
    static let webpushSchema = FCMFieldSchema(["headers", "data", "notification", "fcm_options"])

    /// `android.priority` values (docs/fcm.md §2.2), after uppercasing.
    static let androidPriorities: Set<String> = Set([FCMAndroidPriority.normal, .high].map(\.rawValue))

    /// The targets in the order they are looked for (docs/fcm.md §2.1).
    static let targetNames = ["token", "topic", "condition", "fid"]

    /// What decoding produced before FCM's checks: the message minus its target, the target
    /// fields present, and the raw `message` object for the size measure.
    struct Decoded {
        var message: FCMMessage
        var targets: [FCMTarget]
        var messageValue: JSONTape.Index?
    }

    // MARK: Phase 1: decoding

    func decodeRequest(_ root: JSONTape.Index, _ r: inout FCMFieldReader) throws(FCMError) -> Decoded {
        let top = try r.fields(root, Self.requestSchema, parentPath: "", name: "")
        let validateOnly = try r.bool(top, "validate_only") ?? false
        var decoded = Decoded(message: FCMMessage(target: .token(""), validateOnly: validateOnly), targets: [], messageValue: r.value(top, "message"))
        if let m = try r.object(top, "message", Self.messageSchema) {
            try decodeMessage(m, &decoded, &r)
        }
        decoded.message.unknownFields = r.unknown
        return decoded
    }

    func decodeMessage(_ m: FCMObjectFields, _ d: inout Decoded, _ r: inout FCMFieldReader) throws(FCMError) {
        _ = try r.string(m, "name")  // output only (§2.1): accepted, ignored
        for name in Self.targetNames {
            guard let value = try r.string(m, name) else { continue }
            switch name {
            case "token": d.targets.append(.token(value))
            case "topic": d.targets.append(.topic(value))
            case "condition": d.targets.append(.condition(value))
            default: d.targets.append(.fid(value))
            }
        }
        d.message.data = try r.stringMap(m, "data")
        if let n = try r.object(m, "notification", Self.notificationSchema) {
            d.message.notification = FCMNotification(title: try r.string(n, "title"), body: try r.string(n, "body"),
                                                     image: try r.string(n, "image"))
        }
        if let a = try r.object(m, "android", Self.androidSchema) { d.message.android = try decodeAndroid(a, &r) }
        if let a = try r.object(m, "apns", Self.apnsSchema) { d.message.apns = try decodeApns(a, &r) }
        if let w = try r.object(m, "webpush", Self.webpushSchema) { d.message.webpush = try decodeWebpush(w, &r) }
        if let o = try r.object(m, "fcm_options", Self.labelOptionsSchema) {
            d.message.fcmOptions = FCMOptions(analyticsLabel: try r.string(o, "analytics_label"))
        }
    }

    func decodeAndroid(_ a: FCMObjectFields, _ r: inout FCMFieldReader) throws(FCMError) -> FCMAndroidConfig {
        var c = FCMAndroidConfig()
        c.collapseKey = try r.string(a, "collapse_key")
        // §2.2: NORMAL | HIGH; the SDKs send lowercase, so any case is accepted.
        if let p = try r.caseInsensitiveEnumName(a, "priority", allowed: Self.androidPriorities, rule: .androidPriority) {
            c.priority = FCMAndroidPriority(rawValue: p)
        }
        c.ttl = try r.duration(a, "ttl", rule: .ttlFormat)
        c.restrictedPackageName = try r.string(a, "restricted_package_name")
        c.data = try r.stringMap(a, "data")
        if let n = try r.object(a, "notification", Self.androidNotificationSchema) { c.notification = try decodeAndroidNotification(n, &r) }
        if let o = try r.object(a, "fcm_options", Self.labelOptionsSchema) { c.fcmOptions = FCMOptions(analyticsLabel: try r.string(o, "analytics_label")) }
        c.directBootOK = try r.bool(a, "direct_boot_ok")
        c.bandwidthConstrainedOK = try r.bool(a, "bandwidth_constrained_ok")
        c.restrictedSatelliteOK = try r.bool(a, "restricted_satellite_ok")
        return c
    }

    func decodeAndroidNotification(_ n: FCMObjectFields, _ r: inout FCMFieldReader) throws(FCMError) -> FCMAndroidNotification {
        var an = FCMAndroidNotification()
        for name in Self.androidNotificationStrings { if let s = try r.string(n, name) { an.strings[name] = s } }
        for name in Self.androidNotificationFlags { if let b = try r.bool(n, name) { an.flags[name] = b } }
        an.bodyLocArgs = try r.stringArray(n, "body_loc_args")
        an.titleLocArgs = try r.stringArray(n, "title_loc_args")
        if let v = r.value(n, "event_time") {
            guard let s = r.tape.string(v), FCMTimestampSyntax.isValid(s) else { throw r.fail(.timestampFormat, n.path("event_time")) }
            an.eventTime = s
        }
        if let v = r.value(n, "vibrate_timings") {
            guard r.tape.kind(v) == .array else { throw r.wrongType(n.path("vibrate_timings"), "TYPE_MESSAGE", v) }
            var list: [FCMDuration] = []
            for (i, item) in r.tape.elements(v).enumerated() {
                guard let s = r.tape.string(item), let d = FCMDuration(s) else { throw r.fail(.durationFormat, "\(n.path("vibrate_timings"))[\(i)]") }
                list.append(d)
            }
            an.vibrateTimings = list
        }
        if let v = r.value(n, "notification_count") { an.notificationCount = try decodeInt32(v, path: n.path("notification_count"), r) }
        if let l = try r.object(n, "light_settings", Self.lightSettingsSchema) {
            var ls = FCMLightSettings()
            if let c = try r.object(l, "color", Self.colorSchema) {
                ls.red = try r.number(c, "red"); ls.green = try r.number(c, "green")
                ls.blue = try r.number(c, "blue"); ls.alpha = try r.number(c, "alpha")
            }
            ls.lightOnDuration = try r.duration(l, "light_on_duration", rule: .durationFormat)
            ls.lightOffDuration = try r.duration(l, "light_off_duration", rule: .durationFormat)
            an.lightSettings = ls
        }
        an.notificationPriority = try r.enumName(n, "notification_priority", allowed: FCMAndroidNotification.notificationPriorities, rule: .enumValue)
        an.visibility = try r.enumName(n, "visibility", allowed: FCMAndroidNotification.visibilities, rule: .enumValue)
        an.proxy = try r.enumName(n, "proxy", allowed: FCMAndroidNotification.proxies, rule: .enumValue)
        return an
    }

    /// int32 (docs/fcm.md §2.3): a JSON integer, or (leniently) an integral number or decimal string.
    func decodeInt32(_ v: JSONTape.Index, path: String, _ r: FCMFieldReader) throws(FCMError) -> Int32 {
        let wide: Int64?
        switch r.tape.kind(v) {
        case .int, .double: wide = r.tape.value(v).intValue
        case .string: wide = r.tape.string(v).flatMap { Int64($0) }
        default: throw r.wrongType(path, "TYPE_INT32", v)
        }
        guard let w = wide else { throw r.wrongType(path, "TYPE_INT32", v) }
        guard let n = Int32(exactly: w) else { throw r.fail(.int32Range, path) }
        return n
    }

    func decodeApns(_ a: FCMObjectFields, _ r: inout FCMFieldReader) throws(FCMError) -> FCMApnsConfig {
        var c = FCMApnsConfig()
        c.headers = try r.stringMap(a, "headers")
        c.payload = try r.anyObject(a, "payload")
        if let o = try r.object(a, "fcm_options", Self.apnsOptionsSchema) {
            c.fcmOptions = FCMOptions(analyticsLabel: try r.string(o, "analytics_label"), image: try r.string(o, "image"))
        }
        return c
    }

    func decodeWebpush(_ w: FCMObjectFields, _ r: inout FCMFieldReader) throws(FCMError) -> FCMWebpushConfig {
        var c = FCMWebpushConfig()
        c.headers = try r.stringMap(w, "headers")
        c.data = try r.stringMap(w, "data")
        c.notification = try r.anyObject(w, "notification")
        if let o = try r.object(w, "fcm_options", Self.webpushOptionsSchema) {
            c.fcmOptions = FCMOptions(analyticsLabel: try r.string(o, "analytics_label"), link: try r.string(o, "link"))
        }
        return c
    }

    // MARK: Phase 2: FCM's checks

    func check(_ d: inout Decoded, _ r: FCMFieldReader) throws(FCMError) {
        try checkTarget(&d, r)
        try checkReservedKeys(d.message.data, path: "message.data", r)
        if let ttl = d.message.android?.ttl {
            guard ttl.seconds >= 0, ttl.nanos >= 0, ttl.wholeSeconds <= configuration.maxTTLSeconds else {
                throw r.fail(.ttlRange, "message.android.ttl")
            }
        }
        if let color = d.message.android?.notification?.strings["color"], !Self.isHexColor(color) {
            throw r.fail(.colorFormat, "message.android.notification.color")
        }
        if let link = d.message.webpush?.fcmOptions?.link, !Self.isHTTPS(link) {
            throw r.fail(.webpushLink, "message.webpush.fcm_options.link")
        }
        if configuration.checkAnalyticsLabel { try checkAnalyticsLabels(d.message, r) }
        try checkPayloadSize(&d, r)
        if configuration.checkDataOnlyAPNsPriority, d.message.isDataOnly,
           let p = d.message.apns?.headers?.value(forHeader: "apns-priority"), p != "5" {
            throw r.fail(.dataOnlyAPNsPriority, "message.apns.headers")
        }
    }

    func checkTarget(_ d: inout Decoded, _ r: FCMFieldReader) throws(FCMError) {
        guard let target = d.targets.first else { throw r.fail(.missingTarget, "message") }
        guard d.targets.count == 1 else { throw r.fail(.multipleTargets, "message") }
        switch target {
        case .fid where !configuration.acceptFID:
            throw r.fail(.fidNotAccepted, "message.fid")
        case .topic(let t) where !FCMTopicSyntax.isValidTopic(t, allowTopicsPrefix: configuration.acceptTopicsPrefix):
            throw r.fail(.topicName, "message.topic")
        case .condition(let c) where FCMTopicSyntax.conditionTopics(c) == nil:
            throw r.fail(.conditionSyntax, "message.condition")
        default: break
        }
        d.message.target = target
    }

    /// `from`, `message_type`, and keys starting `google` / `gcm` (docs/fcm.md §2.1, on `message.data`).
    func checkReservedKeys(_ map: FCMStringMap?, path: String, _ r: FCMFieldReader) throws(FCMError) {
        for (i, e) in (map?.entries ?? []).enumerated() {
            // The reserved keys compared one by one with `==` (the set's own equality) rather
            // than hashed: a handful of small strings, and hashing the key showed up per send.
            if configuration.reservedDataKeys.contains(where: { $0 == e.key })
                || configuration.reservedDataKeyPrefixes.contains(where: { Self.hasPrefix(e.key, $0) }) {
                var envelope = configuration.error(for: .reservedDataKey)
                if configuration.errorOverrides[.reservedDataKey] == nil { envelope.message = GoogleErrorEnvelope.reservedDataKeyMessage(e.key) }
                throw FCMError(rule: .reservedDataKey, field: "\(path)[\(i)].key", envelope: envelope)
            }
        }
    }

    func checkAnalyticsLabels(_ m: FCMMessage, _ r: FCMFieldReader) throws(FCMError) {
        let labels: [(String, String?)] = [
            ("message.fcm_options.analytics_label", m.fcmOptions?.analyticsLabel),
            ("message.android.fcm_options.analytics_label", m.android?.fcmOptions?.analyticsLabel),
            ("message.apns.fcm_options.analytics_label", m.apns?.fcmOptions?.analyticsLabel),
            ("message.webpush.fcm_options.analytics_label", m.webpush?.fcmOptions?.analyticsLabel),
        ]
        for case let (path, label?) in labels where !Self.isAnalyticsLabel(label) { throw r.fail(.analyticsLabel, path) }
    }

    func checkPayloadSize(_ d: inout Decoded, _ r: FCMFieldReader) throws(FCMError) {
        let size: Int
        switch configuration.payloadMeasure {
        case .dataAndNotification:
            let n = (d.message.data?.byteCount ?? 0) + Self.notificationBytes(d.message.notification)
            if let a = d.message.android, a.data != nil || a.notification != nil {
                size = max(n, Self.androidMessageBytes(d.message, a))
            } else {
                size = n
            }
        case .messageJSON:
            size = d.messageValue.map { r.tape.value($0).compactJSONBytes.count } ?? 0
        }
        d.message.payloadBytes = size
        let isTopic: Bool
        switch d.message.target {
        case .topic: isTopic = true
        case .condition: isTopic = configuration.conditionUsesTopicLimit
        default: isTopic = false
        }
        let limit = isTopic ? configuration.maxTopicPayloadBytes : configuration.maxPayloadBytes
        if size > limit { throw r.fail(.payloadTooLarge, "message") }
    }

    /// The Android message FCM builds from `m` (docs/fcm.md "Payload size", §4.5a): the data
    /// that reaches the device (`android.data`, which replaces `message.data`, else
    /// `message.data`), and each notification field once, `android.notification`'s value over
    /// `message.notification`'s, name and value, with the localization arguments.
    static func androidMessageBytes(_ m: FCMMessage, _ a: FCMAndroidConfig) -> Int {
        var n = ((a.data ?? m.data)?.byteCount ?? 0) + notificationBytes(m.notification, except: a.notification?.strings)
        guard let an = a.notification else { return n }
        for (name, value) in an.strings { n += name.utf8.count + value.utf8.count }
        for arg in an.bodyLocArgs ?? [] { n += arg.utf8.count }
        for arg in an.titleLocArgs ?? [] { n += arg.utf8.count }
        return n
    }

    /// Name and value bytes of each field of `note` present (no array per send), leaving out
    /// those `overrides` sets (`android.notification`'s value stands instead of `message.notification`'s).
    static func notificationBytes(_ note: FCMNotification?, except overrides: [String: String]? = nil) -> Int {
        guard let note else { return 0 }
        func field(_ name: String, _ value: String?) -> Int {
            guard let value, overrides?[name] == nil else { return 0 }
            return name.utf8.count + value.utf8.count
        }
        return field("title", note.title) + field("body", note.body) + field("image", note.image)
    }

    /// `s.hasPrefix(prefix)`, on the bytes when both are ASCII without CR (then every byte
    /// is one Character, so the answers agree); `hasPrefix` otherwise.
    static func hasPrefix(_ s: String, _ prefix: String) -> Bool {
        // The contiguous bytes in place (no copy of either string to call `withUTF8`).
        let answer: Bool?? = s.utf8.withContiguousStorageIfAvailable { sb in
            prefix.utf8.withContiguousStorageIfAvailable { pb -> Bool? in
                for c in sb where c >= 0x80 || c == 0x0D { return nil }
                for c in pb where c >= 0x80 || c == 0x0D { return nil }
                guard pb.count <= sb.count else { return false }
                for i in 0..<pb.count where sb[i] != pb[i] { return false }
                return true
            } ?? nil
        }
        return (answer ?? nil) ?? s.hasPrefix(prefix)
    }

    /// `#rrggbb` (docs/fcm.md §2.3), hex digits in either case.
    static func isHexColor(_ s: String) -> Bool {
        let u = Array(s.utf8)
        return u.count == 7 && u[0] == 0x23 && u[1...].allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x66) }
    }

    /// An `https://` URL with something after the scheme (docs/fcm.md §2.5); scheme in any case.
    static func isHTTPS(_ s: String) -> Bool {
        s.count > 8 && s.prefix(8).lowercased() == "https://"
    }

    /// `^[a-zA-Z0-9-_.~%]{1,50}$` (docs/fcm.md §2.1, the Python SDK's `check_analytics_label` [L]).
    static func isAnalyticsLabel(_ s: String) -> Bool {
        (1...50).contains(s.utf8.count) && s.utf8.allSatisfy(FCMTopicSyntax.isTopicCharacter)
    }
}
