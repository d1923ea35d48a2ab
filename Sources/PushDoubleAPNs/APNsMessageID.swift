import Synchronization

/// APNs notification ids (`apns-id`, `apns-unique-id`): parsing and generation of
/// canonical 8-4-4-4-12 UUID strings, on bytes, without Foundation.
///
/// Apple documents the id as a canonical lowercase UUID and echoes it back lowercase
/// (docs/apns.md §2, §6). Uppercase hex digits are accepted and lowercased: refusing them
/// would invent a rejection the table does not document.
public enum APNsMessageID {
    /// The canonical lowercase form of `value`, or nil if it is not an 8-4-4-4-12 hex UUID.
    public static func canonical(_ value: String) -> String? {
        var v = value
        return v.withUTF8 { u -> String? in
            guard u.count == 36 else { return nil }
            var needsLowercasing = false
            for i in 0..<36 {
                let c = u[i]
                if i == 8 || i == 13 || i == 18 || i == 23 {
                    if c != 0x2D { return nil }
                    continue
                }
                switch c {
                case 0x30...0x39, 0x61...0x66: break
                case 0x41...0x46: needsLowercasing = true
                default: return nil
                }
            }
            if !needsLowercasing { return value }
            return String(unsafeUninitializedCapacity: 36) { out in
                for i in 0..<36 { let c = u[i]; out[i] = (c >= 0x41 && c <= 0x46) ? c | 0x20 : c }
                return 36
            }
        }
    }

    /// A fresh random (version 4) UUID in canonical lowercase form.
    ///
    /// Ids must be unique, not secret: they come from a splitmix64 sequence seeded once from
    /// the system generator, advanced atomically (no syscall per id, unlike
    /// `SystemRandomNumberGenerator`, which showed up in profiles of the request path).
    public static func generate() -> String {
        var bytes = IDSequence.shared.next128()
        // Version 4, variant 10xx (RFC 9562 §5.4).
        bytes.0 = (bytes.0 & ~0x0000_0000_0000_F000) | 0x0000_0000_0000_4000
        bytes.1 = (bytes.1 & ~0xC000_0000_0000_0000) | 0x8000_0000_0000_0000
        return format(high: bytes.0, low: bytes.1)
    }

    /// Splitmix64 over an atomic counter: thread-safe, lock-free, a full 2^64 period per word.
    final class IDSequence: Sendable {
        static let shared = IDSequence()
        private let counter: Atomic<UInt64>
        init() {
            var rng = SystemRandomNumberGenerator()
            counter = Atomic(rng.next())
        }
        static let gamma: UInt64 = 0x9E37_79B9_7F4A_7C15
        static func mix(_ x: UInt64) -> UInt64 {
            var z = x
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        func next128() -> (UInt64, UInt64) {
            let base = counter.wrappingAdd(2 &* Self.gamma, ordering: .relaxed).oldValue
            return (Self.mix(base &+ Self.gamma), Self.mix(base &+ 2 &* Self.gamma))
        }
    }

    /// Formats 128 bits as a canonical lowercase UUID.
    static func format(high: UInt64, low: UInt64) -> String {
        let hex: StaticString = "0123456789abcdef"
        return String(unsafeUninitializedCapacity: 36) { out in
            hex.withUTF8Buffer { digits in
                var o = 0
                for nibble in 0..<32 {
                    if nibble == 8 || nibble == 12 || nibble == 16 || nibble == 20 { out[o] = 0x2D; o += 1 }
                    let word = nibble < 16 ? high : low
                    let shift = UInt64(60 - 4 * (nibble % 16))
                    out[o] = digits[Int((word >> shift) & 0xF)]
                    o += 1
                }
            }
            return 36
        }
    }
}
