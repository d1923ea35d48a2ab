import XCTest
import PushDoubleTestSupport
import PushDoubleJSON
@testable import PushDoubleExpo

/// Request bodies: plain, `Content-Encoding: gzip` (docs/expo.md §1 [A]) made by Python's gzip at
/// test time, `deflate`, bad encodings, broken streams and decompression bombs.
final class ExpoRequestBodyTests: XCTestCase {
    override func setUpWithError() throws { try requireInteropTier(needs: "python3 (gzip, zlib)") }

    /// A body like the Node SDK gzips (JSON over 1024 characters, docs/expo.md §6.1): 40 recipients.
    static let bigSend: String = {
        let to = (0..<40).map { "\"\(tok("a\($0)xxxxxxxxxxxxxxxxxx"))\"" }.joined(separator: ",")
        return "[{\"to\":[\(to)],\"title\":\"Hello\",\"body\":\"World\",\"data\":{\"n\":1}}]"
    }()

    func testGzipSendBodyDecodesLikeThePlainOne() throws {
        XCTAssertGreaterThan(Self.bigSend.utf8.count, 1024)
        let plain = Array(Self.bigSend.utf8)
        let gz = try pythonGzip(plain)
        XCTAssertEqual(Array(gz.prefix(2)), [0x1F, 0x8B])
        let decoder = ExpoSendRequestDecoder()
        let fromGzip = try decoder.decode(body: gz, contentEncoding: "gzip", projectOf: testProject)
        let fromPlain = try decoder.decode(body: plain, contentEncoding: nil, projectOf: testProject)
        XCTAssertEqual(fromGzip, fromPlain)
        XCTAssertEqual(fromGzip.recipients.count, 40)
        XCTAssertEqual(fromGzip.recipients.last?.token, tok("a39xxxxxxxxxxxxxxxxxx"))
        // Header spelling and identity codings around it.
        for header in ["GZIP", " gzip ", "x-gzip", "identity, gzip", "gzip, identity"] {
            XCTAssertEqual(try decoder.decode(body: gz, contentEncoding: header, projectOf: testProject), fromPlain, header)
        }
        for level in [1, 9] {
            XCTAssertEqual(try decoder.decode(body: try pythonGzip(plain, level: level), contentEncoding: "gzip", projectOf: testProject), fromPlain)
        }
        // gzip applied twice, undone in reverse order.
        XCTAssertEqual(try decoder.decode(body: try pythonGzip(gz), contentEncoding: "gzip, gzip", projectOf: testProject), fromPlain)
    }

    func testIdentityAndAbsentEncodingArePlain() throws {
        let body = Array(#"{"to":"\#(tok("a"))"}"#.utf8)
        for header in [nil, "", "identity", "Identity"] as [String?] {
            XCTAssertEqual(try ExpoSendRequestDecoder().decode(body: body, contentEncoding: header, projectOf: testProject).recipients.count, 1)
        }
    }

    func testDeflateAcceptedByDefaultAndRefusableOnRequest() throws {
        let plain = Array(Self.bigSend.utf8)
        let z = try pythonZlib(plain)
        XCTAssertEqual(try ExpoSendRequestDecoder().decode(body: z, contentEncoding: "deflate", projectOf: testProject).recipients.count, 40)
        var c = ExpoSendDecoderConfiguration()
        c.body.acceptDeflate = false
        let e = refuseSend(z, contentEncoding: "deflate", .contentEncoding, c)
        XCTAssertEqual(e?.message, #"Unsupported Content-Encoding "deflate"; send the request body as plain or gzip-compressed JSON."#)
        XCTAssertEqual(e?.code, .apiError)
    }

    func testUnsupportedEncoding() {
        let e = refuseSend(Array("{}".utf8), contentEncoding: "br", .contentEncoding)
        XCTAssertEqual(e?.bodyText,
                       #"{"errors":[{"code":"API_ERROR","message":"Unsupported Content-Encoding \"br\"; send the request body as plain or gzip-compressed JSON."}]}"#)
        XCTAssertEqual(e?.httpStatus, 400)
        refuseSend(Array("{}".utf8), contentEncoding: "gzip, compress", .contentEncoding)
    }

    func testBrokenGzipBodies() throws {
        let gz = try pythonGzip(Array(Self.bigSend.utf8))
        // Plain JSON labelled gzip.
        let notGzip = refuseSend(Array(Self.bigSend.utf8), contentEncoding: "gzip", .compressedBody)
        XCTAssertTrue(notGzip?.message.hasPrefix("The request body could not be decompressed (gzip): notGzip") ?? false, notGzip?.message ?? "")
        // Truncated, a flipped CRC byte, trailing garbage.
        refuseSend(Array(gz.dropLast(5)), contentEncoding: "gzip", .compressedBody)
        var crc = gz
        crc[crc.count - 6] ^= 0xFF
        XCTAssertTrue(refuseSend(crc, contentEncoding: "gzip", .compressedBody)?.message.contains("crcMismatch") ?? false)
        refuseSend(gz + [0x00], contentEncoding: "gzip", .compressedBody)
        // gzip of something that is not JSON.
        refuseSend(try pythonGzip(Array("not json".utf8)), contentEncoding: "gzip", .bodyNotJSON)
        // gzip of JSON of the wrong shape reaches the shape rule.
        XCTAssertEqual(refuseSend(try pythonGzip(Array("5".utf8)), contentEncoding: "gzip", .bodyShape)?.message, #""value" must be of type object."#)
    }

    func testDecompressionBombIsRefusedAtTheBound() throws {
        // 64 MiB of zeros in about 64 KB of gzip; the default bound is 1 MiB.
        let bomb = try pythonGzipZeros(64 << 20)
        XCTAssertLessThan(bomb.count, 100_000)
        let e = refuseSend(bomb, contentEncoding: "gzip", .bodyTooLarge)
        XCTAssertEqual(e?.bodyText,
                       #"{"errors":[{"code":"API_ERROR","message":"The request body is larger than 1048576 bytes once decompressed."}]}"#)
        XCTAssertEqual(e?.httpStatus, 400)
        // The same refusal from getReceipts, which shares the body reader.
        let handler = ExpoGetReceiptsHandler(store: ExpoReceiptStore())
        XCTAssertThrowsError(try handler.ids(body: bomb, contentEncoding: "gzip")) { error in
            XCTAssertEqual((error as? ExpoRequestError)?.rule, .bodyTooLarge)
        }
    }

    func testBodyBoundIsExactForPlainAndGzip() throws {
        let plain = Array(#"{"to":"\#(tok("a"))","title":"0123456789"}"#.utf8)
        var c = ExpoSendDecoderConfiguration()
        c.body.maxBodyBytes = plain.count
        XCTAssertNotNil(try? ExpoSendRequestDecoder(configuration: c).decode(body: plain, projectOf: testProject))
        XCTAssertNotNil(try? ExpoSendRequestDecoder(configuration: c).decode(body: try pythonGzip(plain), contentEncoding: "gzip", projectOf: testProject))
        c.body.maxBodyBytes = plain.count - 1
        XCTAssertEqual(refuseSend(plain, .bodyTooLarge, c)?.message, "The request body is larger than \(plain.count - 1) bytes.")
        refuseSend(try pythonGzip(plain), contentEncoding: "gzip", .bodyTooLarge, c)
    }

    func testExpansionRatioBound() throws {
        // 1 MiB of zeros fits the size bound but not a ratio of 10 once past the 64 KiB allowance.
        let zeros = try pythonGzipZeros(1 << 20)
        var c = ExpoSendDecoderConfiguration()
        c.body.maxBodyBytes = 2 << 20
        refuseSend(zeros, contentEncoding: "gzip", .bodyNotJSON, c)   // decoded fully: zeros are not JSON
        c.body.maxExpansionRatio = 10
        refuseSend(zeros, contentEncoding: "gzip", .bodyTooLarge, c)
    }
}
