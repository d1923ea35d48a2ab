/// The push-token forms of expo.md §5 [L].
public enum ExpoPushTokenForm: String, Sendable, Equatable, CaseIterable {
    /// `ExponentPushToken[<opaque>]`: the classic form, accepted by both SDKs.
    case exponentPushToken
    /// `ExpoPushToken[<opaque>]`: accepted by the Node SDK.
    case expoPushToken
    /// A bare UUID-like `^[a-z\d]{8}-[a-z\d]{4}-[a-z\d]{4}-[a-z\d]{4}-[a-z\d]{12}$`, any case
    /// (Node SDK). Whether the service takes it is not recorded, so it is accepted by default.
    case bareUUID

    /// The form of `token`, nil when it is none of them. The bracketed forms need the exact
    /// prefix, a final `]` and a non-empty opaque part (expo.md gives no rule for its
    /// characters; the docs show 22).
    public static func of(_ token: String) -> ExpoPushTokenForm? {
        for (prefix, form) in [("ExponentPushToken[", ExpoPushTokenForm.exponentPushToken), ("ExpoPushToken[", .expoPushToken)] {
            if token.hasPrefix(prefix), token.hasSuffix("]"), token.utf8.count > prefix.utf8.count + 1 { return form }
        }
        return isUUIDLike(token) ? .bareUUID : nil
    }

    /// expo.md §5: 8-4-4-4-12 groups of ASCII letters or digits, case-insensitive.
    static func isUUIDLike(_ s: String) -> Bool {
        let u = Array(s.utf8)
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
