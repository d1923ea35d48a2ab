import PushDoubleJSON

/// Decodes and checks the body of `POST /--/api/v2/push/send` (docs/expo.md §1, §2) and returns the
/// ``ExpoSendRequest`` or the exact request-level ``ExpoRequestError``.
///
/// Phases, in order (the first failure answers):
/// 1. **Body** (``ExpoRequestBody``): `Content-Encoding` (plain or gzip, §1), bounded inflate, JSON.
/// 2. **Shape** (§2): one message object or an array of them → `"value" must be of type object.` (§3.2 [O]).
/// 3. **Fields** (§2 table): each message's members and their types, message by message → `API_ERROR`.
/// 4. **Recipient count** (§1: ≤ 100, each `to` entry counts) → `PUSH_TOO_MANY_NOTIFICATIONS` (§3.2 [O]).
/// 5. **Tokens** (§5): a `to` that is no push token gets an error ticket (or refuses the request).
/// 6. **One project** (§1): projects from the caller's lookup → `PUSH_TOO_MANY_EXPERIENCE_IDS` (§3.2 [O]).
/// 7. **Size** (§1: 4096 bytes per message) → `MessageTooBig` receipt (default) or ticket.
///
/// Authentication is separate (``ExpoAccessTokenCheck``); the caller runs it first.
public struct ExpoSendRequestDecoder: Sendable {
    public var configuration: ExpoSendDecoderConfiguration

    public init(configuration: ExpoSendDecoderConfiguration = ExpoSendDecoderConfiguration()) {
        self.configuration = configuration
    }

    /// Decodes `body` sent with `Content-Encoding: contentEncoding` (nil when absent).
    /// `projectOf` gives the project (e.g. `@username/project`) of a well-formed token, nil if unknown.
    public func decode(body: [UInt8], contentEncoding: String? = nil,
                       projectOf: (String) -> String?) throws(ExpoRequestError) -> ExpoSendRequest {
        let root = try ExpoRequestBody.json(body, contentEncoding: contentEncoding, limits: configuration.body,
                                            statuses: configuration.statuses)
        let (objects, wasArray) = try shape(root)
        var messages: [ExpoPushMessage] = []
        messages.reserveCapacity(objects.count)
        for (i, members) in objects.enumerated() {
            messages.append(try decodeMessage(members, index: wasArray ? i : nil))
        }
        let total = messages.reduce(0) { $0 + $1.to.count }
        guard total <= configuration.maxRecipients else {
            throw .tooManyNotifications(received: total, limit: configuration.maxRecipients, statuses: configuration.statuses)
        }
        var recipients = try recipientsOf(messages, wasArray: wasArray, projectOf: projectOf)
        let project = try singleProject(recipients)
        applySizeLimit(messages, &recipients)
        return ExpoSendRequest(messages: messages, recipients: recipients, bodyWasArray: wasArray, project: project)
    }

    /// Decodes a plain JSON text body.
    public func decode(json: String, projectOf: (String) -> String?) throws(ExpoRequestError) -> ExpoSendRequest {
        try decode(body: Array(json.utf8), contentEncoding: nil, projectOf: projectOf)
    }

    // MARK: Phase 2: shape

    func shape(_ root: JSONValue) throws(ExpoRequestError) -> ([[(String, JSONValue)]], Bool) {
        switch root {
        case .object(let members): return ([members], false)
        case .array(let items):
            var out: [[(String, JSONValue)]] = []
            for (i, item) in items.enumerated() {
                guard case .object(let members) = item else {
                    throw fail(ExpoFieldProblem(messageIndex: i, path: [], kind: .wrongType(expected: "an object")), .bodyShape)
                }
                out.append(members)
            }
            return (out, true)
        default:
            throw fail(ExpoFieldProblem(messageIndex: nil, path: [], kind: .wrongType(expected: "an object")), .bodyShape)
        }
    }

    func fail(_ problem: ExpoFieldProblem, _ rule: ExpoRule) -> ExpoRequestError {
        .apiError(rule, configuration.fieldProblemText(problem), statuses: configuration.statuses)
    }

    // MARK: Phase 3: fields (docs/expo.md §2)

    func decodeMessage(_ members: [(String, JSONValue)], index: Int?) throws(ExpoRequestError) -> ExpoPushMessage {
        var m = ExpoPushMessage()
        m.raw = .object(members)
        let f = ExpoFieldReader(members: members, messageIndex: index, decoder: self)
        for name in f.unknown {
            if configuration.unknownFields == .reject { throw f.problem([name], .notAllowed, .unknownField) }
            m.unknownFields.append(name)
        }
        try decodeTo(f, &m)
        m.data = try f.object("data")
        m.title = try f.string("title")
        m.body = try f.string("body")
        m.subtitle = try f.string("subtitle")
        m.sound = try decodeSound(f)
        m.ttl = try f.number("ttl")
        m.expiration = try f.number("expiration")
        m.priority = try f.oneOf("priority", ExpoPriority.self)
        m.badge = try f.number("badge")
        m.channelId = try f.string("channelId")
        m.categoryId = try f.string("categoryId")
        m.mutableContent = try f.bool("mutableContent")
        m.interruptionLevel = try f.oneOf("interruptionLevel", ExpoInterruptionLevel.self)
        try decodeSDKOnlyFields(f, &m)
        m.contentAvailable = try f.bool("_contentAvailable")
        m.displayInForeground = try f.bool("_displayInForeground")
        m.payloadBytes = payloadBytes(members)
        return m
    }

    /// `to`: a string or an array of strings, required (§2).
    func decodeTo(_ f: ExpoFieldReader, _ m: inout ExpoPushMessage) throws(ExpoRequestError) {
        switch f["to"] {
        case nil: throw f.problem(["to"], .required, .missingTo)
        case .string(let s)?: m.to = [s]
        case .array(let items)?:
            m.toWasArray = true
            for (i, item) in items.enumerated() {
                guard case .string(let s) = item else { throw f.problem(["to", String(i)], .wrongType(expected: "a string"), .fieldType) }
                m.to.append(s)
            }
        case _?: throw f.problem(["to"], .wrongType(expected: "a string"), .fieldType)
        }
    }

    /// `"default"` | null | `{critical?: bool, name?: string|null, volume?: number}` (§2).
    func decodeSound(_ f: ExpoFieldReader) throws(ExpoRequestError) -> ExpoSound? {
        guard let v = f.rawValue("sound") else { return nil }
        switch v {
        case .null: return ExpoSound.none
        case .string("default"): return .default
        case .string(let s) where configuration.acceptCustomSoundNames: return .named(s)
        case .string: throw f.problem(["sound"], .notOneOf(["default"]), .fieldType)
        case .object(let members):
            var critical: Bool?, name: String?, volume: Double?
            for (k, value) in members {
                switch (k, value) {
                case ("critical", .bool(let b)): critical = b
                case ("critical", .null): break
                case ("critical", _): throw f.problem(["sound", k], .wrongType(expected: "a boolean"), .fieldType)
                case ("name", .string(let s)): name = s
                case ("name", .null): break
                case ("name", _): throw f.problem(["sound", k], .wrongType(expected: "a string"), .fieldType)
                case ("volume", .null): break
                case ("volume", _):
                    guard let d = ExpoFieldReader.number(value) else { throw f.problem(["sound", k], .wrongType(expected: "a number"), .fieldType) }
                    volume = d
                default:
                    if configuration.unknownFields == .reject { throw f.problem(["sound", k], .notAllowed, .unknownField) }
                }
            }
            return .object(critical: critical, name: name, volume: volume)
        default: throw f.problem(["sound"], .wrongType(expected: "a string"), .fieldType)
        }
    }

    /// `icon`, `richContent {image}`, `collapseId`, `tag` (§2: SDK types, server semantics
    /// UNCONFIRMED): kept as sent, type-checked only with `checkSDKOnlyFields`.
    func decodeSDKOnlyFields(_ f: ExpoFieldReader, _ m: inout ExpoPushMessage) throws(ExpoRequestError) {
        m.icon = f["icon"]; m.richContent = f["richContent"]; m.collapseId = f["collapseId"]; m.tag = f["tag"]
        guard configuration.checkSDKOnlyFields else { return }
        for name in ["icon", "collapseId", "tag"] { _ = try f.string(name) }
        if case .object(let members)? = try f.object("richContent") {
            for (k, v) in members where k == "image" && !v.isNull {
                guard case .string = v else { throw f.problem(["richContent", "image"], .wrongType(expected: "a string"), .fieldType) }
            }
        }
    }

    func payloadBytes(_ members: [(String, JSONValue)]) -> Int {
        switch configuration.payloadMeasure {
        case .wholeMessage: return JSONWriter.compactLength(.object(members))
        case .messageWithoutTo: return JSONWriter.compactLength(.object(members.filter { $0.0 != "to" }))
        }
    }

    // MARK: Phases 5–7: recipients

    func recipientsOf(_ messages: [ExpoPushMessage], wasArray: Bool,
                      projectOf: (String) -> String?) throws(ExpoRequestError) -> [ExpoRecipient] {
        var out: [ExpoRecipient] = []
        for (mi, m) in messages.enumerated() {
            for (ti, token) in m.to.enumerated() {
                let form = ExpoPushTokenForm.of(token).flatMap { configuration.acceptedTokenForms.contains($0) ? $0 : nil }
                var r = ExpoRecipient(index: out.count, messageIndex: mi, token: token, form: form, project: nil, verdict: .deliverable)
                if form == nil {
                    if configuration.invalidToken == .requestError {
                        let path = m.toWasArray ? ["to", String(ti)] : ["to"]
                        throw fail(ExpoFieldProblem(messageIndex: wasArray ? mi : nil, path: path,
                                                    kind: .wrongType(expected: "a valid push token")), .tokenFormat)
                    }
                    r.verdict = .refused(.deviceNotRegistered(token: token), .tokenFormat)
                } else {
                    r.project = projectOf(token)
                }
                out.append(r)
            }
        }
        return out
    }

    /// All known projects must be one (§1); the error lists each project's tokens (§3.2 capture),
    /// projects and tokens in first-seen order, each token once.
    func singleProject(_ recipients: [ExpoRecipient]) throws(ExpoRequestError) -> String? {
        var groups: [(project: String, tokens: [String])] = []
        for r in recipients {
            guard let p = r.project else { continue }
            if let g = groups.firstIndex(where: { $0.project == p }) {
                if !groups[g].tokens.contains(r.token) { groups[g].tokens.append(r.token) }
            } else {
                groups.append((p, [r.token]))
            }
        }
        guard groups.count <= 1 else { throw .tooManyExperienceIDs(groups, statuses: configuration.statuses) }
        return groups.first?.project
    }

    /// §1: over 4096 bytes → `MessageTooBig`. A recipient already refused keeps its ticket.
    func applySizeLimit(_ messages: [ExpoPushMessage], _ recipients: inout [ExpoRecipient]) {
        for i in recipients.indices where messages[recipients[i].messageIndex].payloadBytes > configuration.maxPayloadBytes {
            guard case .deliverable = recipients[i].verdict else { continue }
            switch configuration.messageTooBig {
            case .receipt: recipients[i].verdict = .acceptedWithReceipt(.messageTooBig, .messageSize)
            case .ticket: recipients[i].verdict = .refused(.messageTooBig(limit: configuration.maxPayloadBytes), .messageSize)
            }
        }
    }
}

/// The typed reads of one message's members. The first occurrence of a member wins; `null`
/// counts as absent for every member but `sound` (docs/expo.md records nothing about `null`;
/// absent is the accepting reading).
struct ExpoFieldReader {
    /// The known members in order, repeats kept (the first occurrence is the one read). A
    /// message has a handful of members, so a scan beats hashing each of the ~20 names read.
    private var known: [(String, JSONValue)] = []
    /// Member names §2 does not list, in order.
    private(set) var unknown: [String] = []
    let messageIndex: Int?
    let decoder: ExpoSendRequestDecoder

    init(members: [(String, JSONValue)], messageIndex: Int?, decoder: ExpoSendRequestDecoder) {
        self.messageIndex = messageIndex
        self.decoder = decoder
        known.reserveCapacity(members.count)
        for (k, v) in members {
            if Self.knownFields.contains(k) { known.append((k, v)) } else if !unknown.contains(k) { unknown.append(k) }
        }
    }

    /// ``ExpoPushMessage/fieldNames`` as a set, built once.
    static let knownFields = Set(ExpoPushMessage.fieldNames)

    /// The member, nil when absent or `null`.
    subscript(name: String) -> JSONValue? {
        guard let v = rawValue(name), !v.isNull else { return nil }
        return v
    }
    /// The member, `null` included.
    func rawValue(_ name: String) -> JSONValue? {
        // By index: iterating the pairs copies (retains and releases) every name and value passed.
        for i in known.indices where known[i].0 == name { return known[i].1 }
        return nil
    }

    func problem(_ path: [String], _ kind: ExpoFieldProblem.Kind, _ rule: ExpoRule) -> ExpoRequestError {
        decoder.fail(ExpoFieldProblem(messageIndex: messageIndex, path: path, kind: kind), rule)
    }

    func string(_ name: String) throws(ExpoRequestError) -> String? {
        guard let v = self[name] else { return nil }
        guard case .string(let s) = v else { throw problem([name], .wrongType(expected: "a string"), .fieldType) }
        return s
    }
    func bool(_ name: String) throws(ExpoRequestError) -> Bool? {
        guard let v = self[name] else { return nil }
        guard case .bool(let b) = v else { throw problem([name], .wrongType(expected: "a boolean"), .fieldType) }
        return b
    }
    func number(_ name: String) throws(ExpoRequestError) -> Double? {
        guard let v = self[name] else { return nil }
        guard let d = Self.number(v) else { throw problem([name], .wrongType(expected: "a number"), .fieldType) }
        return d
    }
    func object(_ name: String) throws(ExpoRequestError) -> JSONValue? {
        guard let v = self[name] else { return nil }
        guard case .object = v else { throw problem([name], .wrongType(expected: "an object"), .fieldType) }
        return v
    }
    func oneOf<E: RawRepresentable & CaseIterable>(_ name: String, _ type: E.Type) throws(ExpoRequestError) -> E? where E.RawValue == String {
        guard let v = self[name] else { return nil }
        guard case .string(let s) = v, let e = E(rawValue: s) else {
            throw problem([name], .notOneOf(E.allCases.map(\.rawValue)), .fieldType)
        }
        return e
    }

    /// A JSON number (integer or not).
    static func number(_ v: JSONValue) -> Double? {
        switch v { case .int(let i): return Double(i); case .double(let d): return d; default: return nil }
    }
}
