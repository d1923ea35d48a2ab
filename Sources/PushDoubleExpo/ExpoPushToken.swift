#if canImport(Glibc)
import Glibc
#else
import Foundation
#endif

/// The push-token forms of docs/expo.md §5 [L].
public enum ExpoPushTokenForm: String, Sendable, Equatable, CaseIterable {
    /// `ExponentPushToken[<opaque>]`: the classic form, accepted by both SDKs.
    case exponentPushToken
    /// `ExpoPushToken[<opaque>]`: accepted by the Node SDK.
    case expoPushToken
    /// A bare UUID-like `^[a-z\d]{8}-[a-z\d]{4}-[a-z\d]{4}-[a-z\d]{4}-[a-z\d]{12}$`, any case
    /// (Node SDK). Whether the service takes it is not recorded, so it is accepted by default.
    case bareUUID

    /// The form of `token`, nil when it is none of them. The bracketed forms need the exact
    /// prefix, a final `]` and a non-empty opaque part (docs/expo.md gives no rule for its
    /// characters; the docs show 22).
    public static func of(_ token: String) -> ExpoPushTokenForm? {
        var token = token
        return token.withUTF8 { u in
            if let form = bracketed(u) { return form }
            return isUUIDLike(u) ? .bareUUID : nil
        }
    }

    static let exponentPrefix = Array("ExponentPushToken[".utf8)
    static let expoPrefix = Array("ExpoPushToken[".utf8)

    /// The bracketed form of `u`, nil if neither (bytes compared: tokens are checked on every
    /// recipient of every request).
    static func bracketed(_ u: UnsafeBufferPointer<UInt8>) -> ExpoPushTokenForm? {
        guard u.count > expoPrefix.count + 1, u[u.count - 1] == UInt8(ascii: "]") else { return nil }
        if u.count > exponentPrefix.count + 1, hasPrefix(u, exponentPrefix) { return .exponentPushToken }
        if hasPrefix(u, expoPrefix) { return .expoPushToken }
        return nil
    }

    /// Whether `u` starts with `prefix` (one `memcmp`; `Sequence.starts(with:)` walks element by element).
    private static func hasPrefix(_ u: UnsafeBufferPointer<UInt8>, _ prefix: [UInt8]) -> Bool {
        guard u.count >= prefix.count, let base = u.baseAddress else { return false }
        return prefix.withUnsafeBufferPointer { memcmp($0.baseAddress!, base, $0.count) == 0 }
    }

    /// The length of the prefix of a bracketed form (`ExponentPushToken[` / `ExpoPushToken[`).
    var prefixLength: Int? {
        switch self {
        case .exponentPushToken: return Self.exponentPrefix.count
        case .expoPushToken: return Self.expoPrefix.count
        case .bareUUID: return nil
        }
    }

    /// docs/expo.md §5: 8-4-4-4-12 groups of ASCII letters or digits, case-insensitive.
    static func isUUIDLike(_ s: String) -> Bool {
        var s = s
        return s.withUTF8 { isUUIDLike($0) }
    }

    static func isUUIDLike(_ u: UnsafeBufferPointer<UInt8>) -> Bool {
        guard u.count == 36 else { return false }
        for (i, b) in u.enumerated() {
            if i == 8 || i == 13 || i == 18 || i == 23 {
                if b != UInt8(ascii: "-") { return false }
            } else if !((b >= 0x30 && b <= 0x39) || (b | 0x20 >= 0x61 && b | 0x20 <= 0x7A)) {
                return false
            }
        }
        return true
    }
}

/// A set of ``ExpoPushTokenForm`` as bits: the accepted forms, asked about on every recipient
/// (a `Set` of a `String`-backed enum hashes the raw value on every lookup).
struct ExpoTokenForms: Sendable {
    private let bits: UInt8

    init(_ forms: Set<ExpoPushTokenForm>) {
        bits = forms.reduce(0) { $0 | Self.bit($1) }
    }

    private static func bit(_ form: ExpoPushTokenForm) -> UInt8 {
        switch form {
        case .exponentPushToken: return 1
        case .expoPushToken: return 2
        case .bareUUID: return 4
        }
    }

    func contains(_ form: ExpoPushTokenForm) -> Bool { bits & Self.bit(form) != 0 }

    /// The form of `token` when it is one of these, else nil.
    func form(of token: String) -> ExpoPushTokenForm? {
        guard let form = ExpoPushTokenForm.of(token), contains(form) else { return nil }
        return form
    }
}
