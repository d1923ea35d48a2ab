import XCTest
import PushDoubleTestSupport
@testable import PushDoubleInflate

/// Python-made vectors (every level 0–9, strategies, window sizes, gzip header flags,
/// multiple members) decode to their input one-shot and streamed in odd chunk sizes.
final class InflateVectorTests: XCTestCase {
    func testEveryVectorOneShot() throws {
        let vectors = try Fixtures.vectors()
        XCTAssertGreaterThan(vectors.count, 200)
        for v in vectors {
            XCTAssertEqual(decode(v.compressed, v.format), .ok(v.original), v.name)
        }
    }

    func testEveryVectorStreamedInOddChunks() throws {
        for v in try Fixtures.vectors() {
            for sizes in [[1], [3, 7, 1], [8], [4096]] {
                let got = outcome { () throws(InflateError) in try streamDecode(v.compressed, format: v.format, chunkSizes: sizes) }
                XCTAssertEqual(got, .ok(v.original), "\(v.name) chunks \(sizes)")
            }
        }
    }
}

/// The streaming API's bookkeeping: returned arrays, progress counters, completion.
final class InflateStreamAPITests: XCTestCase {
    func testFeedReturningArraysAndCounters() throws {
        let v = try XCTUnwrap(Fixtures.vectors().first { $0.name == "text-3members" })
        let s = InflateStream(format: .gzip, limits: InflateLimits(maxOutputBytes: v.original.count))
        var out: [UInt8] = []
        var i = 0
        while i < v.compressed.count {
            XCTAssertFalse(s.isComplete)
            out += try s.feed(Array(v.compressed[i..<min(i + 333, v.compressed.count)]))
            i += 333
        }
        XCTAssertTrue(s.isComplete)
        try s.finish()
        XCTAssertEqual(out, v.original)
        XCTAssertEqual(s.membersCompleted, 3)
        XCTAssertEqual(s.totalIn, v.compressed.count)
        XCTAssertEqual(s.totalOut, v.original.count)
    }

    func testEmptyChunksAndFinishTwice() throws {
        let v = try XCTUnwrap(Fixtures.vectors().first { $0.name == "json-zlib-9" })
        let s = InflateStream(format: .zlib, limits: InflateLimits(maxOutputBytes: 1 << 20))
        XCTAssertEqual(try s.feed([]), [])
        let out = try s.feed(v.compressed)
        XCTAssertEqual(try s.feed([]), [])
        try s.finish()
        try s.finish()
        XCTAssertEqual(out, v.original)
    }
}
