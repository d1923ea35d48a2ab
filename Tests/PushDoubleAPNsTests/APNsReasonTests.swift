import XCTest
import PushDoubleTransport
@testable import PushDoubleAPNs

final class APNsReasonTests: XCTestCase {
    /// docs/apns.md §7.2, row by row: (status, reason).
    static let table: [(Int, String)] = [
        (400, "BadCollapseId"), (400, "BadDeviceToken"), (400, "BadExpirationDate"), (400, "BadMessageId"),
        (400, "BadPriority"), (400, "BadTopic"), (400, "DeviceTokenNotForTopic"), (400, "DuplicateHeaders"),
        (400, "IdleTimeout"), (400, "InvalidPushType"), (400, "MissingDeviceToken"), (400, "MissingTopic"),
        (400, "PayloadEmpty"), (400, "TopicDisallowed"),
        (403, "BadCertificate"), (403, "BadCertificateEnvironment"), (403, "ExpiredProviderToken"), (403, "Forbidden"),
        (403, "InvalidProviderToken"), (403, "MissingProviderToken"), (403, "UnrelatedKeyIdInToken"),
        (403, "BadEnvironmentKeyInToken"),
        (404, "BadPath"), (405, "MethodNotAllowed"), (410, "ExpiredToken"), (410, "Unregistered"),
        (413, "PayloadTooLarge"), (429, "TooManyProviderTokenUpdates"), (429, "TooManyRequests"),
        (500, "InternalServerError"), (503, "ServiceUnavailable"), (503, "Shutdown"),
    ]

    func testTableMatchesProtocolDocument() {
        XCTAssertEqual(APNsReason.providerAPIReasons.count, Self.table.count)
        for (status, wire) in Self.table {
            guard let r = APNsReason(rawValue: wire) else { XCTFail("missing \(wire)"); continue }
            XCTAssertEqual(r.status, status, wire)
            XCTAssertTrue(r.isConfirmed, wire)
        }
    }

    func testBroadcastReasonsAreUnconfirmed() throws {
        let broadcast = ["FeatureNotEnabled", "MissingChannelId", "BadChannelId", "ChannelNotRegistered", "BadRequestParams",
                         "BadRequestPayload", "MissingPushType", "CannotCreateChannelConfig", "TopicMismatch", "MissingChannelQueueSize"]
        for wire in broadcast {
            let r = try XCTUnwrap(APNsReason(rawValue: wire))
            XCTAssertFalse(r.isConfirmed, wire)
        }
        XCTAssertEqual(APNsReason.allCases.count, Self.table.count + broadcast.count)
    }

    func testEnvironmentKeySpellings() {
        XCTAssertEqual(APNsReason(wireString: "BadEnvironmentKeyIdInToken"), .badEnvironmentKeyInToken)
        XCTAssertEqual(APNsReason(wireString: "BadEnvironmentKeyInToken"), .badEnvironmentKeyInToken)
        XCTAssertEqual(APNsEnvironmentKeySpelling.wire.string(for: .badEnvironmentKeyInToken), "BadEnvironmentKeyInToken")
        XCTAssertEqual(APNsEnvironmentKeySpelling.documented.string(for: .badEnvironmentKeyInToken), "BadEnvironmentKeyIdInToken")
        XCTAssertEqual(APNsEnvironmentKeySpelling.documented.string(for: .badTopic), "BadTopic")
    }

    func testPermanentReasonsFollowApplesRetryRule() {
        let permanent = Set(APNsReason.allCases.filter(\.isPermanent).map(\.rawValue))
        XCTAssertEqual(permanent, ["BadDeviceToken", "DeviceTokenNotForTopic", "Forbidden", "ExpiredToken", "Unregistered", "PayloadTooLarge"])
    }
}

final class APNsResponseBuilderTests: XCTestCase {
    let id = "0a9b8c7d-6e5f-4a3b-9c2d-1e0f9a8b7c6d"

    func testSuccessIsHeadersOnly() {
        let r = APNsResponseBuilder().success(apnsID: id)
        XCTAssertEqual(r.status, 200)
        XCTAssertEqual(r.framing, .headersOnly)
        XCTAssertEqual(r.body, [])
        XCTAssertEqual(r.headers.fields, [HTTPHeaders.Field(name: "apns-id", value: id)])
    }

    func testSandboxSuccessCarriesUniqueID() {
        let r = APNsResponseBuilder().success(apnsID: id, uniqueID: "11111111-2222-4333-8444-555555555555")
        XCTAssertEqual(r.headers.fields.map(\.name), ["apns-id", "apns-unique-id"])
    }

    func testErrorBodyIsCompactJSONInOneDataFrame() {
        let r = APNsResponseBuilder().error(.badDeviceToken, apnsID: id)
        XCTAssertEqual(r.status, 400)
        XCTAssertEqual(r.framing, .singleDataFrame)
        XCTAssertEqual(String(decoding: r.body, as: UTF8.self), #"{"reason":"BadDeviceToken"}"#)
        XCTAssertEqual(r.headers.fields, [HTTPHeaders.Field(name: "apns-id", value: id),
                                          HTTPHeaders.Field(name: "content-type", value: "application/json")])
    }

    func testTimestampOnlyOn410() {
        let b = APNsResponseBuilder()
        XCTAssertEqual(String(decoding: b.error(.unregistered, apnsID: id, timestampMilliseconds: 1508249865488).body, as: UTF8.self),
                       #"{"reason":"Unregistered","timestamp":1508249865488}"#)
        // Same reason forced to 400 by a fault rule: no timestamp.
        XCTAssertEqual(String(decoding: b.error(.unregistered, status: 400, apnsID: id, timestampMilliseconds: 1).body, as: UTF8.self),
                       #"{"reason":"Unregistered"}"#)
        XCTAssertEqual(String(decoding: b.error(.badTopic, apnsID: id, timestampMilliseconds: 5).body, as: UTF8.self),
                       #"{"reason":"BadTopic"}"#)
    }

    func testDocumentedSpellingIsConfigurable() {
        let r = APNsResponseBuilder(environmentKeySpelling: .documented).error(.badEnvironmentKeyInToken, apnsID: id)
        XCTAssertEqual(String(decoding: r.body, as: UTF8.self), #"{"reason":"BadEnvironmentKeyIdInToken"}"#)
        XCTAssertEqual(r.status, 403)
    }

    func testExtraHeadersAppended() {
        let r = APNsResponseBuilder().error(.tooManyRequests, apnsID: id, extraHeaders: ["retry-after": "7"])
        XCTAssertEqual(r.headers.fields.map(\.name), ["apns-id", "content-type", "retry-after"])
    }

    func testEscaping() {
        XCTAssertEqual(String(decoding: APNsResponseBuilder.errorBody(reason: "a\"b\\c\n", timestampMilliseconds: nil), as: UTF8.self),
                       #"{"reason":"a\"b\\c\u000a"}"#)
    }
}

final class APNsMessageIDTests: XCTestCase {
    func testCanonical() {
        XCTAssertEqual(APNsMessageID.canonical("0a9b8c7d-6e5f-4a3b-9c2d-1e0f9a8b7c6d"), "0a9b8c7d-6e5f-4a3b-9c2d-1e0f9a8b7c6d")
        XCTAssertEqual(APNsMessageID.canonical("0A9B8C7D-6E5F-4A3B-9C2D-1E0F9A8B7C6D"), "0a9b8c7d-6e5f-4a3b-9c2d-1e0f9a8b7c6d")
        // Apple's own doc example has 11 digits in the last group: invalid.
        XCTAssertNil(APNsMessageID.canonical("123e4567-e89b-12d3-a456-42665544000"))
        XCTAssertNil(APNsMessageID.canonical("0a9b8c7d6e5f4a3b9c2d1e0f9a8b7c6d"))
        XCTAssertNil(APNsMessageID.canonical("0a9b8c7d-6e5f-4a3b-9c2d-1e0f9a8b7c6g"))
        XCTAssertNil(APNsMessageID.canonical("{a9b8c7d-6e5f-4a3b-9c2d-1e0f9a8b7c6d"))
        XCTAssertNil(APNsMessageID.canonical(""))
    }

    func testGenerateIsCanonicalV4AndUnique() {
        var seen = Set<String>()
        for _ in 0..<200 {
            let id = APNsMessageID.generate()
            XCTAssertEqual(APNsMessageID.canonical(id), id)
            let chars = Array(id)
            XCTAssertEqual(chars[14], "4")
            XCTAssertTrue("89ab".contains(chars[19]))
            seen.insert(id)
        }
        XCTAssertEqual(seen.count, 200)
        XCTAssertEqual(APNsMessageID.format(high: 0x0123456789abcdef, low: 0xfedcba9876543210), "01234567-89ab-cdef-fedc-ba9876543210")
    }
}
