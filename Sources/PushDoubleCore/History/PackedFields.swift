import Foundation
import PushDoubleTransport

/// The byte layout of a stored history record (see ``HistoryStore/RecordBox``): every
/// string and byte field of an exchange in one buffer, strings that repeat across records
/// replaced by ids of a ``StringPool``.
///
/// Why: an entry that held its own strings, arrays and structs cost about 2.5 KB for a
/// 300-byte APNs alert (a 200-byte JWT, the connection's TLS facts, a generated
/// `apns-id`… each in its own allocation) and one cold release per allocation when the cap
/// evicted it. Packed, the same entry is one buffer plus one small object.
///
/// Encoding: unsigned LEB128 varints. A string is `0` (absent), `2·id+1` (pooled) or
/// `2·(length+1)` followed by its UTF-8 bytes. Swift strings are valid UTF-8, so they
/// round-trip exactly. Byte fields are a varint length and the bytes.
enum PackedFields {
    /// Pool slot meaning "no fast-path slot".
    static let noSlot = Int.max
    /// Slot meaning "always inline": for values that are new on nearly every request (a
    /// path naming a device token, a generated `apns-id`), where looking them up would only
    /// cost a hash.
    static let inlineOnly = Int.min

    /// A reusable buffer the writer fills (owned by the pool, used under its lock): writing
    /// through a pointer avoids a capacity and uniqueness check per byte, and the record gets
    /// an exactly sized copy.
    final class Scratch: @unchecked Sendable {
        // @unchecked: used only by the writer, under the pool's lock.
        private(set) var base: UnsafeMutablePointer<UInt8>
        private(set) var capacity: Int
        init(capacity: Int = 4096) { self.capacity = capacity; base = .allocate(capacity: capacity) }
        func grow(toAtLeast n: Int) {
            let c = max(n, capacity * 2)
            let b = UnsafeMutablePointer<UInt8>.allocate(capacity: c)
            b.update(from: base, count: capacity)
            base.deallocate()
            base = b
            capacity = c
        }
        deinit { base.deallocate() }
    }

    struct Writer {
        let scratch: Scratch
        var offset = 0

        init(_ scratch: Scratch) { self.scratch = scratch }

        @inline(__always) mutating func ensure(_ n: Int) {
            if offset + n > scratch.capacity { scratch.grow(toAtLeast: offset + n) }
        }

        @inline(__always) mutating func varint(_ value: UInt64) {
            ensure(10)
            let p = scratch.base
            var v = value
            while v >= 0x80 { p[offset] = UInt8(truncatingIfNeeded: v) | 0x80; offset += 1; v >>= 7 }
            p[offset] = UInt8(v)
            offset += 1
        }

        @inline(__always) mutating func raw(_ u: UnsafeBufferPointer<UInt8>) {
            guard let src = u.baseAddress, u.count > 0 else { return }
            ensure(u.count)
            (scratch.base + offset).update(from: src, count: u.count)
            offset += u.count
        }

        mutating func data(_ b: [UInt8]) {
            varint(UInt64(b.count))
            b.withUnsafeBufferPointer { raw($0) }
        }

        /// Writes `s`, pooled when `pool` knows it (or admits it now).
        mutating func string(_ s: String?, slot: Int, _ pool: inout StringPool.Contents) {
            guard let s else { return varint(0) }
            if slot != PackedFields.inlineOnly, let id = pool.id(s, slot: slot) { return varint(UInt64(id) << 1 | 1) }
            inline(s)
        }

        mutating func inline(_ s: String) {
            UTF8Bytes.of(s) { u in
                varint(UInt64(u.count + 1) << 1)
                raw(u)
            }
        }

        /// What was written, in an array of exactly that size.
        var bytes: [UInt8] {
            let n = offset, base = scratch.base
            return [UInt8](unsafeUninitializedCapacity: n) { out, count in
                if n > 0 { out.baseAddress!.update(from: base, count: n) }
                count = n
            }
        }
    }

    struct Reader {
        let base: UnsafeBufferPointer<UInt8>
        // Unowned: a reader lives inside a call on the record, which holds its pool
        // generation; not retaining it keeps the log thread off the refcount the event loops
        // bump for every record they pack.
        unowned(unsafe) let pool: StringPool.ValueStore
        var offset = 0

        init(_ base: UnsafeBufferPointer<UInt8>, pool: StringPool.ValueStore) { self.base = base; self.pool = pool }

        @inline(__always) mutating func varint() -> UInt64 {
            var v: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                let b = base[offset]
                offset += 1
                v |= UInt64(b & 0x7f) << shift
                if b < 0x80 { return v }
                shift += 7
            }
        }

        mutating func string() -> String? {
            let v = varint()
            if v == 0 { return nil }
            if v & 1 == 1 { return pool.value(Int(v >> 1)) }
            let n = Int(v >> 1) - 1
            let s = String(decoding: UnsafeBufferPointer(rebasing: base[offset..<offset + n]), as: UTF8.self)
            offset += n
            return s
        }

        /// A string as it is stored: its bytes in place when inline, its pool id otherwise
        /// (both valid while the record is read); nil when absent.
        mutating func text() -> ExchangeLine.Text? {
            let v = varint()
            if v == 0 { return nil }
            if v & 1 == 1 { return .pooled(Unmanaged.passUnretained(pool), Int(v >> 1)) }
            let n = Int(v >> 1) - 1
            defer { offset += n }
            return .bytes(UnsafeBufferPointer(rebasing: base[offset..<offset + n]))
        }

        /// Skips a string without making it.
        mutating func skipString() {
            let v = varint()
            if v != 0 && v & 1 == 0 { offset += Int(v >> 1) - 1 }
        }

        mutating func data() -> [UInt8] {
            let n = Int(varint())
            let out = Array(base[offset..<offset + n])
            offset += n
            return out
        }

        mutating func skipData() { offset += Int(varint()) }
    }
}
