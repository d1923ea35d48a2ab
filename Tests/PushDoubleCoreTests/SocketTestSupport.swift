import Foundation
import XCTest
// Curl, the test fake and makeExchange, used by every file here.
@_exported import PushDoubleTestSupport
@_exported import PushDoubleCoreTestSupport
import PushDoubleCore
import PushDoubleTransport
@testable import PushDouble

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
