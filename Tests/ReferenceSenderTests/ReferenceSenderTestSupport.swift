import Foundation
import XCTest
import PushDoubleCrypto
// The process runner, sender scripts and interop tier every file here uses.
@_exported import PushDoubleTestSupport

/// Runs the built `pushdouble-reference-sender` executable and talks JSON-RPC to it over
/// pipes, the way the conformance runner does. The sender is an executable target, so
/// tests can only reach it through the process.
/// @unchecked Sendable: the pipe handlers touch only the buffers, always under `lock`.
final class ReferenceSenderProcess: @unchecked Sendable {
    enum HarnessError: Error, CustomStringConvertible {
        case executableMissing(String)
        case timeout(String)
        case badReply(String)
        var description: String {
            switch self {
            case .executableMissing(let p): return "reference sender executable not found at \(p); build it with `swift build`"
            case .timeout(let w): return "timed out waiting for \(w)"
            case .badReply(let r): return "unparsable reply: \(r)"
            }
        }
    }

    let process = Process()
    private let stdinPipe = Pipe()
    private let stdoutPipe = Pipe()
    private let stderrPipe = Pipe()
    private let lock = NSCondition()
    private var outBuffer = Data()
    private var errBuffer = Data()
    private var stdoutClosed = false
    private var stderrClosed = false
    private var nextId = 1

    static var executableURL: URL { builtProduct(named: "pushdouble-reference-sender") }

    init(arguments: [String] = [], environment: [String: String] = [:]) throws {
        let url = Self.executableURL
        guard FileManager.default.isExecutableFile(atPath: url.path) else { throw HarnessError.executableMissing(url.path) }
        process.executableURL = url
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        for k in env.keys where k.hasPrefix("APNS_") || k == "PUSHDOUBLE_CA_FILE" { env[k] = nil }
        for (k, v) in environment { env[k] = v }
        process.environment = env
        process.standardInput = stdinPipe
        process.standardOutput = stdoutPipe
        process.standardError = stderrPipe
        stdoutPipe.fileHandleForReading.readabilityHandler = { [weak self] h in
            let d = h.availableData
            guard let self else { return }
            self.lock.lock()
            if d.isEmpty { self.stdoutClosed = true; h.readabilityHandler = nil } else { self.outBuffer.append(d) }
            self.lock.broadcast()
            self.lock.unlock()
        }
        stderrPipe.fileHandleForReading.readabilityHandler = { [weak self] h in
            let d = h.availableData
            guard let self else { return }
            self.lock.lock()
            if d.isEmpty { self.stderrClosed = true; h.readabilityHandler = nil } else { self.errBuffer.append(d) }
            self.lock.broadcast()
            self.lock.unlock()
        }
        try process.run()
    }

    deinit {
        if process.isRunning { process.terminate() }
    }

    /// Everything the sender wrote to stderr so far.
    var stderrText: String {
        lock.lock(); defer { lock.unlock() }
        return String(decoding: errBuffer, as: UTF8.self)
    }

    /// Everything the sender wrote to stderr, once it has closed stderr (after exit).
    func finalStderr(timeout: TimeInterval = 5) -> String {
        let deadline = Date().addingTimeInterval(timeout)
        lock.lock(); defer { lock.unlock() }
        while !stderrClosed && lock.wait(until: deadline) {}
        return String(decoding: errBuffer, as: UTF8.self)
    }

    /// Writes raw bytes to the sender's stdin.
    func write(raw: String) {
        stdinPipe.fileHandleForWriting.write(raw.data(using: .utf8)!)
    }

    func closeStdin() { try? stdinPipe.fileHandleForWriting.close() }

    /// The next stdout line, as text.
    func readLine(timeout: TimeInterval = 30) throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        lock.lock(); defer { lock.unlock() }
        while true {
            if let nl = outBuffer.firstIndex(of: 0x0A) {
                let line = outBuffer[outBuffer.startIndex..<nl]
                outBuffer.removeSubrange(outBuffer.startIndex...nl)
                return String(decoding: line, as: UTF8.self)
            }
            if stdoutClosed { throw HarnessError.timeout("a reply (stdout closed)") }
            if !lock.wait(until: deadline) { throw HarnessError.timeout("a reply") }
        }
    }

    /// The next stdout line parsed as a JSON object.
    func readReply(timeout: TimeInterval = 30) throws -> [String: Any] {
        let line = try readLine(timeout: timeout)
        guard let obj = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            throw HarnessError.badReply(line)
        }
        return obj
    }

    /// Sends a request and returns the whole reply object (result or error).
    @discardableResult
    func call(_ method: String, _ params: Any? = nil, timeout: TimeInterval = 30) throws -> [String: Any] {
        let id = nextId
        nextId += 1
        var msg: [String: Any] = ["jsonrpc": "2.0", "id": id, "method": method]
        if let params { msg["params"] = params }
        let data = try JSONSerialization.data(withJSONObject: msg)
        write(raw: String(decoding: data, as: UTF8.self) + "\n")
        let reply = try readReply(timeout: timeout)
        XCTAssertEqual(reply["id"] as? Int, id, "reply id")
        return reply
    }

    /// Sends a request and returns its `result`, failing the test on an error reply.
    func result(_ method: String, _ params: Any? = nil, file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        let reply = try call(method, params)
        guard let r = reply["result"] as? [String: Any] else {
            XCTFail("\(method) failed: \(reply)\nstderr: \(stderrText)", file: file, line: line)
            return [:]
        }
        return r
    }

    /// Waits for the process to exit; returns its status.
    func waitForExit(timeout: TimeInterval = 10) throws -> Int32 {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning {
            if Date() > deadline { process.terminate(); throw HarnessError.timeout("process exit") }
            usleep(10_000)
        }
        return process.terminationStatus
    }
}

/// Shared fixtures: a fresh P-256 `.p8` key made with the openssl CLI.
enum ReferenceSenderFixtures {
    static let keyId = "ABC123DEFG"
    static let teamId = "TEAM123456"
    static let topic = "com.example.app"
    static let productionURL = "https://127.0.0.1:1"
    static let sandboxURL = "https://127.0.0.1:2"

    static let keyFile: String = {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("refsender-tests-\(getpid())")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let path = dir.appendingPathComponent("AuthKey.p8").path
        // A fresh P-256 key as a PKCS#8 `.p8`, made by our own crypto (no openssl CLI needed).
        let pem = try! P256PrivateKey.generate().pemPKCS8
        try! pem.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }()

    static var apnsParams: [String: Any] {
        ["url": productionURL, "sandboxUrl": sandboxURL, "keyFile": keyFile, "keyId": keyId, "teamId": teamId, "topic": topic]
    }

    static var initializeParams: [String: Any] { ["protocolVersion": 1, "providers": ["apns": apnsParams]] }

    /// A hex device token, distinct per `n`.
    static func token(_ n: Int) -> String { String(repeating: String(format: "%02x", n % 256), count: 32) }

    static func device(_ id: String, token: String, environment: String = "production", topic: String? = nil) -> [String: Any] {
        var d: [String: Any] = ["id": id, "provider": "apns", "token": token, "environment": environment]
        if let topic { d["topic"] = topic }
        return d
    }
}

extension XCTestCase {
    /// Starts the sender in scripted-APNs mode and initializes it.
    func startScriptedSender(mutant: String? = nil, stacked: [String] = [], variant: String? = nil, seed: UInt64? = nil,
                             file: StaticString = #filePath, line: UInt = #line) throws -> ReferenceSenderProcess {
        var args = ["--scripted-apns"]
        if let mutant { args += ["--mutant", mutant] }
        for m in stacked { args += ["--mutant", m] }
        if let variant { args += ["--variant", variant] }
        if let seed { args += ["--seed", String(seed)] }
        let s = try ReferenceSenderProcess(arguments: args)
        let r = try s.result("initialize", ReferenceSenderFixtures.initializeParams, file: file, line: line)
        XCTAssertEqual(r["providers"] as? [String], ["apns"], file: file, line: line)
        return s
    }
}

extension ReferenceSenderProcess {
    func script(_ rules: [[String: Any]]) throws { _ = try result("test/script", ["rules": rules]) }

    /// Sends and returns the results keyed by device id.
    func send(_ notification: [String: Any], _ devices: [[String: Any]], file: StaticString = #filePath, line: UInt = #line) throws -> [String: [String: Any]] {
        let r = try result("send", ["notification": notification, "devices": devices], file: file, line: line)
        var out: [String: [String: Any]] = [:]
        for item in r["results"] as? [[String: Any]] ?? [] { out[item["device"] as? String ?? "?"] = item }
        XCTAssertEqual(out.count, devices.count, "one result per device", file: file, line: line)
        return out
    }

    func requests() throws -> [[String: Any]] { try result("test/requests")["requests"] as? [[String: Any]] ?? [] }
    func sleeps() throws -> [Double] { (try result("test/sleeps")["sleeps"] as? [Any] ?? []).compactMap { ($0 as? NSNumber)?.doubleValue } }
    func stats() throws -> [String: Int] {
        var out: [String: Int] = [:]
        for (k, v) in try result("test/stats") { out[k] = (v as? NSNumber)?.intValue }
        return out
    }
    func advanceClock(_ seconds: Double) throws { _ = try result("test/advanceClock", ["seconds": seconds]) }
}

extension Dictionary where Key == String, Value == Any {
    func headers() -> [String: String] { self["headers"] as? [String: String] ?? [:] }
    func outcome() -> String? { self["outcome"] as? String }
    func reason() -> String? { self["reason"] as? String }
}
