import Foundation
import XCTest
import PushDoubleJSON
@testable import PushDoubleExpo

/// The send decoder reads the body once into a ``JSONTape``; every body must give the same
/// request (messages, recipients, sizes) or the same error, byte for byte, as the decoder
/// written over a ``JSONValue`` tree (``ExpoTreeReferenceDecoder``), under every configuration
/// that changes a check; the fake's decode (``ExpoMessageDetail/checked``) must decide the
/// same recipients and errors. The corpus: hand-written bodies for each field and error, the
/// libFuzzer JSON corpus (Tests/Fuzz/corpus/FuzzJSON, mostly not a send body: shape and JSON
/// errors), and seeded mutations of valid bodies (truncated, a byte changed, a byte dropped).
final class ExpoTapeDecoderTests: XCTestCase {
    static let configurations: [(String, ExpoSendDecoderConfiguration)] = {
        var out: [(String, ExpoSendDecoderConfiguration)] = [("default", .init())]
        var c = ExpoSendDecoderConfiguration(); c.unknownFields = .reject; out.append(("reject unknown", c))
        c = .init(); c.checkSDKOnlyFields = true; c.acceptCustomSoundNames = true; out.append(("SDK fields, custom sounds", c))
        c = .init(); c.payloadMeasure = .wholeMessage; c.maxPayloadBytes = 60; out.append(("whole message, 60 bytes", c))
        c = .init(); c.maxPayloadBytes = 40; c.messageTooBig = .ticket; out.append(("too big as a ticket", c))
        c = .init(); c.invalidToken = .requestError; c.maxRecipients = 3; out.append(("token errors, 3 recipients", c))
        return out
    }()

    static let handWritten: [String] = [
        #"{"to":"\#(tok("a"))"}"#, #"[{"to":"\#(tok("a"))"}]"#, "[]", "{}", "null", "3", #""x""#, "[1]", #"[{"to":"\#(tok("a"))"},2]"#,
        #"{"to":["\#(tok("a"))","\#(tok("b"))",5]}"#, #"{"to":7}"#, #"{"to":null}"#, #"{"to":[]}"#, #"{"to":"nope"}"#,
        #"{"to":"\#(tok("a"))","title":"t","body":"b","subtitle":"s","badge":2,"ttl":1.5,"expiration":1e3,"priority":"high","#
            + #""channelId":"c","categoryId":"k","mutableContent":true,"interruptionLevel":"time-sensitive","_contentAvailable":false,"#
            + #""_displayInForeground":true,"data":{"n":[1,2.5,null,{"x":"é\n"}]},"icon":"i","richContent":{"image":"u"},"collapseId":"c","tag":"t"}"#,
        #"{"to":"\#(tok("a"))","title":5}"#, #"{"to":"\#(tok("a"))","badge":"1"}"#, #"{"to":"\#(tok("a"))","priority":"urgent"}"#,
        #"{"to":"\#(tok("a"))","interruptionLevel":1}"#, #"{"to":"\#(tok("a"))","mutableContent":"yes"}"#, #"{"to":"\#(tok("a"))","data":[1]}"#,
        #"{"to":"\#(tok("a"))","data":null,"title":null,"sound":null}"#, #"{"to":"\#(tok("a"))","sound":"default"}"#,
        #"{"to":"\#(tok("a"))","sound":"ping.wav"}"#, #"{"to":"\#(tok("a"))","sound":3}"#,
        #"{"to":"\#(tok("a"))","sound":{"critical":true,"name":null,"volume":0.5,"extra":1}}"#,
        #"{"to":"\#(tok("a"))","sound":{"critical":1}}"#, #"{"to":"\#(tok("a"))","sound":{"name":2}}"#, #"{"to":"\#(tok("a"))","sound":{"volume":"x"}}"#,
        #"{"to":"\#(tok("a"))","icon":5,"richContent":"x","collapseId":[1],"tag":{}}"#, #"{"to":"\#(tok("a"))","richContent":{"image":3}}"#,
        #"{"to":"\#(tok("a"))","richContent":{"image":null,"image":"x"}}"#,
        #"{"to":"\#(tok("a"))","title":"one","title":2,"foo":1,"bar":2,"foo":3}"#,
        #"{"t\u006f":"\#(tok("a"))","titl\u0065":"\u00e9\ud83d\ude00","\u0066oo":"\"q\"\\ \/"}"#,
        #"{"to":"\#(tok("a"))","é":1,"body":"tab\there"}"#, #"{"to":"\#(tok("a"))","to":"\#(tok("b"))"}"#,
        #"[{"to":"\#(tok("a"))"},{"to":"\#(tok("B1"))"}]"#, #"[{"to":["\#(tok("U1"))","\#(tok("a"))","\#(tok("a"))"]},{"to":"\#(tok("B1"))"}]"#,
        #"{"to":["ExpoPushToken[x]","0f0e0d0c-0b0a-0908-0706-050403020100","ExponentPushToken[]","x"]}"#,
        #"{"to":"\#(tok("a"))","body":"\#(String(repeating: "x", count: 4100))"}"#,
        #"{"to":"\#(tok("a"))","data":{"k":-0,"l":12345678901234,"m":-1.25e-7,"n":1E400}}"#,
        #"{"to":"\#(tok("a"))","data":{}}"#, #"{"to":"\#(tok("a"))","data":{"a":[]}}"#,
        #"{"to":"\#(tok("a"))","data":{"min":-9223372036854775808,"max":9223372036854775807,"t":[9,10,-9,-10,99,100,0.1,-2.5e300]}}"#,
        "[" + (0..<101).map { i in #"{"to":"\#(tok("m" + String(i)))"}"# }.joined(separator: ",") + "]",
        "[{", #"{"to":"#, "{\"to\":\"\u{1}\"}", "[1,]", "\u{FEFF}{}", " {} ", "{} x", String(repeating: "[", count: 600),
    ]

    /// The libFuzzer JSON corpus, next to this file's directory.
    static func fuzzCorpus() -> [[UInt8]] {
        let dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fuzz/corpus/FuzzJSON")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
        return names.sorted().compactMap { try? Array(Data(contentsOf: dir.appendingPathComponent($0))) }
    }

    /// Truncations, one-byte changes and one-byte deletions of `body`, from a seeded generator.
    static func mutations(of body: [UInt8], count: Int, seed: inout UInt64) -> [[UInt8]] {
        let alphabet = Array(#"{}[]",:"0123456789-.eEtruefalsn\ u/x"#.utf8) + [0x00, 0x1F, 0x7F, 0xC3, 0xA9, 0xFF]
        var out: [[UInt8]] = []
        for _ in 0..<count where !body.isEmpty {
            let r = ExpoReceiptStore.splitMix(&seed)
            let at = Int(r >> 8) % body.count
            var b = body
            switch r % 3 {
            case 0: b = Array(b[..<at])
            case 1: b[at] = alphabet[Int(r >> 40) % alphabet.count]
            default: b.remove(at: at)
            }
            out.append(b)
        }
        return out
    }

    func testTapeDecoderMatchesTheTreeDecoder() {
        var seed: UInt64 = 0x5EED
        var corpus = Self.handWritten.map { Array($0.utf8) }
        let fuzz = Self.fuzzCorpus()
        XCTAssertGreaterThan(fuzz.count, 100, "Tests/Fuzz/corpus/FuzzJSON")
        corpus += fuzz
        for body in Self.handWritten.prefix(40) { corpus += Self.mutations(of: Array(body.utf8), count: 60, seed: &seed) }
        var accepted = 0, refused = 0
        for (name, c) in Self.configurations {
            let tape = ExpoSendRequestDecoder(configuration: c), tree = ExpoTreeReferenceDecoder(configuration: c)
            for body in corpus {
                let new = Result { () throws(ExpoRequestError) in try tape.decode(body: body, projectOf: testProject) }
                let old = Result { () throws(ExpoRequestError) in try tree.decode(body: body, projectOf: testProject) }
                let text = String(decoding: body.prefix(200), as: UTF8.self)
                // The fake's decode (values checked, not kept) decides the same.
                let checked = Result { () throws(ExpoRequestError) in
                    try tape.decode(body: body, contentEncoding: nil, detail: .checked, projectOf: testProject)
                }
                switch (checked, new) {
                case (.success(let a), .success(let b)):
                    XCTAssertEqual(a.recipients, b.recipients, "\(name): \(text)")
                    XCTAssertEqual(a.project, b.project); XCTAssertEqual(a.bodyWasArray, b.bodyWasArray)
                    XCTAssertEqual(a.messages.map(\.raw), b.messages.map(\.raw))
                    XCTAssertEqual(a.messages.map(\.payloadBytes), b.messages.map(\.payloadBytes))
                    XCTAssertEqual(a.messages.map(\.unknownFields), b.messages.map(\.unknownFields))
                case (.failure(let a), .failure(let b)): XCTAssertEqual(a, b, "\(name): \(text)")
                default: XCTFail("\(name): checked \(checked), full \(new): \(text)")
                }
                switch (new, old) {
                case (.success(let a), .success(let b)):
                    accepted += 1
                    XCTAssertEqual(a, b, "\(name): \(text)")
                    XCTAssertEqual(a.messages.map(\.raw), b.messages.map(\.raw), "\(name): \(text)")
                case (.failure(let a), .failure(let b)):
                    refused += 1
                    XCTAssertEqual(a, b, "\(name): \(text)")
                    XCTAssertEqual(a.bodyText, b.bodyText, "\(name): \(text)")
                default:
                    XCTFail("\(name): tape \(new), tree \(old): \(text)")
                }
            }
        }
        // Both outcomes are exercised in quantity.
        XCTAssertGreaterThan(accepted, 300)
        XCTAssertGreaterThan(refused, 1000)
    }

    /// The payload size counted on the tape is the length of the compact JSON text written
    /// from the value tree, for every node of every corpus document that parses.
    func testTapeCompactLengthIsTheWrittenLength() throws {
        var checked = 0
        for body in Self.handWritten.map({ Array($0.utf8) }) + Self.fuzzCorpus() {
            guard let tape = try? JSONTape.parse(body) else { continue }
            for i in 0..<tape.nodeCount {
                XCTAssertEqual(tape.compactLength(i), JSONWriter.compactLength(tape.value(i)), String(decoding: body.prefix(120), as: UTF8.self))
                XCTAssertEqual(tape.compactLength(i), tape.value(i).compactJSONBytes.count)
                checked += 1
            }
        }
        XCTAssertGreaterThan(checked, 500)
    }
}
