import Foundation
import PushDoubleTransport
#if canImport(Glibc)
import Glibc
#endif

/// Reads newline-delimited lines from a file descriptor on a dedicated thread and hands
/// them to async code (splitting by the shared `LineSplitter`). A line longer than
/// `maxLineBytes` is not buffered: it is reported as ``Event/tooLong`` when it ends.
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
                LineSplitter.readLines(fd: fd, maxLineBytes: maxLineBytes) { piece in
                    switch piece {
                    case .line(let bytes): continuation.yield(.line(bytes))
                    case .overlong: continuation.yield(.tooLong)
                    }
                }
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
