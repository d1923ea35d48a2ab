import FuzzSupport
@testable import PushDoubleCrypto

/// Web Push message decoding: RFC 8291 over RFC 8188 `aes128gcm`, and the legacy
/// `aesgcm` coding with its `Encryption` / `Crypto-Key` headers.
///
/// Input: a mode byte, then the mode's data:
/// - 0: an `aes128gcm` body, decrypted with the RFC 8291 Appendix A subscription keys;
/// - 1: an RFC 8188 body, decrypted with the §3.2 IKM;
/// - 2: chunks `Encryption`, `Crypto-Key`, body (+ an auth-secret choice byte first),
///   decrypted as legacy `aesgcm` with the ecec test subscription;
/// - 3: authentic `aes128gcm` records: two bytes of record size, then one chunk per
///   record plaintext (delimiters and padding as the input says), sealed with the right
///   key and nonce, so decryption gets past the AEAD and checks the framing;
/// - 4: the same for legacy `aesgcm` records (2-byte padding length inside);
/// - 5: round trips: chunk plaintext, then record size and padding bytes, through
///   `WebPushCipher.encrypt`/`decrypt` and the legacy pair.
/// Invariants: modes 3 and 4 agree with a reference reading of the RFC 8188 §2 / legacy
/// framing rules (same plaintext, padding and record count, or the same error); mode 5
/// gives back the plaintext and padding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWebPush(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let keys = WebPushKeys.shared
    switch input.byte() % 6 {
    case 0:
        if let m = try? WebPushCipher.decrypt(body: Array(input.rest()), uaPrivateKey: keys.ua, authSecret: keys.auth) {
            fuzzCheck(m.recordCount >= 1 && m.contentEncoding == .aes128gcm, "odd message \(m)")
        }
    case 1:
        _ = try? AES128GCMContentCoding.decrypt(body: Array(input.rest()), ikm: keys.ikm)
    case 2:
        let auth = input.byte() & 1 == 0 ? keys.legacyAuth : keys.legacyAuthManyRecords
        let chunks = input.chunks()
        guard chunks.count >= 2 else { return 0 }
        let encryption = String(decoding: chunks[0], as: UTF8.self), cryptoKey = String(decoding: chunks[1], as: UTF8.self)
        _ = try? WebPushCipher.decryptLegacyAESGCM(body: chunks.count > 2 ? chunks[2] : [], encryptionHeader: encryption,
                                                 cryptoKeyHeader: cryptoKey, uaPrivateKey: keys.legacyUA, authSecret: auth)
    case 3:
        sealedContentCodingRecords(&input, keys)
    case 4:
        sealedLegacyRecords(&input, keys)
    default:
        roundTrips(&input, keys)
    }
    return 0
}

/// Record size from two input bytes, within [minimum, minimum + 299].
private func recordSize(_ input: inout FuzzInput, minimum: Int) -> Int {
    minimum + (Int(input.byte()) << 8 | Int(input.byte())) % 300
}

/// Mode 3: seal each record plaintext (non-final records filled to exactly rs - 16 bytes
/// with zeros, all cut to fit) and compare `decrypt` with the RFC 8188 §2 rules.
private func sealedContentCodingRecords(_ input: inout FuzzInput, _ keys: WebPushKeys) {
    let rs = recordSize(&input, minimum: AES128GCMContentCoding.minimumRecordSize)
    let capacity = rs - AES128GCMContentCoding.tagLength
    var records = input.chunks()
    guard !records.isEmpty else { return }
    for i in records.indices {
        if records[i].count > capacity { records[i].removeLast(records[i].count - capacity) }
        if i < records.count - 1 { records[i] += repeatElement(0, count: capacity - records[i].count) }
    }
    let salt = keys.salt
    let (key, nonce) = AES128GCMContentCoding.deriveKeyAndNonce(ikm: keys.ikm, salt: salt)
    guard let aead = try? AES128GCM(key: key) else { fuzzCheck(false, "AES key"); return }
    var body = AES128GCMContentCoding.Header(salt: salt, recordSize: rs, keyID: []).encoded
    for (i, r) in records.enumerated() {
        guard let sealed = try? aead.seal(nonce: AES128GCMContentCoding.recordNonce(nonce, i), plaintext: r[...]) else {
            fuzzCheck(false, "seal"); return
        }
        body += sealed
    }
    let expected = expectedContentCoding(records, recordSize: rs)
    let actual = Result { () throws(CryptoError) -> AES128GCMContentCoding.Decrypted in
        try AES128GCMContentCoding.decrypt(body: body, ikm: keys.ikm)
    }
    switch (expected, actual) {
    case (.success(let e), .success(let a)):
        fuzzCheck(a.plaintext == e.plaintext && a.paddingLength == e.padding && a.recordCount == records.count
                  && a.lastRecordFull == (records.last!.count == capacity),
                  "decrypted \(a) but the records say \(e)")
    case (.failure(let e), .failure(let a)):
        fuzzCheck(a == e, "decrypt threw \(a), the records say \(e)")
    default:
        fuzzCheck(false, "decrypt gave \(actual), the records say \(expected)")
    }
}

/// What RFC 8188 §2 makes of these record plaintexts: the delimiter is the last non-zero
/// byte, 1 in every record but the last, 2 in the last; a record must hold at least the
/// delimiter (tag + 1 bytes on the wire).
private func expectedContentCoding(_ records: [[UInt8]], recordSize: Int) -> Result<(plaintext: [UInt8], padding: Int), CryptoError> {
    var plaintext: [UInt8] = [], padding = 0
    for (i, r) in records.enumerated() {
        if r.isEmpty { return .failure(.truncatedRecord(record: i, length: AES128GCMContentCoding.tagLength)) }
        guard let d = r.lastIndex(where: { $0 != 0 }) else { return .failure(.missingPaddingDelimiter(record: i)) }
        let last = i == records.count - 1
        guard r[d] == (last ? 2 : 1) else { return .failure(.wrongPaddingDelimiter(record: i, delimiter: r[d])) }
        plaintext += r[..<d]
        padding += r.count - d - 1
    }
    return .success((plaintext, padding))
}

/// Mode 4: legacy `aesgcm` records (rs + 16 bytes each on the wire, the last shorter),
/// sealed with the legacy key schedule and compared with the draft's framing rules.
private func sealedLegacyRecords(_ input: inout FuzzInput, _ keys: WebPushKeys) {
    let rs = recordSize(&input, minimum: WebPushCipher.legacyMinimumRecordSize)
    var records = input.chunks()
    guard !records.isEmpty else { return }
    for i in records.indices {
        if records[i].count > rs { records[i].removeLast(records[i].count - rs) }
        if i < records.count - 1 { records[i] += repeatElement(0, count: rs - records[i].count) }
    }
    let salt = keys.salt, senderPublic = keys.legacySenderPublic, nonce = keys.legacyNonce
    guard let aead = try? AES128GCM(key: keys.legacyKey) else { fuzzCheck(false, "AES key"); return }
    var body: [UInt8] = []
    for (i, r) in records.enumerated() {
        guard let sealed = try? aead.seal(nonce: AES128GCMContentCoding.recordNonce(nonce, i), plaintext: r[...]) else {
            fuzzCheck(false, "seal"); return
        }
        body += sealed
    }
    let encryption = "salt=\(Base64URL.encode(salt));rs=\(rs)", cryptoKey = "dh=\(Base64URL.encode(senderPublic))"
    let actual = Result { () throws(CryptoError) -> WebPushCipher.Message in
        try WebPushCipher.decryptLegacyAESGCM(body: body, encryptionHeader: encryption, cryptoKeyHeader: cryptoKey,
                                             uaPrivateKey: keys.legacyUA, authSecret: keys.legacyAuth)
    }
    let expected = expectedLegacy(records, recordSize: rs)
    switch (expected, actual) {
    case (.success(let e), .success(let a)):
        fuzzCheck(a.plaintext == e.plaintext && a.paddingLength == e.padding && a.recordCount == records.count
                  && a.recordSize == rs && a.salt == salt,
                  "decrypted \(a) but the records say \(e)")
    case (.failure(let e), .failure(let a)):
        fuzzCheck(a == e, "decrypt threw \(a), the records say \(e)")
    default:
        fuzzCheck(false, "decrypt gave \(actual), the records say \(expected)")
    }
}

/// The legacy framing: each record starts with a 2-byte big-endian padding length, then
/// that many zero bytes; a final record of the full rs means the real last one is missing.
private func expectedLegacy(_ records: [[UInt8]], recordSize rs: Int) -> Result<(plaintext: [UInt8], padding: Int), CryptoError> {
    var plaintext: [UInt8] = [], padding = 0
    for (i, r) in records.enumerated() {
        if r.count < 2 { return .failure(.truncatedRecord(record: i, length: r.count + AES128GCMContentCoding.tagLength)) }
        let pad = Int(r[0]) << 8 | Int(r[1])
        guard 2 + pad <= r.count, r[2..<(2 + pad)].allSatisfy({ $0 == 0 }) else { return .failure(.invalidPadding(record: i)) }
        plaintext += r[(2 + pad)...]
        padding += pad
        if i == records.count - 1, r.count == rs { return .failure(.truncatedRecord(record: i + 1, length: 0)) }
    }
    return .success((plaintext, padding))
}

/// Mode 5: encrypt then decrypt, both codings, with the fixed sender key and salt.
private func roundTrips(_ input: inout FuzzInput, _ keys: WebPushKeys) {
    let plaintext = Array(input.chunk() ?? UnsafeRawBufferPointer(start: nil, count: 0))
    let rs = recordSize(&input, minimum: AES128GCMContentCoding.minimumRecordSize)
    let padding = Int(input.byte())
    guard let uaPublic = try? keys.ua.publicKey else { fuzzCheck(false, "keys"); return }
    if let body = try? WebPushCipher.encrypt(plaintext: plaintext, uaPublicKey: uaPublic, authSecret: keys.auth, salt: keys.salt,
                                             senderPrivateKey: keys.sender, recordSize: rs, padding: padding) {
        do {
            let m = try WebPushCipher.decrypt(body: body, uaPrivateKey: keys.ua, authSecret: keys.auth)
            fuzzCheck(m.plaintext == plaintext && m.paddingLength == padding && m.recordCount == 1 && m.recordSize == rs,
                      "aes128gcm round trip gave \(m)")
        } catch {
            fuzzCheck(false, "aes128gcm round trip: \(error)")
        }
    }
    let legacyRS = rs - AES128GCMContentCoding.minimumRecordSize + WebPushCipher.legacyMinimumRecordSize
    if let sealed = try? WebPushCipher.encryptLegacyAESGCM(plaintext: plaintext, uaPublicKey: uaPublic, authSecret: keys.auth,
                                                           salt: keys.salt, senderPrivateKey: keys.sender,
                                                           recordSize: legacyRS, padding: padding) {
        do {
            let m = try WebPushCipher.decryptLegacyAESGCM(body: sealed.body, encryptionHeader: sealed.encryptionHeader,
                                                          cryptoKeyHeader: sealed.cryptoKeyHeader,
                                                          uaPrivateKey: keys.ua, authSecret: keys.auth)
            fuzzCheck(m.plaintext == plaintext && m.paddingLength == padding && m.recordSize == legacyRS,
                      "aesgcm round trip gave \(m)")
        } catch {
            fuzzCheck(false, "aesgcm round trip: \(error)")
        }
    }
}

/// The vectors' keys, decoded once.
struct WebPushKeys: Sendable {
    let ua: P256PrivateKey, sender: P256PrivateKey, auth: [UInt8], salt: [UInt8], ikm: [UInt8]
    let legacyUA: P256PrivateKey, legacyAuth: [UInt8], legacyAuthManyRecords: [UInt8]
    /// Mode 4's sender (the RFC 8291 UA key reused) and the legacy key schedule's output for it.
    let legacySenderPublic: [UInt8], legacyKey: [UInt8], legacyNonce: [UInt8]

    static let shared: WebPushKeys = {
        func b64(_ s: String) -> [UInt8] {
            do { return try Base64URL.decode(s) } catch { fatalError("vector \(s): \(error)") }
        }
        do {
            let ua = try P256PrivateKey(rawPrivateScalar: b64(FuzzVectors.RFC8291.uaPrivate))
            let legacyUA = try P256PrivateKey(rawPrivateScalar: FuzzVectors.hex(FuzzVectors.ECEC.uaPrivateHex))
            let legacyAuth = FuzzVectors.hex(FuzzVectors.ECEC.authSecretHex), salt = b64(FuzzVectors.RFC8291.salt)
            let senderPublic = try ua.publicKey.rawRepresentation
            let (key, nonce) = WebPushCipher.legacyKeyAndNonce(
                ecdh: try ua.sharedSecret(with: legacyUA.publicKey), authSecret: legacyAuth, salt: salt,
                uaPublic: try legacyUA.publicKey.rawRepresentation, asPublic: senderPublic)
            return WebPushKeys(
                ua: ua, sender: try P256PrivateKey(rawPrivateScalar: b64(FuzzVectors.RFC8291.asPrivate)),
                auth: b64(FuzzVectors.RFC8291.authSecret), salt: salt, ikm: b64(FuzzVectors.RFC8188.ikm2),
                legacyUA: legacyUA, legacyAuth: legacyAuth,
                legacyAuthManyRecords: FuzzVectors.hex(FuzzVectors.ECEC.manyRecordsAuthSecretHex),
                legacySenderPublic: senderPublic, legacyKey: key, legacyNonce: nonce)
        } catch {
            fatalError("vector keys: \(error)")
        }
    }()
}
