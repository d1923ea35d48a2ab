import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Reads newline-delimited lines from a file descriptor on a dedicated thread and hands
/// them to async code. A line longer than `maxLineBytes` is not buffered: it is reported
/// as ``Event/tooLong`` and skipped up to the next newline, so memory stays bounded.
enum LineReader {
    enum Event: Sendable {
        case line([UInt8])
        case tooLong
    }

    static let maxLineBytes = 16 << 20

    /// Starts reading `fd`; the stream finishes at end of file or on a read error.
    static func lines(fd: Int32 = 0, maxLineBytes: Int = maxLineBytes) -> AsyncStream<Event> {
        AsyncStream { continuation in
            let thread = Thread {
                var pending: [UInt8] = []
                var discarding = false
                var buffer = [UInt8](repeating: 0, count: 64 * 1024)
                while true {
                    let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                    if n < 0 && errno == EINTR { continue }
                    if n <= 0 { break }
                    var start = 0
                    for i in 0..<n where buffer[i] == 0x0A {
                        if discarding {
                            discarding = false
                        } else {
                            pending.append(contentsOf: buffer[start..<i])
                            if pending.count > maxLineBytes { continuation.yield(.tooLong) }
                            else { continuation.yield(.line(pending)) }
                        }
                        pending.removeAll(keepingCapacity: true)
                        start = i + 1
                    }
                    if !discarding && start < n {
                        pending.append(contentsOf: buffer[start..<n])
                        if pending.count > maxLineBytes {
                            continuation.yield(.tooLong)
                            pending.removeAll()
                            discarding = true
                        }
                    }
                }
                if !discarding && !pending.isEmpty { continuation.yield(.line(pending)) }
                continuation.finish()
            }
            thread.start()
        }
    }
}

/// Writes whole lines to stdout with `write(2)`: no buffering, so each reply is flushed
/// as soon as it is written, and nothing else ever goes to stdout.
enum StdoutWriter {
    static func writeLine(_ bytes: [UInt8]) {
        var line = bytes
        line.append(0x0A)
        line.withUnsafeBytes { buf in
            var off = 0
            while off < buf.count {
                let n = write(1, buf.baseAddress! + off, buf.count - off)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                off += n
            }
        }
    }
}
