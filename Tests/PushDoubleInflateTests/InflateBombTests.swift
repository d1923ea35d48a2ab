import XCTest
import Foundation
import PushDoubleTestSupport
@testable import PushDoubleInflate

/// Decompression bombs are refused at the limit, with the decoder's memory fixed.
final class InflateBombTests: XCTestCase {
    static let tenMiB = 10 * 1024 * 1024

    func testTenMiBOfZerosFromPythonGzip() throws {
        let bomb = try Fixtures.bytes("zeros-10MiB.gz")
        XCTAssertLessThan(bomb.count, 11_000)
        // At exactly its size it decodes…
        let all = try Gzip.decompress(bomb, maxOutputBytes: Self.tenMiB)
        XCTAssertEqual(all.count, Self.tenMiB)
        XCTAssertTrue(all.allSatisfy { $0 == 0 })
        XCTAssertLessThanOrEqual(all.capacity, Self.tenMiB + 4096, "result storage stays within the limit")
        // …one byte less is refused.
        XCTAssertEqual(decode(bomb, .gzip, limit: Self.tenMiB - 1), .failed(.outputLimitExceeded(limit: Self.tenMiB - 1)))
        XCTAssertEqual(decode(bomb, .gzip, limit: 1 << 20), .failed(.outputLimitExceeded(limit: 1 << 20)))
    }

    func testStreamingRefusalNeverPassesTheLimit() throws {
        let bomb = try Fixtures.bytes("zeros-10MiB.gz")
        for limit in [0, 1, 1000, 65_536, 1_000_003] {
            let s = InflateStream(format: .gzip, limits: InflateLimits(maxOutputBytes: limit))
            var seen = 0, biggest = 0
            let o = outcome { () throws(InflateError) in
                for i in stride(from: 0, to: bomb.count, by: 100) {
                    try s.feed(Array(bomb[i..<min(i + 100, bomb.count)])) { seen += $0.count; biggest = max(biggest, $0.count) }
                }
                return []
            }
            XCTAssertEqual(o, .failed(.outputLimitExceeded(limit: limit)))
            XCTAssertLessThanOrEqual(seen, limit)
            XCTAssertEqual(s.totalOut, seen)
            XCTAssertLessThanOrEqual(biggest, InflateStream.bufferSize)
        }
    }

    func testExpansionRatio() throws {
        let bomb = try Fixtures.bytes("zeros-10MiB.gz")
        let limits = InflateLimits(maxOutputBytes: 1 << 30, maxExpansionRatio: 100)
        let o = outcome { () throws(InflateError) in try Inflate.decompress(bomb, format: .gzip, limits: limits) }
        guard case .failed(.expansionRatioExceeded(ratio: 100, inputBytes: bomb.count, outputBytes: let out)) = o else {
            return XCTFail("\(o)")
        }
        XCTAssertLessThanOrEqual(out, 100 * bomb.count)
        // Ordinary text (ratio ~4) passes a ratio of 20; small bodies pass thanks to the allowance.
        for v in try Fixtures.vectors() where v.name.hasPrefix("text-zlib") || v.name.hasPrefix("runs-zlib") {
            let ok = outcome { () throws(InflateError) in
                try Inflate.decompress(v.compressed, format: .zlib, limits: InflateLimits(maxOutputBytes: 1 << 20, maxExpansionRatio: 20))
            }
            XCTAssertEqual(ok, .ok(v.original), v.name)
        }
        // Without the allowance the 5 KB of runs (ratio > 10) are refused at ratio 10.
        let runs = try XCTUnwrap(Fixtures.vectors().first { $0.name == "runs-zlib-9" })
        XCTAssertGreaterThan(runs.original.count, 10 * runs.compressed.count)
        let strict = InflateLimits(maxOutputBytes: 1 << 20, maxExpansionRatio: 10, ratioAllowanceBytes: 0)
        guard case .failed(.expansionRatioExceeded)? = Optional(outcome { () throws(InflateError) in
            try Inflate.decompress(runs.compressed, format: .zlib, limits: strict)
        }) else { return XCTFail() }
    }

    /// 1 GiB of zeros as one fixed-Huffman block: a literal 0, then length-258 distance-1
    /// matches (13 bits each; 8 of them are 13 bytes, so the middle of the stream is one
    /// 13-byte unit repeated), a length-3 match and end of block. ~6.8 MB, made on the fly.
    struct GigabyteOfZeros {
        let prefix: [UInt8], unit: [UInt8], suffix: [UInt8], units: Int
        static let size = 1 << 30

        init() {
            var w = BitWriter()
            w.bits(1, 1); w.bits(1, 2)
            w.fixedSymbol(0)
            for _ in 0..<22 { w.fixedSymbol(285); w.code(0, 5) }
            w.fixedSymbol(257); w.code(0, 5)
            w.fixedSymbol(256)
            let small = w.finish()
            prefix = Array(small[..<14])
            unit = Array(small[14..<27])
            suffix = Array(small[14...])
            // 1 + 258·(22 + 8·units) + 3 = 2^30
            units = (Self.size - 4) / 258 / 8 - 2
            precondition(1 + 258 * (22 + 8 * units) + 3 == Self.size)
        }

        /// The stream in chunks of about 64 KiB.
        func forEachChunk(_ body: ([UInt8]) throws(InflateError) -> Bool) throws(InflateError) {
            guard try body(prefix) else { return }
            let perChunk = 5041
            let chunk = [[UInt8]](repeating: unit, count: perChunk).flatMap { $0 }
            var left = units
            while left >= perChunk {
                guard try body(chunk) else { return }
                left -= perChunk
            }
            guard try body([[UInt8]](repeating: unit, count: left).flatMap { $0 }) else { return }
            _ = try body(suffix)
        }
    }

    func testGigabyteOfZerosRefusedAtTheLimitWithBoundedMemory() throws {
        let stream = GigabyteOfZeros()
        let limit = 128 << 20
        let s = InflateStream(format: .raw, limits: InflateLimits(maxOutputBytes: limit))
        let rssBefore = residentBytes()
        var fed = 0, biggest = 0, nonZero = 0
        let o = outcome { () throws(InflateError) in
            try stream.forEachChunk { (chunk) throws(InflateError) in
                fed += chunk.count
                try s.feed(chunk) { piece in
                    biggest = max(biggest, piece.count)
                    if piece.contains(where: { $0 != 0 }) { nonZero += 1 }
                }
                return true
            }
            return []
        }
        XCTAssertEqual(o, .failed(.outputLimitExceeded(limit: limit)))
        XCTAssertLessThanOrEqual(s.totalOut, limit)
        XCTAssertGreaterThan(s.totalOut, limit - InflateStream.bufferSize)
        XCTAssertEqual(nonZero, 0)
        XCTAssertLessThanOrEqual(biggest, InflateStream.bufferSize)
        XCTAssertLessThan(fed, 2_000_000, "refused after ~0.85 MB of the 6.8 MB stream")
        let growth = residentBytes() - rssBefore
        XCTAssertLessThan(growth, 16 << 20, "resident memory grew by \(growth) bytes")
    }

    func testGigabyteOfZerosDecodesWhollyInBoundedMemory() throws {
        // Allowed exactly 1 GiB, the whole stream decodes through a counting sink: the decoder's
        // memory does not grow with the output.
        let stream = GigabyteOfZeros()
        let s = InflateStream(format: .raw, limits: InflateLimits(maxOutputBytes: GigabyteOfZeros.size))
        let rssBefore = residentBytes()
        var count = 0
        let o = outcome { () throws(InflateError) in
            try stream.forEachChunk { (chunk) throws(InflateError) in
                try s.feed(chunk) { count += $0.count }
                return true
            }
            try s.finish()
            return []
        }
        XCTAssertEqual(o, .ok([]))
        XCTAssertEqual(count, GigabyteOfZeros.size)
        XCTAssertEqual(s.totalOut, GigabyteOfZeros.size)
        XCTAssertLessThan(residentBytes() - rssBefore, 16 << 20)
    }

    func testGigabyteOfZerosRefusedByTheExpansionRatio() throws {
        // Fixed-code 258-byte matches expand ~159:1; a ratio of 100 stops the stream early.
        let stream = GigabyteOfZeros()
        let s = InflateStream(format: .raw, limits: InflateLimits(maxOutputBytes: 1 << 31, maxExpansionRatio: 100))
        var fed = 0
        let o = outcome { () throws(InflateError) in
            try stream.forEachChunk { (chunk) throws(InflateError) in
                fed += chunk.count
                try s.feed(chunk) { _ in }
                return true
            }
            return []
        }
        guard case .failed(.expansionRatioExceeded(ratio: 100, inputBytes: let input, outputBytes: let out)) = o else {
            return XCTFail("\(o)")
        }
        XCTAssertEqual(input, fed)
        XCTAssertLessThanOrEqual(out, 100 * input)
        XCTAssertLessThan(fed, 200_000)
    }

    /// VmRSS from /proc/self/status.
    func residentBytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kb = Int(line.split(separator: " ").dropFirst().first ?? "") else { return 0 }
        return kb * 1024
    }
}
