import XCTest
import PushDoubleTestSupport
@testable import PushDoubleInflate

/// One hand-made vector per typed error, plus the edge cases zlib accepts.
final class InflateErrorTests: XCTestCase {
    // MARK: Helpers

    /// Code-length symbols spelling out `lengths` literally (no repeats).
    func literal(_ lengths: [Int]) -> [(Int, Int)] { lengths.map { ($0, 0) } }

    /// Literal/length lengths for `hlit` symbols with the given non-zero entries.
    func lengths(_ count: Int, _ set: [Int: Int]) -> [Int] {
        (0..<count).map { set[$0] ?? 0 }
    }

    func raw(_ bytes: [UInt8]) -> Outcome { decode(bytes, .raw) }

    func failure(_ o: Outcome, file: StaticString = #filePath, line: UInt = #line) -> InflateError? {
        if case .failed(let e) = o { return e }
        XCTFail("expected an error, got \(o)", file: file, line: line)
        return nil
    }

    // MARK: Block level

    func testInvalidBlockType() {
        XCTAssertEqual(raw([0x07]), .failed(.invalidBlockType(offset: 0)))
    }

    func testStoredLengthMismatch() {
        XCTAssertEqual(raw([0x01, 0x05, 0x00, 0x00, 0x00]),
                       .failed(.storedLengthMismatch(len: 5, nlen: 0, offset: 1)))
    }

    func testStoredBlockAndEmptyStoredBlock() {
        XCTAssertEqual(raw([0x01, 0x03, 0x00, 0xFC, 0xFF, 0x61, 0x62, 0x63]), .ok(Array("abc".utf8)))
        XCTAssertEqual(raw([0x01, 0x00, 0x00, 0xFF, 0xFF]), .ok([]))
    }

    func testTooManyLengthOrDistanceSymbols() {
        var w = BitWriter()
        w.dynamicHeader(hlit: 287, hdist: 1, [])
        guard case .tooManyLengthOrDistanceSymbols(287, 1, _)? = failure(raw(w.finish())) else { return XCTFail() }
        var w2 = BitWriter()
        w2.dynamicHeader(hlit: 257, hdist: 31, [])
        guard case .tooManyLengthOrDistanceSymbols(257, 31, _)? = failure(raw(w2.finish())) else { return XCTFail() }
    }

    func testCodeLengthCodeOverSubscribedAndIncomplete() {
        var w = BitWriter()
        w.bits(5, 3); w.bits(0, 5); w.bits(0, 5); w.bits(19 - 4, 4)
        for _ in 0..<19 { w.bits(1, 3) }
        guard case .invalidHuffmanTree(.codeLengths, .overSubscribed, _)? = failure(raw(w.finish())) else { return XCTFail() }
        var w2 = BitWriter()
        w2.bits(5, 3); w2.bits(0, 5); w2.bits(0, 5); w2.bits(0, 4)
        w2.bits(1, 3); w2.bits(0, 3); w2.bits(0, 3); w2.bits(0, 3)  // only symbol 16, length 1
        guard case .invalidHuffmanTree(.codeLengths, .incomplete, _)? = failure(raw(w2.finish())) else { return XCTFail() }
        // All zero: no code at all is refused for the code-length code.
        var w3 = BitWriter()
        w3.bits(5, 3); w3.bits(0, 5); w3.bits(0, 5); w3.bits(0, 4); w3.bits(0, 12)
        guard case .invalidHuffmanTree(.codeLengths, .incomplete, _)? = failure(raw(w3.finish())) else { return XCTFail() }
    }

    func testLiteralLengthTreeOverSubscribedAndIncomplete() {
        var w = BitWriter()
        w.dynamicHeader(hlit: 257, hdist: 1, literal(lengths(257, [0: 1, 1: 1, 256: 1]) + [1]))
        guard case .invalidHuffmanTree(.literalLength, .overSubscribed, _)? = failure(raw(w.finish())) else { return XCTFail() }
        var w2 = BitWriter()
        w2.dynamicHeader(hlit: 257, hdist: 1, literal(lengths(257, [0: 2, 256: 2]) + [1]))
        guard case .invalidHuffmanTree(.literalLength, .incomplete, _)? = failure(raw(w2.finish())) else { return XCTFail() }
    }

    func testSingleCodeTreesAreAllowedLikeZlib() {
        // Only end-of-block, length 1: code 0 ends the block; the empty distance code is fine.
        var w = BitWriter()
        w.dynamicHeader(hlit: 257, hdist: 1, literal(lengths(257, [256: 1]) + [0]))
        w.code(0, 1)
        XCTAssertEqual(raw(w.finish()), .ok([]))
        // The unused pattern (bit 1) is an invalid code.
        var w2 = BitWriter()
        w2.dynamicHeader(hlit: 257, hdist: 1, literal(lengths(257, [256: 1]) + [0]))
        w2.code(1, 1)
        guard case .invalidCode(.literalLength, _)? = failure(raw(w2.finish())) else { return XCTFail() }
    }

    func testMissingEndOfBlockCode() {
        var w = BitWriter()
        w.dynamicHeader(hlit: 257, hdist: 1, literal(lengths(257, [0: 1, 1: 1]) + [1]))
        guard case .missingEndOfBlockCode? = failure(raw(w.finish())) else { return XCTFail() }
    }

    func testDistanceTreeErrorsAndEmptyDistanceCode() {
        let lit = lengths(258, [0x61: 2, 256: 2, 257: 1])  // 'a' 10, EOB 11, length-3 0
        var over = BitWriter()
        over.dynamicHeader(hlit: 258, hdist: 3, literal(lit + [1, 1, 1]))
        guard case .invalidHuffmanTree(.distance, .overSubscribed, _)? = failure(raw(over.finish())) else { return XCTFail() }
        var incomplete = BitWriter()
        incomplete.dynamicHeader(hlit: 258, hdist: 2, literal(lit + [2, 2]))
        guard case .invalidHuffmanTree(.distance, .incomplete, _)? = failure(raw(incomplete.finish())) else { return XCTFail() }
        // No distance codes at all: fine for literals only…
        var empty = BitWriter()
        empty.dynamicHeader(hlit: 258, hdist: 1, literal(lit + [0]))
        empty.code(2, 2); empty.code(3, 2)
        XCTAssertEqual(raw(empty.finish()), .ok([0x61]))
        // …but a match then has no distance code to use.
        var match = BitWriter()
        match.dynamicHeader(hlit: 258, hdist: 1, literal(lit + [0]))
        match.code(2, 2); match.code(0, 1); match.bits(0, 8)
        guard case .invalidCode(.distance, _)? = failure(raw(match.finish())) else { return XCTFail() }
    }

    func testRepeatWithoutPreviousAndRepeatOverflow() {
        var w = BitWriter()
        w.dynamicHeader(hlit: 257, hdist: 1, [(16, 0)])
        guard case .repeatWithoutPreviousLength? = failure(raw(w.finish())) else { return XCTFail() }
        var w2 = BitWriter()
        w2.dynamicHeader(hlit: 257, hdist: 1, [(18, 127), (18, 127), (18, 0)])  // 138+138+11 > 258
        guard case .codeLengthRepeatOverflow? = failure(raw(w2.finish())) else { return XCTFail() }
    }

    func testRepeatsMayCrossFromLiteralToDistanceLengths() {
        // 138 + 117 zeros (symbols 0…254), 255 gets length 1, then "repeat previous ×3" sets
        // 256 (end of block) and both distance lengths: the repeat spans the boundary.
        let syms: [(Int, Int)] = [(18, 127), (18, 106), (1, 0), (16, 0)]
        var exact = BitWriter()
        exact.dynamicHeader(hlit: 257, hdist: 2, syms)
        exact.code(0, 1)  // literal 255
        exact.code(1, 1)  // end of block
        XCTAssertEqual(raw(exact.finish()), .ok([0xFF]))
        // With HDIST 1 the same repeat runs one length past the end.
        var cross = BitWriter()
        cross.dynamicHeader(hlit: 257, hdist: 1, syms)
        guard case .codeLengthRepeatOverflow? = failure(raw(cross.finish())) else { return XCTFail() }
    }

    func testInvalidFixedSymbols() {
        var w = BitWriter()
        w.bits(1, 1); w.bits(1, 2); w.fixedSymbol(286)
        guard case .invalidLiteralLengthSymbol(286, _)? = failure(raw(w.finish())) else { return XCTFail() }
        var w2 = BitWriter()
        w2.bits(1, 1); w2.bits(1, 2); w2.fixedSymbol(287)
        guard case .invalidLiteralLengthSymbol(287, _)? = failure(raw(w2.finish())) else { return XCTFail() }
        for d in [30, 31] {
            var w3 = BitWriter()
            w3.bits(1, 1); w3.bits(1, 2); w3.fixedSymbol(0x61); w3.fixedSymbol(257); w3.code(d, 5)
            w3.bits(0, 32)
            guard case .invalidDistanceSymbol(d, _)? = failure(raw(w3.finish())) else { return XCTFail("\(d)") }
        }
    }

    func testDistanceTooFarBack() {
        var w = BitWriter()
        w.bits(1, 1); w.bits(1, 2); w.fixedSymbol(0x61); w.fixedSymbol(257); w.code(1, 5); w.fixedSymbol(256)
        guard case .distanceTooFarBack(distance: 2, available: 1, _)? = failure(raw(w.finish())) else { return XCTFail() }
        // Distance 1 is fine: "aaaa".
        var ok = BitWriter()
        ok.bits(1, 1); ok.bits(1, 2); ok.fixedSymbol(0x61); ok.fixedSymbol(257); ok.code(0, 5); ok.fixedSymbol(256)
        XCTAssertEqual(raw(ok.finish()), .ok(Array("aaaa".utf8)))
    }

    func testBackReferencesDoNotCrossGzipMembers() {
        let first = gzipOf(raw: [0x4B, 0x04, 0x00], original: Array("a".utf8))
        var w = BitWriter()
        w.bits(1, 1); w.bits(1, 2); w.fixedSymbol(257); w.code(0, 5); w.fixedSymbol(256)
        let second = gzipOf(raw: w.finish(), original: Array("aaa".utf8))
        guard case .distanceTooFarBack(distance: 1, available: 0, _)? = failure(decode(first + second, .gzip)) else { return XCTFail() }
    }

    func gzipOf(raw body: [UInt8], original: [UInt8]) -> [UInt8] {
        let crc = CRC32.checksum(original), n = UInt32(original.count)
        return [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 3] + body
            + (0..<4).map { UInt8(truncatingIfNeeded: crc >> (8 * $0)) } + (0..<4).map { UInt8(truncatingIfNeeded: n >> (8 * $0)) }
    }

    // MARK: Truncation and trailing data

    func testTruncatedEverywhere() throws {
        let v = try XCTUnwrap(Fixtures.vectors().first { $0.name == "text-gzip-allflags" })
        let headerEnd = 10 + 2 + 8 + 10 + 10 + 2  // fixed + XLEN + extra + name + comment + CRC16
        for cut in 0..<v.compressed.count {
            let o = outcome { () throws(InflateError) in try streamDecode(Array(v.compressed[..<cut]), format: .gzip, chunkSizes: [5]) }
            let part: StreamPart = cut < headerEnd ? .gzipHeader : cut >= v.compressed.count - 8 ? .trailer : .deflateData
            if cut == v.compressed.count - 8 {
                // Right after the DEFLATE data: either still inside it (no final EOB byte yet) or at the trailer.
                XCTAssertTrue([.failed(.truncatedInput(.trailer)), .failed(.truncatedInput(.deflateData))].contains(o))
            } else if cut >= headerEnd && cut > v.compressed.count - 8 {
                XCTAssertEqual(o, .failed(.truncatedInput(.trailer)), "cut \(cut)")
            } else if cut < headerEnd {
                XCTAssertEqual(o, .failed(.truncatedInput(part)), "cut \(cut)")
            } else {
                XCTAssertEqual(o, .failed(.truncatedInput(.deflateData)), "cut \(cut)")
            }
        }
        XCTAssertEqual(decode([0x78], .zlib), .failed(.truncatedInput(.zlibHeader)))
        XCTAssertEqual(decode([], .raw), .failed(.truncatedInput(.deflateData)))
        XCTAssertEqual(decode([], .gzip), .failed(.truncatedInput(.gzipHeader)))
    }

    func testTrailingDataPolicy() throws {
        let v = try XCTUnwrap(Fixtures.vectors().first { $0.name == "text-gzip-6" })
        let n = v.compressed.count
        XCTAssertEqual(decode(v.compressed + [0], .gzip), .failed(.trailingData(offset: n)))
        XCTAssertEqual(decode(v.compressed + [0x1F], .gzip), .failed(.trailingData(offset: n)))
        XCTAssertEqual(decode(v.compressed + [0x1F, 0x00], .gzip), .failed(.trailingData(offset: n)))
        XCTAssertEqual(decode(v.compressed + [0, 0, 0, 0], .gzip, trailingData: .ignore), .ok(v.original))
        XCTAssertEqual(decode(v.compressed + [0x1F], .gzip, trailingData: .ignore), .ok(v.original))
        // A further member is decoded even under .ignore, and its errors count.
        XCTAssertEqual(decode(v.compressed + [0x1F, 0x8B, 9], .gzip, trailingData: .ignore),
                       .failed(.unsupportedCompressionMethod(9, offset: n + 2)))
        let raw = try XCTUnwrap(Fixtures.vectors().first { $0.name == "text-raw-6" })
        XCTAssertEqual(decode(raw.compressed + [0xAA], .raw), .failed(.trailingData(offset: raw.compressed.count)))
        XCTAssertEqual(decode(raw.compressed + [0xAA], .raw, trailingData: .ignore), .ok(raw.original))
        let z = try XCTUnwrap(Fixtures.vectors().first { $0.name == "text-zlib-6" })
        XCTAssertEqual(decode(z.compressed + [0x78, 0x9C], .zlib), .failed(.trailingData(offset: z.compressed.count)))
    }

    // MARK: gzip

    func testGzipHeaderErrors() throws {
        let v = try XCTUnwrap(Fixtures.vectors().first { $0.name == "one-gzip-6" })
        var bad = v.compressed
        bad[1] = 0x8C
        XCTAssertEqual(decode(bad, .gzip), .failed(.notGzip(id1: 0x1F, id2: 0x8C, offset: 0)))
        XCTAssertEqual(decode([0x78, 0x9C, 0, 0], .gzip), .failed(.notGzip(id1: 0x78, id2: 0x9C, offset: 0)))
        bad = v.compressed
        bad[2] = 7
        XCTAssertEqual(decode(bad, .gzip), .failed(.unsupportedCompressionMethod(7, offset: 2)))
        for flag in [0x20, 0x40, 0x80] as [UInt8] {
            bad = v.compressed
            bad[3] = flag
            XCTAssertEqual(decode(bad, .gzip), .failed(.reservedFlagsSet(flag, offset: 3)))
        }
        let flagged = try XCTUnwrap(Fixtures.vectors().first { $0.name == "one-gzip-allflags" })
        bad = flagged.compressed
        bad[23] ^= 0x01  // a byte of FNAME: the header CRC no longer matches
        guard case .headerChecksumMismatch? = failure(decode(bad, .gzip)) else { return XCTFail() }
    }

    func testGzipTrailerErrors() throws {
        let v = try XCTUnwrap(Fixtures.vectors().first { $0.name == "text-gzip-6" })
        let n = v.compressed.count
        var bad = v.compressed
        bad[n - 8] ^= 0xFF
        let crc = CRC32.checksum(v.original)
        XCTAssertEqual(decode(bad, .gzip), .failed(.crcMismatch(expected: crc ^ 0xFF, actual: crc)))
        bad = v.compressed
        bad[n - 1] = 0x01
        XCTAssertEqual(decode(bad, .gzip), .failed(.sizeMismatch(expected: UInt32(v.original.count) | 0x0100_0000,
                                                                 actual: UInt32(v.original.count))))
    }

    // MARK: zlib

    func testZlibErrors() throws {
        XCTAssertEqual(decode([0x79, 0x9C, 0x03, 0x00], .zlib), .failed(.invalidZlibHeader(.method, cmf: 0x79, flg: 0x9C)))
        XCTAssertEqual(decode([0x88, 0x98, 0x03, 0x00], .zlib), .failed(.invalidZlibHeader(.windowSize, cmf: 0x88, flg: 0x98)))
        XCTAssertEqual(decode([0x78, 0x9D, 0x03, 0x00], .zlib), .failed(.invalidZlibHeader(.checkBits, cmf: 0x78, flg: 0x9D)))
        XCTAssertEqual(decode([0x78, 0xBB, 0, 0, 0, 1, 0x03, 0x00], .zlib), .failed(.presetDictionaryUnsupported))
        let v = try XCTUnwrap(Fixtures.vectors().first { $0.name == "text-zlib-6" })
        var bad = v.compressed
        bad[bad.count - 1] ^= 0x10
        let adler = Adler32.checksum(v.original)
        XCTAssertEqual(decode(bad, .zlib), .failed(.adlerMismatch(expected: adler ^ 0x10, actual: adler)))
    }

    func testHTTPDeflateAcceptsZlibAndRaw() throws {
        let z = try XCTUnwrap(Fixtures.vectors().first { $0.name == "json-zlib-6" })
        let r = try XCTUnwrap(Fixtures.vectors().first { $0.name == "json-raw-6" })
        XCTAssertEqual(decode(z.compressed, .zlibOrRaw), .ok(z.original))
        XCTAssertEqual(decode(r.compressed, .zlibOrRaw), .ok(r.original))
        XCTAssertEqual(decode(z.compressed, .zlibOrRaw, limit: 10), .failed(.outputLimitExceeded(limit: 10)))
        // A zlib header with FDICT is still zlib (and refused), not raw.
        XCTAssertEqual(decode([0x78, 0xBB, 0, 0, 0, 1, 0x03, 0x00], .zlibOrRaw), .failed(.presetDictionaryUnsupported))
        XCTAssertEqual(InflateFormat(httpContentCoding: "deflate"), .zlibOrRaw)
        XCTAssertEqual(InflateFormat(httpContentCoding: "GZIP"), .gzip)
        XCTAssertEqual(InflateFormat(httpContentCoding: "x-gzip"), .gzip)
        XCTAssertNil(InflateFormat(httpContentCoding: "identity"))
        XCTAssertNil(InflateFormat(httpContentCoding: "br"))
    }

    // MARK: State after an error

    func testStreamStaysFailed() {
        let s = InflateStream(format: .raw, limits: InflateLimits(maxOutputBytes: 100))
        XCTAssertThrowsError(try s.feed([0x07]))
        XCTAssertEqual(outcome { () throws(InflateError) in try s.feed([0x03, 0x00]) }, .failed(.invalidBlockType(offset: 0)))
        XCTAssertEqual(outcome { () throws(InflateError) in try s.finish(); return [] }, .failed(.invalidBlockType(offset: 0)))
        XCTAssertFalse(s.isComplete)
    }

    // MARK: Checksums

    func testChecksumCheckValues() {
        XCTAssertEqual(CRC32.checksum(Array("123456789".utf8)), 0xCBF4_3926)
        XCTAssertEqual(CRC32.checksum([]), 0)
        XCTAssertEqual(Adler32.checksum(Array("Wikipedia".utf8)), 0x11E6_0398)
        XCTAssertEqual(Adler32.checksum([]), 1)
        var rng = SeededRandomNumberGenerator(seed: 7)
        let data = (0..<100_000).map { _ in UInt8.random(in: 0...255, using: &rng) }
        var split = CRC32()
        split.update(Array(data[..<12_345]))
        split.update(Array(data[12_345...]))
        XCTAssertEqual(split.value, CRC32.checksum(data))
        // Adler-32 of 100 000 0xFF bytes exercises the modular reduction.
        XCTAssertEqual(Adler32.checksum([UInt8](repeating: 0xFF, count: 100_000)), 0x149A_302C)
    }
}
