import Foundation
import PushDoubleCore

/// Thread-safe text writer for stdout/stderr (exchange logs come from event-loop threads).
final class Console: Sendable {
    private let lock = Locked<Void>(())
    private let sink: @Sendable (String) -> Void
    /// Write errors (a closed stdout) are ignored rather than trapping.
    init(_ handle: FileHandle) { sink = { try? handle.write(contentsOf: Data($0.utf8)) } }
    /// A console that hands text to `sink` (tests capture output this way).
    init(sink: @escaping @Sendable (String) -> Void) { self.sink = sink }
    static let standardOutput = Console(.standardOutput)
    static let standardError = Console(.standardError)
    func write(_ text: String) { lock.withLock { _ in sink(text) } }
    func line(_ text: String) { write(text + "\n") }
}
