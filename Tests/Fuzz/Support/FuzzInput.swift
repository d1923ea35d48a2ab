/// Reads a libFuzzer input as a stream of decisions and byte runs, so that one input can
/// choose decoder options and split itself into several pieces (header blocks, socket
/// reads). Reading past the end yields zeros and empty runs: every input is valid.
///
/// The layout conventions are shared by the fuzz targets and `fuzz-seeds`, which writes
/// the seed corpus in the same format (see ``FuzzInput/encodeChunks(_:)``).
public struct FuzzInput {
    private let bytes: UnsafeRawBufferPointer
    private var offset = 0

    /// Wraps the `(data, size)` pair libFuzzer passes to `LLVMFuzzerTestOneInput`.
    public init(_ data: UnsafePointer<UInt8>, _ size: Int) {
        bytes = UnsafeRawBufferPointer(start: data, count: size)
    }

    /// Wraps raw memory (seed generation, regression tests).
    public init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    /// Bytes not yet read.
    public var remainingCount: Int { bytes.count - offset }
    public var isAtEnd: Bool { offset >= bytes.count }

    /// The next byte, 0 past the end.
    public mutating func byte() -> UInt8 {
        guard offset < bytes.count else { return 0 }
        defer { offset += 1 }
        return bytes[offset]
    }

    /// One of `choices`, picked by the next byte.
    public mutating func pick<T>(_ choices: [T]) -> T { choices[Int(byte()) % choices.count] }

    /// The next `count` bytes (fewer at the end).
    public mutating func take(_ count: Int) -> UnsafeRawBufferPointer {
        let n = max(0, min(count, remainingCount))
        defer { offset += n }
        return UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + n)])
    }

    /// Everything not yet read.
    public mutating func rest() -> UnsafeRawBufferPointer { take(remainingCount) }

    /// The next length-prefixed chunk: a length byte `n` then `n` bytes, except that
    /// `n == 254` is followed by a two-byte big-endian length, and `n == 255` means "all
    /// the rest". Nil at the end of the input.
    public mutating func chunk() -> UnsafeRawBufferPointer? {
        guard !isAtEnd else { return nil }
        switch byte() {
        case Self.restMarker: return rest()
        case Self.longMarker: return take(Int(byte()) << 8 | Int(byte()))
        case let n: return take(Int(n))
        }
    }

    /// Splits the rest into chunks (see ``chunk()``).
    public mutating func chunks() -> [[UInt8]] {
        var out: [[UInt8]] = []
        while let c = chunk() { out.append(Array(c)) }
        return out
    }

    static let longMarker: UInt8 = 254
    static let restMarker: UInt8 = 255

    /// The inverse of ``chunks()`` (chunks of up to 65535 bytes).
    public static func encodeChunks(_ chunks: [[UInt8]]) -> [UInt8] {
        var out: [UInt8] = []
        for c in chunks {
            precondition(c.count <= 0xFFFF, "chunk of \(c.count) bytes")
            if c.count < Int(longMarker) {
                out.append(UInt8(c.count))
            } else {
                out += [longMarker, UInt8(c.count >> 8), UInt8(c.count & 0xFF)]
            }
            out += c
        }
        return out
    }
}

/// Stops the fuzzer with `message` when an invariant does not hold (libFuzzer records the
/// input as a crash). Kept in release builds, unlike `assert`.
@inline(never)
public func fuzzCheck(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
                      file: StaticString = #file, line: UInt = #line) {
    if !condition() { fatalError("fuzz invariant broken: \(message())", file: file, line: line) }
}
