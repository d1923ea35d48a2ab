import Foundation
import XCTest
import PushDoubleJSON
import PushDoubleTestSupport
@testable import PushDoubleExpo

/// Token → project for the tests: tokens whose opaque part starts with `B` are in project B,
/// `U…` are unknown, everything else is in project A.
func testProject(_ token: String) -> String? {
    let inner = token.drop(while: { $0 != "[" }).dropFirst()
    if inner.hasPrefix("B") { return "@username/projectBBB" }
    if inner.hasPrefix("U") { return nil }
    return "@username/projectAAA"
}

/// A well-formed classic token: `ExponentPushToken[<opaque>]`.
func tok(_ opaque: String) -> String { "ExponentPushToken[\(opaque)]" }

/// Decodes `json` and fails the test if it is refused.
@discardableResult
func acceptSend(_ json: String, _ c: ExpoSendDecoderConfiguration = .init(),
                projectOf: (String) -> String? = testProject,
                file: StaticString = #filePath, line: UInt = #line) -> ExpoSendRequest? {
    do { return try ExpoSendRequestDecoder(configuration: c).decode(json: json, projectOf: projectOf) } catch {
        XCTFail("refused (\(error.rule)): \(error.bodyText)", file: file, line: line)
        return nil
    }
}

/// Decodes `body`, expects a refusal by `rule` and returns the error.
@discardableResult
func refuseSend(_ body: [UInt8], contentEncoding: String? = nil, _ rule: ExpoRule, _ c: ExpoSendDecoderConfiguration = .init(),
                projectOf: (String) -> String? = testProject,
                file: StaticString = #filePath, line: UInt = #line) -> ExpoRequestError? {
    do {
        let r = try ExpoSendRequestDecoder(configuration: c).decode(body: body, contentEncoding: contentEncoding, projectOf: projectOf)
        XCTFail("accepted, expected \(rule): \(r.recipients.count) recipients", file: file, line: line)
        return nil
    } catch {
        XCTAssertEqual(error.rule, rule, error.bodyText, file: file, line: line)
        return error
    }
}

@discardableResult
func refuseSend(_ json: String, _ rule: ExpoRule, _ c: ExpoSendDecoderConfiguration = .init(),
                projectOf: (String) -> String? = testProject,
                file: StaticString = #filePath, line: UInt = #line) -> ExpoRequestError? {
    refuseSend(Array(json.utf8), rule, c, projectOf: projectOf, file: file, line: line)
}

/// The compact form of a capture copied from docs/expo.md (pretty-printed there): parsing keeps
/// member order, so comparing our bytes to this is a byte-for-byte check of everything but
/// the whitespace docs/expo.md added for reading.
func compactCapture(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> String {
    do { return try JSONValue.parse(text).compactJSON } catch {
        XCTFail("capture does not parse: \(error)", file: file, line: line)
        return ""
    }
}

/// Committed binary fixtures (`Fixtures/`, made by `Fixtures/make_fixtures.py`), read via `#filePath`.
enum ExpoFixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    static func bytes(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: directory.appendingPathComponent(name)))
    }
}

/// `data` compressed by Python's gzip module (`mtime=0`), made at test time.
func pythonGzip(_ data: [UInt8], level: Int = 6, file: StaticString = #filePath, line: UInt = #line) throws -> [UInt8] {
    let script = "import sys,gzip; sys.stdout.write(gzip.compress(sys.stdin.buffer.read(), compresslevel=\(level), mtime=0).hex())"
    let r = try runCommand(["python3", "-c", script], input: Data(data))
    XCTAssertEqual(r.status, 0, r.stderr, file: file, line: line)
    return hex(r.stdout)
}

/// `count` zero bytes compressed by Python's zlib as a gzip stream (a decompression bomb).
func pythonGzipZeros(_ count: Int, file: StaticString = #filePath, line: UInt = #line) throws -> [UInt8] {
    let script = "import sys,gzip; sys.stdout.write(gzip.compress(bytes(\(count)), compresslevel=9, mtime=0).hex())"
    let r = try runCommand(["python3", "-c", script])
    XCTAssertEqual(r.status, 0, r.stderr, file: file, line: line)
    return hex(r.stdout)
}

/// `data` compressed by Python's zlib (`Content-Encoding: deflate`, zlib wrapper).
func pythonZlib(_ data: [UInt8], file: StaticString = #filePath, line: UInt = #line) throws -> [UInt8] {
    let script = "import sys,zlib; sys.stdout.write(zlib.compress(sys.stdin.buffer.read()).hex())"
    let r = try runCommand(["python3", "-c", script], input: Data(data))
    XCTAssertEqual(r.status, 0, r.stderr, file: file, line: line)
    return hex(r.stdout)
}

/// Deterministic ids `T1`, `T2`, … for receipt stores.
final class SequentialIDs: Sendable {
    private let next = Mutex(0)
    func callAsFunction() -> String { next.withLock { $0 += 1; return "T\($0)" } }
}

import Synchronization

extension ExpoRecipientVerdict {
    var rule: ExpoRule? {
        switch self {
        case .deliverable: return nil
        case .acceptedWithReceipt(_, let r), .refused(_, let r): return r
        }
    }
}
