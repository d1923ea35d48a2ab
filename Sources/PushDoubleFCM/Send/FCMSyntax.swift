import PushDoubleTransport

/// A google-duration string (`"3.5s"`, `"3s"`, `"3.000000001s"`; docs/fcm.md §2.2 [A]): optional
/// `-`, decimal seconds, an optional fraction of 1–9 digits, then `s`.
public struct FCMDuration: Sendable, Equatable {
    /// Whole seconds (negative for a negative duration).
    public let seconds: Int64
    /// Nanoseconds of the fraction, 0...999_999_999, same sign as the duration.
    public let nanos: Int32
    /// The text as sent.
    public let text: String

    /// Parses `text`; nil when it is not a duration string.
    public init?(_ text: String) {
        guard let (s, n) = UTF8Bytes.of(text, { Self.parse($0) }) else { return nil }
        self.seconds = s
        self.nanos = n
        self.text = text
    }

    /// `(seconds, nanos)` of the UTF-8 of a duration string, signed; nil when malformed.
    /// One pass over the bytes (no arrays: it runs for every `android.ttl`).
    private static func parse(_ u: UnsafeBufferPointer<UInt8>) -> (Int64, Int32)? {
        guard let last = u.last, last == UInt8(ascii: "s") else { return nil }
        let end = u.count - 1
        var i = 0
        let negative = i < end && u[i] == UInt8(ascii: "-")
        if negative { i += 1 }
        var point = i
        while point < end, u[point] != UInt8(ascii: ".") { point += 1 }
        let wholeCount = point - i
        guard wholeCount > 0, wholeCount <= 12 else { return nil }
        var s: Int64 = 0
        for k in i..<point {
            guard isDigit(u[k]) else { return nil }
            s = s * 10 + Int64(u[k] - 0x30)
        }
        var n: Int32 = 0
        var digits = 0
        if point < end {
            digits = end - point - 1
            guard (1...9).contains(digits) else { return nil }
            for k in (point + 1)..<end {
                guard isDigit(u[k]) else { return nil }
                n = n * 10 + Int32(u[k] - 0x30)
            }
        }
        for _ in digits..<9 { n *= 10 }
        return (negative ? -s : s, negative ? -n : n)
    }

    /// The duration rounded down to whole seconds, as FCM does for a TTL (docs/fcm.md §2.2).
    public var wholeSeconds: Int64 { (seconds < 0 || nanos < 0) && nanos != 0 ? seconds - 1 : seconds }

    private static func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }
}

/// Topic names and topic conditions (docs/fcm.md §2.1).
public enum FCMTopicSyntax {
    /// The characters of a topic name: `[a-zA-Z0-9-_.~%]` (the Go SDK's check, docs/fcm.md §2.1 [L]).
    static func isTopicCharacter(_ c: UInt8) -> Bool {
        switch c {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x2D, 0x5F, 0x2E, 0x7E, 0x25: return true
        default: return false
        }
    }

    /// `^(/topics/)?(private/)?[a-zA-Z0-9-_.~%]+$` (docs/fcm.md §2.1, the Go SDK's pattern [L]);
    /// with `allowTopicsPrefix` false the `/topics/` prefix is refused (the SDKs strip it).
    public static func isValidTopic(_ topic: String, allowTopicsPrefix: Bool) -> Bool {
        var rest = Substring(topic)
        if rest.hasPrefix("/topics/") {
            guard allowTopicsPrefix else { return false }
            rest = rest.dropFirst("/topics/".count)
        }
        if rest.hasPrefix("private/") { rest = rest.dropFirst("private/".count) }
        return !rest.isEmpty && rest.utf8.allSatisfy(isTopicCharacter)
    }

    /// Parses a topic condition and returns the topic names it mentions, nil when malformed.
    ///
    /// docs/fcm.md §2.1 gives one example, `'foo' in topics && 'bar' in topics`. The grammar read
    /// here is that example's, widened leniently: terms `'<topic>' in topics` (single or
    /// double quotes, topic characters as above), joined by `&&` or `||`, with `!` and
    /// parentheses; any whitespace between tokens.
    public static func conditionTopics(_ condition: String) -> [String]? {
        var p = ConditionParser(Array(condition.utf8), isMember: { _ in false })
        guard p.expression(depth: 0) != nil, p.atEnd else { return nil }
        return p.topics
    }

    /// Whether a device subscribed to `isMember`'s topics matches `condition`; nil when the
    /// condition is malformed (the grammar of ``conditionTopics(_:)``). `&&` binds tighter
    /// than `||`, `!` tightest, as in the documentation's example `'TopicA' in topics &&
    /// ('TopicB' in topics || 'TopicC' in topics)` (docs/fcm.md §2.1).
    public static func matches(_ condition: String, isMember: (String) -> Bool) -> Bool? {
        withoutActuallyEscaping(isMember) { member in
            var p = ConditionParser(Array(condition.utf8), isMember: member)
            guard let value = p.expression(depth: 0), p.atEnd else { return nil }
            return value
        }
    }
}

/// Recursive-descent reader of the condition grammar above; each rule returns the value of
/// what it read (topic membership by `isMember`), nil when the text does not parse.
private struct ConditionParser {
    let u: [UInt8]
    var i = 0
    var topics: [String] = []
    let isMember: (String) -> Bool
    init(_ u: [UInt8], isMember: @escaping (String) -> Bool) { self.u = u; self.isMember = isMember }

    static let maxDepth = 32

    var atEnd: Bool { mutating get { skipSpace(); return i == u.count } }

    mutating func skipSpace() { while i < u.count, u[i] == 0x20 || u[i] == 0x09 || u[i] == 0x0A || u[i] == 0x0D { i += 1 } }

    mutating func take(_ s: String) -> Bool {
        skipSpace()
        let b = Array(s.utf8)
        guard i + b.count <= u.count, Array(u[i..<(i + b.count)]) == b else { return false }
        i += b.count
        return true
    }

    /// expression := conjunction ('||' conjunction)*
    mutating func expression(depth: Int) -> Bool? {
        guard depth < Self.maxDepth, var value = conjunction(depth: depth) else { return nil }
        while take("||") {
            guard let next = conjunction(depth: depth) else { return nil }
            value = value || next
        }
        return value
    }

    /// conjunction := term ('&&' term)*
    mutating func conjunction(depth: Int) -> Bool? {
        guard var value = term(depth: depth) else { return nil }
        while take("&&") {
            guard let next = term(depth: depth) else { return nil }
            value = value && next
        }
        return value
    }

    /// term := '!' term | '(' expression ')' | quoted-topic 'in' 'topics'
    mutating func term(depth: Int) -> Bool? {
        guard depth < Self.maxDepth else { return nil }
        if take("!") { return term(depth: depth + 1).map { !$0 } }
        if take("(") {
            guard let value = expression(depth: depth + 1), take(")") else { return nil }
            return value
        }
        skipSpace()
        guard i < u.count, u[i] == 0x27 || u[i] == 0x22 else { return nil }
        let quote = u[i]
        i += 1
        let start = i
        while i < u.count, u[i] != quote {
            guard FCMTopicSyntax.isTopicCharacter(u[i]) else { return nil }
            i += 1
        }
        guard i < u.count, i > start else { return nil }
        let topic = String(decoding: u[start..<i], as: UTF8.self)
        topics.append(topic)
        i += 1
        // `in` and `topics` are words: a space (or quote/paren boundary) must separate them.
        guard take("in"), i < u.count, u[i] == 0x20 || u[i] == 0x09 else { return nil }
        guard take("topics") else { return nil }
        if i < u.count, FCMTopicSyntax.isTopicCharacter(u[i]) { return nil }
        return isMember(topic)
    }
}

/// RFC 3339 timestamps (`AndroidNotification.event_time`, docs/fcm.md §2.3 [A]).
public enum FCMTimestampSyntax {
    /// `YYYY-MM-DDTHH:MM:SS[.fraction]` then `Z` or `±HH:MM` (RFC 3339 §5.6; `t`/`z` in either
    /// case, RFC 3339 §5.6 NOTE), fields in range (seconds up to 60 for a leap second).
    public static func isValid(_ text: String) -> Bool {
        let u = Array(text.utf8)
        func num(_ at: Int, _ n: Int) -> Int? {
            guard at + n <= u.count else { return nil }
            var v = 0
            for k in at..<(at + n) { guard u[k] >= 0x30 && u[k] <= 0x39 else { return nil }; v = v * 10 + Int(u[k] - 0x30) }
            return v
        }
        guard u.count >= 20, let _ = num(0, 4), u[4] == 0x2D, let mo = num(5, 2), u[7] == 0x2D, let d = num(8, 2),
              u[10] == 0x54 || u[10] == 0x74, let h = num(11, 2), u[13] == 0x3A, let mi = num(14, 2), u[16] == 0x3A,
              let s = num(17, 2) else { return false }
        guard (1...12).contains(mo), (1...31).contains(d), h <= 23, mi <= 59, s <= 60 else { return false }
        var i = 19
        if u[i] == 0x2E {
            i += 1
            let start = i
            while i < u.count, u[i] >= 0x30 && u[i] <= 0x39 { i += 1 }
            guard i > start else { return false }
        }
        guard i < u.count else { return false }
        if u[i] == 0x5A || u[i] == 0x7A { return i + 1 == u.count }
        guard u[i] == 0x2B || u[i] == 0x2D, let oh = num(i + 1, 2), i + 3 < u.count, u[i + 3] == 0x3A,
              let om = num(i + 4, 2), i + 6 == u.count else { return false }
        return oh <= 23 && om <= 59
    }
}
