// The send-body decoder as it was written over a JSONValue tree, kept here as the reference the
// tape-reading ExpoSendRequestDecoder is compared with (ExpoTapeDecoderTests): every body must
// give the same request or the same error through both.
@testable import PushDoubleExpo
import PushDoubleJSON

struct ExpoTreeReferenceDecoder: Sendable {
    var configuration: ExpoSendDecoderConfiguration

    init(configuration: ExpoSendDecoderConfiguration = ExpoSendDecoderConfiguration()) {
        self.configuration = configuration
    }

    /// Decodes `body` sent with `Content-Encoding: contentEncoding` (nil when absent).
    /// `projectOf` gives the project (e.g. `@username/project`) of a well-formed token, nil if unknown.
    func decode(body: [UInt8], contentEncoding: String? = nil,
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
        // Phases 5–7 read only the decoded messages: the decoder's own.
        let phases = ExpoSendRequestDecoder(configuration: configuration)
        var recipients = try phases.recipientsOf(messages, wasArray: wasArray, projectOf: projectOf)
        let project = try phases.singleProject(recipients)
        phases.applySizeLimit(messages, &recipients)
        return ExpoSendRequest(messages: messages, recipients: recipients, bodyWasArray: wasArray, project: project)
    }

    /// Decodes a plain JSON text body.

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
        let f = ExpoTreeFieldReader(members: members, messageIndex: index, decoder: self)
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
    func decodeTo(_ f: ExpoTreeFieldReader, _ m: inout ExpoPushMessage) throws(ExpoRequestError) {
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
    func decodeSound(_ f: ExpoTreeFieldReader) throws(ExpoRequestError) -> ExpoSound? {
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
                    guard let d = ExpoTreeFieldReader.number(value) else { throw f.problem(["sound", k], .wrongType(expected: "a number"), .fieldType) }
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
    func decodeSDKOnlyFields(_ f: ExpoTreeFieldReader, _ m: inout ExpoPushMessage) throws(ExpoRequestError) {
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
}

struct ExpoTreeFieldReader {
    /// The known members in order, repeats kept (the first occurrence is the one read). A
    /// message has a handful of members, so a scan beats hashing each of the ~20 names read.
    private var known: [(String, JSONValue)] = []
    /// Member names §2 does not list, in order.
    private(set) var unknown: [String] = []
    let messageIndex: Int?
    let decoder: ExpoTreeReferenceDecoder

    init(members: [(String, JSONValue)], messageIndex: Int?, decoder: ExpoTreeReferenceDecoder) {
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
