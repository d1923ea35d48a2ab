import XCTest
import PushDoubleCore
@testable import PushDoubleAPNs

final class APNsPayloadDecoderTests: XCTestCase {
    func decode(_ s: String) -> JSONValue? { try? APNsPayloadDecoder.decode(Array(s.utf8)).get() }

    func testKeepsKeyOrderAndIntegers() {
        let v = decode(#"{"z":1,"aps":{"alert":{"title":"T","body":"B"},"badge":3,"content-available":1},"a":[true,null,2.5,-7]}"#)
        XCTAssertEqual(v?.objectValue?.map(\.0), ["z", "aps", "a"])
        XCTAssertEqual(v?["aps"]?["badge"], .int(3))
        XCTAssertEqual(v?["aps"]?["alert"]?["body"], .string("B"))
        XCTAssertEqual(v?["a"], .array([.bool(true), .null, .double(2.5), .int(-7)]))
    }

    func testEscapesAndUnicode() {
        XCTAssertEqual(decode(#""a\"b\\c\/d\n\u00e9\ud83d\ude00""#), .string("a\"b\\c/d\né😀"))
        XCTAssertEqual(decode("\"h\u{e9}llo\""), .string("héllo"))
        XCTAssertEqual(decode(#"1e3"#), .double(1000))
        XCTAssertEqual(decode(#" 0 "#), .int(0))
        XCTAssertEqual(decode("99999999999999999999"), .double(1e20))
    }

    func testRejectsInvalid() {
        for bad in ["", "{", "{\"a\"}", "{\"a\":1,}", "[1,]", "01", "1.", "-", "tru", "\"\\x\"", "\"\\ud800\"", "{} x",
                    "\"a\u{01}\"", "{'a':1}", "[1 2]", "NaN"] {
            XCTAssertNil(decode(bad), bad)
        }
        XCTAssertNil(try? APNsPayloadDecoder.decode([0x22, 0xFF, 0x22]).get())
    }

    func testDepthIsBounded() {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        guard case .failure(let e) = APNsPayloadDecoder.decode(Array(deep.utf8)) else { return XCTFail("accepted") }
        XCTAssertTrue(e.message.contains("deeper"))
        let ok = String(repeating: "[", count: 60) + String(repeating: "]", count: 60)
        XCTAssertNotNil(decode(ok))
    }
}

final class APNsMagicTokensTests: XCTestCase {
    func testTable() {
        for entry in APNsMagicTokens.table {
            XCTAssertTrue(APNsRequestValidator.isWellFormedToken(entry.example))
            XCTAssertEqual(APNsMagicTokens.device(for: entry.example), entry.device, entry.code)
            // The rest of the token is free, and case does not matter.
            let other = "00000000" + entry.code + String(repeating: "Ab", count: 26)
            XCTAssertEqual(APNsMagicTokens.device(for: other), entry.device)
            // Longer tokens work too.
            XCTAssertEqual(APNsMagicTokens.device(for: entry.example + "0000"), entry.device)
        }
        XCTAssertEqual(APNsMagicTokens.device(for: "000000004100" + String(repeating: "0", count: 52))?.state,
                       .unregistered(since: Date(timeIntervalSince1970: 1_704_067_200)))
        XCTAssertEqual(APNsMagicTokens.device(for: "000000004002" + String(repeating: "0", count: 52))?.environment, "sandbox")
    }

    func testNonMagic() {
        XCTAssertNil(APNsMagicTokens.device(for: Fixture.token))
        XCTAssertNil(APNsMagicTokens.device(for: "000000009999" + String(repeating: "0", count: 52)))
        XCTAssertNil(APNsMagicTokens.device(for: "00000000410f" + String(repeating: "0", count: 52)))  // the code is 4 decimal digits
        XCTAssertNil(APNsMagicTokens.device(for: "000000004100"))  // too short to be a token
        XCTAssertNil(APNsMagicTokens.device(for: "100000004100" + String(repeating: "0", count: 52)))
    }
}

final class APNsDeviceRateLimiterTests: XCTestCase {
    func testFixedOneSecondWindows() {
        let limiter = APNsDeviceRateLimiter(limit: 3)
        let t0 = Date(timeIntervalSince1970: 1_800_000_000.1)
        XCTAssertEqual((0..<5).map { _ in limiter.admit(token: "a", now: t0) }, [true, true, true, false, false])
        XCTAssertTrue(limiter.admit(token: "b", now: t0))
        XCTAssertTrue(limiter.admit(token: "a", now: t0.addingTimeInterval(1)))
    }

    func testMemoryIsBounded() {
        let limiter = APNsDeviceRateLimiter(limit: 1)
        let t0 = Date(timeIntervalSince1970: 1_800_000_000)
        for i in 0..<(APNsDeviceRateLimiter.shardCount * APNsDeviceRateLimiter.maxTokensPerShard * 2) {
            _ = limiter.admit(token: "token-\(i)", now: t0.addingTimeInterval(Double(i / 10_000)))
        }
        XCTAssertTrue(limiter.admit(token: "fresh", now: t0.addingTimeInterval(100)))
    }
}
