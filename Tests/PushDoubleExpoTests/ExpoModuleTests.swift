import Foundation
import XCTest
import PushDoubleCore
@testable import PushDoubleExpo

/// The module: options, device schema, sender material, listener spec.
final class ExpoModuleTests: XCTestCase {
    let module = ExpoModule()
    func context() -> ProviderBuildContext { ProviderBuildContext(clock: ManualClock(), file: "x.json", optionsPath: "fakeOptions.expo") }

    func testOptions() throws {
        let d = try module.configuration(options: nil, context: context())
        XCTAssertTrue(d.requireAccessToken)
        XCTAssertEqual(d.rateLimitPerSecond, 600)
        XCTAssertEqual(d.receiptAvailability, .afterDelay(seconds: 0))
        XCTAssertEqual(d.receiptRetention, 86_400)
        let c = try module.configuration(options: ["requireAccessToken": false, "accessToken": "tok", "receiptDelaySeconds": 2.5,
                                                   "rateLimitPerSecond": 0, "messageTooBig": "ticket", "receiptRetentionSeconds": 60,
                                                   "defaultProject": "@me/app"], context: context())
        XCTAssertFalse(c.requireAccessToken)
        XCTAssertEqual(c.accessToken, "tok")
        XCTAssertEqual(c.receiptAvailability, .afterDelay(seconds: 2.5))
        XCTAssertEqual(c.rateLimitPerSecond, 0)
        XCTAssertEqual(c.decoder.messageTooBig, .ticket)
        XCTAssertEqual(c.receiptRetention, 60)
        XCTAssertEqual(c.defaultProject, "@me/app")
        XCTAssertEqual(try module.configuration(options: ["holdReceipts": true, "receiptDelaySeconds": 3], context: context()).receiptAvailability,
                       .heldUntilReleased)
        let statuses = try module.configuration(options: ["errorStatuses": ["UNAUTHORIZED": 403, "PUSH_TOO_MANY_RECEIPTS": 413]], context: context())
        XCTAssertEqual(statuses.decoder.statuses.status(for: .unauthorized), 403)
        XCTAssertEqual(statuses.decoder.statuses.status(for: .tooManyReceipts), 413)
        XCTAssertEqual(statuses.decoder.statuses.status(for: .tooManyRequests), 429)
        for (bad, path) in [(["colour": "red"] as JSONValue, "fakeOptions.expo.colour"), (["holdReceipts": "yes"], "fakeOptions.expo.holdReceipts"),
                            (["receiptDelaySeconds": -1], "fakeOptions.expo.receiptDelaySeconds"), (["messageTooBig": "never"], "fakeOptions.expo.messageTooBig"),
                            (["accessToken": ""], "fakeOptions.expo.accessToken"), ("x", "fakeOptions.expo"),
                            (["errorStatuses": ["NOPE": 400]], "fakeOptions.expo.errorStatuses.NOPE"),
                            (["errorStatuses": ["UNAUTHORIZED": 200]], "fakeOptions.expo.errorStatuses.UNAUTHORIZED")] {
            XCTAssertThrowsError(try module.configuration(options: bad, context: context())) { e in
                XCTAssertEqual((e as? ScenarioError)?.path, path, "\(e)")
            }
        }
    }

    func testDeviceSchema() throws {
        func device(_ json: String) throws -> Device { try JSONDecoder().decode(Device.self, from: Data(json.utf8)) }
        var ok = try device(#"{"id":"d","provider":"expo","token":"ExponentPushToken[x]","receipt":"DeviceNotRegistered","topic":"@a/b"}"#)
        XCTAssertNoThrow(try module.validateDevice(&ok))
        for (json, field) in [(#"{"id":"d","provider":"expo","token":"ExponentPushToken[x]","receipt":"Gone"}"#, "receipt"),
                              (#"{"id":"d","provider":"expo","token":"ExponentPushToken[x]","receipt":3}"#, "receipt"),
                              (#"{"id":"d","provider":"expo","token":"ExponentPushToken[x]","colour":"red"}"#, "colour"),
                              (#"{"id":"d","provider":"expo","token":"abc"}"#, "token"),
                              (#"{"id":"d","provider":"expo","token":"ExponentPushToken[x]","environment":"sandbox"}"#, "environment")] {
            var d = try device(json)
            XCTAssertThrowsError(try module.validateDevice(&d)) { XCTAssertEqual(($0 as? DeviceSchemaError)?.field, field, json) }
        }
    }

    func testSenderMaterialAndListener() throws {
        let dir = FileManager.default.temporaryDirectory
        let endpoints = [DoubleEndpoint(name: "expo", provider: .expo, environment: nil, url: "https://127.0.0.1:8725", host: "127.0.0.1", port: 8725)]
        let on = try module.instantiate(options: nil, context: context())
        let m = try XCTUnwrap(try on.senderMaterial(SenderMaterialContext(endpoints: endpoints, caFile: "/ca.pem", directory: dir)))
        XCTAssertEqual(m.environment.map(\.0), ["EXPO_URL", "EXPO_BASE_URL", "EXPO_ACCESS_TOKEN"])
        XCTAssertEqual(m.environment.map(\.1), ["https://127.0.0.1:8725", "https://127.0.0.1:8725", ExpoFakeConfiguration.shippedAccessToken])
        XCTAssertEqual(m.driverParameters, ["url": "https://127.0.0.1:8725", "accessToken": .string(ExpoFakeConfiguration.shippedAccessToken), "caFile": "/ca.pem"])
        let off = try module.instantiate(options: ["requireAccessToken": false], context: context())
        let m2 = try XCTUnwrap(try off.senderMaterial(SenderMaterialContext(endpoints: endpoints, caFile: nil, directory: dir)))
        XCTAssertEqual(m2.environment.map(\.0), ["EXPO_URL", "EXPO_BASE_URL"])
        XCTAssertEqual(m2.driverParameters, ["url": "https://127.0.0.1:8725"])
        XCTAssertNil(try off.senderMaterial(SenderMaterialContext(endpoints: [], caFile: nil, directory: dir)))

        let spec = try XCTUnwrap(on.listeners.first)
        XCTAssertEqual(on.listeners.count, 1)
        XCTAssertEqual(spec.name, "expo")
        XCTAssertEqual(spec.defaultPort, 8725)
        XCTAssertEqual(spec.alpn, ["h2", "http/1.1"])
        XCTAssertTrue(spec.allowHTTP1 && spec.allowHTTP2 && spec.useTLS)
        XCTAssertEqual(spec.routes.map { "\($0.method) \($0.path)" }, ["POST /--/api/v2/push/send", "POST /--/api/v2/push/getReceipts"])
        XCTAssertEqual(module.listenerDefaults.map(\.name), ["expo"])
        XCTAssertEqual(module.listenerDefaults.map(\.realHosts), [["exp.host:443"]])
        XCTAssertEqual(on.adminRoutes.map(\.path), ["/expo/receipts/release"])
    }
}
