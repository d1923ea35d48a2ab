import Foundation
import PushDoubleCore
import PushDoubleFCM

/// The FCM-only checks: the OAuth2 access token is cached and refreshed,
/// and the messages a sender builds are valid FCM messages.
enum FCMChecks {
    static let all = [accessTokenReuse, tokenRefreshSingleFlight, remintOn401, validMessages, localValidation, mintsSucceed, topicTarget, topicBareName,
                      FCMMappingCheck.check, FCMMappingCheck.background, legacyAPI] + FCMSubscriptionChecks.all

    /// `fcm.legacy-api`: no request to the legacy HTTP API (`POST /fcm/send` with a server key),
    /// shut down in 2024 (fcm.md "Legacy API"): such a sender reaches nobody, whatever it reports.
    static let legacyAPI = CheckDefinition(
        id: "fcm.legacy-api", title: "The shut-down legacy API is not used", reference: "fcm.md §9 (legacy API shutdown)", severity: .must
    ) { ctx in
        let legacy = ctx.history.filter { $0.provider == .fcm && $0.endpoint == FCMFake.legacyEndpoint }
        if legacy.isEmpty { return .notApplicable("no request to the legacy API") }
        return .violated(FCMFake.legacyShutdownNote, legacy.prefix(5).map { Evidence("\($0.request.method) \($0.request.path) (auth \($0.auth?.scheme ?? "none"))", seqs: [$0.seq]) })
    }

    /// The cold start of a case's FCM sending: from the first token request until the send
    /// step (one `send` call) of the first send that carried a minted token was answered. A
    /// thread-per-message sender whose threads all find no token mints several at once in this
    /// window (a stampede), then reuses one; a per-message minter goes on minting in every later
    /// step. The window is the whole first step, not the first answered send: a client whose
    /// token requests queue for a connection of its own pool (HTTP/1.1 keep-alive) sends some of
    /// the stampede's requests only after the first send was answered, and when is a matter of
    /// scheduling, so an earlier end made the verdict flip between runs.
    static func coldStartEnd(_ h: FCMHistory, steps: [StepRecord]) -> Date? {
        guard h.mints.first != nil else { return nil }
        let minted = Set(h.mints.compactMap(\.mintedToken))
        guard let first = h.sends.first(where: { $0.bearer.map(minted.contains) == true }) else { return nil }
        let stepEnd = steps.first { $0.index == first.step && $0.type == "send" }?.endedAt
        return max(first.end, stepEnd ?? first.end)
    }

    /// When the client began token request `m`, as near as the fake can tell: a request that
    /// opened its connection began when that connection was accepted (on a loaded machine its
    /// TLS handshake and head may arrive well after the client started it, e.g. after the
    /// first send of a stampede was already answered); a request on a connection already used
    /// began when its head arrived.
    static func begun(_ m: FCMExchange, in h: FCMHistory) -> Date {
        let conn = m.exchange.transport.connection
        let earlier = h.mints.contains { $0.exchange.transport.connection.id == conn.id && $0.start < m.start }
            || h.sends.contains { $0.exchange.transport.connection.id == conn.id && $0.start < m.start }
        return earlier ? m.start : min(conn.acceptedAt, m.start)
    }

    /// Minted token → its mint group: the tokens whose requests began in the cold-start window
    /// (``coldStartEnd(_:steps:)``, ``begun(_:in:)``) form group 0, and any mints whose requests were
    /// in flight at the same time (a refresh several threads started at once) share a group.
    static func mintGroups(_ h: FCMHistory, steps: [StepRecord]) -> [String: Int] {
        let coldEnd = coldStartEnd(h, steps: steps)
        var out: [String: Int] = [:]
        var group = 0
        var groupEnd: Date?
        for m in h.mints {
            guard let token = m.mintedToken else { continue }
            let began = begun(m, in: h)
            if let c = coldEnd, began < c { out[token] = 0; groupEnd = max(groupEnd ?? m.end, m.end); continue }
            if let e = groupEnd, began < e { groupEnd = max(e, m.end) } else { group += 1; groupEnd = m.end }
            out[token] = group
        }
        return out
    }

    /// The longest refresh margin of common Google auth clients: they treat a token as expired
    /// this long before its `exp` and mint a new one (google-auth for Python: 3 min 45 s,
    /// `_helpers.REFRESH_THRESHOLD`; google-auth-library for Node: 5 min,
    /// `eagerRefreshThresholdMillis`; golang.org/x/oauth2: 10 s, `defaultExpiryDelta`;
    /// docs/fcm.md §6.5). Within it a new token is a correct early refresh, so a token
    /// that lives less than this is re-minted for every message by a correct client: only a
    /// case whose tokens live longer (`fcm.token-refresh-margin`, the default 3599 s) tells early
    /// refresh from minting per message.
    public static let clientRefreshMarginSeconds: Double = 300

    /// Whether a token change between two sends is one the sender needed: the old token was
    /// refused (401), is within the clients' refresh margin of its expiry
    /// (``clientRefreshMarginSeconds``), or has lived half its lifetime (an early refresh).
    static func neededChange(from prev: FCMExchange, at next: FCMExchange, in sends: [FCMExchange]) -> Bool {
        if sends.contains(where: { $0.bearer == prev.bearer && $0.status == 401 }) { return true }
        let at = next.start.timeIntervalSince1970
        guard let auth = prev.exchange.auth else { return false }
        if let e = auth.expiresAt, Double(e) <= at + clientRefreshMarginSeconds { return true }
        if let i = auth.issuedAt, let e = auth.expiresAt, at >= Double(i) + Double(e - i) / 2 { return true }
        return false
    }

    /// `fcm.access-token-reuse`: one access token serves many sends. Tokens minted together at
    /// cold start (``coldStartEnd(_:steps:)``) are one mint for this check — the stampede is
    /// `fcm.token-refresh-single-flight`'s SHOULD — but a token minted after the cold start
    /// without need (a token per message) is a MUST failure.
    static let accessTokenReuse = CheckDefinition(
        id: "fcm.access-token-reuse", title: "One OAuth2 access token is reused across sends (no mint per message)",
        reference: "Google, Authorize send requests (access tokens live expires_in seconds; reuse until near expiry); docs/fcm.md \"OAuth2 token endpoint\"",
        severity: .must
    ) { ctx in
        let h = FCMHistory(ctx)
        let authorised = h.sends.filter { $0.bearer != nil }
        if authorised.count < 2 { return .notApplicable("fewer than two sends carried an access token") }
        let group = mintGroups(h, steps: ctx.steps)
        var problems: [Evidence] = []
        for (prev, next) in zip(authorised, authorised.dropFirst()) where prev.bearer != next.bearer {
            // Tokens of one stampede are one mint here (the stampede is a SHOULD of its own).
            if let a = prev.bearer, let b = next.bearer, let ga = group[a], ga == group[b] { continue }
            if neededChange(from: prev, at: next, in: authorised) { continue }
            let auth = prev.exchange.auth
            problems.append(Evidence("access token changed between sends without a 401, more than 5 minutes before its expiry and before half its lifetime (issued at "
                + "\(auth?.issuedAt.map(String.init) ?? "?"), expires at \(auth?.expiresAt.map(String.init) ?? "?")): "
                + "\(h.describe(prev)) → \(h.describe(next))", seqs: [prev.seq, next.seq]))
            if problems.count >= 5 { break }
        }
        return .judged(problems, held: "\(Set(authorised.compactMap(\.bearer)).count) access token(s) for \(authorised.count) sends",
            violated: "access token not reused: a new one per message")
    }

    /// `fcm.token-refresh-single-flight`: token requests do not overlap. Several requests in
    /// flight at once (the threads of a thread-per-message sender all refreshing a missing or
    /// expiring token) cost the token endpoint's quota and time; one shared refresh serves all.
    static let tokenRefreshSingleFlight = CheckDefinition(
        id: "fcm.token-refresh-single-flight", title: "One token request at a time: concurrent sends share one in-flight refresh",
        reference: "Google, Authorize send requests (mint a token, reuse it); the token endpoint's quota", severity: .should
    ) { ctx in
        let h = FCMHistory(ctx)
        if h.mints.isEmpty { return .notApplicable("no token requests") }
        // A token request is one too many when another was in flight, or when a token had been
        // minted in the cold start already (before any send with a minted token was answered):
        // the sends were not waiting for one shared refresh.
        let coldEnd = coldStartEnd(h, steps: ctx.steps)
        var overlapping: [FCMExchange] = []
        var latestEnd: Date?
        var coldMints = 0
        for m in h.mints {
            let began = begun(m, in: h)
            let cold = m.mintedToken != nil && (coldEnd.map { began < $0 } ?? false)
            if let e = latestEnd, began < e { overlapping.append(m) }
            else if cold, coldMints > 0 { overlapping.append(m) }
            if cold { coldMints += 1 }
            latestEnd = max(latestEnd ?? m.end, m.end)
        }
        if overlapping.isEmpty { return .held("\(h.mints.count) token request(s), none overlapping") }
        return .violated("\(overlapping.count + 1) token requests where one shared refresh would do (a refresh stampede)",
                         overlapping.prefix(5).map { Evidence("\(h.describe($0)) started while another token request was in flight", seqs: [$0.seq]) })
    }

    /// `fcm.remint-on-401`: after 401 UNAUTHENTICATED (the access token refused) the sender
    /// mints a new token and retries with it, once; it does not resend with the refused token.
    static let remintOn401 = CheckDefinition(
        id: "fcm.remint-on-401", title: "401 UNAUTHENTICATED: mint a new access token, then retry with it",
        reference: "fcm.md §4.3 (invalid OAuth token: refresh once, retry)", severity: .must
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
        return .judged(problems, held: "\(refused.count) refused token(s) replaced before the retry", violated: "401 mishandled")
    }

    /// `fcm.valid-messages`: no send is refused by FCM's own message checks (reserved data keys,
    /// non-string data values, TTL format and range, oversize payloads, missing recipient):
    /// the sender checks or builds them right before sending (fcm.md §2, §4.5).
    /// FCM's refusals of a message that was invalid as the runner asked for it (a reserved
    /// `data` key, a payload over FCM's limit, a topic name FCM cannot take): a sender that sends
    /// it, gets the 400 and reports `rejected` loses nothing the notification could have had, so
    /// not validating locally is a SHOULD (`fcm.local-validation`). Every other refusal is a
    /// message the sender itself made invalid (numbers in `data`, a TTL number, a wrong field):
    /// a deliverable notification lost, a MUST (`fcm.valid-messages`).
    static let requestedInvalidity: Set<String> = [
        FCMValidationRule.reservedDataKey.rawValue, FCMValidationRule.payloadTooLarge.rawValue, FCMValidationRule.topicName.rawValue,
    ]

    /// The FCM validator's refusals of message content (not of the token's syntax), by whether
    /// the requested notification was itself invalid (``requestedInvalidity``).
    static func refusedMessages(_ h: FCMHistory, requestedInvalid: Bool) -> [FCMExchange] {
        h.sends.filter {
            guard $0.exchange.decidedBy.stage == .validation, $0.status == 400, $0.exchange.decidedBy.detail != "malformed registration token" else {
                return false
            }
            let rule = String(($0.exchange.decidedBy.detail ?? "").prefix { $0 != ":" && $0 != " " })
            return requestedInvalidity.contains(rule) == requestedInvalid
        }
    }

    static let validMessages = CheckDefinition(
        id: "fcm.valid-messages", title: "The sender maps a valid notification to a valid FCM message (data strings, TTL format, fields)",
        reference: "Google, FCM HTTP v1 API reference (Message: data values are strings, ttl a duration string); docs/fcm.md §2", severity: .must
    ) { ctx in
        let h = FCMHistory(ctx)
        if h.sends.isEmpty { return .notApplicable("no FCM sends") }
        return h.finding(refusedMessages(h, requestedInvalid: false), held: "\(h.sends.count) send(s), none made invalid by the sender",
                        violated: "FCM refused a message the sender made invalid")
    }

    static let localValidation = CheckDefinition(
        id: "fcm.local-validation", title: "A message FCM would refuse (reserved data key, over 4096 bytes, bad topic name) is rejected locally",
        reference: "Google, FCM HTTP v1 API reference (reserved keys, message size limits); docs/fcm.md §2.1, §4.5", severity: .should
    ) { ctx in
        let h = FCMHistory(ctx)
        if h.sends.isEmpty { return .notApplicable("no FCM sends") }
        return h.finding(refusedMessages(h, requestedInvalid: true), held: "\(h.sends.count) send(s), none FCM had to refuse",
                        violated: "sent a message FCM refused: validate it before sending")
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
        return h.finding(refused, held: "\(h.mints.count) token request(s) accepted",
                        violated: "the token endpoint refused the assertion")
    }

    /// `fcm.topic-target`: every topic or condition target of a send step reached FCM as a
    /// message whose one target is `topic` = the topic name or `condition` = the condition (a
    /// topic may also go as the condition naming only it), never as a token, with the
    /// notification's title, body, image and data values mapped (their string type is
    /// `fcm.valid-messages`). A `/topics/` prefix still addresses the topic here: whether FCM
    /// refuses it is not recorded, so it is `fcm.topic-bare-name`'s warning, not a failure.
    static let topicTarget = CheckDefinition(
        id: "fcm.topic-target", title: "Topic and condition targets reach FCM as message.topic / message.condition, fields mapped",
        reference: "fcm.md §2.1 (exactly one target: token, topic or condition)", severity: .must
    ) { ctx in
        let h = FCMHistory(ctx)
        var problems: [Evidence] = []
        var judged = 0
        for step in ctx.steps where step.type == "send" && step.failure == nil {
            let mine = h.sends.filter { $0.step == step.index }
            for id in step.targets ?? [] {
                guard let target = ctx.scenario.target(id), target.provider == ProviderID.fcm.rawValue else { continue }
                let exact = mine.filter { FCMTargetMatch.addresses($0.recordedTarget, target) }
                let near = mine.first { FCMTargetMatch.resembles($0.recordedTarget, target) }
                let reported = step.results.first { $0.device == id }?.outcome
                // Nothing sent for it and not claimed sent (rejected locally, …): nothing to judge here.
                if exact.isEmpty && near == nil && reported != .sent && reported != .pending { continue }
                judged += 1
                if exact.isEmpty {
                    problems.append(Evidence("step \(step.index + 1): \(id) reported \(reported?.rawValue ?? "nothing") but no FCM message addressed \(FCMTargetMatch.describe(target))"
                        + (near.map { ": sent as \(FCMTargetMatch.describe($0.recordedTarget)) (\(h.describe($0)))" } ?? ""),
                        seqs: near.map { [$0.seq] } ?? []))
                    continue
                }
                for s in exact {
                    for miss in FCMTargetMatch.unmapped(step.notification, in: s.exchange.notification) {
                        problems.append(Evidence("step \(step.index + 1) \(id): \(miss) (\(h.describe(s)))", seqs: [s.seq]))
                    }
                }
            }
        }
        return .judged(judged, Array(problems.prefix(8)), none: "no send step named an FCM topic or condition target",
                      held: "\(judged) topic/condition target(s) addressed as given, fields mapped",
                      violated: "topic or condition targets not sent as given")
    }

    /// `fcm.topic-bare-name`: a topic goes as the bare v1 name, without the legacy API's
    /// `/topics/` prefix (fcm.md §2.1: "`topic` has no `/topics/` prefix (the SDKs strip it)").
    /// FCM's own answer to a prefixed name is not recorded, so the fake accepts it and this is
    /// a SHOULD: the sender is warned, never failed, for what the real service may accept.
    static let topicBareName = CheckDefinition(
        id: "fcm.topic-bare-name", title: "Topics are sent as the bare v1 name, without the /topics/ prefix",
        reference: "fcm.md §2.1 (topic has no /topics/ prefix; FCM's rule not recorded)", severity: .should
    ) { ctx in
        let h = FCMHistory(ctx)
        let topics = h.sends.filter { $0.recordedTarget?["topic"] != nil }
        if topics.isEmpty { return .notApplicable("no FCM message was sent to a topic") }
        let prefixed = topics.filter { $0.recordedTarget?["topic"]?.stringValue?.hasPrefix("/topics/") == true }
        return h.finding(prefixed, held: "\(topics.count) topic message(s) name the bare topic",
                        violated: "topic names sent with the legacy /topics/ prefix") {
            "message.topic \($0.recordedTarget?["topic"]?.compactJSON ?? "")"
        }
    }
}

/// How an FCM message's recorded target (`{"topic": …}`, `{"condition": …}`, `{"token": …}`)
/// compares with a scenario target (fcm.md §2.1).
enum FCMTargetMatch {
    /// The message's only target is the one asked for: the topic, bare or with the legacy
    /// `/topics/` prefix (``FCMChecks/topicBareName`` warns of that), or the condition naming
    /// only it, or the same condition up to whitespace and quote style.
    static func addresses(_ recorded: JSONValue?, _ target: ScenarioTarget) -> Bool {
        guard let members = recorded?.objectValue, members.count == 1, let (key, value) = members.first,
              let text = value.stringValue else { return false }
        switch (target.address, key) {
        case (.topic(let t), "topic"): return text == t || text == "/topics/" + t
        case (.topic(let t), "condition"): return normalized(text) == normalized("'\(t)' in topics")
        case (.condition(let c), "condition"): return normalized(text) == normalized(c)
        default: return false
        }
    }

    /// A near miss: the topic with a `/topics/` prefix or as a token, the condition as a topic.
    static func resembles(_ recorded: JSONValue?, _ target: ScenarioTarget) -> Bool {
        guard let members = recorded?.objectValue else { return false }
        let values = members.compactMap { $0.1.stringValue }
        switch target.address {
        case .topic(let t): return values.contains { $0 == t || $0 == "/topics/" + t || $0.hasSuffix("/" + t) }
        case .condition(let c): return values.contains { normalized($0) == normalized(c) }
        }
    }

    static func describe(_ target: ScenarioTarget) -> String {
        switch target.address {
        case .topic(let t): return "topic \"\(t)\""
        case .condition(let c): return "condition \"\(c)\""
        }
    }

    static func describe(_ recorded: JSONValue?) -> String {
        guard let members = recorded?.objectValue, !members.isEmpty else { return "no target" }
        return members.map { "message.\($0.0) \($0.1.compactJSON)" }.joined(separator: " + ")
    }

    /// Without whitespace, double quotes as single (topic names hold neither, fcm.md §2.1).
    static func normalized(_ condition: String) -> String {
        String(condition.unicodeScalars.filter { !$0.properties.isWhitespace }.map { $0 == "\"" ? "'" : Character($0) })
    }

    /// What of the neutral `notification` the recorded message lacks: title, body, image
    /// (`message.notification`), and each data member's value (fcm.md §2.1).
    static func unmapped(_ notification: JSONValue?, in message: JSONValue?) -> [String] {
        guard let n = notification else { return [] }
        var misses: [String] = []
        for (neutral, field) in [("title", "title"), ("body", "body"), ("imageUrl", "image")] {
            guard let want = n[neutral]?.stringValue else { continue }
            let got = message?["notification"]?[field]
            if got?.stringValue != want { misses.append("notification.\(field) is \(got?.compactJSON ?? "absent"), not \"\(want)\"") }
        }
        // The value, not its JSON type: a number where FCM wants a string is fcm.valid-messages' finding.
        for (k, v) in n["data"]?.objectValue ?? [] {
            let want = v.stringValue ?? v.compactJSON
            let got = message?["data"]?[k]
            if got.map({ $0.stringValue ?? $0.compactJSON }) != want { misses.append("data.\(k) is \(got?.compactJSON ?? "absent"), not \"\(want)\"") }
        }
        return misses
    }
}
