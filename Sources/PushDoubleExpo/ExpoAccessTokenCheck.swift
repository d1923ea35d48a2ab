/// Enhanced push security (docs/expo.md §1 "Auth" [A]): when it is on, a request needs
/// `Authorization: Bearer <access token>` with a valid token, else `UNAUTHORIZED` (HTTP status
/// presumably 401, UNCONFIRMED: see ``ExpoErrorStatuses``). A bearer token that is not valid is
/// refused whether it is on or off, with the OAuth-style `invalid_token` body Expo sends
/// (§3.2a; ``refuseInvalidBearer``). When it is off, no header or another scheme passes. The scheme is matched in any case (auth schemes are case-insensitive,
/// RFC 9110 §11.1: `bearer` / `Bearer`).
public struct ExpoAccessTokenCheck: Sendable {
    /// Whether enhanced push security is on.
    public var required: Bool
    public var statuses: ExpoErrorStatuses
    /// Refuse an invalid bearer token with `invalid_token` (on, as the real service does,
    /// docs/expo.md §3.2a); off treats it as no token (then `UNAUTHORIZED` only when `required`).
    public var refuseInvalidBearer: Bool

    public init(required: Bool, statuses: ExpoErrorStatuses = .init(), refuseInvalidBearer: Bool = true) {
        self.required = required; self.statuses = statuses; self.refuseInvalidBearer = refuseInvalidBearer
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

    /// Passes, or throws `invalid_token` (a bearer token that is not valid) or `UNAUTHORIZED`
    /// (no bearer token while required). `isValid` says whether a token is a live access token
    /// of the project (the caller's store).
    public func check(authorization: String?, isValid: (String) -> Bool) throws(ExpoRequestError) {
        if let token = Self.bearerToken(authorization) {
            if isValid(token) { return }
            if refuseInvalidBearer { throw .invalidToken(statuses: statuses) }
        }
        if required { throw .unauthorized(statuses: statuses) }
    }
}
