// Test helpers shared by every PushDouble test target. Foundation only, so that even the
// pure-codec test targets (HPACK, Crypto) can use it without pulling in the transport.
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Bytes from an RFC-style hex dump ("8286 8441 …"); whitespace is ignored.
/// Traps on odd-length or non-hex text, which is a bug in the test data.
public func hex(_ s: String) -> [UInt8] {
    let digits = s.unicodeScalars.filter { !$0.properties.isWhitespace }.map { Character($0) }
    precondition(digits.count % 2 == 0, "odd hex string")
    var out: [UInt8] = []
    out.reserveCapacity(digits.count / 2)
    var i = 0
    while i < digits.count {
        out.append(UInt8(String(digits[i...i + 1]), radix: 16)!)
        i += 2
    }
    return out
}

/// Lower-case hex text of `bytes`, no separators.
public func hexString(_ bytes: [UInt8]) -> String {
    bytes.map { String(format: "%02x", $0) }.joined()
}

/// Deterministic PRNG (SplitMix64) so seeded fuzz and random tests replay exactly.
public struct SeededRandomNumberGenerator: RandomNumberGenerator, Sendable {
    public var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// What a finished (or timed-out and terminated) child process left behind.
public struct ProcessResult: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String
    /// Wall-clock time from launch to exit.
    public var seconds: Double
}

/// Collects one pipe's output on a background queue.
/// @unchecked Sendable: `data` is only touched under `lock`.
private final class PipeCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    func set(_ d: Data) { lock.lock(); data = d; lock.unlock() }
    var text: String { lock.lock(); defer { lock.unlock() }; return String(decoding: data, as: UTF8.self) }
}

/// Runs a command found on PATH (via /usr/bin/env), feeds it `input` (or an empty stdin),
/// and waits for it; after `timeout` seconds the process is terminated.
@discardableResult
public func runCommand(_ args: [String], input: Data? = nil, timeout: Double = 30) throws -> ProcessResult {
    if let tool = args.first { try requireTool(tool) }
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    p.arguments = args
    let out = Pipe(), err = Pipe()
    p.standardOutput = out
    p.standardError = err
    let inPipe = input.map { _ in Pipe() }
    p.standardInput = inPipe ?? FileHandle.nullDevice
    let start = Date()
    try p.run()
    if let inPipe, let input {
        inPipe.fileHandleForWriting.write(input)
        try? inPipe.fileHandleForWriting.close()
    }
    let outData = PipeCollector(), errData = PipeCollector()
    let g = DispatchGroup()
    g.enter(); DispatchQueue.global().async { outData.set(out.fileHandleForReading.readDataToEndOfFile()); g.leave() }
    g.enter(); DispatchQueue.global().async { errData.set(err.fileHandleForReading.readDataToEndOfFile()); g.leave() }
    let deadline = Date().addingTimeInterval(timeout)
    while p.isRunning && Date() < deadline { usleep(5_000) }
    if p.isRunning { p.terminate() }
    p.waitUntilExit()
    g.wait()
    return ProcessResult(status: p.terminationStatus, stdout: outData.text, stderr: errData.text,
                         seconds: Date().timeIntervalSince(start))
}

/// An executable product of this package, built next to the test bundle
/// (`.build/<config>/<name>`): XCTest on Linux runs `.build/<config>/<Package>PackageTests.xctest`.
public func builtProduct(named name: String) -> URL {
    var dir = Bundle.main.bundleURL
    if dir.pathExtension == "xctest" { dir = dir.deletingLastPathComponent() }
    let candidate = dir.appendingPathComponent(name)
    if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
    for b in Bundle.allBundles where b.bundleURL.pathExtension == "xctest" {
        let c = b.bundleURL.deletingLastPathComponent().appendingPathComponent(name)
        if FileManager.default.isExecutableFile(atPath: c.path) { return c }
    }
    return candidate
}

/// A tool a test drives is not on PATH: the failure names it and how to get it, instead of
/// a confusing "did not start listening" or exit status 127.
public struct MissingTool: Error, CustomStringConvertible {
    public let name: String
    public init(name: String) { self.name = name }
    /// The Debian package that provides each external tool the tests use.
    public static let packages: [String: String] = [
        "curl": "curl", "openssl": "openssl", "nghttpd": "nghttp2-server", "h2load": "nghttp2-client",
        "nghttp": "nghttp2-client", "nginx": "nginx-light", "xmllint": "libxml2-utils", "python3": "python3",
        "java": "default-jdk-headless", "keytool": "default-jdk-headless",
        "chromium": "chromium", "chromedriver": "chromium-driver",
    ]
    public var description: String {
        let install = Self.packages[name].map { ", or apt-get install \($0)" } ?? ""
        return "\(name) is not installed (run bash Tests/run.sh\(install))"
    }
}

/// Throws ``MissingTool`` when `name` is not an executable on PATH (absolute paths are checked
/// as they are).
public func requireTool(_ name: String) throws {
    if name.contains("/") {
        if FileManager.default.isExecutableFile(atPath: name) { return }
        throw MissingTool(name: name)
    }
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    for dir in path.split(separator: ":") where FileManager.default.isExecutableFile(atPath: "\(dir)/\(name)") { return }
    throw MissingTool(name: name)
}
