import Foundation
import XCTest
import PushDoubleTestSupport
@testable import PushDoubleTransport

final class HTTP1ParserTests: XCTestCase {
    enum Outcome: Equatable { case requests([String]), error(LimitViolation.Kind), incomplete }

    /// Feeds `input` in pieces of `step` bytes (re-feeding unconsumed bytes like the connection
    /// does) and reports "METHOD target bodylen" per request.
    func parse(_ input: [UInt8], step: Int = Int.max, maxHead: Int = 1024, maxBody: Int = 4096) -> Outcome {
        var p = HTTP1RequestParser(maxHeadSize: maxHead, maxBodySize: maxBody)
        var pending: [UInt8] = []
        var out: [String] = []
        var current: (HTTP1RequestHead, Int)?
        var i = 0
        while i < input.count {
            let e = min(input.count, i + max(1, step))
            pending.append(contentsOf: input[i..<e])
            i = e
            var offset = 0
            var failure: HTTP1ParseError?
            pending.withUnsafeBytes { buf in
                while offset < buf.count || p.pendingEnd {
                    var r: (consumed: Int, event: HTTP1RequestParser.Event?) = (0, nil)
                    if p.takeEnd() {
                        r = (0, .end(trailers: HTTPHeaders()))
                    } else {
                        do { r = try p.parse(UnsafeRawBufferPointer(rebasing: buf[offset...])) } catch let e { failure = e as? HTTP1ParseError ?? .malformed("?"); return }
                    }
                    if r.consumed == 0 && r.event == nil { break }
                    offset += r.consumed
                    switch r.event {
                    case .head(let h)?:
                        current = (h, 0)
                        if !h.hasBody { out.append("\(h.method) \(h.target) 0"); current = nil }
                    case .body(let b)?: current?.1 += b.count
                    case .end?:
                        if let c = current { out.append("\(c.0.method) \(c.0.target) \(c.1)") }
                        current = nil
                    case nil: break
                    }
                }
            }
            if let failure { return .error(failure.kind) }
            XCTAssertLessThanOrEqual(offset, pending.count)
            pending.removeFirst(offset)
        }
        return pending.isEmpty && current == nil ? .requests(out) : (out.isEmpty ? .incomplete : .requests(out))
    }

    func b(_ s: String) -> [UInt8] { Array(s.utf8) }

    func testValidRequestsAtEverySplitPoint() {
        let input = b("\r\nGET /a HTTP/1.1\r\nHost: x\r\n\r\nPOST /b HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhelloPUT /c HTTP/1.1\r\nhost: x\r\ntransfer-encoding: gzip, chunked\r\n\r\n3\r\nabc\r\n0\r\nT: 1\r\n\r\n")
        for step in [1, 2, 3, 7, 13, 64, Int.max] {
            XCTAssertEqual(parse(input, step: step), .requests(["GET /a 0", "POST /b 5", "PUT /c 3"]), "step \(step)")
        }
    }

    func testHeadFieldsAndFraming() throws {
        let raw = b("GET /x HTTP/1.0\r\nConnection: keep-alive\r\nX-A:  spaced value \t\r\nX-A: second\r\nExpect: 100-Continue\r\n\r\n")
        let head = try raw.withUnsafeBytes { try HTTP1RequestParser.parseHead($0, maxBodySize: 10) }
        XCTAssertEqual(head.minorVersion, 0)
        XCTAssertTrue(head.keepAlive)
        XCTAssertTrue(head.expectContinue)
        XCTAssertEqual(head.headers.values(name: "x-a"), ["spaced value", "second"])
        let close = b("GET / HTTP/1.1\r\nHost: h\r\nConnection: foo, Close\r\n\r\n")
        XCTAssertFalse(try close.withUnsafeBytes { try HTTP1RequestParser.parseHead($0, maxBodySize: 10) }.keepAlive)
    }

    func testRejections() {
        let cases: [(String, LimitViolation.Kind)] = [
            ("GET / HTTP/1.1\r\n\r\n", .malformedRequest), // no Host
            ("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", .malformedRequest),
            ("GET / HTTP/2.0\r\nHost: a\r\n\r\n", .malformedRequest),
            ("GET  / HTTP/1.1\r\nHost: a\r\n\r\n", .malformedRequest),
            ("G(T / HTTP/1.1\r\nHost: a\r\n\r\n", .malformedRequest),
            ("GET / HTTP/1.1\r\nHost : a\r\n\r\n", .malformedRequest),
            ("GET / HTTP/1.1\r\nHost: a\r\n folded\r\n\r\n", .malformedRequest),
            ("GET / HTTP/1.1\r\nHost: a\u{1}\r\n\r\n", .malformedRequest),
            ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", .malformedRequest),
            ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n", .malformedRequest),
            ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n", .malformedRequest),
            ("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\n\r\n", .malformedRequest),
            ("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", .malformedRequest),
            ("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabX\r\n", .malformedRequest),
            ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 99999\r\n\r\n", .bodyTooLarge),
            ("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFFFFFF\r\n", .bodyTooLarge),
            ("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n2000\r\n", .bodyTooLarge),
            ("GET / HTTP/1.1\r\nHost: a\r\nX: " + String(repeating: "v", count: 2000) + "\r\n\r\n", .headerListTooLarge),
        ]
        for (input, kind) in cases {
            XCTAssertEqual(parse(b(input)), .error(kind), input.debugDescription)
            XCTAssertEqual(parse(b(input), step: 1), .error(kind), "byte by byte: " + input.debugDescription)
        }
        // A head that never ends is refused once it passes the limit, not buffered forever.
        XCTAssertEqual(parse(b("GET / HTTP/1.1\r\nX: " + String(repeating: "a", count: 5000)), step: 100), .error(.headerListTooLarge))
    }

    /// Seeded random inputs: no crash, no hang, every outcome a request list or a typed error.
    func testFuzzRandomBytes() {
        var rng = SeededRandomNumberGenerator(seed: 0x5EED_F00D)
        let fragments: [[UInt8]] = [b("GET "), b("POST "), b(" HTTP/1.1\r\n"), b("Host: h\r\n"), b("\r\n"), b("Content-Length: "),
                                    b("Transfer-Encoding: chunked\r\n"), b("0\r\n"), b("5\r\nhello\r\n"), b(":"), b("/p"), b("\r"), b("\n"),
                                    b("ffffffffffffffff"), b(";ext"), b("HTTP/1.0"), b("\u{0}"), b(" \t")]
        let seeds: [[UInt8]] = [
            b("GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n"),
            b("POST /b HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"),
            b("PUT /c HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\nT: 1\r\n\r\n"),
        ]
        var outcomes = [String: Int]()
        var splitMismatches = 0
        for n in 0..<20_000 {
            var input: [UInt8] = []
            if n % 2 == 0 {
                // Mutate a valid request: flip, insert or delete a few bytes.
                input = seeds[Int(rng.next() % UInt64(seeds.count))]
                for _ in 0..<Int(rng.next() % 4) {
                    let at = Int(rng.next() % UInt64(input.count))
                    switch rng.next() % 3 {
                    case 0: input[at] = UInt8(truncatingIfNeeded: rng.next())
                    case 1: input.insert(contentsOf: fragments[Int(rng.next() % UInt64(fragments.count))], at: at)
                    default: input.remove(at: at)
                    }
                }
            } else {
                for _ in 0..<Int(rng.next() % 24) {
                    if rng.next() % 3 == 0 {
                        for _ in 0..<Int(rng.next() % 8) { input.append(UInt8(truncatingIfNeeded: rng.next())) }
                    } else {
                        input.append(contentsOf: fragments[Int(rng.next() % UInt64(fragments.count))])
                    }
                }
            }
            let step = n % 3 == 0 ? 1 : Int(rng.next() % 40) + 1
            let o = parse(input, step: step, maxHead: 256, maxBody: 64)
            if o != parse(input, step: Int.max, maxHead: 256, maxBody: 64) { splitMismatches += 1 }
            switch o {
            case .requests(let r): outcomes["requests(\(min(r.count, 2)))", default: 0] += 1
            case .error(let k): outcomes["error(\(k.rawValue))", default: 0] += 1
            case .incomplete: outcomes["incomplete", default: 0] += 1
            }
        }
        XCTAssertGreaterThan(outcomes["error(malformedRequest)"] ?? 0, 1000, "\(outcomes)")
        XCTAssertGreaterThan(outcomes["requests(2)"] ?? 0, 100, "\(outcomes)")
        XCTAssertEqual(splitMismatches, 0, "the outcome must not depend on how input is split")
    }

    func testSerializerHeadAndChunks() {
        var out: [UInt8] = []
        HTTP1Serializer.writeHead(status: 200, headers: ["apns-id": "abc"], contentLength: 12, chunked: false, close: true,
                                  keepAliveHeader: false, date: b("Mon, 30 Nov 2026 07:00:00 GMT"), into: &out)
        XCTAssertEqual(String(decoding: out, as: UTF8.self),
                       "HTTP/1.1 200 OK\r\napns-id: abc\r\ncontent-length: 12\r\ndate: Mon, 30 Nov 2026 07:00:00 GMT\r\nconnection: close\r\n\r\n")
        out = []
        HTTP1Serializer.writeChunk(Array(repeating: 65, count: 300)[...], into: &out)
        XCTAssertEqual(Array(out.prefix(5)), b("12c\r\n"))
        XCTAssertEqual(HTTPDateCache.format(0), b("Thu, 01 Jan 1970 00:00:00 GMT"))
        XCTAssertEqual(String(decoding: HTTP1Serializer.statusLine(599), as: UTF8.self), "HTTP/1.1 599 Status\r\n")
    }
}
