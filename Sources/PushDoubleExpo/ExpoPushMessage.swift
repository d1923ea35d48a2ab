import PushDoubleJSON

/// `sound` (docs/expo.md §2): `"default"`, `null`, or the SDK's object form.
public enum ExpoSound: Sendable, Equatable {
    /// `"default"`.
    case `default`
    /// `null`: no sound.
    case none
    /// `{critical?, name?, volume?}` (SDK types); `name: null` is kept as nil.
    case object(critical: Bool?, name: String?, volume: Double?)
    /// Any other string: only with ``ExpoSendDecoderConfiguration/acceptCustomSoundNames``.
    case named(String)
}

/// `priority` (docs/expo.md §2): `normal` → APNs 5, `high` → APNs 10.
public enum ExpoPriority: String, Sendable, Equatable, CaseIterable {
    case `default`, normal, high
}

/// `interruptionLevel` (docs/expo.md §2, current SDK types).
public enum ExpoInterruptionLevel: String, Sendable, Equatable, CaseIterable {
    case active, critical, passive
    case timeSensitive = "time-sensitive"
}

/// One decoded message of a send request (docs/expo.md §2 field table). Fields absent (or `null`,
/// except `sound`) are nil.
public struct ExpoPushMessage: Sendable, Equatable {
    /// The recipients in order: a string `to` gives one.
    public var to: [String] = []
    /// Whether `to` was an array.
    public var toWasArray = false
    /// `data`, an object as sent.
    public var data: JSONValue?
    public var title: String?
    public var body: String?
    /// iOS.
    public var subtitle: String?
    /// nil when absent; `.none` for `null`.
    public var sound: ExpoSound?
    /// Seconds; takes precedence over `expiration` (§2).
    public var ttl: Double?
    /// Unix seconds.
    public var expiration: Double?
    public var priority: ExpoPriority?
    /// iOS; 0 clears the badge.
    public var badge: Double?
    /// Android.
    public var channelId: String?
    public var categoryId: String?
    /// iOS.
    public var mutableContent: Bool?
    public var interruptionLevel: ExpoInterruptionLevel?
    /// `icon`, `richContent`, `collapseId`, `tag`: server semantics UNCONFIRMED (§2), kept as sent.
    public var icon: JSONValue?
    public var richContent: JSONValue?
    public var collapseId: JSONValue?
    public var tag: JSONValue?
    /// `_contentAvailable` (iOS background push).
    public var contentAvailable: Bool?
    /// `_displayInForeground` (legacy; the Python SDK still sends it).
    public var displayInForeground: Bool?
    /// Member names §2 does not list, in order (accepted by default).
    public var unknownFields: [String] = []
    /// The message object as received (built from the request's JSON when read).
    public var raw: JSONValue {
        get { source.value }
        set { source = ExpoMessageSource(newValue) }
    }
    /// Where ``raw`` comes from.
    var source = ExpoMessageSource(.object([]))
    /// The size measured against the 4096-byte limit (``ExpoPayloadMeasure``).
    public var payloadBytes = 0

    public init() {}

    /// The member names of docs/expo.md §2, in its table order.
    public static let fieldNames = ["to", "data", "title", "body", "subtitle", "sound", "ttl", "expiration", "priority",
                                    "badge", "channelId", "categoryId", "mutableContent", "interruptionLevel", "icon",
                                    "richContent", "collapseId", "tag", "_contentAvailable", "_displayInForeground"]
}

/// One message object as received: its node in the request's ``JSONTape`` (no value tree is
/// built for a message unless ``value`` is read), or a value set directly. Equal when the
/// values are.
struct ExpoMessageSource: Sendable, Equatable {
    private enum Storage: Sendable {
        case tape(JSONTape, JSONTape.Index)
        case value(JSONValue)
    }
    private let storage: Storage

    init(_ value: JSONValue) { storage = .value(value) }
    init(tape: JSONTape, node: JSONTape.Index) { storage = .tape(tape, node) }

    var value: JSONValue {
        switch storage {
        case .tape(let tape, let node): return tape.value(node)
        case .value(let v): return v
        }
    }

    static func == (a: Self, b: Self) -> Bool { a.value == b.value }
}
