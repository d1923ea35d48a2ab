import Foundation
import PushDoubleCore
import PushDoubleFCM

/// The FCM-only checks (issue 12 item 6): the OAuth2 access token is cached and refreshed,
/// and the messages a sender builds are valid FCM messages.
enum FCMChecks {
    static let all = [accessTokenReuse, remintOn401, validMessages, mintsSucceed]

    /// `fcm.access-token-reuse`: one access token serves many sends; a new one is minted only
    /// when the old one expired or was refused (401), never per message (fcm.md §6: tokens
    /// live `expires_in` seconds).
    static let accessTokenReuse = CheckDefinition(
        id: "fcm.access-token-reuse", title: "One OAuth2 access token is reused across sends (no mint per message)",
        reference: "fcm.md §6.3 (expires_in); issue 12 item 6", severity: .must
    ) { ctx in
        let h = FCMHistory(ctx)
        let authorised = h.sends.filter { $0.bearer != nil }
        if authorised.count < 2 { return .notApplicable("fewer than two sends carried an access token") }
        var problems: [Evidence] = []
        for (prev, next) in zip(authorised, authorised.dropFirst()) where prev.bearer != next.bearer {
            // A change is justified by a refusal of the old token, or its expiry.
            let refused = authorised.contains { $0.bearer == prev.bearer && $0.status == 401 }
            let expired = (prev.exchange.auth?.expiresAt).map { Double($0) <= next.start.timeIntervalSince1970 + 60 } ?? false
            if !refused && !expired {
                problems.append(Evidence("access token changed between sends without a 401 or its expiry (expires at "
                    + "\(prev.exchange.auth?.expiresAt.map(String.init) ?? "?")): \(h.describe(prev)) → \(h.describe(next))",
                    seqs: [prev.seq, next.seq]))
            }
            if problems.count >= 5 { break }
        }
        return problems.isEmpty ? .held("\(Set(authorised.compactMap(\.bearer)).count) access token(s) for \(authorised.count) sends")
            : .violated("access token not reused", problems)
    }

    /// `fcm.remint-on-401`: after 401 UNAUTHENTICATED (the access token refused) the sender
    /// mints a new token and retries with it, once; it does not resend with the refused token.
    static let remintOn401 = CheckDefinition(
        id: "fcm.remint-on-401", title: "401 UNAUTHENTICATED: mint a new access token, then retry with it",
        reference: "fcm.md §4.3 (invalid OAuth token); issue 12 item 6", severity: .must
    ) { ctx in
        let h = FCMHistory(ctx)
        let refused = h.sends.filter { $0.status == 401 && $0.reason == GoogleRPCStatus.unauthenticated.rawValue }
        if refused.isEmpty { return .notApplicable("no access token was refused") }
        var problems: [Evidence] = []
        for r in refused {
            let later = h.sends.filter { $0.start > r.start && $0.step == r.step && $0.device == r.device }
            if later.contains(where: { $0.bearer == r.bearer && r.bearer != nil }) {
                problems.append(Evidence("resent with the refused access token: \(h.describe(r))", seqs: [r.seq]))
            }
            guard let retry = later.first else {
                problems.append(Evidence("never retried after the 401: \(h.describe(r))", seqs: [r.seq]))
                continue
            }
            if !h.mints.contains(where: { $0.start > r.start && $0.start < retry.start && $0.status == 200 }) {
                problems.append(Evidence("retried without minting a new access token: \(h.describe(retry))", seqs: [r.seq, retry.seq]))
            }
        }
        return problems.isEmpty ? .held("\(refused.count) refused token(s) replaced before the retry") : .violated("401 mishandled", problems)
    }

    /// `fcm.valid-messages`: no send is refused by FCM's own message checks (reserved data keys,
    /// non-string data values, TTL format and range, oversize payloads, missing recipient):
    /// the sender checks or builds them right before sending (fcm.md §2, §4.5).
    static let validMessages = CheckDefinition(
        id: "fcm.valid-messages", title: "Messages are valid FCM messages (data strings, reserved keys, TTL format, size)",
        reference: "fcm.md §2.1, §2.2, §4.5", severity: .must
    ) { ctx in
        let h = FCMHistory(ctx)
        if h.sends.isEmpty { return .notApplicable("no FCM sends") }
        // Refused at the fake's validation stage, and not for the token's syntax.
        let invalid = h.sends.filter {
            $0.exchange.decidedBy.stage == .validation && $0.status == 400 && $0.exchange.decidedBy.detail != "malformed registration token"
        }
        return invalid.isEmpty ? .held("\(h.sends.count) send(s), none refused by FCM's message checks")
            : .violated("FCM refused the message itself", invalid.prefix(5).map {
                Evidence("\(h.describe($0)): \($0.exchange.decidedBy.detail ?? "")", seqs: [$0.seq])
            })
    }

    /// `fcm.mints-succeed`: the token requests are accepted by the token endpoint (a valid
    /// RS256 assertion of the service account, right `aud`, scope and times; fcm.md §6.2).
    static let mintsSucceed = CheckDefinition(
        id: "fcm.mints-succeed", title: "Token requests carry a valid RS256 JWT-bearer assertion",
        reference: "fcm.md §6.2, §6.3", severity: .must
    ) { ctx in
        let h = FCMHistory(ctx)
        // Only the endpoint's own refusals count (a fault rule's answer is decided at the fault stage).
        let refused = h.mints.filter { $0.exchange.decidedBy.stage == .auth && $0.status != 200 }
        if h.mints.isEmpty { return .notApplicable("no token requests") }
        return refused.isEmpty ? .held("\(h.mints.count) token request(s) accepted")
            : .violated("the token endpoint refused the assertion", refused.prefix(5).map {
                Evidence("\(h.describe($0)): \($0.exchange.decidedBy.detail ?? "")", seqs: [$0.seq])
            })
    }
}
