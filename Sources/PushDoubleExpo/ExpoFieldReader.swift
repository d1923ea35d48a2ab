#if canImport(Glibc)
import Glibc
#else
import Foundation
#endif
import PushDoubleJSON

/// A member of a push message (docs/expo.md §2), in the order of ``ExpoPushMessage/fieldNames``.
enum ExpoField: Int, CaseIterable {
    case to, data, title, body, subtitle, sound, ttl, expiration, priority, badge, channelId, categoryId, mutableContent,
         interruptionLevel, icon, richContent, collapseId, tag, contentAvailable, displayInForeground

    /// The member name as sent.
    var name: String { ExpoPushMessage.fieldNames[rawValue] }

    /// The names' UTF-8 by length: `byLength[n]` lists the fields whose name has n bytes.
    static let byLength: [[(field: ExpoField, name: [UInt8])]] = {
        var table = [[(field: ExpoField, name: [UInt8])]](repeating: [], count: 1 + ExpoPushMessage.fieldNames.map(\.utf8.count).max()!)
        for f in allCases { table[f.name.utf8.count].append((f, Array(f.name.utf8))) }
        return table
    }()

    /// The field a key node names, nil for a member §2 does not list. A key that needed no
    /// decoding is compared as bytes (no string made); another one as its decoded text.
    static func of(key: JSONTape.Index, in tape: JSONTape) -> ExpoField? {
        if let range = tape.asciiRange(key) {
            guard range.count < byLength.count else { return nil }
            return tape.withBytes { b in
                for candidate in byLength[range.count] {
                    let same = candidate.name.withUnsafeBufferPointer { memcmp($0.baseAddress!, b.baseAddress! + range.lowerBound, range.count) == 0 }
                    if same { return candidate.field }
                }
                return nil
            }
        }
        guard let text = tape.string(key) else { return nil }
        return ExpoPushMessage.fieldNames.firstIndex(of: text).flatMap(ExpoField.init(rawValue:))
    }
}

/// The typed reads of one message object of a send body's ``JSONTape``. The first occurrence
/// of a member wins; `null` counts as absent for every member but `sound` (docs/expo.md records
/// nothing about `null`; absent is the accepting reading). One reader serves every message of
/// a request (``read(_:messageIndex:)`` per message): its slots are reused; a class, so the
/// typed reads pass it without copying.
final class ExpoFieldReader {
    let tape: JSONTape
    let decoder: ExpoSendRequestDecoder
    /// False: every check is made, but string, number and object values are not built (nil
    /// is returned for them; ``ExpoMessageDetail/checked``).
    let keepValues: Bool
    private(set) var messageIndex: Int?
    /// The value node of each ``ExpoField`` (its first occurrence), -1 when absent. Raw
    /// memory, so the reads and writes of every message make no exclusivity checks (a class's
    /// stored `var` would check each access).
    private let slots = UnsafeMutableBufferPointer<Int>.allocate(capacity: ExpoField.allCases.count)
    /// Member names §2 does not list, in order, each once.
    private(set) var unknown: [String] = []

    init(tape: JSONTape, decoder: ExpoSendRequestDecoder, keepValues: Bool = true) {
        precondition(ExpoField.allCases.count == ExpoPushMessage.fieldNames.count, "one slot per §2 field")
        self.tape = tape
        self.decoder = decoder
        self.keepValues = keepValues
        slots.initialize(repeating: -1)
    }

    deinit { slots.deallocate() }

    /// Reads the members of the message object `object`.
    func read(_ object: JSONTape.Index, messageIndex: Int?) {
        self.messageIndex = messageIndex
        slots.update(repeating: -1)
        if !unknown.isEmpty { unknown = [] }
        for member in tape.members(object) {
            if let field = ExpoField.of(key: member.key, in: tape) {
                if slots[field.rawValue] < 0 { slots[field.rawValue] = member.value }
            } else if let name = tape.string(member.key), !unknown.contains(name) {
                unknown.append(name)
            }
        }
    }

    /// The member's value node, nil when absent or `null`.
    func node(_ field: ExpoField) -> JSONTape.Index? {
        guard let v = rawNode(field), !tape.isNull(v) else { return nil }
        return v
    }
    /// The member's value node, `null` included.
    func rawNode(_ field: ExpoField) -> JSONTape.Index? {
        let v = slots[field.rawValue]
        return v < 0 ? nil : v
    }
    /// The member as a value, nil when absent or `null` (or not kept).
    func value(_ field: ExpoField) -> JSONValue? { keepValues ? node(field).map(tape.value) : nil }

    func problem(_ path: [String], _ kind: ExpoFieldProblem.Kind, _ rule: ExpoRule) -> ExpoRequestError {
        decoder.fail(ExpoFieldProblem(messageIndex: messageIndex, path: path, kind: kind), rule)
    }

    func string(_ field: ExpoField) throws(ExpoRequestError) -> String? {
        guard let v = node(field) else { return nil }
        guard tape.kind(v) == .string else { throw problem([field.name], .wrongType(expected: "a string"), .fieldType) }
        return keepValues ? tape.string(v) : nil
    }
    func bool(_ field: ExpoField) throws(ExpoRequestError) -> Bool? {
        guard let v = node(field) else { return nil }
        guard let b = tape.bool(v) else { throw problem([field.name], .wrongType(expected: "a boolean"), .fieldType) }
        return b
    }
    func number(_ field: ExpoField) throws(ExpoRequestError) -> Double? {
        guard let v = node(field) else { return nil }
        let kind = tape.kind(v)
        guard kind == .int || kind == .double else { throw problem([field.name], .wrongType(expected: "a number"), .fieldType) }
        return keepValues ? Self.number(tape.value(v)) : nil
    }
    /// The member's object node; a member of another type is a problem.
    func objectNode(_ field: ExpoField) throws(ExpoRequestError) -> JSONTape.Index? {
        guard let v = node(field) else { return nil }
        guard tape.kind(v) == .object else { throw problem([field.name], .wrongType(expected: "an object"), .fieldType) }
        return v
    }
    func object(_ field: ExpoField) throws(ExpoRequestError) -> JSONValue? {
        guard let v = try objectNode(field), keepValues else { return nil }
        return tape.value(v)
    }
    func oneOf<E: RawRepresentable & CaseIterable>(_ field: ExpoField, _ type: E.Type) throws(ExpoRequestError) -> E? where E.RawValue == String {
        guard let v = node(field) else { return nil }
        guard let s = tape.string(v), let e = E(rawValue: s) else {
            throw problem([field.name], .notOneOf(E.allCases.map(\.rawValue)), .fieldType)
        }
        return e
    }

    /// A JSON number (integer or not).
    static func number(_ v: JSONValue) -> Double? {
        switch v { case .int(let i): return Double(i); case .double(let d): return d; default: return nil }
    }
}
