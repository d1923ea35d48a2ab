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
