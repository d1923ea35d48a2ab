import Foundation
import XCTest
@testable import PushDoubleInflate

/// The committed vectors (Fixtures/vectors.txt, made by Fixtures/make_vectors.py with Python's zlib).
struct Vector {
    var name: String
    var format: InflateFormat
    var compressed: [UInt8]
    var original: [UInt8]
}

enum Fixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    static func bytes(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: directory.appendingPathComponent(name)))
    }

    static func vectors() throws -> [Vector] {
        let text = try String(contentsOf: directory.appendingPathComponent("vectors.txt"), encoding: .utf8)
        var inputs: [String: [UInt8]] = [:]
        var out: [Vector] = []
        for line in text.split(separator: "\n") {
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            if f[0] == "input" {
                inputs[f[1]] = base64(f[2])
            } else {
                let format: InflateFormat = f[2] == "raw" ? .raw : f[2] == "zlib" ? .zlib : .gzip
                out.append(Vector(name: f[1], format: format, compressed: base64(f[4]), original: inputs[f[3]]!))
            }
        }
        return out
    }
}

func base64(_ s: String) -> [UInt8] { [UInt8](Data(base64Encoded: s)!) }

/// Feeds `bytes` to `stream` in pieces of `chunk` bytes (or the sizes `sizes` cycles through)
/// and returns the output; finish() included.
func streamDecode(_ bytes: [UInt8], format: InflateFormat, limits: InflateLimits = InflateLimits(maxOutputBytes: 1 << 30),
                  chunkSizes: [Int], trailingData: TrailingDataPolicy = .reject) throws(InflateError) -> [UInt8] {
    let stream = InflateStream(format: format, limits: limits, trailingData: trailingData)
    var out: [UInt8] = []
    var i = 0, k = 0
    while i < bytes.count {
        let n = min(chunkSizes[k % chunkSizes.count], bytes.count - i)
        k += 1
        try stream.feed(Array(bytes[i..<i + n])) { out.append(contentsOf: $0) }
        i += n
    }
    try stream.finish()
    return out
}

/// The result of decoding, as something XCTAssertEqual can compare.
enum Outcome: Equatable {
    case ok([UInt8])
    case failed(InflateError)
}

func outcome(_ body: () throws(InflateError) -> [UInt8]) -> Outcome {
    do { return .ok(try body()) } catch { return .failed(error) }
}

func decode(_ bytes: [UInt8], _ format: InflateFormat, limit: Int = 1 << 24,
            trailingData: TrailingDataPolicy = .reject) -> Outcome {
    outcome { () throws(InflateError) in
        try Inflate.decompress(bytes, format: format, limits: InflateLimits(maxOutputBytes: limit), trailingData: trailingData)
    }
}

/// LSB-first bit writer for hand-made DEFLATE streams (RFC 1951 §3.1.1).
struct BitWriter {
    var bytes: [UInt8] = []
    var acc: UInt64 = 0
    var count = 0

    /// A value of `n` bits, least significant bit first (header fields, extra bits).
    mutating func bits(_ value: Int, _ n: Int) {
        acc |= UInt64(value) << UInt64(count)
        count += n
        while count >= 8 {
            bytes.append(UInt8(truncatingIfNeeded: acc))
            acc >>= 8
            count -= 8
        }
    }

    /// A Huffman code of `n` bits, most significant bit first.
    mutating func code(_ code: Int, _ n: Int) {
        for i in stride(from: n - 1, through: 0, by: -1) { bits((code >> i) & 1, 1) }
    }

    /// Fixed-code literal/length symbol (RFC 1951 §3.2.6).
    mutating func fixedSymbol(_ s: Int) {
        switch s {
        case 0...143: code(0x30 + s, 8)
        case 144...255: code(0x190 + s - 144, 9)
        case 256...279: code(s - 256, 7)
        default: code(0xC0 + s - 280, 8)
        }
    }

    /// A dynamic block header (BFINAL=1, BTYPE=10) whose code-length code gives symbols
    /// 0…12, 16, 17, 18 4-bit codes (complete); then `codeLengthSymbols` as (symbol, extra bits).
    mutating func dynamicHeader(hlit: Int, hdist: Int, _ codeLengthSymbols: [(Int, Int)]) {
        bits(1, 1)
        bits(2, 2)
        bits(hlit - 257, 5)
        bits(hdist - 1, 5)
        bits(19 - 4, 4)
        let order = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]
        for sym in order { bits(sym <= 12 || sym >= 16 ? 4 : 0, 3) }
        let codeOf: (Int) -> Int = { $0 <= 12 ? $0 : $0 - 3 }  // canonical: 0…12 → 0…12, 16…18 → 13…15
        for (sym, extra) in codeLengthSymbols {
            code(codeOf(sym), 4)
            switch sym {
            case 16: bits(extra, 2)
            case 17: bits(extra, 3)
            case 18: bits(extra, 7)
            default: break
            }
        }
    }

    /// Pads to a byte boundary and returns the bytes.
    mutating func finish() -> [UInt8] {
        if count > 0 { bits(0, 8 - count) }
        return bytes
    }
}
