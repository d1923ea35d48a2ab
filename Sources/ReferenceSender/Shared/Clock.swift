import Foundation
import Synchronization

/// The sender's time source and sleeper: real time in production, virtual time in the
/// scripted test mode (sleeps are recorded and advance the clock at once).
protocol SenderClock: Sendable {
    /// Seconds since the UNIX epoch.
    func now() -> Double
    /// Waits `seconds` (no-op for ≤ 0).
    func sleep(seconds: Double) async
}

/// Wall-clock time and `Task.sleep`.
struct SystemSenderClock: SenderClock {
    func now() -> Double { Date().timeIntervalSince1970 }
    func sleep(seconds: Double) async {
        guard seconds > 0 else { return }
        try? await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
    }
}

/// Virtual time for the scripted test mode. Thread-safe through a mutex.
final class VirtualSenderClock: SenderClock {
    private struct State { var now: Double; var sleeps: [Double] = [] }
    private let state: Mutex<State>

    init(start: Double) { state = Mutex(State(now: start)) }

    func now() -> Double { state.withLock { $0.now } }
    func sleep(seconds: Double) async {
        state.withLock { s in
            s.sleeps.append(max(0, seconds))
            if seconds > 0 { s.now += seconds }
        }
        await Task.yield()
    }
    func advance(by seconds: Double) { state.withLock { $0.now += seconds } }
    /// Every sleep requested so far, in order.
    var sleeps: [Double] { state.withLock { $0.sleeps } }
}

/// Log lines go to stderr (stdout carries only JSON-RPC replies).
enum Log {
    static func info(_ message: @autoclosure () -> String) {
        var line = "pushdouble-reference-sender: " + message() + "\n"
        line.withUTF8 { buf in
            var off = 0
            while off < buf.count {
                let n = write(2, buf.baseAddress! + off, buf.count - off)
                if n <= 0 { break }
                off += n
            }
        }
    }
}
