import XCTest
@testable import PushDoubleTransport

/// Inputs found by `FuzzHTTP1` (docs/fuzzing.md), each with the behaviour it broke.
final class HTTP1FuzzRegressionTests: XCTestCase {
    /// Feeds `input` in reads of `step` bytes, keeping unconsumed bytes as the connection
    /// does, and returns the first error (nil if none).
    private func firstError(_ input: [UInt8], step: Int, maxHead: Int) -> HTTP1ParseError? {
        var parser = HTTP1RequestParser(maxHeadSize: maxHead, maxBodySize: 1 << 20)
        var pending: [UInt8] = []
        var i = 0
        while i < input.count {
            let e = min(input.count, i + step)
            pending += input[i..<e]
            i = e
            var offset = 0
            let failure: HTTP1ParseError? = pending.withUnsafeBytes { buf in
                while offset < buf.count || parser.pendingEnd {
                    if parser.takeEnd() { continue }
                    do throws(HTTP1ParseError) {
                        let r = try parser.parse(UnsafeRawBufferPointer(rebasing: buf[offset...]))
                        if r.consumed == 0 && r.event == nil { break }
                        offset += r.consumed
                    } catch {
                        return error
                    }
                }
                return nil
            }
            if let failure { return failure }
            pending.removeFirst(offset)
        }
        return nil
    }

    /// A trailer section over the head limit was refused only when it arrived in pieces;
    /// in one read it was parsed (found as "reads of 255 bytes changed the result").
    func testTrailerSectionOverTheLimitIsRefusedWhateverTheReads() {
        let request = Array(("POST /t HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhallo\r\n0\r\n"
                             + "X-Trailer: " + String(repeating: "y", count: 100) + "\r\n\r\n").utf8)
        for step in [request.count, 255, 7, 1] {
            let error = firstError(request, step: step, maxHead: 64)
            XCTAssertEqual(error?.kind, .headerListTooLarge, "reads of \(step) bytes")
            XCTAssertEqual(error?.message, "The trailer section is larger than the limit of 64 bytes.", "reads of \(step) bytes")
        }
        // The same trailers fit a larger limit.
        XCTAssertNil(firstError(request, step: request.count, maxHead: 1024))
    }

    /// The fuzzer's input itself: a malformed trailer section over the limit gets the
    /// limit error, not "no valid field name", in one read as in 255-byte reads.
    func testMalformedOversizedTrailersGetTheLimitError() {
        let request = Array("POST /t HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhallo\r\n6\r\n world\r\n0\r\n\r".utf8)
            + Array(("X" + String(repeating: "%", count: 20) + "-Trailer: ").utf8) + [UInt8](repeating: 0xFF, count: 120)
            + Array("yes\r\n\r\n".utf8)
        for step in [request.count, 255] {
            XCTAssertEqual(firstError(request, step: step, maxHead: 64)?.kind, .headerListTooLarge, "reads of \(step) bytes")
        }
    }
}
