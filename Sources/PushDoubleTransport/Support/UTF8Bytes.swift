/// A string's UTF-8 bytes in place, without the copy `var s = s; s.withUTF8 { … }` makes (one
/// retain and release of a heap string per call, on every header of every request): a native
/// string's storage is contiguous, so this reads it through the `let`; only a string that is
/// not contiguous (bridged) is copied and made native.
public enum UTF8Bytes {
    @inlinable @inline(__always)
    public static func of<R>(_ s: String, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        if let r = try s.utf8.withContiguousStorageIfAvailable(body) { return r }
        var copy = s
        return try copy.withUTF8(body)
    }
}
