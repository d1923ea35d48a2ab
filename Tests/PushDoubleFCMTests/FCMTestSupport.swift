import Foundation
import XCTest
import PushDoubleJSON
@testable import PushDoubleFCM

/// Validates `json` and fails the test if it is refused.
func accept(_ json: String, _ configuration: FCMValidatorConfiguration = FCMValidatorConfiguration(),
            file: StaticString = #filePath, line: UInt = #line) -> FCMMessage? {
    do { return try FCMSendRequestValidator(configuration: configuration).validate(json: json) } catch {
        XCTFail("refused (\(error.rule), \(error.field ?? "-")): \(error.message)", file: file, line: line)
        return nil
    }
}

/// Validates `json`, expects a refusal by `rule` (at `field` when given), returns the error.
@discardableResult
func refuse(_ json: String, _ rule: FCMValidationRule, field: String? = nil,
            _ configuration: FCMValidatorConfiguration = FCMValidatorConfiguration(),
            file: StaticString = #filePath, line: UInt = #line) -> FCMError? {
    do {
        let m = try FCMSendRequestValidator(configuration: configuration).validate(json: json)
        XCTFail("accepted, expected \(rule): \(m)", file: file, line: line)
        return nil
    } catch {
        XCTAssertEqual(error.rule, rule, "message: \(error.message)", file: file, line: line)
        if let field { XCTAssertEqual(error.field, field, file: file, line: line) }
        return error
    }
}

/// Wraps message members into a request body: `msg(#""token":"t""#)`.
func msg(_ members: String, validateOnly: String? = nil) -> String {
    "{\"message\":{\(members)}" + (validateOnly.map { ",\"validate_only\":\($0)" } ?? "") + "}"
}

/// The repository root (for Certificates/), from this file's path.
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// The shipped test service account, Certificates/firebase-test-service-account.json.
func shippedServiceAccountJSON() throws -> Data {
    try Data(contentsOf: repositoryRoot.appendingPathComponent("Certificates/firebase-test-service-account.json"))
}
