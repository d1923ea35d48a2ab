import PushDoubleJSON

/// A token-endpoint error body `{"error":…,"error_description":…}` (RFC 6749 §5.2; Google's
/// texts in docs/fcm.md §6.3 [O]).
public struct GoogleOAuthError: Error, Sendable, Equatable {
    /// The RFC 6749 §5.2 error code (`invalid_grant`, `invalid_scope`, …).
    public var error: String
    /// `error_description`; nil omits the member (RFC 6749 §5.2 makes it optional; docs/fcm.md
    /// records Google's text only for the `invalid_grant` cases below).
    public var description: String?
    /// 400 (docs/fcm.md §6.3: assumed for every case, confirmed for the clock-skew one).
    public var httpStatus: Int

    public init(error: String, description: String?, httpStatus: Int = 400) {
        self.error = error; self.description = description; self.httpStatus = httpStatus
    }

    /// Whitespace of the body. docs/fcm.md §6.3: one capture is compact, another pretty with
    /// one-space indentation; the exact form is UNCONFIRMED.
    public enum Layout: String, Sendable, Equatable {
        /// `{"error":"invalid_grant","error_description":"Invalid JWT Signature."}` (default).
        case compact
        /// `{\n "error": "invalid_grant",\n "error_description": "Invalid JWT Signature."\n}`.
        case prettyOneSpace
    }

    /// The body bytes in `layout`.
    public func body(layout: Layout = .compact) -> [UInt8] {
        var members: [(String, String)] = [("error", error)]
        if let description { members.append(("error_description", description)) }
        switch layout {
        case .compact:
            return JSONValue.object(members.map { ($0.0, .string($0.1)) }).compactJSONBytes
        case .prettyOneSpace:
            var out: [UInt8] = [0x7B]
            for (i, m) in members.enumerated() {
                out.append(contentsOf: (i == 0 ? "\n " : ",\n ").utf8)
                JSONWriter.writeString(m.0, into: &out)
                out.append(contentsOf: ": ".utf8)
                JSONWriter.writeString(m.1, into: &out)
            }
            out.append(contentsOf: "\n}".utf8)
            return out
        }
    }

    // MARK: Recorded bodies (docs/fcm.md §6.3)

    /// Bad signature or unknown key (docs/fcm.md §6.3 [O]).
    public static let invalidSignature = GoogleOAuthError(error: "invalid_grant", description: "Invalid JWT Signature.")

    /// The `invalid_grant` clock-skew / lifetime texts of docs/fcm.md §6.3, by period.
    public enum TimeframeWording: String, Sendable, Equatable, CaseIterable {
        /// 2016 (docs/fcm.md §6.3 [O]).
        case v2016
        /// 2018–2020 (docs/fcm.md §6.3 [O]).
        case v2018
        /// 2023 onwards; docs/fcm.md §6.3: "use as default" [O].
        case v2023

        public var text: String {
            switch self {
            case .v2016: return "Invalid JWT: Token must be a short-lived token and in a reasonable timeframe"
            case .v2018: return "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values and use a clock with skew to account for clock differences between systems."
            case .v2023: return "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim."
            }
        }
    }

    /// `iat` / `exp` out of bounds (docs/fcm.md §6.3 [O], HTTP 400 confirmed).
    public static func invalidTimeframe(_ wording: TimeframeWording = .v2023) -> GoogleOAuthError {
        GoogleOAuthError(error: "invalid_grant", description: wording.text)
    }

    // MARK: RFC 6749 §5.2 codes without a recorded Google text

    /// Missing, repeated or malformed parameter (RFC 6749 §5.2 `invalid_request`).
    public static let invalidRequest = GoogleOAuthError(error: "invalid_request", description: nil)
    /// `grant_type` other than the JWT-bearer URN (RFC 6749 §5.2 `unsupported_grant_type`).
    public static let unsupportedGrantType = GoogleOAuthError(error: "unsupported_grant_type", description: nil)
    /// Scope missing or not a scope (RFC 6749 §5.2 `invalid_scope`), with Google's text
    /// (docs/fcm.md §6.3a [O]).
    public static let invalidScope = GoogleOAuthError(error: "invalid_scope", description: invalidScopeDescription)
    public static let invalidScopeDescription = "Invalid OAuth scope or ID token audience provided."
    /// An assertion that is not accepted for a reason docs/fcm.md records no text for (RFC 6749
    /// §5.2 `invalid_grant`).
    public static let invalidGrant = GoogleOAuthError(error: "invalid_grant", description: nil)
}
