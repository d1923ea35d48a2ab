import Foundation
import XCTest
import PushDoubleCore
import PushDoubleTransport
@testable import PushDouble

struct CommandResult { var status: Int32; var stdout: String; var stderr: String; var seconds: Double }

/// Runs a command found on PATH and waits for it (with a timeout).
@discardableResult
func run(_ args: [String], timeout: Double = 20) throws -> CommandResult {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    p.arguments = args
    let out = Pipe(), err = Pipe()
    p.standardOutput = out
    p.standardError = err
    p.standardInput = FileHandle.nullDevice
    let start = Date()
    try p.run()
    let outData = Locked(Data()), errData = Locked(Data())
    let g = DispatchGroup()
    g.enter(); DispatchQueue.global().async { let d = out.fileHandleForReading.readDataToEndOfFile(); outData.withLock { $0 = d }; g.leave() }
    g.enter(); DispatchQueue.global().async { let d = err.fileHandleForReading.readDataToEndOfFile(); errData.withLock { $0 = d }; g.leave() }
    let deadline = Date().addingTimeInterval(timeout)
    while p.isRunning && Date() < deadline { usleep(5_000) }
    if p.isRunning { p.terminate() }
    p.waitUntilExit()
    g.wait()
    return CommandResult(status: p.terminationStatus, stdout: String(decoding: outData.withLock { $0 }, as: UTF8.self),
                         stderr: String(decoding: errData.withLock { $0 }, as: UTF8.self), seconds: Date().timeIntervalSince(start))
}

/// curl with `-s -w '\n%{http_code}'`: returns (status code, body, curl exit status).
struct Curl {
    var code: Int
    var body: String
    var exit: Int32
    var stderr: String
    var headers: String
    var seconds: Double

    static func call(_ method: String, _ url: String, body: String? = nil, headers: [String] = [], extra: [String] = [],
                     timeout: Double = 10) throws -> Curl {
        let headerFile = FileManager.default.temporaryDirectory.appendingPathComponent("pd-curl-h-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: headerFile) }
        var args = ["curl", "-sS", "-X", method, "-D", headerFile, "-w", "\n%{http_code}", "--max-time", String(timeout)]
        for h in headers { args += ["-H", h] }
        if let b = body { args += ["--data-binary", b, "-H", "content-type: application/json"] }
        args += extra
        args.append(url)
        let r = try run(args, timeout: timeout + 5)
        var lines = r.stdout.components(separatedBy: "\n")
        let code = Int(lines.popLast() ?? "") ?? 0
        let h = (try? String(contentsOfFile: headerFile, encoding: .utf8)) ?? ""
        return Curl(code: code, body: lines.joined(separator: "\n"), exit: r.status, stderr: r.stderr, headers: h, seconds: r.seconds)
    }

    func header(_ name: String) -> String? {
        for line in headers.components(separatedBy: "\r\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            if line[..<colon].lowercased() == name.lowercased() {
                return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }

    var json: Any? { try? JSONSerialization.jsonObject(with: Data(body.utf8)) }
}

/// A PushDoubleServer with the test fake on a cleartext listener, all on ephemeral ports.
func startTestServer(file: StaticString = #filePath, line: UInt = #line) throws -> PushDoubleServer {
    let spec = FakeListenerSpec(name: "test", defaultPort: 0, fake: TestFake(), environment: "production", useTLS: false)
    var config = PushDoubleConfiguration(fakes: [spec], credentials: nil)
    config.ephemeralPorts = true
    config.eventLoopCount = 1
    config.streamHeartbeat = 0.2
    let server = PushDoubleServer(configuration: config)
    try server.start()
    return server
}

extension PushDoubleServer {
    var adminURL: String { endpoint(named: "admin")!.url }
    var fakeURL: String { endpoint(named: "test")!.url }
}
