import XCTest
import PushDoubleTransport
@testable import PushDoubleAPNs

final class APNsRequestValidatorTests: XCTestCase {
    func testMinimalRequestPasses() {
        let (parsed, reason) = APNsRequestValidator.checkHeaders(Fixture.request())
        XCTAssertNil(reason)
        XCTAssertEqual(parsed.token, Fixture.token)
        XCTAssertEqual(parsed.topic, Fixture.topic)
        XCTAssertEqual(parsed.bundleID, Fixture.topic)
        XCTAssertEqual(parsed.pushType, .alert)
        XCTAssertEqual(parsed.priority, 10)
    }

    func testMethod() {
        assertReason(Fixture.request(method: "GET"), .methodNotAllowed)
        assertReason(Fixture.request(method: "PUT"), .methodNotAllowed)
        assertReason(Fixture.request(method: "post"), .methodNotAllowed)
    }

    func testPath() {
        assertReason(Fixture.request(path: "/3/device/"), .missingDeviceToken)
        assertReason(Fixture.request(path: "/3/device"), .badPath)
        assertReason(Fixture.request(path: "/2/device/\(Fixture.token)"), .badPath)
        assertReason(Fixture.request(path: "/3/devices/\(Fixture.token)"), .badPath)
        assertReason(Fixture.request(path: "/3/device/\(Fixture.token)/x"), .badPath)
        assertReason(Fixture.request(path: "/3/device/\(Fixture.token)?a=b"), .badPath)
        assertReason(Fixture.request(path: "/"), .badPath)
        // A malformed token is a device problem, decided after auth: not a header failure.
        assertReason(Fixture.request(path: "/3/device/xyz"), nil)
    }

    func testTokenFormat() {
        XCTAssertTrue(APNsRequestValidator.isWellFormedToken(Fixture.token))
        XCTAssertTrue(APNsRequestValidator.isWellFormedToken(Fixture.token.uppercased()))
        XCTAssertTrue(APNsRequestValidator.isWellFormedToken(String(repeating: "ab", count: 50)))
        XCTAssertTrue(APNsRequestValidator.isWellFormedToken(String(repeating: "ab", count: 100)))
        XCTAssertFalse(APNsRequestValidator.isWellFormedToken(String(repeating: "ab", count: 101)))
        XCTAssertFalse(APNsRequestValidator.isWellFormedToken(String(Fixture.token.dropLast(2))))
        XCTAssertFalse(APNsRequestValidator.isWellFormedToken(Fixture.token + "a"))
        XCTAssertFalse(APNsRequestValidator.isWellFormedToken(String(Fixture.token.dropLast()) + "g"))
        XCTAssertFalse(APNsRequestValidator.isWellFormedToken("fcm-token:APA91bH"))
    }

    /// Every byte in each position of a token and a topic: the bit tables say what the ranges say.
    func testTokenAndTopicCharactersByByte() {
        for c in 0...255 {
            let byte = UInt8(c)
            let hex = (0x30...0x39).contains(c) || (0x41...0x46).contains(c) || (0x61...0x66).contains(c)
            let topicChar = (0x30...0x39).contains(c) || (0x41...0x5a).contains(c) || (0x61...0x7a).contains(c) || c == 0x2d || c == 0x5f
            XCTAssertEqual(APNsRequestValidator.inByteSet(byte, APNsRequestValidator.topicCharacters), topicChar, "0x\(String(c, radix: 16))")
            guard c < 0x80 else { continue }
            let s = String(decoding: [byte], as: UTF8.self)
            XCTAssertEqual(APNsRequestValidator.isWellFormedToken(String(Fixture.token.dropLast()) + s), hex, "0x\(String(c, radix: 16))")
            XCTAssertEqual(APNsRequestValidator.isWellFormedToken(s + String(Fixture.token.dropFirst())), hex, "0x\(String(c, radix: 16))")
            XCTAssertEqual(APNsRequestValidator.isWellFormedTopic("com.exa" + s + "mple.app"), topicChar || c == 0x2e, "0x\(String(c, radix: 16))")
        }
        XCTAssertTrue(APNsRequestValidator.isWellFormedTopic("com.example.app.voip"))
        for bad in ["", ".", "com..example", ".com.example", "com.example.", "com.ex ample"] {
            XCTAssertFalse(APNsRequestValidator.isWellFormedTopic(bad), bad)
        }
    }

    func testDuplicateHeaders() {
        assertReason(Fixture.request(headers: [("apns-topic", Fixture.topic), ("apns-topic", Fixture.topic)]), .duplicateHeaders)
        assertReason(Fixture.request(headers: [("apns-topic", Fixture.topic), ("authorization", "bearer a"), ("Authorization", "bearer a")]), .duplicateHeaders)
        assertReason(Fixture.request(headers: [("apns-topic", Fixture.topic), ("x-custom", "1"), ("X-Custom", "2")]), .duplicateHeaders)
        assertReason(Fixture.request(headers: [("apns-topic", Fixture.topic), ("cookie", "a=1"), ("cookie", "b=2")]), nil)
        // Checked before the values: a repeated bad apns-id is DuplicateHeaders.
        assertReason(Fixture.request(headers: [("apns-topic", Fixture.topic), ("apns-id", "x"), ("apns-id", "x")]), .duplicateHeaders)
    }

    func testMessageID() {
        assertReason(Fixture.request(headers: [("apns-topic", Fixture.topic), ("apns-id", "not-a-uuid")]), .badMessageId)
        assertReason(Fixture.request(headers: [("apns-topic", Fixture.topic), ("apns-id", "123e4567-e89b-12d3-a456-42665544000")]), .badMessageId)
        let (p, r) = APNsRequestValidator.checkHeaders(Fixture.request(headers: [("apns-topic", Fixture.topic), ("apns-id", "0A9B8C7D-6E5F-4A3B-9C2D-1E0F9A8B7C6D")]))
        XCTAssertNil(r)
        XCTAssertEqual(p.apnsID, "0a9b8c7d-6e5f-4a3b-9c2d-1e0f9a8b7c6d")
    }

    func testTopic() {
        assertReason(Fixture.request(headers: []), .missingTopic)
        assertReason(Fixture.request(headers: [("apns-topic", "")]), .missingTopic)
        assertReason(Fixture.request(headers: [("apns-topic", "com example")]), .badTopic)
        assertReason(Fixture.request(headers: [("apns-topic", "com..example")]), .badTopic)
        assertReason(Fixture.request(headers: [("apns-topic", ".com.example")]), .badTopic)
        assertReason(Fixture.request(headers: [("apns-topic", "com.example/")]), .badTopic)
    }

    func testTopicSuffixPerPushType() {
        let b = Fixture.topic
        let good: [(String, String)] = [
            ("alert", b), ("background", b), ("location", b + ".location-query"), ("voip", b + ".voip"),
            ("complication", b + ".complication"), ("fileprovider", b + ".pushkit.fileprovider"),
            ("mdm", "com.apple.mgmt.External.0a9b8c7d"), ("liveactivity", b + ".push-type.liveactivity"),
            ("pushtotalk", b + ".voip-ptt"), ("widgets", b + ".push-type.widgets"), ("controls", b + ".push-type.controls"),
        ]
        XCTAssertEqual(good.count, APNsPushType.allCases.count)
        for (type, topic) in good {
            var headers = [("apns-topic", topic), ("apns-push-type", type)]
            if type == "background" { headers.append(("apns-priority", "5")) }
            let (p, r) = APNsRequestValidator.checkHeaders(Fixture.request(headers: headers))
            XCTAssertNil(r, type)
            XCTAssertEqual(p.pushType.rawValue, type)
            if type != "mdm" { XCTAssertEqual(p.bundleID, b, type) }
        }
        assertReason(Fixture.request(headers: [("apns-topic", b), ("apns-push-type", "voip")]), .badTopic)
        assertReason(Fixture.request(headers: [("apns-topic", b + ".voip"), ("apns-push-type", "alert")]), .badTopic)
        assertReason(Fixture.request(headers: [("apns-topic", b + ".voip"), ("apns-push-type", "pushtotalk")]), .badTopic)
        assertReason(Fixture.request(headers: [("apns-topic", b + ".voip-ptt"), ("apns-push-type", "voip")]), .badTopic)
        assertReason(Fixture.request(headers: [("apns-topic", b), ("apns-push-type", "controls")]), .badTopic)
        assertReason(Fixture.request(headers: [("apns-topic", b + ".push-type.widgets"), ("apns-push-type", "controls")]), .badTopic)
        assertReason(Fixture.request(headers: [("apns-topic", b + ".push-type.controls"), ("apns-push-type", "widgets")]), .badTopic)
    }

    func testSplitTopic() {
        XCTAssertTrue(APNsPushType.splitTopic("com.a.voip") == ("com.a", .voip))
        XCTAssertTrue(APNsPushType.splitTopic("com.a.voip-ptt") == ("com.a", .pushtotalk))
        XCTAssertTrue(APNsPushType.splitTopic("com.a.pushkit.fileprovider") == ("com.a", .fileprovider))
        XCTAssertTrue(APNsPushType.splitTopic("com.a.push-type.liveactivity") == ("com.a", .liveactivity))
        XCTAssertTrue(APNsPushType.splitTopic("com.a.push-type.controls") == ("com.a", .controls))
        XCTAssertTrue(APNsPushType.splitTopic("com.a.push-type.widgets") == ("com.a", .widgets))
        XCTAssertTrue(APNsPushType.splitTopic("com.a") == ("com.a", nil))
        XCTAssertTrue(APNsPushType.splitTopic(".voip") == (".voip", nil))
        XCTAssertTrue(APNsPushType.splitTopic("com.avoip") == ("com.avoip", nil))
        XCTAssertTrue(APNsPushType.splitTopic("") == ("", nil))
        XCTAssertTrue(APNsPushType.splitTopic("é.voip") == ("é", .voip))
    }

    func testPushTypeInferredFromSuffixWhenAbsent() {
        let (p, r) = APNsRequestValidator.checkHeaders(Fixture.request(headers: [("apns-topic", Fixture.topic + ".voip")]))
        XCTAssertNil(r)
        XCTAssertEqual(p.pushType, .voip)
        XCTAssertNil(p.declaredPushType)
        XCTAssertEqual(p.pushType.payloadLimit, 5120)
    }

    func testPushType() {
        assertReason(Fixture.request(headers: [("apns-topic", Fixture.topic), ("apns-push-type", "Alert")]), .invalidPushType)
        assertReason(Fixture.request(headers: [("apns-topic", Fixture.topic), ("apns-push-type", "")]), .invalidPushType)
        assertReason(Fixture.request(headers: [("apns-topic", Fixture.topic), ("apns-push-type", "silent")]), .invalidPushType)
    }

    func testPriority() {
        for p in ["10", "5", "1"] { assertReason(Fixture.request(headers: [("apns-topic", Fixture.topic), ("apns-priority", p)]), nil) }
        for p in ["0", "11", "", " 10", "high", "05"] {
            assertReason(Fixture.request(headers: [("apns-topic", Fixture.topic), ("apns-priority", p)]), .badPriority)
        }
        assertReason(Fixture.request(headers: [("apns-topic", Fixture.topic), ("apns-push-type", "background"), ("apns-priority", "10")]), .badPriority)
        assertReason(Fixture.request(headers: [("apns-topic", Fixture.topic), ("apns-push-type", "background"), ("apns-priority", "5")]), nil)
        // Omitted priority on background is not refused (clients such as apns2 omit it).
        assertReason(Fixture.request(headers: [("apns-topic", Fixture.topic), ("apns-push-type", "background")]), nil)
    }

    func testExpiration() {
        for e in ["0", "1700000000", "9223372036854775807"] {
            assertReason(Fixture.request(headers: [("apns-topic", Fixture.topic), ("apns-expiration", e)]), nil)
        }
        for e in ["", "-1", "1.5", "1700000000000000000000", "soon", "9223372036854775808", " 1"] {
            assertReason(Fixture.request(headers: [("apns-topic", Fixture.topic), ("apns-expiration", e)]), .badExpirationDate)
        }
    }

    func testCollapseIDCountsUTF8Bytes() {
        assertReason(Fixture.request(headers: [("apns-topic", Fixture.topic), ("apns-collapse-id", String(repeating: "a", count: 64))]), nil)
        assertReason(Fixture.request(headers: [("apns-topic", Fixture.topic), ("apns-collapse-id", String(repeating: "a", count: 65))]), .badCollapseId)
        // "é" is 2 bytes: 32 of them are 64 bytes (fine), 33 are 66 bytes (too long).
        assertReason(Fixture.request(headers: [("apns-topic", Fixture.topic), ("apns-collapse-id", String(repeating: "é", count: 32))]), nil)
        assertReason(Fixture.request(headers: [("apns-topic", Fixture.topic), ("apns-collapse-id", String(repeating: "é", count: 33))]), .badCollapseId)
    }

    func testOrder() {
        assertReason(Fixture.request(method: "GET", path: "/x", headers: []), .methodNotAllowed)
        assertReason(Fixture.request(path: "/x", headers: [("apns-id", "bad")]), .badPath)
        assertReason(Fixture.request(headers: [("apns-id", "bad")]), .badMessageId)
        assertReason(Fixture.request(headers: [("apns-collapse-id", String(repeating: "a", count: 65))]), .missingTopic)
        assertReason(Fixture.request(headers: [("apns-topic", Fixture.topic), ("apns-collapse-id", String(repeating: "a", count: 65)), ("apns-priority", "9")]), .badCollapseId)
        assertReason(Fixture.request(headers: [("apns-topic", Fixture.topic), ("apns-priority", "9"), ("apns-push-type", "x")]), .badPriority)
        assertReason(Fixture.request(headers: [("apns-topic", "bad topic"), ("apns-push-type", "x")]), .invalidPushType)
        assertReason(Fixture.request(headers: [("apns-topic", "bad topic"), ("apns-expiration", "x")]), .badTopic)
    }

    func testEarlyFailureStillRecordsTokenAndTopic() {
        let (p, r) = APNsRequestValidator.checkHeaders(Fixture.request(method: "GET"))
        XCTAssertEqual(r, .methodNotAllowed)
        XCTAssertEqual(p.token, Fixture.token)
        XCTAssertEqual(p.topic, Fixture.topic)
    }
}
