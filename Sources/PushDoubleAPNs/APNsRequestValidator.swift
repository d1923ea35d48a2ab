import Foundation
#if canImport(Glibc)
import Glibc
#endif
import PushDoubleTransport

/// What the header checks made of a push request, filled as far as the checks got.
public struct APNsPushHeaders: Sendable, Equatable {
    /// The device token as it appears in `:path` (maybe malformed), nil if the path had none.
    public var token: String?
    /// `apns-id` in canonical lowercase form, nil if absent or invalid.
    public var apnsID: String?
    public var topic: String?
    /// The topic without its push-type suffix.
    public var bundleID: String?
    /// `apns-push-type` as declared (nil when absent or invalid).
    public var declaredPushType: APNsPushType?
    /// The declared push type, or the one implied by the topic suffix when absent.
    public var pushType: APNsPushType = .alert
    /// `apns-priority`; 10 when absent.
    public var priority: Int = 10
    /// `apns-expiration`, UNIX seconds.
    public var expiration: Int64?
    public var collapseID: String?
    /// The `authorization` header value, if present.
    public var authorization: String?
    public init() {}
}

/// The pure, ordered request checks of the APNs fake (everything that does not depend on
/// who authenticated). Stops at the first failure, like pushy's
/// `ValidatingPushNotificationHandler`. The full order, auth included, is in docs/apns.md:
///
///  1. `:method` is POST                                 → 405 MethodNotAllowed
///  2. `:path` is `/3/device/<token>`                    → 400 MissingDeviceToken (empty) / 404 BadPath
///  3. no header field repeated                          → 400 DuplicateHeaders
///  4. `apns-id`, if present, is a UUID                  → 400 BadMessageId
///  5. `apns-topic` present and non-empty                → 400 MissingTopic
///  6. `apns-collapse-id` at most 64 UTF-8 bytes         → 400 BadCollapseId
///  7. `apns-priority`, if present, is 10, 5 or 1        → 400 BadPriority
///  8. `apns-push-type`, if present, is a known type     → 400 InvalidPushType
///  9. topic well-formed, suffix matches the push type   → 400 BadTopic
/// 10. `background` not at priority 10                   → 400 BadPriority
/// 11. `apns-expiration`, if present, is epoch seconds   → 400 BadExpirationDate
public enum APNsRequestValidator {
    /// The `:path` prefix of the push endpoint.
    public static let pathPrefix = "/3/device/"
    /// Collapse ids longer than this many UTF-8 bytes are refused (docs/apns.md §2).
    public static let maxCollapseIDBytes = 64

    /// Runs checks 1–11 on `request`. `defaultTopic`: the topic of a single-topic provider
    /// certificate, used when `apns-topic` is absent (token auth: nil, the topic is required).
    /// The value of an `apns-priority` field: 10, 5 or 1; nil for anything else (`BadPriority`).
    static func priority(_ raw: String) -> Int? {
        switch raw {
        case "10": return 10
        case "5": return 5
        case "1": return 1
        default: return nil
        }
    }

    public static func checkHeaders(_ request: HTTPRequest, defaultTopic: String? = nil) -> (APNsPushHeaders, APNsReason?) {
        var parsed = APNsPushHeaders()

        // 1. Method.
        guard request.method == "POST" else {
            fillLeniently(&parsed, request)
            return (parsed, .methodNotAllowed)
        }
        // 2. Path.
        switch parsePath(request.path) {
        case .badPath: fillLeniently(&parsed, request); return (parsed, .badPath)
        case .missingToken: fillLeniently(&parsed, request); return (parsed, .missingDeviceToken)
        case .token(let t): parsed.token = t
        }

        // One pass over the header block: pick out APNs headers, find repeats.
        var fields = KnownFields()
        let duplicate = fields.scan(request.headers)
        parsed.authorization = fields.authorization
        parsed.topic = fields.topic ?? defaultTopic
        parsed.collapseID = fields.collapseID
        if let id = fields.apnsID { parsed.apnsID = APNsMessageID.canonical(id) }

        // 3. Repeated header.
        if duplicate { return (parsed, .duplicateHeaders) }
        // 4. apns-id.
        if fields.apnsID != nil && parsed.apnsID == nil { return (parsed, .badMessageId) }
        // 5. Topic present (always required with token auth and multi-topic certificates).
        guard let topic = parsed.topic, !topic.isEmpty else { return (parsed, .missingTopic) }
        // 6. Collapse id size, in UTF-8 bytes.
        if let c = fields.collapseID, c.utf8.count > maxCollapseIDBytes { return (parsed, .badCollapseId) }
        // 7. Priority value.
        if let p = fields.priority {
            guard let value = priority(p) else { return (parsed, .badPriority) }
            parsed.priority = value
        }
        // 8. Push type value.
        if let raw = fields.pushType {
            guard let type = APNsPushType(rawValue: raw) else { return (parsed, .invalidPushType) }
            parsed.declaredPushType = type
        }
        // 9. Topic syntax and suffix.
        guard isWellFormedTopic(topic) else { return (parsed, .badTopic) }
        if parsed.declaredPushType == .mdm {
            parsed.bundleID = topic
            parsed.pushType = .mdm
        } else {
            let (bundle, suffixType) = APNsPushType.splitTopic(topic)
            parsed.bundleID = bundle
            if let declared = parsed.declaredPushType {
                // alert and background need the bare bundle id; the others their suffix.
                let expectsSuffix = declared.topicSuffix.isEmpty ? nil : declared
                guard suffixType == expectsSuffix else { return (parsed, .badTopic) }
                parsed.pushType = declared
            } else {
                parsed.pushType = suffixType ?? .alert
            }
        }
        // 10. background must not use priority 10 (docs/apns.md §3, §9: "10 is an error").
        if parsed.pushType == .background && parsed.priority == 10 && fields.priority != nil { return (parsed, .badPriority) }
        // 11. Expiration.
        if let e = fields.expiration {
            guard let seconds = parseEpochSeconds(e) else { return (parsed, .badExpirationDate) }
            parsed.expiration = seconds
        }
        return (parsed, nil)
    }

    enum PathResult: Equatable { case badPath, missingToken, token(String) }

    /// Splits `/3/device/<token>`: anything else (other prefix, query, further segments) is BadPath.
    static func parsePath(_ path: String) -> PathResult {
        UTF8Bytes.of(path) { u -> PathResult in
            let n = pathPrefix.utf8.count
            guard u.count >= n, UTF8Bytes.of(pathPrefix, { memcmp($0.baseAddress!, u.baseAddress!, n) == 0 }) else { return .badPath }
            if u.count == n { return .missingToken }
            for i in n..<u.count where u[i] == 0x2F || u[i] == 0x3F || u[i] == 0x23 { return .badPath }
            return .token(String(decoding: UnsafeBufferPointer(rebasing: u[n...]), as: UTF8.self))
        }
    }

    /// A device token APNs could have issued: hex of even length, 64 to 200 digits
    /// (Apple: "don't rely on 64"; 200 bounds it), either case.
    public static func isWellFormedToken(_ token: String) -> Bool {
        var t = token
        return t.withUTF8 { u in
            let n = u.count
            guard n >= 64, n <= 200, n % 2 == 0 else { return false }
            for c in u {
                switch c {
                case 0x30...0x39, 0x41...0x46, 0x61...0x66: continue
                default: return false
                }
            }
            return true
        }
    }

    /// A set of ASCII bytes as bits of two words (bytes 0x00-0x3f, 0x40-0x7f): one bit test
    /// per byte where a range switch costs several compares.
    typealias ByteSet = (low: UInt64, high: UInt64)
    /// `0-9`, `A-Z`, `a-z`, `-`, `_` (a topic's characters besides the dot).
    static let topicCharacters: ByteSet = (0x03ff_2000_0000_0000, 0x07ff_fffe_87ff_fffe)

    @inline(__always)
    static func inByteSet(_ c: UInt8, _ set: ByteSet) -> Bool {
        c < 0x80 && (c < 0x40 ? set.low >> UInt64(c) : set.high >> UInt64(c - 0x40)) & 1 != 0
    }

    /// Topic characters a bundle id (plus suffix) may hold: letters, digits, `.`, `-`, `_`;
    /// no empty dot-separated label.
    static func isWellFormedTopic(_ topic: String) -> Bool {
        var previousDot = true
        return UTF8Bytes.of(topic) { u in
            for c in u {
                if inByteSet(c, topicCharacters) {
                    previousDot = false
                } else if c == 0x2E && !previousDot {
                    previousDot = true
                } else {
                    return false
                }
            }
            return !previousDot
        }
    }

    /// Decimal UNIX seconds, no sign, no spaces, fits Int64.
    static func parseEpochSeconds(_ s: String) -> Int64? {
        guard !s.isEmpty, s.utf8.count <= 19 else { return nil }
        var v: Int64 = 0
        for c in s.utf8 {
            guard c >= 0x30 && c <= 0x39 else { return nil }
            let (m, o1) = v.multipliedReportingOverflow(by: 10)
            let (a, o2) = m.addingReportingOverflow(Int64(c - 0x30))
            if o1 || o2 { return nil }
            v = a
        }
        return v
    }

    /// After an early failure, still record what the request was about.
    private static func fillLeniently(_ parsed: inout APNsPushHeaders, _ request: HTTPRequest) {
        if case .token(let t) = parsePath(request.path) { parsed.token = t }
        var fields = KnownFields()
        _ = fields.scan(request.headers)
        parsed.topic = fields.topic
        parsed.authorization = fields.authorization
        parsed.collapseID = fields.collapseID
        if let id = fields.apnsID { parsed.apnsID = APNsMessageID.canonical(id) }
        if let t = fields.topic { parsed.bundleID = APNsPushType.splitTopic(t).bundleID }
    }
}

/// The APNs header fields of one request, picked out in a single pass.
struct KnownFields {
    var authorization: String?
    var apnsID: String?
    var topic: String?
    var pushType: String?
    var priority: String?
    var expiration: String?
    var collapseID: String?

    /// Fills the fields; returns true if any header name occurs more than once
    /// (`cookie` excepted: HTTP/2 may split it, RFC 9113 §8.2.3).
    mutating func scan(_ headers: HTTPHeaders) -> Bool {
        var duplicate = false
        let fields = headers.fields
        for i in 0..<fields.count {
            let f = fields[i]
            switch Self.classify(f.name) {
            case .authorization: if authorization != nil { duplicate = true } else { authorization = f.value }
            case .apnsID: if apnsID != nil { duplicate = true } else { apnsID = f.value }
            case .topic: if topic != nil { duplicate = true } else { topic = f.value }
            case .pushType: if pushType != nil { duplicate = true } else { pushType = f.value }
            case .priority: if priority != nil { duplicate = true } else { priority = f.value }
            case .expiration: if expiration != nil { duplicate = true } else { expiration = f.value }
            case .collapseID: if collapseID != nil { duplicate = true } else { collapseID = f.value }
            case .other:
                if duplicate || HTTPHeaders.equalsIgnoringCase(f.name, "cookie") { continue }
                let n = f.name.utf8.count
                var j = i + 1
                while j < fields.count {
                    if fields[j].name.utf8.count == n && HTTPHeaders.equalsIgnoringCase(fields[j].name, f.name) { duplicate = true; break }
                    j += 1
                }
            }
        }
        return duplicate
    }

    enum Name { case authorization, apnsID, topic, pushType, priority, expiration, collapseID, other }

    static func classify(_ name: String) -> Name {
        switch name.utf8.count {
        case 7: return Self.is(name, "apns-id") ? .apnsID : .other
        case 10: return Self.is(name, "apns-topic") ? .topic : .other
        case 13:
            if Self.is(name, "authorization") { return .authorization }
            if Self.is(name, "apns-priority") { return .priority }
            return .other
        case 14: return Self.is(name, "apns-push-type") ? .pushType : .other
        case 15: return Self.is(name, "apns-expiration") ? .expiration : .other
        case 16: return Self.is(name, "apns-collapse-id") ? .collapseID : .other
        default: return .other
        }
    }

    /// `name` is `lowercase` in any case: its bytes as they are first (HTTP/2 names are
    /// lowercase, so that is the usual match), then case-insensitively.
    @inline(__always)
    private static func `is`(_ name: String, _ lowercase: StaticString) -> Bool {
        let n = lowercase.utf8CodeUnitCount
        if UTF8Bytes.of(name, { $0.count == n && memcmp($0.baseAddress!, lowercase.utf8Start, n) == 0 }) { return true }
        return HTTPHeaders.equalsIgnoringCase(name, lowercase.description)
    }
}
