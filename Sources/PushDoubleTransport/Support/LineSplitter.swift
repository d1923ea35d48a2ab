#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Splits a byte stream into newline-terminated lines with bounded memory (the driver
/// protocol's JSON Lines, read by the conformance runner and by the reference sender).
///
/// A line longer than `maxLineBytes` is not buffered: its first ``prefixBytes`` bytes are
/// kept and it is reported once as ``Piece/overlong(prefix:)`` when its newline (or the end
/// of the stream) arrives. Lines are given without the `\n`; a `\r` before it is kept.
/// A value type: one splitter per stream, used from one thread.
public struct LineSplitter: Sendable {
    /// One completed line, or the report of a line that was too long.
    public enum Piece: Sendable, Equatable {
        case line([UInt8])
        case overlong(prefix: [UInt8])
    }

    /// How much of an over-long line is kept for the report.
    public static let prefixBytes = 200

    public let maxLineBytes: Int
    private var current: [UInt8] = []
    private var overlong = false

    public init(maxLineBytes: Int) { self.maxLineBytes = maxLineBytes }

    /// Feeds `bytes`; calls `emit` for each line completed by them.
    public mutating func feed(_ bytes: UnsafeBufferPointer<UInt8>, emit: (Piece) -> Void) {
        var start = 0
        for i in 0..<bytes.count where bytes[i] == 0x0A {
            if !overlong { current.append(contentsOf: bytes[start..<i]) }
            lineEnded(emit)
            start = i + 1
        }
        if !overlong && start < bytes.count {
            current.append(contentsOf: bytes[start..<bytes.count])
            if current.count > maxLineBytes {
                overlong = true
                current.removeSubrange(min(current.count, Self.prefixBytes)...)
            }
        }
    }

    /// Ends the stream: a last line without a newline is emitted too.
    public mutating func finish(emit: (Piece) -> Void) {
        if overlong || !current.isEmpty { lineEnded(emit) }
    }

    private mutating func lineEnded(_ emit: (Piece) -> Void) {
        if overlong || current.count > maxLineBytes {
            emit(.overlong(prefix: Array(current.prefix(Self.prefixBytes))))
        } else {
            emit(.line(current))
        }
        current.removeAll(keepingCapacity: current.count <= 64 << 10)
        overlong = false
    }

    /// Reads `fd` until end of file or a read error (`EINTR` is retried), calling `emit` for
    /// each line, the last unterminated one included. Blocks the calling thread.
    public static func readLines(fd: Int32, maxLineBytes: Int, emit: (Piece) -> Void) {
        var splitter = LineSplitter(maxLineBytes: maxLineBytes)
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            buffer.withUnsafeBufferPointer { splitter.feed(UnsafeBufferPointer(rebasing: $0[0..<n]), emit: emit) }
        }
        splitter.finish(emit: emit)
    }
}
