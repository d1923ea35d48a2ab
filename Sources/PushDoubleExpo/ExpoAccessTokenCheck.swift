/// Enhanced push security (docs/expo.md §1 "Auth" [A]): when it is on, a request needs
/// `Authorization: Bearer <access token>` with a valid token, else `UNAUTHORIZED` (HTTP status
/// presumably 401, UNCONFIRMED: see ``ExpoErrorStatuses``). When it is off, any header (or none)
/// passes. The scheme is matched in any case (auth schemes are case-insensitive,
/// RFC 9110 §11.1: `bearer` / `Bearer`).
public struct ExpoAccessTokenCheck: Sendable {
    /// Whether enhanced push security is on.
    public var required: Bool
    public var statuses: ExpoErrorStatuses

    public init(required: Bool, statuses: ExpoErrorStatuses = .init()) {
        self.required = required; self.statuses = statuses
    }

    /// The token of an `Authorization` header value: `Bearer <token>`, scheme in any case,
    /// spaces around the token ignored; nil for another scheme or an empty token.
    public static func bearerToken(_ header: String?) -> String? {
        guard let header else { return nil }
        let h = Substring(header).trimmingASCIISpaces()
        guard h.count > 7, h.prefix(7).lowercased() == "bearer " else { return nil }
        let token = Substring(h.dropFirst(7)).trimmingASCIISpaces()
        return token.isEmpty ? nil : token
    }

    /// Passes, or throws `UNAUTHORIZED`. `isValid` says whether a token is a live access token
    /// of the project (the caller's store).
    public func check(authorization: String?, isValid: (String) -> Bool) throws(ExpoRequestError) {
        guard required else { return }
        guard let token = Self.bearerToken(authorization), isValid(token) else { throw .unauthorized(statuses: statuses) }
    }
}
