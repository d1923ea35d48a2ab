/// RFC 8188 `aes128gcm` content coding: header parsing, record framing with padding, and
/// encryption/decryption from a given input keying material (IKM).
///
/// Body layout (RFC 8188 §2.1): `salt(16) ‖ rs(4, big-endian) ‖ idlen(1) ‖ keyid(idlen) ‖ records`.
/// Each record is AES-128-GCM of `data ‖ delimiter ‖ zero padding` with a 16-byte tag and is
/// exactly `rs` bytes long except the last, which may be shorter. The delimiter is `0x02` in the
/// last record and `0x01` in all others. Key schedule (RFC 8188 §2.2, §2.3):
/// `PRK = HMAC(salt, IKM)`, `CEK = HKDF-Expand(PRK, "Content-Encoding: aes128gcm\0", 16)`,
/// `NONCE = HKDF-Expand(PRK, "Content-Encoding: nonce\0", 12)`, record i uses `NONCE XOR i`.
public enum AES128GCMContentCoding {
    /// "rs ... MUST NOT be less than 18" — 16 bytes of tag, 1 delimiter, 1 byte of content.
    public static let minimumRecordSize = 18
    /// Size of the fixed part of the header (salt, rs, idlen).
    public static let fixedHeaderLength = 21
    static let tagLength = 16

    /// The parsed `aes128gcm` header.
    public struct Header: Sendable, Equatable {
        public let salt: [UInt8]
        public let recordSize: Int
        public let keyID: [UInt8]
        /// Header length in bytes (21 + keyid length): where the first record starts.
        public var length: Int { AES128GCMContentCoding.fixedHeaderLength + keyID.count }

        public init(salt: [UInt8], recordSize: Int, keyID: [UInt8]) {
            self.salt = salt
            self.recordSize = recordSize
            self.keyID = keyID
        }

        /// The header bytes.
        public var encoded: [UInt8] {
            let rs = UInt32(truncatingIfNeeded: recordSize)
            return salt + [UInt8(rs >> 24), UInt8(rs >> 16 & 0xFF), UInt8(rs >> 8 & 0xFF), UInt8(rs & 0xFF), UInt8(keyID.count)] + keyID
        }
    }

    /// How much plaintext and padding one record carries (for byte-exact control of framing).
    public struct RecordPlan: Sendable, Equatable {
        public let dataLength: Int
        public let paddingLength: Int
        public init(dataLength: Int, paddingLength: Int) {
            self.dataLength = dataLength
            self.paddingLength = paddingLength
        }
    }

    /// The result of decrypting a body.
    public struct Decrypted: Sendable, Equatable {
        public let plaintext: [UInt8]
        public let header: Header
        /// Number of records the body held.
        public let recordCount: Int
        /// Total zero padding removed (delimiters not counted).
        public let paddingLength: Int
        /// True if the last record was a full `rs` bytes (allowed by RFC 8188, not by RFC 8291 senders).
        public let lastRecordFull: Bool
    }

    /// Parses and checks the header: throws `truncatedHeader` and `recordSizeTooSmall`.
    public static func parseHeader<Bytes: RandomAccessCollection>(_ body: Bytes) throws(CryptoError) -> Header
    where Bytes.Element == UInt8, Bytes.Index == Int {
        let b = body.startIndex
        guard body.count >= fixedHeaderLength else { throw .truncatedHeader(length: body.count, required: fixedHeaderLength) }
        let idlen = Int(body[b + 20])
        guard body.count >= fixedHeaderLength + idlen else {
            throw .truncatedHeader(length: body.count, required: fixedHeaderLength + idlen)
        }
        var rs = 0
        for i in 16..<20 { rs = rs << 8 | Int(body[b + i]) }
        guard rs >= minimumRecordSize else { throw .recordSizeTooSmall(recordSize: rs, minimum: minimumRecordSize) }
        return Header(salt: Array(body[b..<(b + 16)]), recordSize: rs, keyID: Array(body[(b + fixedHeaderLength)..<(b + fixedHeaderLength + idlen)]))
    }

    /// Derives (CEK, NONCE) from IKM and salt.
    public static func deriveKeyAndNonce(ikm: [UInt8], salt: [UInt8]) -> (key: [UInt8], nonce: [UInt8]) {
        let prk = HKDF.extract(salt: salt, ikm: ikm)
        let key = HKDF.expand(prk: prk, info: Array("Content-Encoding: aes128gcm".utf8) + [0], length: 16)
        let nonce = HKDF.expand(prk: prk, info: Array("Content-Encoding: nonce".utf8) + [0], length: 12)
        return (key, nonce)
    }

    static func recordNonce(_ base: [UInt8], _ seq: Int) -> [UInt8] {
        var n = base
        var s = UInt64(seq)
        var i = 11
        while s != 0 {
            n[i] ^= UInt8(s & 0xFF)
            s >>= 8
            i -= 1
        }
        return n
    }

    /// Splits `dataLength` bytes plus `padding` into records of at most `rs - 17` content bytes
    /// each: plaintext first, then padding, as few records as possible.
    public static func plan(dataLength: Int, padding: Int, recordSize rs: Int) throws(CryptoError) -> [RecordPlan] {
        guard rs >= minimumRecordSize else { throw .recordSizeTooSmall(recordSize: rs, minimum: minimumRecordSize) }
        guard dataLength >= 0, padding >= 0 else { throw .invalidArgument("negative length or padding") }
        let capacity = rs - tagLength - 1
        // Bound the work a caller can ask for: at most 1 GiB of content and 2^20 records.
        guard dataLength <= 1 << 30, padding <= 1 << 30, (dataLength + padding) / capacity < 1 << 20 else {
            throw .invalidArgument("\(dataLength) bytes + \(padding) padding in records of \(rs) is too much")
        }
        var remainingData = dataLength, remainingPad = padding
        var out: [RecordPlan] = []
        repeat {
            let d = min(remainingData, capacity)
            let p = min(remainingPad, capacity - d)
            remainingData -= d
            remainingPad -= p
            out.append(RecordPlan(dataLength: d, paddingLength: p))
        } while remainingData > 0 || remainingPad > 0
        return out
    }

    /// Encrypts with automatic framing (see `plan`).
    public static func encrypt(plaintext: [UInt8], ikm: [UInt8], salt: [UInt8], keyID: [UInt8] = [],
                               recordSize: Int = WebPushCipher.defaultRecordSize, padding: Int = 0) throws(CryptoError) -> [UInt8] {
        let records = try plan(dataLength: plaintext.count, padding: padding, recordSize: recordSize)
        return try encrypt(plaintext: plaintext, ikm: ikm, salt: salt, keyID: keyID, recordSize: recordSize, records: records)
    }

    /// Encrypts with an explicit record plan (each record's data and padding lengths), so that
    /// published multi-record examples can be reproduced byte for byte.
    public static func encrypt(plaintext: [UInt8], ikm: [UInt8], salt: [UInt8], keyID: [UInt8],
                               recordSize rs: Int, records: [RecordPlan]) throws(CryptoError) -> [UInt8] {
        guard salt.count == 16 else { throw .invalidKeyLength(what: "salt", expected: 16, actual: salt.count) }
        guard keyID.count <= 255 else { throw .invalidArgument("keyid longer than 255 bytes") }
        guard rs >= minimumRecordSize else { throw .recordSizeTooSmall(recordSize: rs, minimum: minimumRecordSize) }
        guard rs <= Int(UInt32.max) else { throw .invalidArgument("rs \(rs) does not fit 32 bits") }
        guard !records.isEmpty, records.reduce(0, { $0 + $1.dataLength }) == plaintext.count else {
            throw .invalidArgument("record plan covers \(records.reduce(0) { $0 + $1.dataLength }) of \(plaintext.count) bytes")
        }
        for r in records where r.dataLength < 0 || r.paddingLength < 0 || r.dataLength + r.paddingLength + 1 + tagLength > rs {
            throw .recordSizeTooSmall(recordSize: rs, minimum: max(r.dataLength, 0) + max(r.paddingLength, 0) + 1 + tagLength)
        }
        let (key, nonce) = deriveKeyAndNonce(ikm: ikm, salt: salt)
        let aead = try AES128GCM(key: key)
        var out = Header(salt: salt, recordSize: rs, keyID: keyID).encoded
        out.reserveCapacity(out.count + plaintext.count + records.count * (tagLength + 1)
                            + records.reduce(0) { $0 + $1.paddingLength })
        var offset = 0
        var record: [UInt8] = []
        for (i, r) in records.enumerated() {
            record.removeAll(keepingCapacity: true)
            record += plaintext[offset..<(offset + r.dataLength)]
            record.append(i == records.count - 1 ? 2 : 1)
            record += repeatElement(0, count: r.paddingLength)
            offset += r.dataLength
            out += try aead.seal(nonce: recordNonce(nonce, i), plaintext: record[...])
        }
        return out
    }

    /// Decrypts a body with the given IKM. Throws, each distinctly: `truncatedHeader`,
    /// `recordSizeTooSmall`, `truncatedRecord` (a record shorter than tag + delimiter, or no
    /// record), `authenticationFailed` (tampered data or wrong key), `missingPaddingDelimiter`,
    /// `wrongPaddingDelimiter` (`0x02` before the end, or the body ends after a `0x01` record).
    public static func decrypt(body: [UInt8], ikm: [UInt8]) throws(CryptoError) -> Decrypted {
        let header = try parseHeader(body)
        return try decrypt(body: body, header: header, ikm: ikm)
    }

    /// Decrypts a body whose header was already parsed (the Web Push layer needs the keyid first).
    static func decrypt(body: [UInt8], header: Header, ikm: [UInt8]) throws(CryptoError) -> Decrypted {
        let rs = header.recordSize
        let (key, nonce) = deriveKeyAndNonce(ikm: ikm, salt: header.salt)
        let aead = try AES128GCM(key: key)
        var offset = header.length
        guard offset < body.count else { throw .truncatedRecord(record: 0, length: 0) }
        var plaintext: [UInt8] = []
        plaintext.reserveCapacity(body.count - offset)
        var seq = 0
        var padding = 0
        var lastFull = false
        while offset < body.count {
            let n = min(rs, body.count - offset)
            let isLast = offset + n == body.count
            guard n >= tagLength + 1 else { throw .truncatedRecord(record: seq, length: n) }
            guard let record = try aead.open(nonce: recordNonce(nonce, seq), sealed: body[offset..<(offset + n)]) else {
                throw .authenticationFailed(record: seq)
            }
            guard let d = record.lastIndex(where: { $0 != 0 }) else { throw .missingPaddingDelimiter(record: seq) }
            let delimiter = record[d]
            guard delimiter == (isLast ? 2 : 1) else { throw .wrongPaddingDelimiter(record: seq, delimiter: delimiter) }
            plaintext += record[..<d]
            padding += record.count - d - 1
            lastFull = isLast && n == rs
            offset += n
            seq += 1
        }
        return Decrypted(plaintext: plaintext, header: header, recordCount: seq, paddingLength: padding, lastRecordFull: lastFull)
    }
}
