import Foundation
import XCTest
import PushDoubleTestSupport
import PushDoubleCore
import PushDoubleTransport
@testable import PushDouble

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
        let r = try runCommand(args, timeout: timeout + 5)
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

/// A running `curl -N` whose output is collected as it arrives; stopped by the test.
final class StreamingCurl: @unchecked Sendable {
    // @unchecked: `buffer` is only touched under `lock`; the process is driven by the test thread.
    private let process = Process()
    private let lock = NSLock()
    private var buffer = Data()

    init(_ url: String) throws {
        try requireTool("curl")
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["curl", "-sN", "--max-time", "30", url]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        out.fileHandleForReading.readabilityHandler = { [weak self] h in
            let d = h.availableData
            guard let self, !d.isEmpty else { return }
            self.lock.lock(); self.buffer.append(d); self.lock.unlock()
        }
        try process.run()
    }

    var text: String { lock.lock(); defer { lock.unlock() }; return String(decoding: buffer, as: UTF8.self) }

    /// Waits until `predicate(text)` holds or `timeout` passes; returns whether it held.
    @discardableResult
    func wait(timeout: Double = 10, until predicate: (String) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline { if predicate(text) { return true }; usleep(10_000) }
        return predicate(text)
    }

    func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }
}
