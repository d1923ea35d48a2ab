import PushDoubleJSON

/// How much of each message a decode keeps; the checks are the same.
enum ExpoMessageDetail {
    /// Every field, as ``ExpoPushMessage`` describes.
    case full
    /// What the recipients, the size limit and the history need: `to`, `toWasArray`,
    /// `unknownFields`, `payloadBytes`, `raw` (read from the tape when asked), and the
    /// booleans, enumerations and `sound`; the strings, numbers and objects (`title`, `data`,
    /// …) are checked and left nil. For the fake, which answers from the recipients alone.
    case checked
}

/// Decodes and checks the body of `POST /--/api/v2/push/send` (docs/expo.md §1, §2) and returns the
/// ``ExpoSendRequest`` or the exact request-level ``ExpoRequestError``.
///
/// Phases, in order (the first failure answers):
/// 1. **Body** (``ExpoRequestBody``): `Content-Encoding` (plain or gzip, §1), bounded inflate, JSON
///    read once into a ``JSONTape`` (no value tree; a message's strings are made when its
///    fields are read, ``ExpoPushMessage/raw`` only when asked for).
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
        try decode(body: body, contentEncoding: contentEncoding, detail: .full, projectOf: projectOf)
    }

    /// ``decode(body:contentEncoding:projectOf:)`` keeping `detail` of each message.
    func decode(body: [UInt8], contentEncoding: String?, detail: ExpoMessageDetail,
                projectOf: (String) -> String?) throws(ExpoRequestError) -> ExpoSendRequest {
        let tape = try ExpoRequestBody.tape(body, contentEncoding: contentEncoding, limits: configuration.body,
                                            statuses: configuration.statuses)
        let (objects, wasArray) = try shape(tape)
        var messages: [ExpoPushMessage] = []
        messages.reserveCapacity(objects.count)
        let reader = ExpoFieldReader(tape: tape, decoder: self, keepValues: detail == .full)
        for (i, object) in objects.enumerated() {
            reader.read(object, messageIndex: wasArray ? i : nil)
            messages.append(try decodeMessage(reader, object))
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

    func shape(_ tape: JSONTape) throws(ExpoRequestError) -> ([JSONTape.Index], Bool) {
        switch tape.kind(tape.root) {
        case .object: return ([tape.root], false)
        case .array:
            let items = tape.elements(tape.root)
            for (i, item) in items.enumerated() where tape.kind(item) != .object {
                throw fail(ExpoFieldProblem(messageIndex: i, path: [], kind: .wrongType(expected: "an object")), .bodyShape)
            }
            return (items, true)
        default:
            throw fail(ExpoFieldProblem(messageIndex: nil, path: [], kind: .wrongType(expected: "an object")), .bodyShape)
        }
    }

    func fail(_ problem: ExpoFieldProblem, _ rule: ExpoRule) -> ExpoRequestError {
        .apiError(rule, configuration.fieldProblemText(problem), statuses: configuration.statuses)
    }

    // MARK: Phase 3: fields (docs/expo.md §2)

    /// The message `f` has read (node `object` of its tape), its fields checked in §2 table order.
    func decodeMessage(_ f: ExpoFieldReader, _ object: JSONTape.Index) throws(ExpoRequestError) -> ExpoPushMessage {
        var m = ExpoPushMessage()
        m.source = ExpoMessageSource(tape: f.tape, node: object)
        for name in f.unknown {
            if configuration.unknownFields == .reject { throw f.problem([name], .notAllowed, .unknownField) }
            m.unknownFields.append(name)
        }
        try decodeTo(f, &m)
        m.data = try f.object(.data)
        m.title = try f.string(.title)
        m.body = try f.string(.body)
        m.subtitle = try f.string(.subtitle)
        m.sound = try decodeSound(f)
        m.ttl = try f.number(.ttl)
        m.expiration = try f.number(.expiration)
        m.priority = try f.oneOf(.priority, ExpoPriority.self)
        m.badge = try f.number(.badge)
        m.channelId = try f.string(.channelId)
        m.categoryId = try f.string(.categoryId)
        m.mutableContent = try f.bool(.mutableContent)
        m.interruptionLevel = try f.oneOf(.interruptionLevel, ExpoInterruptionLevel.self)
        try decodeSDKOnlyFields(f, &m)
        m.contentAvailable = try f.bool(.contentAvailable)
        m.displayInForeground = try f.bool(.displayInForeground)
        m.payloadBytes = payloadBytes(f.tape, object)
        return m
    }

    /// `to`: a string or an array of strings, required (§2).
    func decodeTo(_ f: ExpoFieldReader, _ m: inout ExpoPushMessage) throws(ExpoRequestError) {
        guard let v = f.node(.to) else { throw f.problem(["to"], .required, .missingTo) }
        switch f.tape.kind(v) {
        case .string: m.to = [f.tape.string(v)!]
        case .array:
            m.toWasArray = true
            for (i, item) in f.tape.elements(v).enumerated() {
                guard let s = f.tape.string(item) else { throw f.problem(["to", String(i)], .wrongType(expected: "a string"), .fieldType) }
                m.to.append(s)
            }
        default: throw f.problem(["to"], .wrongType(expected: "a string"), .fieldType)
        }
    }

    /// `"default"` | null | `{critical?: bool, name?: string|null, volume?: number}` (§2).
    func decodeSound(_ f: ExpoFieldReader) throws(ExpoRequestError) -> ExpoSound? {
        guard let v = f.rawNode(.sound) else { return nil }
        let tape = f.tape
        switch tape.kind(v) {
        case .null: return ExpoSound.none
        case .string:
            let s = tape.string(v)!
            if s == "default" { return .default }
            if configuration.acceptCustomSoundNames { return .named(s) }
            throw f.problem(["sound"], .notOneOf(["default"]), .fieldType)
        case .object:
            var critical: Bool?, name: String?, volume: Double?
            for member in tape.members(v) {
                let k = tape.string(member.key)!, value = member.value
                switch k {
                case "critical":
                    if tape.isNull(value) { break }
                    guard let b = tape.bool(value) else { throw f.problem(["sound", k], .wrongType(expected: "a boolean"), .fieldType) }
                    critical = b
                case "name":
                    if tape.isNull(value) { break }
                    guard let s = tape.string(value) else { throw f.problem(["sound", k], .wrongType(expected: "a string"), .fieldType) }
                    name = s
                case "volume":
                    if tape.isNull(value) { break }
                    guard let d = ExpoFieldReader.number(tape.value(value)) else {
                        throw f.problem(["sound", k], .wrongType(expected: "a number"), .fieldType)
                    }
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
        m.icon = f.value(.icon); m.richContent = f.value(.richContent); m.collapseId = f.value(.collapseId); m.tag = f.value(.tag)
        guard configuration.checkSDKOnlyFields else { return }
        for field in [ExpoField.icon, .collapseId, .tag] { _ = try f.string(field) }
        if let rich = try f.objectNode(.richContent) {
            for member in f.tape.members(rich) where f.tape.string(member.key) == "image" && !f.tape.isNull(member.value) {
                guard f.tape.kind(member.value) == .string else {
                    throw f.problem(["richContent", "image"], .wrongType(expected: "a string"), .fieldType)
                }
            }
        }
    }

    /// The compact JSON length of the message (node `object`), with or without its `to`
    /// members (``ExpoPayloadMeasure``), counted on the tape without writing it.
    func payloadBytes(_ tape: JSONTape, _ object: JSONTape.Index) -> Int {
        switch configuration.payloadMeasure {
        case .wholeMessage: return tape.compactLength(object)
        case .messageWithoutTo:
            var count = 0, n = 0
            for member in tape.members(object) where ExpoField.of(key: member.key, in: tape) != .to {
                count += 1
                n += tape.compactLength(member.key) + 1 + tape.compactLength(member.value)
            }
            // `{` `}`, a comma between members, a colon in each (``JSONWriter/compactLength(_:)``).
            return count == 0 ? 2 : 1 + count + n
        }
    }

    // MARK: Phases 5–7: recipients

    func recipientsOf(_ messages: [ExpoPushMessage], wasArray: Bool,
                      projectOf: (String) -> String?) throws(ExpoRequestError) -> [ExpoRecipient] {
        var out: [ExpoRecipient] = []
        out.reserveCapacity(messages.count)
        let accepted = ExpoTokenForms(configuration.acceptedTokenForms)
        // By index: iterating the messages would copy each one.
        for mi in messages.indices {
            for ti in messages[mi].to.indices {
                let token = messages[mi].to[ti]
                let form = accepted.form(of: token)
                var r = ExpoRecipient(index: out.count, messageIndex: mi, token: token, form: form, project: nil, verdict: .deliverable)
                if form == nil {
                    if configuration.invalidToken == .requestError {
                        let path = messages[mi].toWasArray ? ["to", String(ti)] : ["to"]
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
