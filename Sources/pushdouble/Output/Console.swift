import Foundation
import PushDoubleTransport
import PushDoubleCore

/// Thread-safe text writer for stdout/stderr (exchange logs come from event-loop threads).
final class Console: Sendable {
    private let lock = Locked<Void>(())
    private let sink: @Sendable (String) -> Void
    /// Writes UTF-8 as is (the exchange log's batches: no String made of them).
    private let utf8Sink: @Sendable ([UInt8]) -> Void
    /// Write errors (a closed stdout) are ignored rather than trapping.
    init(_ handle: FileHandle) {
        sink = { try? handle.write(contentsOf: Data($0.utf8)) }
        utf8Sink = { try? handle.write(contentsOf: $0) }
    }
    /// A console that hands text to `sink` (tests capture output this way).
    init(sink: @escaping @Sendable (String) -> Void) {
        self.sink = sink
        utf8Sink = { sink(String(decoding: $0, as: UTF8.self)) }
    }
    static let standardOutput = Console(.standardOutput)
    static let standardError = Console(.standardError)
    func write(_ text: String) { lock.withLock { _ in sink(text) } }
    func write(utf8 bytes: [UInt8]) { lock.withLock { _ in utf8Sink(bytes) } }
    func line(_ text: String) { write(text + "\n") }
}
