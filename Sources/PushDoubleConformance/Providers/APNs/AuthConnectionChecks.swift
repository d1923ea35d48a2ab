import Foundation
import PushDoubleAPNs
import PushDoubleCore
import PushDoubleCrypto

/// APNs checks on the provider JWT (A6–A9, A11) and on HTTP/2 stream use (A10).
enum AuthConnectionChecks {
    /// Each distinct JWT once, with the first push that carried it (no bearer: nil JWT).
    static func distinctJWTs(_ h: APNsHistory) -> [(APNsPush, String?)] {
        var seen: Set<String> = []
        var out: [(APNsPush, String?)] = []
        for p in h.pushes {
            guard let raw = p.jwt else { out.append((p, nil)); continue }
            if seen.insert(raw).inserted { out.append((p, raw)) }
        }
        return out
    }

    static let jwtContents = CheckDefinition(
        id: "apns.jwt-contents", title: "Provider JWT is ES256, signed by the key, with kid, iss and iat",
        reference: "A9; apns.md §5", severity: .must
    ) { ctx in
        let h = APNsHistory(ctx)
        if h.pushes.isEmpty { return .notApplicable("no pushes") }
        var problems: [Evidence] = []
        let tokens = distinctJWTs(h)
        for (p, raw) in tokens {
            guard let raw else { problems.append(h.evidence(p, "no bearer token in authorization")); continue }
            guard let jwt = DecodedJWT(raw) else { problems.append(h.evidence(p, "authorization bearer is not a JWT")); continue }
            var bad: [String] = []
            if jwt.header["alg"]?.stringValue != "ES256" { bad.append("alg is \(jwt.header["alg"]?.compactJSON ?? "missing"), not ES256") }
            if let kid = jwt.header["kid"]?.stringValue {
                if let want = ctx.configuration?.apns?.keyId, kid != want { bad.append("kid \(kid) is not the key id \(want)") }
            } else { bad.append("no kid") }
            if let iss = jwt.issuer, let team = ctx.configuration?.apns?.teamId, iss != team { bad.append("iss \(iss) is not the team id \(team)") }
            if jwt.issuer == nil { bad.append("iss is not a string") }
            if jwt.issuedAt == nil { bad.append("iat is missing or not a number of seconds (\(jwt.claims["iat"]?.compactJSON ?? "absent"))") }
            if jwt.signatureBytes != 64 { bad.append("signature is \(jwt.signatureBytes) bytes, not 64 (raw r‖s)") }
            if let a = p.exchange.auth, a.scheme == "apns-jwt", !a.valid { bad.append("the fake could not verify it") }
            if !bad.isEmpty { problems.append(h.evidence(p, bad.joined(separator: "; "))) }
        }
        return .judged(problems, held: "\(tokens.count) distinct JWT(s), all valid",
            violated: "invalid provider JWT")
    }

    /// JOSE header members a JWT may carry besides Apple's two: `typ` is RFC 7515 §4.1.9's
    /// media-type hint (PyJWT and others send `"typ":"JWT"` by default) and changes nothing.
    static let tolerableHeaderMembers: Set<String> = ["typ"]

    static let jwtExactMembers = CheckDefinition(
        id: "apns.jwt-exact-members", title: "Provider JWT has exactly Apple's members: header alg and kid, claims iss and iat",
        reference: "A9; apns.md §5 (header {alg, kid}; claims {iss, iat}, no exp, no aud)", severity: .should
    ) { ctx in
        let h = APNsHistory(ctx)
        let tokens = distinctJWTs(h).compactMap { p, raw in raw.flatMap(DecodedJWT.init).map { (p, $0) } }
        if tokens.isEmpty { return .notApplicable("no decodable JWTs") }
        var problems: [Evidence] = []
        for (p, jwt) in tokens {
            var bad: [String] = []
            let headerKeys = Set((jwt.header.objectValue ?? []).map(\.0))
            let extraHeader = headerKeys.subtracting(["alg", "kid"]).subtracting(tolerableHeaderMembers)
            if !extraHeader.isEmpty { bad.append("header has \(extraHeader.sorted()) besides alg and kid") }
            let claimKeys = Set((jwt.claims.objectValue ?? []).map(\.0))
            let extraClaims = claimKeys.subtracting(["iss", "iat"])
            if !extraClaims.isEmpty { bad.append("claims have \(extraClaims.sorted()) besides iss and iat") }
            if !bad.isEmpty { problems.append(h.evidence(p, bad.joined(separator: "; "))) }
        }
        return .judged(problems, held: "\(tokens.count) JWT(s) with exactly alg, kid / iss, iat",
            violated: "provider JWT carries members Apple does not define (APNs tolerates them today)")
    }

    /// How a push's JWT wrote `iat` (``NumericDateClaim/Form`` raw values "integer",
    /// "fraction", "string"): the fake's record in the auth identity
    /// (`auth.extra[APNsVerifiedToken.iatFormKey]`) when it made one, else read from the token
    /// (histories recorded by older fakes).
    static func iatForm(_ p: APNsPush, _ jwt: DecodedJWT?) -> String? {
        if let form = p.exchange.auth?.extra[APNsVerifiedToken.iatFormKey] { return form }
        return jwt?.issuedAtForm?.rawValue
    }

    static let jwtIatInteger = CheckDefinition(
        id: "apns.jwt-iat-integer", title: "Provider JWT iat is a JSON integer (seconds), not a fraction or a string",
        reference: "A9; apns.md §5 (claims {\"iss\", \"iat\": <epoch seconds>})", severity: .should
    ) { ctx in
        let h = APNsHistory(ctx)
        var problems: [Evidence] = []
        var judged = 0
        for (p, raw) in distinctJWTs(h) {
            guard let raw else { continue }
            guard let form = iatForm(p, DecodedJWT(raw)) else { continue }
            judged += 1
            if form != NumericDateClaim.Form.integer.rawValue {
                let how: String
                switch NumericDateClaim.Form(rawValue: form) {
                case .fraction?: how = "a number with a fraction"
                case .string?: how = "a string of digits"
                default: how = form
                }
                problems.append(h.evidence(p, "iat is \(how), not an integer"))
            }
        }
        return .judged(judged, problems, none: "no JWT with a readable iat",
                       held: "\(judged) JWT(s) with an integer iat",
                       violated: "iat is not a JSON integer (APNs tolerates it today)")
    }

    /// Indices of pushes answered ExpiredProviderToken, keyed by the JWT they carried.
    static func expiredTokens(_ h: APNsHistory) -> Set<String> {
        Set(h.pushes.filter { $0.reason == "ExpiredProviderToken" }.compactMap(\.jwt))
    }

    static let jwtReuse = CheckDefinition(
        id: "apns.jwt-reuse", title: "On each connection, a JWT is replaced no sooner than 20 min after the previous one",
        reference: "Apple, Establishing a token-based connection to APNs (refresh no more than once every 20 minutes; "
            + "429 TooManyProviderTokenUpdates, counted per connection)", severity: .must
    ) { ctx in
        let h = APNsHistory(ctx)
        let pushes = h.pushes.filter { $0.jwt != nil }
        if pushes.isEmpty { return .notApplicable("no token-authenticated pushes") }
        let expired = expiredTokens(h)
        var problems: [Evidence] = []
        // Per connection: a new token within 20 min of the previous one, unless the old one was
        // refused as expired. A JWT the connection already carried is not new: a request that
        // took its token before a refresh may reach the wire after the refreshed one (it waited
        // for a stream while MAX_CONCURRENT_STREAMS was 1).
        var current: [UInt64: APNsPush] = [:]
        var seenOn: [UInt64: Set<String>] = [:]
        for p in pushes {
            defer {
                current[p.connection] = p
                if let j = p.jwt { seenOn[p.connection, default: []].insert(j) }
            }
            guard let prev = current[p.connection], prev.jwt != p.jwt else { continue }
            if let j = p.jwt, seenOn[p.connection]?.contains(j) == true { continue }
            if let old = prev.jwt, expired.contains(old) { continue }
            let a = prev.jwt.flatMap(DecodedJWT.init)?.issuedAt, b = p.jwt.flatMap(DecodedJWT.init)?.issuedAt
            if let a, let b, b - a >= APNsFacts.jwtMinRefreshInterval { continue }
            problems.append(Evidence("connection \(p.connection): new JWT (iat \(b.map(String.init) ?? "?")) only "
                + "\((b ?? 0) - (a ?? 0)) s after the previous one (iat \(a.map(String.init) ?? "?")) without ExpiredProviderToken",
                seqs: [prev.seq, p.seq]))
            if problems.count >= 5 { break }
        }
        // Apple counts provider-token updates per connection: a connection's first JWT is no
        // update, however many connections a pool opens. A JWT per request on one-push
        // connections is connection-reuse's finding, and the team-wide rate apns.jwt-team-rate's.
        let distinct = Set(pushes.compactMap(\.jwt))
        return .judged(problems, held: "\(distinct.count) JWT(s) for \(pushes.count) push(es)",
            violated: "provider JWT minted too often")
    }

    static let jwtTeamRate = CheckDefinition(
        id: "apns.jwt-team-rate", title: "The team's provider JWT is refreshed no more than once every 20 minutes",
        reference: "Apple, Establishing a token-based connection to APNs (refresh no more than once every 20 minutes and no less "
            + "than once every 60 minutes)", severity: .should
    ) { ctx in
        let h = APNsHistory(ctx)
        let pushes = h.pushes.filter { $0.jwt != nil }
        if pushes.isEmpty { return .notApplicable("no token-authenticated pushes") }
        let expired = expiredTokens(h)
        // Distinct JWTs in the order they were made — by iat, then by first appearance on the
        // wire — not in wire order alone: a request that took the shared token just before a
        // refresh may reach the wire after the first request carrying the new one (another
        // connection, a stream it waited for), and that older token is no extra update. A JWT
        // is a refresh the team needed when the one before it was refused as expired, or when it
        // is at least 20 min newer by iat; any other new JWT within 20 min of the current one is
        // one more than Apple asks for (a token per connection or per request, not one shared
        // token). A JWT with no readable iat sorts last and is always judged one more.
        var order: [(push: APNsPush, jwt: String, iat: Int64?)] = []
        var seen: Set<String> = []
        for p in pushes { if let j = p.jwt, seen.insert(j).inserted { order.append((p, j, DecodedJWT(j)?.issuedAt)) } }
        order = order.enumerated().sorted { ($0.element.iat ?? .max, $0.offset) < ($1.element.iat ?? .max, $1.offset) }.map(\.element)
        var extra: [(APNsPush, String)] = []
        var current = order[0]
        for next in order.dropFirst() {
            if expired.contains(current.jwt) { current = next; continue }
            if let a = current.iat, let b = next.iat, b - a >= APNsFacts.jwtMinRefreshInterval { current = next; continue }
            // JWTs are named by the end of their signature: two of one team often share an iat.
            extra.append((next.push, "another JWT (…\(next.jwt.suffix(8)), iat \(next.iat.map(String.init) ?? "?")) while JWT …\(current.jwt.suffix(8)) "
                + "(iat \(current.iat.map(String.init) ?? "?")) was less than 20 min old"))
        }
        if extra.isEmpty { return .held("\(order.count) JWT(s) for \(pushes.count) push(es), each a needed refresh") }
        return .violated("\(order.count) distinct JWTs within 20 minutes for \(pushes.count) push(es) on "
                         + "\(Set(pushes.map(\.connection)).count) connection(s): share one token across connections",
                         extra.prefix(5).map { h.evidence($0.0, $0.1) })
    }

    static let jwtMaxAge = CheckDefinition(
        id: "apns.jwt-max-age", title: "No JWT older than 60 min is sent",
        reference: "A6; apns.md §5 (maximum age one hour)", severity: .must
    ) { ctx in
        let h = APNsHistory(ctx)
        var problems: [Evidence] = []
        var judged = 0
        for p in h.pushes {
            guard let iat = p.jwt.flatMap(DecodedJWT.init)?.issuedAt else { continue }
            judged += 1
            let age = p.start.timeIntervalSince1970 - Double(iat)
            if age > APNsFacts.jwtMaxAge + 5 { problems.append(h.evidence(p, String(format: "JWT is %.0f s old", age))) }
        }
        return .judged(judged, problems, none: "no JWTs",
                       held: "every JWT younger than one hour",
                       violated: "stale JWT sent")
    }

    static let jwtRefreshAfterExpired = CheckDefinition(
        id: "apns.jwt-refresh-after-expired", title: "New JWT and one retry after ExpiredProviderToken",
        reference: "A7; apns.md §7.2 (ExpiredProviderToken: new JWT, then retry)", severity: .must
    ) { ctx in
        let h = APNsHistory(ctx)
        var problems: [Evidence] = []
        var judged = 0
        for g in h.groups {
            for (i, p) in g.enumerated() where p.reason == "ExpiredProviderToken" {
                // The answer to the one retry itself is judged with the first refusal below.
                if i > 0 && g[i - 1].reason == "ExpiredProviderToken" { continue }
                judged += 1
                guard i + 1 < g.count else {
                    problems.append(h.evidence(p, "not retried after ExpiredProviderToken")); continue
                }
                let next = g[i + 1]
                if next.jwt == p.jwt {
                    problems.append(Evidence("retried with the same refused JWT: \(h.describe(next))", seqs: [p.seq, next.seq]))
                }
                // One retry: a fresh JWT refused again means a clock or key problem, not a stale token.
                if next.reason == "ExpiredProviderToken", i + 2 < g.count {
                    problems.append(Evidence("kept retrying after a fresh JWT was refused as expired too: \(h.describe(g[i + 2]))",
                                             seqs: [p.seq, next.seq, g[i + 2].seq]))
                }
            }
        }
        return .judged(judged, problems, none: "the fake never answered ExpiredProviderToken",
                       held: "\(judged) ExpiredProviderToken answer(s) followed by a new JWT and a retry",
                       violated: "ExpiredProviderToken mishandled")
    }

    static let keepTokenAfterTooManyUpdates = CheckDefinition(
        id: "apns.token-updates-keep-jwt", title: "After TooManyProviderTokenUpdates: keeps the current JWT (no new iat before 20 min)",
        reference: "A8; apns.md §5 (refresh no more often than every 20 minutes), §7.2 (wait; reuse the token)", severity: .must
    ) { ctx in
        let h = APNsHistory(ctx)
        var problems: [Evidence] = []
        var judged = 0
        // Only the JWT is judged: the retry's delay is the backoff's business (a full-jitter
        // delay may be a few milliseconds), and a loop is apns.no-tight-retry-loop's.
        for g in h.groups {
            for p in g where p.reason == "TooManyProviderTokenUpdates" {
                judged += 1
                // No JWT other than the refused one may appear on this connection after this
                // answer unless the fake asked for one (ExpiredProviderToken) or 20 min passed.
                let iat = p.jwt.flatMap(DecodedJWT.init)?.issuedAt
                if let newer = h.pushes.first(where: { q in
                    // Apple counts token updates per connection: a JWT on another connection is no update of this one.
                    guard q.connection == p.connection, q.start > p.end, let j = q.jwt, j != p.jwt else { return false }
                    let qi = DecodedJWT(j)?.issuedAt
                    return !(iat != nil && qi != nil && qi! - iat! >= APNsFacts.jwtMinRefreshInterval)
                }), !h.pushes.contains(where: { $0.reason == "ExpiredProviderToken" && $0.start > p.start && $0.end <= newer.start }) {
                    problems.append(Evidence("minted a new JWT (iat \(newer.jwt.flatMap(DecodedJWT.init)?.issuedAt.map(String.init) ?? "?")) "
                        + "after TooManyProviderTokenUpdates for iat \(iat.map(String.init) ?? "?"): \(h.describe(newer))", seqs: [p.seq, newer.seq]))
                }
            }
        }
        return .judged(judged, problems, none: "the fake never answered TooManyProviderTokenUpdates",
                       held: "\(judged) TooManyProviderTokenUpdates answer(s): the JWT was kept",
                       violated: "TooManyProviderTokenUpdates mishandled")
    }

    static let unrelatedKeyNewConnection = CheckDefinition(
        id: "apns.unrelated-key-new-connection", title: "After UnrelatedKeyIdInToken: retries once on a new connection",
        reference: "A11; apns.md §5 (a connection is pinned to the key family of its first push); "
            + "INFO: a sender holding one key cannot meet this answer in production", severity: .may
    ) { ctx in
        let h = APNsHistory(ctx)
        var problems: [Evidence] = []
        var judged = 0
        for g in h.groups {
            let refused = g.filter { $0.reason == "UnrelatedKeyIdInToken" }
            guard let first = refused.first else { continue }
            judged += 1
            if refused.count > 2 {
                problems.append(Evidence("\(first.device): \(refused.count) UnrelatedKeyIdInToken answers, still retrying (one retry expected)",
                                         seqs: refused.map(\.seq)))
            }
            for p in refused {
                guard let i = g.firstIndex(where: { $0.seq == p.seq }), i + 1 < g.count else { continue }
                let next = g[i + 1]
                if next.connection == p.connection {
                    problems.append(Evidence("retried on the same connection \(p.connection) after UnrelatedKeyIdInToken: \(h.describe(next))",
                                             seqs: [p.seq, next.seq]))
                }
            }
            // The pinned connection gets no new streams afterwards (a short grace for streams already on their way).
            if let later = h.pushes.first(where: { $0.connection == first.connection && $0.start > first.end.addingTimeInterval(0.05) }) {
                problems.append(Evidence("kept opening streams on connection \(first.connection) after UnrelatedKeyIdInToken: \(h.describe(later))",
                                         seqs: [first.seq, later.seq]))
            }
        }
        return .judged(judged, problems, none: "the fake never answered UnrelatedKeyIdInToken",
                       held: "\(judged) UnrelatedKeyIdInToken answer(s) followed by a retry on a new connection",
                       violated: "UnrelatedKeyIdInToken mishandled")
    }

    static let noPriorityFrames = CheckDefinition(
        id: "apns.no-priority-frames", title: "No HTTP/2 PRIORITY frames (or priority fields in HEADERS)",
        reference: "A10; apns.md §1 (APNs ignores PRIORITY frames; clients are told not to send them)", severity: .should
    ) { ctx in
        let h = APNsHistory(ctx)
        let http2 = h.all.filter { $0.transport.version == .http2 }
        if http2.isEmpty { return .notApplicable("no HTTP/2 requests") }
        var perConn: [UInt64: Exchange] = [:]
        for e in http2 where e.transport.priorityFramesReceived > 0 {
            if let seen = perConn[e.transport.connection.id], seen.transport.priorityFramesReceived >= e.transport.priorityFramesReceived { continue }
            perConn[e.transport.connection.id] = e
        }
        let problems = perConn.sorted { $0.key < $1.key }.map { conn, e in
            Evidence("connection \(conn): \(e.transport.priorityFramesReceived) PRIORITY frame(s) or prioritised HEADERS by stream \(e.transport.streamID)",
                     seqs: [e.seq])
        }
        let conns = Set(http2.map(\.transport.connection.id)).count
        return .judged(problems, held: "no PRIORITY signals on \(conns) connection(s)", violated: "PRIORITY frames sent")
    }

    static let maxConcurrentStreams = CheckDefinition(
        id: "apns.max-concurrent-streams", title: "Never more open streams than MAX_CONCURRENT_STREAMS",
        reference: "A10; apns.md §1, §1.1; RFC 9113 §5.1.2", severity: .must
    ) { ctx in
        let h = APNsHistory(ctx)
        guard let limit = ctx.params["limit"]?.intValue else { return .notApplicable("no advertised limit given to judge against") }
        let initial = ctx.params["initialLimit"]?.intValue
        var problems: [Evidence] = []
        var peakAll = 0
        for conn in Set(h.pushes.map(\.connection)).sorted() {
            let ps = h.pushes.filter { $0.connection == conn }
            // The fake raises the limit while it admits the first push with a valid JWT (before
            // answering it), so the initial limit applies to streams opened before that.
            let unlockedAt = ps.filter { $0.exchange.auth?.valid ?? $0.accepted }.map(\.exchange.receivedAt).min()
            // Sweep over stream openings and closings (closings first at equal times): O(n log n).
            var events: [(Date, Int, Int)] = []  // (time, +1 open / -1 close, index)
            for (i, p) in ps.enumerated() { events.append((p.start, 1, i)); events.append((max(p.end, p.start.addingTimeInterval(1e-6)), -1, i)) }
            events.sort { ($0.0, $0.1) < ($1.0, $1.1) }
            var open: Set<Int> = []
            for (_, delta, i) in events {
                if delta < 0 { open.remove(i); continue }
                open.insert(i)
                peakAll = max(peakAll, open.count)
                let p = ps[i]
                let applicable: Int64
                if let initial, unlockedAt == nil || p.start <= unlockedAt! { applicable = initial } else { applicable = limit }
                if open.count > applicable {
                    problems.append(Evidence("connection \(conn): \(open.count) streams open at \(h.time(p.start)) (limit \(applicable))",
                                             seqs: open.sorted().map { ps[$0].seq }))
                    break
                }
            }
        }
        if h.pushes.isEmpty { return .notApplicable("no pushes") }
        return .judged(problems, held: "peak \(peakAll) concurrent stream(s), limit \(limit)",
            violated: "stream limit exceeded")
    }
}
