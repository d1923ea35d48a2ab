// fuzz-seeds: writes the seed corpus, Tests/Fuzz/corpus/<Target>/<name>, from the unit tests'
// vectors and inputs, in each target's input format (see the targets' doc comments).
//
//   PUSHDOUBLE_FUZZ=1 swift run fuzz-seeds [repository root]
//
// Every directory is rewritten from scratch, so the output depends only on the sources.
// Binary seeds are built with the library's own encoders, whose byte-exactness against
// the RFC examples the unit tests prove (RFC 7541 Appendix C, RFC 8188 §3, RFC 8291 A).
// Text seeds are the string literals of the named test files that look like the
// target's input.
import Foundation
import FuzzSupport
import PushDoubleCrypto
import PushDoubleHPACK
import PushDoubleJSON
import PushDoubleTransport

let root = URL(fileURLWithPath: CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : FileManager.default.currentDirectoryPath)
let corpus = root.appendingPathComponent("Tests/Fuzz/corpus")

/// Seeds of one target, written when the program ends.
final class SeedSet {
    let target: String
    private(set) var seeds: [(String, [UInt8])] = []
    init(_ target: String) { self.target = target }
    func add(_ name: String, _ bytes: [UInt8]) { seeds.append((name, bytes)) }
    func add(_ name: String, _ text: String) { add(name, Array(text.utf8)) }

    func write() throws {
        let dir = corpus.appendingPathComponent(target)
        try? FileManager.default.removeItem(at: dir)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        var names = Set<String>()
        for (name, bytes) in seeds {
            precondition(names.insert(name).inserted, "\(target): seed name \(name) used twice")
            try Data(bytes).write(to: dir.appendingPathComponent(name))
        }
        print("\(target): \(seeds.count) seeds, \(seeds.reduce(0) { $0 + $1.1.count }) bytes")
    }
}

// MARK: - string literals of test files

/// The string literals (`"…"` and `#"…"#`, one line each, no interpolation) of a source
/// file, unescaped.
func stringLiterals(_ relativePath: String) throws -> [String] {
    let text = try String(contentsOf: root.appendingPathComponent(relativePath), encoding: .utf8)
    var out: [String] = []
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
        var chars = Array(line)[...]
        while let quote = chars.firstIndex(of: "\"") {
            let raw = quote > chars.startIndex && chars[quote - 1] == "#"
            chars = chars[(quote + 1)...]
            if !raw, chars.starts(with: "\"\"") { break }  // multi-line literal: skipped
            var value = "", closed = false, interpolated = false
            while let c = chars.popFirst() {
                if raw {
                    if c == "\"", chars.first == "#" { chars.removeFirst(); closed = true; break }
                    value.append(c)
                } else if c == "\"" {
                    closed = true; break
                } else if c == "\\", let e = chars.popFirst() {
                    switch e {
                    case "r": value.append("\r")
                    case "n": value.append("\n")
                    case "t": value.append("\t")
                    case "0": value.append("\0")
                    case "(": interpolated = true
                    case "u":
                        guard chars.first == "{", let end = chars.firstIndex(of: "}"),
                              let v = UInt32(String(chars[(chars.startIndex + 1)..<end]), radix: 16),
                              let scalar = Unicode.Scalar(v) else { interpolated = true; break }
                        value.unicodeScalars.append(scalar)
                        chars = chars[(end + 1)...]
                    default: value.append(e)
                    }
                } else {
                    value.append(c)
                }
            }
            if closed && !interpolated { out.append(value) }
            if !closed { break }
        }
    }
    return out
}

// MARK: - HPACK

let hpack = SeedSet("FuzzHPACK")
do {
    // Option byte: low 3 bits pick the table size (3: 4096, 2: 256, see FuzzHPACK).
    func blocks(_ lists: [[(String, String)]], tableSize: Int, huffman: Bool, policy: HPACKEncoder.IndexingPolicy) -> [[UInt8]] {
        var encoder = HPACKEncoder(maxTableSize: tableSize, useHuffman: huffman)
        encoder.indexingPolicy = policy
        return lists.map { list in var out: [UInt8] = []; encoder.encode(list, into: &out); return out }
    }
    // RFC 7541 C.3–C.6 header lists (as in Tests/PushDoubleHPACKTests/HPACKCodingTests.swift).
    let request1: [(String, String)] = [(":method", "GET"), (":scheme", "http"), (":path", "/"), (":authority", "www.example.com")]
    let request2 = request1 + [("cache-control", "no-cache")]
    let request3: [(String, String)] = [(":method", "GET"), (":scheme", "https"), (":path", "/index.html"),
                                        (":authority", "www.example.com"), ("custom-key", "custom-value")]
    let location = "https://www.example.com", cookie = "foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1"
    let response1: [(String, String)] = [(":status", "302"), ("cache-control", "private"),
                                         ("date", "Mon, 21 Oct 2013 20:13:21 GMT"), ("location", location)]
    let response2 = [(":status", "307")] + response1.dropFirst()
    let response3: [(String, String)] = [(":status", "200"), ("cache-control", "private"), ("date", "Mon, 21 Oct 2013 20:13:22 GMT"),
                                         ("location", location), ("content-encoding", "gzip"), ("set-cookie", cookie)]
    hpack.add("rfc7541-c3", [3] + FuzzInput.encodeChunks(blocks([request1, request2, request3], tableSize: 4096, huffman: false, policy: .always)))
    hpack.add("rfc7541-c4", [3] + FuzzInput.encodeChunks(blocks([request1, request2, request3], tableSize: 4096, huffman: true, policy: .always)))
    hpack.add("rfc7541-c5", [2] + FuzzInput.encodeChunks(blocks([response1, response2, response3], tableSize: 256, huffman: false, policy: .always)))
    hpack.add("rfc7541-c6", [2] + FuzzInput.encodeChunks(blocks([response1, response2, response3], tableSize: 256, huffman: true, policy: .always)))
    var neverIndexed: [UInt8] = []
    var plain = HPACKEncoder(useHuffman: false)
    plain.encode([HeaderField(name: "password", value: "secret", neverIndex: true)], into: &neverIndexed)
    hpack.add("rfc7541-c2", [3] + FuzzInput.encodeChunks(
        blocks([[("custom-key", "custom-header")]], tableSize: 4096, huffman: false, policy: .always)
        + blocks([[(":path", "/sample/path")]], tableSize: 4096, huffman: false, policy: .never) + [neverIndexed, [0x82]]))
    // An APNs request twice (the second reuses the dynamic table) and two responses.
    func apnsRequest(_ token: String, _ id: String) -> [(String, String)] {
        [(":method", "POST"), (":scheme", "https"), (":path", "/3/device/" + token), (":authority", "api.sandbox.push.apple.com"),
         ("authorization", "bearer eyJhbGciOiJFUzI1NiIsImtpZCI6IlBEVEVTVEtFWTEifQ.eyJpc3MiOiJQRFRFU1RURUFNIn0.c2ln"),
         ("apns-topic", "com.example.pushdouble"), ("apns-push-type", "alert"), ("apns-priority", "10"),
         ("apns-expiration", "0"), ("apns-id", id), ("content-type", "application/json"), ("content-length", "42")]
    }
    let token = String(repeating: "ab", count: 32)
    hpack.add("apns-requests", [3] + FuzzInput.encodeChunks(blocks(
        [apnsRequest(token, "123e4567-e89b-12d3-a456-426614174000"), apnsRequest(String(token.reversed()), "123e4567-e89b-12d3-a456-426614174001"),
         [(":status", "200"), ("apns-id", "123e4567-e89b-12d3-a456-426614174000")],
         [(":status", "400"), ("apns-id", "123e4567-e89b-12d3-a456-426614174001"), ("content-type", "application/json")]],
        tableSize: 4096, huffman: true, policy: .automatic)))
    // Dynamic table size updates at the start of a block (shrunk to 0, then grown).
    var sizes = HPACKEncoder(maxTableSize: 4096)
    var first: [UInt8] = [], second: [UInt8] = []
    sizes.encode(request1, into: &first)
    sizes.setMaxTableSize(0)
    sizes.setMaxTableSize(256)
    sizes.encode(request2, into: &second)
    hpack.add("size-updates", [3] + FuzzInput.encodeChunks([first, second]))
    // Header list limit option (bit 3) with a list over 256 octets.
    hpack.add("list-limit", [3 | 8] + FuzzInput.encodeChunks(blocks([response3, request3], tableSize: 4096, huffman: true, policy: .always)))
}

// MARK: - HTTP/2 frames

let h2 = SeedSet("FuzzHTTP2Frame")
do {
    // Option byte: bit 0 = client preface expected; (option >> 1) % 3 picks the max frame
    // size (0: 16384, 1: 64). Then the read-size byte, then the stream.
    let encoder = HTTP2FrameEncoder()
    var block: [UInt8] = []
    var hpackEncoder = HPACKEncoder()
    hpackEncoder.encode([(":method", "POST"), (":scheme", "https"), (":path", "/3/device/abcd"),
                         (":authority", "localhost"), ("apns-topic", "com.example.pushdouble")], into: &block)
    let settings = HTTP2Frame(streamID: 0, payload: .settings([
        HTTP2Setting(.headerTableSize, 4096), HTTP2Setting(.enablePush, 0), HTTP2Setting(.maxConcurrentStreams, 100),
        HTTP2Setting(.initialWindowSize, 65_535), HTTP2Setting(.maxFrameSize, 16_384), HTTP2Setting(.maxHeaderListSize, 8192)]))
    let body = Array(#"{"aps":{"alert":"hello"}}"#.utf8)
    let connection: [HTTP2Frame] = [
        settings,
        HTTP2Frame(streamID: 0, flags: .ack, payload: .settings([])),
        HTTP2Frame(streamID: 0, payload: .windowUpdate(increment: 1 << 20)),
        HTTP2Frame(streamID: 1, flags: .endHeaders, payload: .headers(HTTP2HeadersPayload(fragment: block))),
        HTTP2Frame(streamID: 1, flags: .endStream, payload: .data(body, padding: nil)),
        HTTP2Frame(streamID: 0, payload: .ping(0x0102_0304_0506_0708)),
        HTTP2Frame(streamID: 3, payload: .priority(HTTP2PriorityData(exclusive: true, dependency: 1, weight: 200))),
        HTTP2Frame(streamID: 3, payload: .rstStream(.cancel)),
        HTTP2Frame(streamID: 0, payload: .goAway(lastStreamID: 1, errorCode: .noError, debugData: Array("bye".utf8))),
    ]
    let stream = connection.flatMap { encoder.encode($0) }
    h2.add("connection", [1, 0] + http2ClientPreface + stream)
    h2.add("connection-reads-of-7", [1, 7] + http2ClientPreface + stream)
    let padded: [HTTP2Frame] = [
        HTTP2Frame(streamID: 5, payload: .headers(HTTP2HeadersPayload(
            fragment: block, priority: HTTP2PriorityData(exclusive: false, dependency: 3, weight: 15), padding: 4))),
        HTTP2Frame(streamID: 5, flags: .endHeaders, payload: .continuation(block)),
        HTTP2Frame(streamID: 5, flags: .endStream, payload: .data(body, padding: 10)),
        HTTP2Frame(streamID: 5, flags: .endHeaders, payload: .pushPromise(promisedStreamID: 2, fragment: block, padding: 2)),
        HTTP2Frame(streamID: 7, flags: [HTTP2FrameFlags(rawValue: 0xff)], payload: .unknown(type: 0x0b, bytes: [1, 2, 3])),
        HTTP2Frame(streamID: 7, payload: .windowUpdate(increment: 1)),
    ]
    h2.add("padding-priority-continuation", [0, 0] + padded.flatMap { encoder.encode($0) })
    h2.add("padding-reads-of-1", [0, 1] + padded.flatMap { encoder.encode($0) })
    h2.add("small-max-frame-size", [2, 0] + stream)
}

// MARK: - HTTP/1.1

let h1 = SeedSet("FuzzHTTP1")
do {
    // Option byte 0 (8 KiB head, 1 MiB body); read-size byte 0 (one read) or 5.
    var n = 0
    for file in ["HTTP1ParserTests", "HTTP1ServerTests", "HTTP1EngineTests"] {
        for literal in try stringLiterals("Tests/PushDoubleTransportTests/\(file).swift") where literal.contains(" HTTP/1.") {
            n += 1
            h1.add("test-\(n)", [0, 0] + Array(literal.utf8))
        }
    }
    h1.add("pipelined-reads-of-5", [0, 5] + Array(("POST /3/device/abcd HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2\r\n\r\n{}"
        + "PUT /c HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\n3;x=y\r\nabc\r\n0\r\nT: 1\r\n\r\n"
        + "GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n").utf8))
    h1.add("small-limits", [3, 0] + Array("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 17\r\n\r\n0123456789abcdefg".utf8))
}

// MARK: - JSON and scenarios

let json = SeedSet("FuzzJSON")
let scenario = SeedSet("FuzzScenario")
do {
    var n = 0
    for file in ["JSONParserTests", "JSONWriterTests", "JSONFuzzTests"] {
        for literal in try stringLiterals("Tests/PushDoubleJSONTests/\(file).swift") where literal.utf8.count <= 512 {
            // Anything shaped like JSON text, accepted or not.
            guard let c = literal.first, "{[\"-0123456789tfn ".contains(c) else { continue }
            n += 1
            json.add("test-\(n)", [0] + Array(literal.utf8))
        }
    }
    json.add("deep", [0] + Array((String(repeating: "[", count: 70) + String(repeating: "]", count: 70)).utf8))
    let dir = root.appendingPathComponent("Scenarios")
    for name in try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() where name.hasSuffix(".json") {
        let bytes = Array(try Data(contentsOf: dir.appendingPathComponent(name)))
        if name == "scenario.schema.json" { json.add(name, [0] + bytes); continue }
        scenario.add(name, bytes)
    }
    for literal in try stringLiterals("Tests/PushDoubleCoreTests/ScenarioLoaderTests.swift") where literal.hasPrefix("{") {
        n += 1
        scenario.add("test-\(n)", literal)
    }
}

// MARK: - JWT

let jwt = SeedSet("FuzzJWT")
do {
    let p256 = try P256PrivateKey(pem: EmbeddedTestCredentials.contents(of: "AuthKey_PDTESTKEY1.p8"))
    let account = try JSONValue.parse(EmbeddedTestCredentials.contents(of: "firebase-test-service-account.json"))
    let rsa = try RSAPrivateKey(pem: account["private_key"]?.stringValue ?? "")
    jwt.add("apns-provider-token", try JWT.signES256(keyID: "PDTESTKEY1",
                                                   claims: ["iss": .string("PDTESTTEAM"), "iat": 1_700_000_000], key: p256))
    jwt.add("typ-aud-array", try JWT.signES256(keyID: "K", type: "JWT", claims: [
        "iss": "a", "sub": "b", "aud": ["x", "y"], "exp": 1_700_003_600, "iat": 1.5, "scope": "s t", "nested": ["k": [true, nil]]], key: p256))
    jwt.add("google-assertion", try JWT.signRS256(keyID: "c60a98e5", claims: [
        "iss": .string(account["client_email"]?.stringValue ?? ""), "scope": "https://www.googleapis.com/auth/firebase.messaging",
        "aud": "https://oauth2.googleapis.com/token", "iat": 1_700_000_000, "exp": 1_700_003_600], key: rsa))
    var n = 0
    for literal in try stringLiterals("Tests/PushDoubleCryptoTests/JWTTests.swift")
    where literal.split(separator: ".", omittingEmptySubsequences: false).count == 3 && literal.hasPrefix("ey") {
        n += 1
        jwt.add("test-\(n)", literal)
    }
}

// MARK: - Web Push

let webPush = SeedSet("FuzzWebPush")
do {
    func b64(_ s: String) throws -> [UInt8] { try Base64URL.decode(s) }
    // Mode byte first (see FuzzWebPush).
    webPush.add("0-rfc8291-appendix-a", [0] + (try b64(FuzzVectors.RFC8291.body)))
    webPush.add("1-rfc8188-3.2", [1] + (try b64(FuzzVectors.RFC8188.body2)))
    webPush.add("1-rfc8188-3.1", [1] + (try b64(FuzzVectors.RFC8188.body1)))
    webPush.add("2-ecec-rs24", [2, 0] + FuzzInput.encodeChunks([Array(FuzzVectors.ECEC.encryption.utf8), Array(FuzzVectors.ECEC.cryptoKey.utf8),
                                                               FuzzVectors.hex(FuzzVectors.ECEC.bodyHex)]))
    webPush.add("2-ecec-rs8", [2, 1] + FuzzInput.encodeChunks([Array(FuzzVectors.ECEC.manyRecordsEncryption.utf8),
                                                              Array(FuzzVectors.ECEC.manyRecordsCryptoKey.utf8),
                                                              FuzzVectors.hex(FuzzVectors.ECEC.manyRecordsBodyHex)]))
    // RFC 8188 §3.2's framing (rs 25: 7 bytes + delimiter + 1 padding, then 8 bytes + delimiter).
    webPush.add("3-two-records", [3, 0, 7] + FuzzInput.encodeChunks([Array("I am th".utf8) + [1, 0], Array("e walrus".utf8) + [2]]))
    webPush.add("3-one-record-padded", [3, 0, 100] + FuzzInput.encodeChunks([Array("hello".utf8) + [2, 0, 0, 0]]))
    webPush.add("4-legacy-records", [4, 0, 5] + FuzzInput.encodeChunks([[0, 1, 0] + Array("Yet a".utf8), [0, 0] + Array("nother".utf8)]))
    webPush.add("5-round-trip", [5] + FuzzInput.encodeChunks([Array(#"{"title":"hello"}"#.utf8)]) + [0, 40, 3])
}

for set in [hpack, h2, h1, json, scenario, jwt, webPush] { try set.write() }
