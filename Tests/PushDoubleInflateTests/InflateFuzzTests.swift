import XCTest
import PushDoubleTestSupport
@testable import PushDoubleInflate

/// Seeded random and mutated inputs: the decoder must never crash, hang or produce more
/// than the limit; `throws(InflateError)` makes "only typed errors" a compile-time fact, the
/// loop checks the rest.
final class InflateFuzzTests: XCTestCase {
    func testRandomBytesNeverCrash() {
        var rng = SeededRandomNumberGenerator(seed: 0x1951_1952)
        var outcomes: [String: Int] = [:]
        let formats: [InflateFormat] = [.raw, .zlib, .gzip, .zlibOrRaw]
        for i in 0..<20_000 {
            let len = Int.random(in: 0...200, using: &rng)
            var bytes = (0..<len).map { _ in UInt8.random(in: 0...255, using: &rng) }
            let format = formats[i % 4]
            // Give the wrappers a valid start now and then so the DEFLATE decoder is reached.
            if format == .gzip && i % 8 < 4 { bytes = [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 3] + bytes }
            if format == .zlib && i % 8 < 4 { bytes = [0x78, 0x9C] + bytes }
            record(bytes, format, limit: 4096, &outcomes, &rng)
        }
        XCTAssertGreaterThan(outcomes.count, 10, "fuzz should reach many error kinds: \(outcomes)")
    }

    func testMutatedVectorsNeverCrash() throws {
        var rng = SeededRandomNumberGenerator(seed: 0xDEF1_A7E)
        var outcomes: [String: Int] = [:]
        let vectors = try Fixtures.vectors().filter { $0.compressed.count < 3000 }
        for i in 0..<6_000 {
            let v = vectors[i % vectors.count]
            var bytes = v.compressed
            switch Int.random(in: 0..<4, using: &rng) {
            case 0:  // flip bits
                for _ in 0..<Int.random(in: 1...4, using: &rng) where !bytes.isEmpty {
                    bytes[Int.random(in: 0..<bytes.count, using: &rng)] ^= 1 << UInt8.random(in: 0...7, using: &rng)
                }
            case 1:  // truncate
                bytes = Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &rng)))
            case 2:  // overwrite a byte
                if !bytes.isEmpty { bytes[Int.random(in: 0..<bytes.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng) }
            default:  // splice random bytes in
                let at = Int.random(in: 0...bytes.count, using: &rng)
                bytes.insert(contentsOf: (0..<Int.random(in: 1...8, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }, at: at)
            }
            record(bytes, v.format, limit: max(1, v.original.count), &outcomes, &rng)
        }
        XCTAssertGreaterThan(outcomes.count, 12, "\(outcomes)")
        XCTAssertGreaterThan(outcomes["ok", default: 0], 0)
    }

    func record(_ bytes: [UInt8], _ format: InflateFormat, limit: Int, _ outcomes: inout [String: Int],
                _ rng: inout SeededRandomNumberGenerator) {
        // Streamed in random pieces, with the output counted against the limit.
        let s = InflateStream(format: format, limits: InflateLimits(maxOutputBytes: limit))
        var produced = 0
        var i = 0
        do {
            while i < bytes.count {
                let n = Int.random(in: 1...64, using: &rng)
                try s.feed(Array(bytes[i..<min(bytes.count, i + n)])) { produced += $0.count }
                i += n
            }
            try s.finish()
            outcomes["ok", default: 0] += 1
        } catch {
            let name = "\(error)"
            outcomes[String(name.prefix(while: { $0 != "(" })), default: 0] += 1
        }
        XCTAssertLessThanOrEqual(produced, limit)
        XCTAssertEqual(produced, s.totalOut)
        // One-shot agrees with streaming.
        let one = decode(bytes, format, limit: limit)
        if case .ok(let out) = one { XCTAssertEqual(out.count, produced) }
    }
}
