import Foundation
import PushDoubleCore
import PushDoubleCrypto
import PushDoubleTransport

/// The OAuth2 token endpoint, `POST /token` (docs/fcm.md §6, RFC 7523 JWT-bearer grant).
extension FCMFake {
    /// The token path (the shipped key file's `token_uri` ends with it).
    public static let tokenPath = "/token"

    /// Every check of ``GoogleTokenEndpoint`` (signature, `iss`, `iat`/`exp`, `aud`, scope);
    /// the token is issued in ``deliverToken(_:now:)``. `aud` may also be the URL the request
    /// reached (`https://<authority>/token`), i.e. the `token_uri` of the key file a sender
    /// was given (docs/fcm.md §6.2).
    func admitToken(_ request: HTTPRequest, now: Double) -> Admission {
        var admission = Admission(endpoint: Self.tokenEndpoint)
        guard request.method == "POST", Self.pathOnly(request) == Self.tokenPath else {
            admission.refusal = Self.oauthNotFound(request)
            return admission
        }
        switch accounts.tokenEndpoint.check(body: request.body, now: now, extraAudiences: Self.reachedAudiences(request)) {
        case .success(let verified):
            admission.auth = Self.assertionIdentity(verified.jwt, valid: true)
            admission.notification = Self.assertionRecord(verified.jwt, rule: nil)
        case .failure(let refusal):
            admission.auth = refusal.jwt.map { Self.assertionIdentity($0, valid: false) } ?? AuthIdentity(scheme: "oauth-assertion", valid: false)
            admission.notification = Self.assertionRecord(refusal.jwt, rule: refusal.rule)
            admission.refusal = ProviderResponse(Self.oauthResponse(refusal.error.httpStatus, refusal.body), reason: refusal.error.error,
                                                 decidedBy: Decision(.auth, refusal.rule.rawValue))
        }
        return admission
    }

    /// Issues the access token; the history entry is annotated with the mint
    /// (`accessToken`: account, projects, scopes, expiry), so a check can count mints.
    func deliverToken(_ request: HTTPRequest, now: Double) -> ProviderResponse {
        let outcome = accounts.tokenEndpoint.handle(body: request.body, now: now, extraAudiences: Self.reachedAudiences(request))
        switch outcome {
        case .refused(let rule, let e, let body):
            return ProviderResponse(Self.oauthResponse(e.httpStatus, body), reason: e.error, decidedBy: Decision(.auth, rule.rawValue))
        case .issued(let grant, let body):
            var answer = ProviderResponse(Self.oauthResponse(200, body), reason: nil, decidedBy: Decision(.accepted, "token issued to \(grant.clientEmail)"))
            let record = JSONValue.object([
                ("account", .string(grant.clientEmail)),
                ("projects", .array(grant.projects.sorted().map { .string($0) })),
                ("scopes", .array(grant.scopes.map { .string($0) })),
                ("token", .string(Self.fingerprint(grant.token))),
                ("issuedAt", .int(Int64(grant.issuedAt))),
                ("expiresAt", .int(Int64(grant.expiresAt))),
            ])
            answer.onRecorded = { $0.annotate("accessToken", record) }
            return answer
        }
    }

    /// `https://<authority>/token` for the authority the request named (and its SNI name);
    /// over cleartext (a plaintext-mode double) also `http://<authority>/token`, the
    /// `token_uri` such a double hands out.
    static func reachedAudiences(_ request: HTTPRequest) -> Set<String> {
        var s = Set<String>()
        if let a = request.authority {
            s.insert("https://\(a)\(tokenPath)")
            if request.info.connection.tls == nil { s.insert("http://\(a)\(tokenPath)") }
        }
        if let sni = request.info.connection.tls?.serverName {
            s.insert("https://\(sni)\(tokenPath)")
            s.insert("https://\(sni):\(request.info.connection.localPort)\(tokenPath)")
        }
        return s
    }

    /// The assertion as the history records it (`auth`): `iss`, `kid`, `iat`, `exp`, `aud`, scope.
    static func assertionIdentity(_ jwt: ParsedJWT, valid: Bool) -> AuthIdentity {
        var extra = ["alg": jwt.algorithm.rawValue]
        if let scope = jwt.claims.string("scope") { extra["scope"] = scope }
        return AuthIdentity(scheme: "oauth-assertion", keyID: jwt.keyID, issuer: jwt.issuer, issuedAt: jwt.issuedAt,
                            expiresAt: jwt.expiresAt, subject: jwt.claims.string("sub"),
                            audience: jwt.audiences.joined(separator: " "), valid: valid, extra: extra)
    }

    /// The token request as the history's `notification`: the grant and the assertion's claims.
    static func assertionRecord(_ jwt: ParsedJWT?, rule: GoogleTokenRule?) -> JSONValue {
        var members: [(String, JSONValue)] = [("grantType", .string(GoogleTokenEndpoint.jwtBearerGrantType))]
        if let jwt, let claims = try? JSONValue.parse(jwt.claimsJSON) { members.append(("claims", claims)) }
        if let jwt, let header = try? JSONValue.parse(jwt.headerJSON) { members.append(("header", header)) }
        if let rule { members.append(("refusedBy", .string(rule.rawValue))) }
        return .object(members)
    }

    /// A token-endpoint answer: JSON with `application/json; charset=utf-8` (docs/fcm.md records no
    /// content type for the token endpoint; this is the usual one of Google's JSON APIs).
    static func oauthResponse(_ status: Int, _ body: [UInt8], headers: HTTPHeaders = HTTPHeaders()) -> HTTPResponse {
        var h = headers
        h.replaceOrAdd(name: "content-type", value: "application/json; charset=utf-8")
        return HTTPResponse(status: status, headers: h, body: body)
    }

    /// Any other path of the token listener: 404 `{"error":"invalid_request"}`. Not recorded in
    /// docs/fcm.md; PushDouble's choice in the token endpoint's own shape.
    static func oauthNotFound(_ request: HTTPRequest) -> ProviderResponse {
        ProviderResponse(oauthResponse(404, GoogleOAuthError.invalidRequest.body()), reason: GoogleOAuthError.invalidRequest.error,
                         decidedBy: Decision(.validation, "no such endpoint: \(request.method) \(pathOnly(request))"))
    }
}
