import XCTest
import PushDoubleTestSupport
@testable import PushDoubleInflate

/// Every `InflateError` case is reached by at least one input: the exhaustive switch in
/// `name(of:)` stops compiling when a case is added, until it is listed and given a vector.
final class InflateErrorCoverageTests: XCTestCase {
    static let allCases: Set<String> = [
        "outputLimitExceeded", "expansionRatioExceeded", "invalidBlockType", "storedLengthMismatch",
        "tooManyLengthOrDistanceSymbols", "invalidHuffmanTree", "repeatWithoutPreviousLength",
        "codeLengthRepeatOverflow", "missingEndOfBlockCode", "invalidCode", "invalidLiteralLengthSymbol",
        "invalidDistanceSymbol", "distanceTooFarBack", "truncatedInput", "trailingData", "notGzip",
        "unsupportedCompressionMethod", "reservedFlagsSet", "headerChecksumMismatch", "crcMismatch",
        "sizeMismatch", "invalidZlibHeader", "presetDictionaryUnsupported", "adlerMismatch",
    ]

    static func name(of e: InflateError) -> String {
        switch e {
        case .outputLimitExceeded: "outputLimitExceeded"
        case .expansionRatioExceeded: "expansionRatioExceeded"
        case .invalidBlockType: "invalidBlockType"
        case .storedLengthMismatch: "storedLengthMismatch"
        case .tooManyLengthOrDistanceSymbols: "tooManyLengthOrDistanceSymbols"
        case .invalidHuffmanTree: "invalidHuffmanTree"
        case .repeatWithoutPreviousLength: "repeatWithoutPreviousLength"
        case .codeLengthRepeatOverflow: "codeLengthRepeatOverflow"
        case .missingEndOfBlockCode: "missingEndOfBlockCode"
        case .invalidCode: "invalidCode"
        case .invalidLiteralLengthSymbol: "invalidLiteralLengthSymbol"
        case .invalidDistanceSymbol: "invalidDistanceSymbol"
        case .distanceTooFarBack: "distanceTooFarBack"
        case .truncatedInput: "truncatedInput"
        case .trailingData: "trailingData"
        case .notGzip: "notGzip"
        case .unsupportedCompressionMethod: "unsupportedCompressionMethod"
        case .reservedFlagsSet: "reservedFlagsSet"
        case .headerChecksumMismatch: "headerChecksumMismatch"
        case .crcMismatch: "crcMismatch"
        case .sizeMismatch: "sizeMismatch"
        case .invalidZlibHeader: "invalidZlibHeader"
        case .presetDictionaryUnsupported: "presetDictionaryUnsupported"
        case .adlerMismatch: "adlerMismatch"
        }
    }

    func testEveryErrorCaseIsReachable() throws {
        let vectors = try Fixtures.vectors()
        let gz = try XCTUnwrap(vectors.first { $0.name == "text-gzip-allflags" }).compressed
        let z = try XCTUnwrap(vectors.first { $0.name == "text-zlib-6" }).compressed
        func patched(_ b: [UInt8], _ i: Int, _ v: UInt8) -> [UInt8] { var c = b; c[i >= 0 ? i : c.count + i] = v; return c }
        func fixed(_ body: (inout BitWriter) -> Void) -> [UInt8] {
            var w = BitWriter(); w.bits(1, 1); w.bits(1, 2); body(&w); return w.finish()
        }
        func dynamicCounts(_ hlit: Int, _ hdist: Int, _ clLengths: [Int]) -> [UInt8] {
            var w = BitWriter(); w.bits(5, 3); w.bits(hlit - 257, 5); w.bits(hdist - 1, 5); w.bits(clLengths.count - 4, 4)
            for l in clLengths { w.bits(l, 3) }
            return w.finish()
        }
        func dyn(_ hlit: Int, _ hdist: Int, _ syms: [(Int, Int)], then: (inout BitWriter) -> Void = { _ in }) -> [UInt8] {
            var w = BitWriter(); w.dynamicHeader(hlit: hlit, hdist: hdist, syms); then(&w); return w.finish()
        }
        let cl4 = [2, 2, 2, 2]
        // 'a' → 10, end of block → 11, length 3 → 0; no distance codes.
        let lit: [(Int, Int)] = (0..<258).map { ($0 == 0x61 || $0 == 256 ? 2 : $0 == 257 ? 1 : 0, 0) }
        let cases: [(String, [UInt8], InflateFormat, InflateLimits)] = [
            ("limit", z, .zlib, InflateLimits(maxOutputBytes: 10)),
            ("ratio", z, .zlib, InflateLimits(maxOutputBytes: 1 << 20, maxExpansionRatio: 1, ratioAllowanceBytes: 0)),
            ("btype", [0x07], .raw, .init(maxOutputBytes: 100)),
            ("nlen", [0x01, 0x05, 0x00, 0x00, 0x00], .raw, .init(maxOutputBytes: 100)),
            ("hlit", dynamicCounts(287, 1, cl4), .raw, .init(maxOutputBytes: 100)),
            ("tree", dynamicCounts(257, 1, [1, 1, 1, 1]), .raw, .init(maxOutputBytes: 100)),
            ("16 first", dyn(257, 1, [(16, 0)]), .raw, .init(maxOutputBytes: 100)),
            ("overflow", dyn(257, 1, [(18, 127), (18, 127), (18, 0)]), .raw, .init(maxOutputBytes: 100)),
            ("no EOB", dyn(257, 1, [(18, 127), (18, 106), (1, 0), (0, 0), (1, 0)]), .raw, .init(maxOutputBytes: 100)),
            ("no distance code", dyn(258, 1, lit + [(0, 0)]) { $0.code(0, 1); $0.bits(0, 8) }, .raw, .init(maxOutputBytes: 100)),
            ("286", fixed { $0.fixedSymbol(286) }, .raw, .init(maxOutputBytes: 100)),
            ("dist 30", fixed { $0.fixedSymbol(0); $0.fixedSymbol(257); $0.code(30, 5); $0.bits(0, 16) }, .raw, .init(maxOutputBytes: 100)),
            ("far", fixed { $0.fixedSymbol(257); $0.code(0, 5); $0.fixedSymbol(256) }, .raw, .init(maxOutputBytes: 100)),
            ("truncated", Array(z.dropLast()), .zlib, .init(maxOutputBytes: 1 << 20)),
            ("trailing", z + [0], .zlib, .init(maxOutputBytes: 1 << 20)),
            ("magic", patched(gz, 0, 0x1E), .gzip, .init(maxOutputBytes: 1 << 20)),
            ("CM", patched(gz, 2, 9), .gzip, .init(maxOutputBytes: 1 << 20)),
            ("FLG", patched(gz, 3, 0x80), .gzip, .init(maxOutputBytes: 1 << 20)),
            ("FHCRC", patched(gz, 40, gz[40] ^ 1), .gzip, .init(maxOutputBytes: 1 << 20)),
            ("CRC32", patched(gz, -5, gz[gz.count - 5] ^ 1), .gzip, .init(maxOutputBytes: 1 << 20)),
            ("ISIZE", patched(gz, -4, gz[gz.count - 4] ^ 1), .gzip, .init(maxOutputBytes: 1 << 20)),
            ("zlib header", patched(z, 1, z[1] ^ 1), .zlib, .init(maxOutputBytes: 1 << 20)),
            ("FDICT", [0x78, 0xBB, 0, 0, 0, 1, 0x03, 0x00], .zlib, .init(maxOutputBytes: 1 << 20)),
            ("Adler", patched(z, -1, z[z.count - 1] ^ 1), .zlib, .init(maxOutputBytes: 1 << 20)),
        ]
        var reached: Set<String> = []
        for (label, bytes, format, limits) in cases {
            let o = outcome { () throws(InflateError) in try Inflate.decompress(bytes, format: format, limits: limits) }
            guard case .failed(let e) = o else { XCTFail("\(label): \(o)"); continue }
            reached.insert(Self.name(of: e))
        }
        XCTAssertEqual(Self.allCases.subtracting(reached), [], "error cases without a vector here")
    }
}
