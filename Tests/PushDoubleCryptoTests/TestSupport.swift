import Foundation
import XCTest
import PushDoubleTestSupport
@testable import PushDoubleCrypto

/// base64url text → bytes for fixtures; fails the test on bad input.
func b64(_ s: String, file: StaticString = #filePath, line: UInt = #line) -> [UInt8] {
    do { return try Base64URL.decode(s) } catch {
        XCTFail("bad fixture base64url: \(error)", file: file, line: line)
        return []
    }
}

/// Asserts that `body` throws exactly `expected`.
func assertThrows<T>(_ expected: CryptoError, file: StaticString = #filePath, line: UInt = #line,
                     _ body: () throws -> T) {
    do {
        let v = try body()
        XCTFail("expected \(expected), got value \(v)", file: file, line: line)
    } catch let e as CryptoError {
        XCTAssertEqual(e, expected, file: file, line: line)
    } catch {
        XCTFail("expected \(expected), got \(error)", file: file, line: line)
    }
}

/// Asserts that `body` throws a CryptoError matching `predicate` (for cases carrying free text).
func assertThrows<T>(file: StaticString = #filePath, line: UInt = #line, matching predicate: (CryptoError) -> Bool,
                     _ body: () throws -> T) {
    do {
        let v = try body()
        XCTFail("expected an error, got value \(v)", file: file, line: line)
    } catch let e as CryptoError {
        XCTAssertTrue(predicate(e), "unexpected error \(e)", file: file, line: line)
    } catch {
        XCTFail("unexpected non-crypto error \(error)", file: file, line: line)
    }
}

/// Runs the `openssl` CLI with `arguments`; returns (exit status, stdout, stderr).
@discardableResult
func runOpenSSL(_ arguments: [String], stdin: [UInt8]? = nil) throws -> (status: Int32, stdout: String, stderr: String) {
    try requireTool("openssl")
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    p.arguments = ["openssl"] + arguments
    let out = Pipe(), err = Pipe(), inp = Pipe()
    p.standardOutput = out
    p.standardError = err
    p.standardInput = inp
    try p.run()
    if let stdin { inp.fileHandleForWriting.write(Data(stdin)) }
    try inp.fileHandleForWriting.close()
    let o = out.fileHandleForReading.readDataToEndOfFile()
    let e = err.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return (p.terminationStatus, String(decoding: o, as: UTF8.self), String(decoding: e, as: UTF8.self))
}

/// A fresh temporary directory, removed at the end of the test.
func temporaryDirectory(_ test: XCTestCase) throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("pd-crypto-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    test.addTeardownBlock { try? FileManager.default.removeItem(at: url) }
    return url
}

/// The repository root (Tests/PushDoubleCryptoTests/<file> → ../..).
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// Writes `contents` to `name` inside `dir` and returns the path.
@discardableResult
func writeFile(_ dir: URL, _ name: String, _ contents: [UInt8]) throws -> String {
    let url = dir.appendingPathComponent(name)
    try Data(contents).write(to: url)
    return url.path
}

@discardableResult
func writeFile(_ dir: URL, _ name: String, _ contents: String) throws -> String {
    try writeFile(dir, name, Array(contents.utf8))
}

func readFile(_ path: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))) }

/// Runs openssl and fails the test (returning stdout anyway) when it exits non-zero.
@discardableResult
func openssl(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> String {
    let r = try runOpenSSL(arguments)
    XCTAssertEqual(r.status, 0, "openssl \(arguments.joined(separator: " ")): \(r.stderr)", file: file, line: line)
    return r.stdout
}
