/// CRC-32 as gzip uses it (RFC 1952 §8: reflected polynomial 0xEDB88320, initial and final
/// XOR 0xFFFFFFFF). Table-driven, sixteen bytes per step ("slicing by 16").
public struct CRC32: Sendable {
    /// The CRC of everything fed so far.
    public private(set) var value: UInt32 = 0

    public init() {}

    /// The CRC-32 of `bytes`.
    public static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var crc = CRC32()
        let done: Void? = bytes.withContiguousStorageIfAvailable { crc.update($0) }
        if done == nil { crc.update(Array(bytes)) }
        return crc.value
    }

    /// Extends the CRC with `bytes`.
    public mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { update($0) }
    }

    /// Extends the CRC with `bytes`.
    public mutating func update(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard var p = bytes.baseAddress else { return }
        var n = bytes.count
        var c = ~value
        CRC32Tables.table.withUnsafeBufferPointer { t in
            while n >= 16 {
                let w0 = UnsafeRawPointer(p).loadUnaligned(as: UInt32.self).littleEndian ^ c
                let w1 = UnsafeRawPointer(p + 4).loadUnaligned(as: UInt32.self).littleEndian
                let w2 = UnsafeRawPointer(p + 8).loadUnaligned(as: UInt32.self).littleEndian
                let w3 = UnsafeRawPointer(p + 12).loadUnaligned(as: UInt32.self).littleEndian
                var x = t[15 * 256 + Int(w0 & 0xFF)] ^ t[14 * 256 + Int((w0 >> 8) & 0xFF)]
                x ^= t[13 * 256 + Int((w0 >> 16) & 0xFF)] ^ t[12 * 256 + Int(w0 >> 24)]
                x ^= t[11 * 256 + Int(w1 & 0xFF)] ^ t[10 * 256 + Int((w1 >> 8) & 0xFF)]
                x ^= t[9 * 256 + Int((w1 >> 16) & 0xFF)] ^ t[8 * 256 + Int(w1 >> 24)]
                x ^= t[7 * 256 + Int(w2 & 0xFF)] ^ t[6 * 256 + Int((w2 >> 8) & 0xFF)]
                x ^= t[5 * 256 + Int((w2 >> 16) & 0xFF)] ^ t[4 * 256 + Int(w2 >> 24)]
                x ^= t[3 * 256 + Int(w3 & 0xFF)] ^ t[2 * 256 + Int((w3 >> 8) & 0xFF)]
                x ^= t[1 * 256 + Int((w3 >> 16) & 0xFF)] ^ t[Int(w3 >> 24)]
                c = x
                p += 16
                n -= 16
            }
            while n >= 8 {
                let lo = UnsafeRawPointer(p).loadUnaligned(as: UInt32.self).littleEndian ^ c
                let hi = UnsafeRawPointer(p + 4).loadUnaligned(as: UInt32.self).littleEndian
                c = t[7 * 256 + Int(lo & 0xFF)] ^ t[6 * 256 + Int((lo >> 8) & 0xFF)]
                  ^ t[5 * 256 + Int((lo >> 16) & 0xFF)] ^ t[4 * 256 + Int(lo >> 24)]
                  ^ t[3 * 256 + Int(hi & 0xFF)] ^ t[2 * 256 + Int((hi >> 8) & 0xFF)]
                  ^ t[1 * 256 + Int((hi >> 16) & 0xFF)] ^ t[Int(hi >> 24)]
                p += 8
                n -= 8
            }
            while n > 0 {
                c = t[Int((c ^ UInt32(p.pointee)) & 0xFF)] ^ (c >> 8)
                p += 1
                n -= 1
            }
        }
        value = ~c
    }
}

/// The sixteen 256-entry CRC-32 tables: table k maps a byte to its CRC contribution k bytes ahead.
enum CRC32Tables {
    static let table: [UInt32] = {
        var t = [UInt32](repeating: 0, count: 16 * 256)
        for i in 0..<256 {
            var c = UInt32(i)
            for _ in 0..<8 { c = (c & 1) != 0 ? (c >> 1) ^ 0xEDB8_8320 : c >> 1 }
            t[i] = c
        }
        for k in 1..<16 {
            for i in 0..<256 {
                let prev = t[(k - 1) * 256 + i]
                t[k * 256 + i] = t[Int(prev & 0xFF)] ^ (prev >> 8)
            }
        }
        return t
    }()
}

/// Adler-32 as zlib uses it (RFC 1950 §8.2), summed in runs of 5552 bytes between reductions.
public struct Adler32: Sendable {
    /// The checksum of everything fed so far (1 for no input).
    public var value: UInt32 { (b << 16) | a }
    private var a: UInt32 = 1
    private var b: UInt32 = 0

    public init() {}

    /// The Adler-32 of `bytes`.
    public static func checksum(_ bytes: [UInt8]) -> UInt32 {
        var s = Adler32()
        bytes.withUnsafeBufferPointer { s.update($0) }
        return s.value
    }

    /// Extends the checksum with `bytes`.
    public mutating func update(_ bytes: UnsafeBufferPointer<UInt8>) {
        let base: UInt32 = 65521
        var i = 0
        var sa = a, sb = b
        while i < bytes.count {
            let end = min(bytes.count, i + 5552)
            while i < end {
                sa &+= UInt32(bytes[i])
                sb &+= sa
                i += 1
            }
            sa %= base
            sb %= base
        }
        a = sa
        b = sb
    }
}
