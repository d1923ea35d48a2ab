import COpenSSL

/// Web Push message encryption: RFC 8291 key derivation over RFC 8188 `aes128gcm`, plus
/// decryption (and, for tests, encryption) of the legacy `aesgcm` draft coding.
///
/// RFC 8291 §3.3/§3.4:
/// `ecdh = ECDH(as_private, ua_public)`,
/// `IKM = HKDF(salt=auth_secret, ikm=ecdh, info="WebPush: info\0" ‖ ua_public ‖ as_public, L=32)`,
/// then RFC 8188 with the message salt; the header keyid is `as_public` (65 bytes).
public enum WebPushCipher {
    /// The record size every Web Push library uses.
    public static let defaultRecordSize = 4096
    /// Length of the subscription's `auth` secret.
    public static let authSecretLength = 16

    /// Which content coding a body used.
    public enum ContentEncoding: String, Sendable, Equatable {
        case aes128gcm
        case aesgcm
    }

    /// A decrypted push message and the facts a push-service fake checks.
    public struct Message: Sendable, Equatable {
        public let plaintext: [UInt8]
        public let contentEncoding: ContentEncoding
        public let salt: [UInt8]
        public let recordSize: Int
        /// The application server's ephemeral ECDH public key (`keyid` / `dh`).
        public let senderPublicKey: P256PublicKey
        public let recordCount: Int
        public let paddingLength: Int
    }

    /// Encrypts `plaintext` for a subscription as one `aes128gcm` record (RFC 8291 §4).
    ///
    /// Deterministic when both `salt` and `senderPrivateKey` are given (test vectors);
    /// otherwise a random 16-byte salt and a fresh ephemeral key are used. Throws
    /// `recordSizeTooSmall` unless `rs` > plaintext + 1 (delimiter) + padding + 16 (tag), as
    /// RFC 8291 §4 requires, and `invalidKeyLength` for an auth secret or salt of the wrong size.
    public static func encrypt(plaintext: [UInt8], uaPublicKey: P256PublicKey, authSecret: [UInt8],
                               salt givenSalt: [UInt8]? = nil, senderPrivateKey givenSender: P256PrivateKey? = nil,
                               recordSize: Int = defaultRecordSize, padding: Int = 0) throws(CryptoError) -> [UInt8] {
        guard authSecret.count == authSecretLength else {
            throw .invalidKeyLength(what: "auth secret", expected: authSecretLength, actual: authSecret.count)
        }
        guard padding >= 0 else { throw .invalidArgument("negative padding") }
        let needed = plaintext.count + padding + 1 + AES128GCMContentCoding.tagLength
        guard recordSize > needed else { throw .recordSizeTooSmall(recordSize: recordSize, minimum: needed + 1) }
        let salt: [UInt8]
        if let given = givenSalt { salt = given } else { salt = try randomBytes(16) }
        let sender: P256PrivateKey
        if let given = givenSender { sender = given } else { sender = try P256PrivateKey.generate() }
        let senderPublic = try sender.publicKey
        let ikm = try webPushIKM(privateKey: sender, peer: uaPublicKey, authSecret: authSecret,
                                 uaPublic: uaPublicKey.rawRepresentation, asPublic: senderPublic.rawRepresentation)
        return try AES128GCMContentCoding.encrypt(
            plaintext: plaintext, ikm: ikm, salt: salt, keyID: senderPublic.rawRepresentation, recordSize: recordSize,
            records: [.init(dataLength: plaintext.count, paddingLength: padding)])
    }

    /// Decrypts an `aes128gcm` push message body with the subscription's private key and auth
    /// secret. Accepts several records (RFC 8188) although RFC 8291 senders send one; the
    /// result reports `recordCount`. A wrong auth secret surfaces as `authenticationFailed`.
    public static func decrypt(body: [UInt8], uaPrivateKey: P256PrivateKey, authSecret: [UInt8]) throws(CryptoError) -> Message {
        try decrypt(body: body, uaPrivateKey: uaPrivateKey, uaPublicKey: try uaPrivateKey.publicKey, authSecret: authSecret)
    }

    /// ``decrypt(body:uaPrivateKey:authSecret:)`` for a caller that already holds the matching
    /// public key (a subscription's `p256dh`), which is then not derived again for every message.
    public static func decrypt(body: [UInt8], uaPrivateKey: P256PrivateKey, uaPublicKey uaPublic: P256PublicKey,
                               authSecret: [UInt8]) throws(CryptoError) -> Message {
        guard authSecret.count == authSecretLength else {
            throw .invalidKeyLength(what: "auth secret", expected: authSecretLength, actual: authSecret.count)
        }
        let header = try AES128GCMContentCoding.parseHeader(body)
        guard header.keyID.count == 65 else { throw .invalidKeyIDLength(header.keyID.count) }
        let senderPublic = try P256PublicKey(rawRepresentation: header.keyID)
        let ikm = try webPushIKM(privateKey: uaPrivateKey, peer: senderPublic, authSecret: authSecret,
                                 uaPublic: uaPublic.rawRepresentation, asPublic: header.keyID)
        let d = try AES128GCMContentCoding.decrypt(body: body, header: header, ikm: ikm)
        return Message(plaintext: d.plaintext, contentEncoding: .aes128gcm, salt: header.salt, recordSize: header.recordSize,
                       senderPublicKey: senderPublic, recordCount: d.recordCount, paddingLength: d.paddingLength)
    }

    /// RFC 8291 §3.4: `HKDF(auth_secret, ecdh_secret, "WebPush: info\0" ‖ ua_public ‖ as_public, 32)`.
    static func webPushIKM(privateKey: P256PrivateKey, peer: P256PublicKey, authSecret: [UInt8],
                           uaPublic: [UInt8], asPublic: [UInt8]) throws(CryptoError) -> [UInt8] {
        let ecdh = try privateKey.sharedSecret(with: peer)
        return HKDF.derive(salt: authSecret, ikm: ecdh, info: Array("WebPush: info".utf8) + [0] + uaPublic + asPublic, length: 32)
    }

    /// Cryptographically random bytes.
    public static func randomBytes(_ n: Int) throws(CryptoError) -> [UInt8] { try SecureRandom.bytes(n) }

    // MARK: - legacy aesgcm (draft-ietf-webpush-encryption-04 / draft-ietf-httpbis-encryption-encoding-03)

    /// The parameters of the legacy `aesgcm` headers.
    public struct LegacyParameters: Sendable, Equatable {
        public let salt: [UInt8]
        public let recordSize: Int
        public let senderPublicKey: P256PublicKey
    }

    /// Reads `Encryption: salt=…[;rs=…]` and `Crypto-Key: dh=…[;p256ecdsa=…]` (values may be
    /// quoted; entries may be separated by `,` or `;`). Throws `missingHeaderParameter` for a
    /// missing `salt` or `dh`, `invalidKeyLength` for a salt that is not 16 bytes.
    public static func parseLegacyHeaders(encryption: String, cryptoKey: String) throws(CryptoError) -> LegacyParameters {
        let enc = headerParameters(encryption)
        let ck = headerParameters(cryptoKey)
        guard let saltText = enc["salt"] else { throw .missingHeaderParameter(header: "Encryption", parameter: "salt") }
        guard let dhText = ck["dh"] else { throw .missingHeaderParameter(header: "Crypto-Key", parameter: "dh") }
        let salt = try Base64URL.decode(saltText)
        guard salt.count == 16 else { throw .invalidKeyLength(what: "salt", expected: 16, actual: salt.count) }
        var rs = defaultRecordSize
        if let rsText = enc["rs"] {
            guard let v = Int(rsText), v >= 0, v <= Int(UInt32.max) else { throw .invalidArgument("Encryption rs=\(rsText) is not a number") }
            rs = v
        }
        guard rs >= legacyMinimumRecordSize else { throw .recordSizeTooSmall(recordSize: rs, minimum: legacyMinimumRecordSize) }
        let dh = try Base64URL.decode(dhText)
        return LegacyParameters(salt: salt, recordSize: rs, senderPublicKey: try P256PublicKey(rawRepresentation: dh))
    }

    /// aesgcm records carry a 2-byte padding length, so rs must leave room for data after it.
    public static let legacyMinimumRecordSize = 3

    /// Decrypts a legacy `aesgcm` body given the `Encryption` and `Crypto-Key` header values.
    /// Throws, distinctly: `missingHeaderParameter`, `recordSizeTooSmall`, `truncatedRecord`
    /// (a record too short for tag and padding length, an empty body, or a body ending on a full
    /// record, which the draft treats as truncation), `authenticationFailed`, `invalidPadding`.
    public static func decryptLegacyAESGCM(body: [UInt8], encryptionHeader: String, cryptoKeyHeader: String,
                                           uaPrivateKey: P256PrivateKey, authSecret: [UInt8]) throws(CryptoError) -> Message {
        guard authSecret.count == authSecretLength else {
            throw .invalidKeyLength(what: "auth secret", expected: authSecretLength, actual: authSecret.count)
        }
        let params = try parseLegacyHeaders(encryption: encryptionHeader, cryptoKey: cryptoKeyHeader)
        let uaPublic = try uaPrivateKey.publicKey.rawRepresentation
        let ecdh = try uaPrivateKey.sharedSecret(with: params.senderPublicKey)
        let (key, nonce) = legacyKeyAndNonce(ecdh: ecdh, authSecret: authSecret, salt: params.salt,
                                             uaPublic: uaPublic, asPublic: params.senderPublicKey.rawRepresentation)
        let aead = try AES128GCM(key: key)
        let chunk = params.recordSize + AES128GCMContentCoding.tagLength
        guard !body.isEmpty else { throw .truncatedRecord(record: 0, length: 0) }
        var plaintext: [UInt8] = []
        plaintext.reserveCapacity(body.count)
        var offset = 0, seq = 0, padding = 0
        while offset < body.count {
            let n = min(chunk, body.count - offset)
            guard n >= AES128GCMContentCoding.tagLength + 2 else { throw .truncatedRecord(record: seq, length: n) }
            guard let record = try aead.open(nonce: AES128GCMContentCoding.recordNonce(nonce, seq), sealed: body[offset..<(offset + n)]) else {
                throw .authenticationFailed(record: seq)
            }
            let pad = Int(record[0]) << 8 | Int(record[1])
            guard 2 + pad <= record.count, !record[2..<(2 + pad)].contains(where: { $0 != 0 }) else {
                throw .invalidPadding(record: seq)
            }
            plaintext += record[(2 + pad)...]
            padding += pad
            offset += n
            seq += 1
            // A full-size final record means the real final record was cut off.
            if offset == body.count, n == chunk { throw .truncatedRecord(record: seq, length: 0) }
        }
        return Message(plaintext: plaintext, contentEncoding: .aesgcm, salt: params.salt, recordSize: params.recordSize,
                       senderPublicKey: params.senderPublicKey, recordCount: seq, paddingLength: padding)
    }

    /// Encrypts with the legacy `aesgcm` coding (for tests and for senders that still use it).
    /// Returns the body and the `Encryption` / `Crypto-Key` header values.
    public static func encryptLegacyAESGCM(plaintext: [UInt8], uaPublicKey: P256PublicKey, authSecret: [UInt8],
                                           salt givenSalt: [UInt8]? = nil, senderPrivateKey givenSender: P256PrivateKey? = nil,
                                           recordSize: Int = defaultRecordSize, padding: Int = 0) throws(CryptoError)
        -> (body: [UInt8], encryptionHeader: String, cryptoKeyHeader: String) {
        guard authSecret.count == authSecretLength else {
            throw .invalidKeyLength(what: "auth secret", expected: authSecretLength, actual: authSecret.count)
        }
        guard recordSize >= legacyMinimumRecordSize else { throw .recordSizeTooSmall(recordSize: recordSize, minimum: legacyMinimumRecordSize) }
        guard padding >= 0, padding <= min(0xFFFF, recordSize - 2) else { throw .invalidArgument("padding \(padding) does not fit one record") }
        let salt: [UInt8]
        if let given = givenSalt { salt = given } else { salt = try randomBytes(16) }
        guard salt.count == 16 else { throw .invalidKeyLength(what: "salt", expected: 16, actual: salt.count) }
        let sender: P256PrivateKey
        if let given = givenSender { sender = given } else { sender = try P256PrivateKey.generate() }
        let asPublic = try sender.publicKey.rawRepresentation
        let ecdh = try sender.sharedSecret(with: uaPublicKey)
        let (key, nonce) = legacyKeyAndNonce(ecdh: ecdh, authSecret: authSecret, salt: salt,
                                             uaPublic: uaPublicKey.rawRepresentation, asPublic: asPublic)
        let aead = try AES128GCM(key: key)
        var body: [UInt8] = []
        var offset = 0, seq = 0
        var pad = padding
        while true {
            let room = recordSize - 2 - pad
            let n = min(room, plaintext.count - offset)
            let record = [UInt8(pad >> 8), UInt8(pad & 0xFF)] + [UInt8](repeating: 0, count: pad) + plaintext[offset..<(offset + n)]
            body += try aead.seal(nonce: AES128GCMContentCoding.recordNonce(nonce, seq), plaintext: record[...])
            offset += n
            seq += 1
            pad = 0
            // Stop after a record shorter than rs; a full one needs an (empty) successor.
            if offset == plaintext.count, record.count < recordSize { break }
        }
        let enc = "salt=\(Base64URL.encode(salt))" + (recordSize == 4096 ? "" : ";rs=\(recordSize)")
        return (body, enc, "dh=\(Base64URL.encode(asPublic))")
    }

    static func legacyKeyAndNonce(ecdh: [UInt8], authSecret: [UInt8], salt: [UInt8],
                                  uaPublic: [UInt8], asPublic: [UInt8]) -> (key: [UInt8], nonce: [UInt8]) {
        let ikm = HKDF.derive(salt: authSecret, ikm: ecdh, info: Array("Content-Encoding: auth".utf8) + [0], length: 32)
        let context = Array("P-256".utf8) + [0, 0, 65] + uaPublic + [0, 65] + asPublic
        let prk = HKDF.extract(salt: salt, ikm: ikm)
        let key = HKDF.expand(prk: prk, info: Array("Content-Encoding: aesgcm".utf8) + [0] + context, length: 16)
        let nonce = HKDF.expand(prk: prk, info: Array("Content-Encoding: nonce".utf8) + [0] + context, length: 12)
        return (key, nonce)
    }

    /// The parameters of a legacy `Encryption` / `Crypto-Key` header:
    /// `a=b; c="d", e=f` → [a: b, c: d, e: f]; names lowercased, the first occurrence of a
    /// name wins. One parser for the decryptor and the push service's request checks.
    public static func headerParameters(_ value: String) -> [String: String] {
        var out: [String: String] = [:]
        for part in value.split(whereSeparator: { $0 == ";" || $0 == "," }) {
            guard let eq = part.firstIndex(of: "=") else { continue }
            let name = part[..<eq].trimmingCharacters(in: " \t").lowercased()
            var v = part[part.index(after: eq)...].trimmingCharacters(in: " \t")
            if v.count >= 2, v.hasPrefix("\""), v.hasSuffix("\"") { v = String(v.dropFirst().dropLast()) }
            if out[name] == nil { out[name] = v }
        }
        return out
    }
}

extension Substring {
    func trimmingCharacters(in set: String) -> String {
        let chars = Set(set)
        return String(drop { chars.contains($0) }.reversed().drop { chars.contains($0) }.reversed())
    }
}
