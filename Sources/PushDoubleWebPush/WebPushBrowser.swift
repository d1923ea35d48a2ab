import Foundation
import PushDoubleCrypto
import PushDoubleJSON

/// Why a browser could not decrypt an accepted message (docs/webpush.md §2, §4). One case per
/// cause, mapped from PushDoubleCrypto's ``CryptoError``.
public enum WebPushDecryptionFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// AES-GCM authentication failed: encrypted for another key pair or auth secret, or tampered.
    case authenticationFailed(record: Int)
    /// `aes128gcm` record without a `0x01`/`0x02` delimiter (RFC 8188, docs/webpush.md §2.2).
    case missingPaddingDelimiter(record: Int)
    /// Delimiter `0x01` in the last record or `0x02` before it (docs/webpush.md §2.2).
    case wrongPaddingDelimiter(record: Int, delimiter: UInt8)
    /// `aesgcm` padding-length prefix larger than the record, or non-zero padding (§4).
    case invalidPadding(record: Int)
    /// `rs` below the coding's minimum.
    case recordSizeTooSmall(recordSize: Int, minimum: Int)
    /// The body holds more than one record: "A push message is a **single record**"
    /// (docs/webpush.md §2.2), i.e. the ciphertext is longer than `rs`.
    case notASingleRecord(recordSize: Int, ciphertextLength: Int)
    /// Body shorter than the 86-byte header (docs/webpush.md §2.1) or its keyid.
    case truncatedHeader(length: Int, required: Int)
    /// A record shorter than tag + delimiter, or no record at all.
    case truncatedRecord(record: Int, length: Int)
    /// The sender key (aes128gcm keyid, aesgcm `dh`) is not a 65-byte P-256 point (§2.1, §4).
    case invalidSenderKey(String)
    /// `aesgcm` headers lack `salt` or `dh` (§4).
    case missingHeaderParameter(header: String, parameter: String)
    /// `aesgcm` header parameter present but unusable (bad base64url, salt length, `rs`).
    case invalidHeaderParameter(String)
    /// A body without a content coding (cannot happen after validation).
    case noContentEncoding
    /// Anything else PushDoubleCrypto reported (OpenSSL failures).
    case cryptoFailure(String)

    /// The case name, used as `error` in the received-message JSON.
    public var code: String {
        switch self {
        case .authenticationFailed: return "authenticationFailed"
        case .missingPaddingDelimiter: return "missingPaddingDelimiter"
        case .wrongPaddingDelimiter: return "wrongPaddingDelimiter"
        case .invalidPadding: return "invalidPadding"
        case .recordSizeTooSmall: return "recordSizeTooSmall"
        case .notASingleRecord: return "notASingleRecord"
        case .truncatedHeader: return "truncatedHeader"
        case .truncatedRecord: return "truncatedRecord"
        case .invalidSenderKey: return "invalidSenderKey"
        case .missingHeaderParameter: return "missingHeaderParameter"
        case .invalidHeaderParameter: return "invalidHeaderParameter"
        case .noContentEncoding: return "noContentEncoding"
        case .cryptoFailure: return "cryptoFailure"
        }
    }

    public var description: String {
        switch self {
        case let .authenticationFailed(r): return "record \(r) failed authentication (wrong key or auth secret, or tampered)"
        case let .missingPaddingDelimiter(r): return "record \(r) has no padding delimiter"
        case let .wrongPaddingDelimiter(r, d): return "record \(r) has delimiter \(Self.hex(d)) in the wrong place"
        case let .invalidPadding(r): return "record \(r) has invalid padding"
        case let .recordSizeTooSmall(rs, m): return "record size \(rs) below \(m)"
        case let .notASingleRecord(rs, n): return "\(n) bytes of ciphertext do not fit one record of rs \(rs)"
        case let .truncatedHeader(l, r): return "body of \(l) bytes, header needs \(r)"
        case let .truncatedRecord(r, l): return "record \(r) truncated (\(l) bytes)"
        case let .invalidSenderKey(d): return "sender key: \(d)"
        case let .missingHeaderParameter(h, p): return "\(h) lacks \(p)"
        case let .invalidHeaderParameter(d): return d
        case .noContentEncoding: return "body without Content-Encoding"
        case let .cryptoFailure(d): return d
        }
    }

    /// A byte as two lowercase hex digits after `0x` (`0x02`, `0xab`), as the delimiter is written
    /// everywhere else.
    static func hex(_ b: UInt8) -> String { "0x" + (b < 16 ? "0" : "") + String(b, radix: 16) }

    init(_ e: CryptoError) {
        switch e {
        case let .authenticationFailed(r): self = .authenticationFailed(record: r)
        case let .missingPaddingDelimiter(r): self = .missingPaddingDelimiter(record: r)
        case let .wrongPaddingDelimiter(r, d): self = .wrongPaddingDelimiter(record: r, delimiter: d)
        case let .invalidPadding(r): self = .invalidPadding(record: r)
        case let .recordSizeTooSmall(rs, m): self = .recordSizeTooSmall(recordSize: rs, minimum: m)
        case let .truncatedHeader(l, r): self = .truncatedHeader(length: l, required: r)
        case let .truncatedRecord(r, l): self = .truncatedRecord(record: r, length: l)
        case .invalidKeyIDLength, .invalidPublicPoint: self = .invalidSenderKey(e.description)
        case let .invalidKeyLength(what, _, _) where what.contains("P-256"): self = .invalidSenderKey(e.description)
        case let .missingHeaderParameter(h, p): self = .missingHeaderParameter(header: h, parameter: p)
        case .invalidKeyLength, .invalidArgument, .base64URLInvalidCharacter, .base64URLInvalidLength,
             .base64URLUnexpectedPadding, .base64URLNonCanonical:
            self = .invalidHeaderParameter(e.description)
        default: self = .cryptoFailure(e.description)
        }
    }
}

/// The push-message receiving side of a browser: decrypts what the push service accepted
/// with the subscription's private key and auth secret, as RFC 8291 (`aes128gcm`, docs/webpush.md
/// §2–§3) and the legacy draft (`aesgcm`, §4) specify, using PushDoubleCrypto's
/// ``WebPushCipher``.
public struct WebPushBrowser: Sendable {
    public let subscription: WebPushSubscription
    /// Refuse `aes128gcm` bodies of more than one record (docs/webpush.md §2.2 "a single
    /// record"). On by default; off decrypts multi-record RFC 8188 bodies too.
    public var requireSingleRecord = true

    public init(subscription: WebPushSubscription) { self.subscription = subscription }

    /// The plaintext of an accepted message: nil for a message without a body.
    public func decrypt(_ message: WebPushAcceptedRequest) -> Result<[UInt8]?, WebPushDecryptionFailure> {
        if message.body.isEmpty { return .success(nil) }
        guard let encoding = message.contentEncoding else { return .failure(.noContentEncoding) }
        do {
            switch encoding {
            case .aes128gcm: return .success(try decryptAES128GCM(message.body))
            case .aesgcm: return .success(try decryptAESGCM(message))
            }
        } catch let e as WebPushDecryptionFailure {
            return .failure(e)
        } catch let e as CryptoError {
            return .failure(WebPushDecryptionFailure(e))
        } catch {
            return .failure(.cryptoFailure(String(describing: error)))
        }
    }

    /// `aes128gcm`: the single-record rule first (so a multi-record body is named as such,
    /// not as a failed record), then ``WebPushCipher/decrypt(body:uaPrivateKey:authSecret:)``.
    func decryptAES128GCM(_ body: [UInt8]) throws -> [UInt8] {
        if requireSingleRecord, let header = try? AES128GCMContentCoding.parseHeader(body),
           body.count - header.length > header.recordSize {
            throw WebPushDecryptionFailure.notASingleRecord(recordSize: header.recordSize, ciphertextLength: body.count - header.length)
        }
        return try WebPushCipher.decrypt(body: body, uaPrivateKey: subscription.privateKey, uaPublicKey: subscription.publicKey,
                                         authSecret: subscription.authSecret).plaintext
    }

    /// Legacy `aesgcm`: one record too (Chromium's `WebPushEncryptionDraft03::ValidateCiphertextSize`
    /// in `components/gcm_driver/crypto/gcm_message_cryptographer.cc` drops a ciphertext longer
    /// than `rs` + the 16-byte tag; docs/webpush.md §4a), checked before decryption as for
    /// `aes128gcm`; then ``WebPushCipher/decryptLegacyAESGCM(body:encryptionHeader:cryptoKeyHeader:uaPrivateKey:authSecret:)``.
    static let gcmTagLength = 16

    func decryptAESGCM(_ message: WebPushAcceptedRequest) throws -> [UInt8] {
        let encryption = message.encryptionHeader ?? "", cryptoKey = message.cryptoKeyHeader ?? ""
        if requireSingleRecord, let p = try? WebPushCipher.parseLegacyHeaders(encryption: encryption, cryptoKey: cryptoKey),
           message.body.count > p.recordSize + Self.gcmTagLength {
            throw WebPushDecryptionFailure.notASingleRecord(recordSize: p.recordSize, ciphertextLength: message.body.count)
        }
        return try WebPushCipher.decryptLegacyAESGCM(body: message.body, encryptionHeader: encryption, cryptoKeyHeader: cryptoKey,
                                                     uaPrivateKey: subscription.privateKey, authSecret: subscription.authSecret).plaintext
    }

    /// Decrypts `message` into the record of what the browser received at `receivedAt`.
    public func receive(_ message: WebPushAcceptedRequest, at receivedAt: Date) -> WebPushReceivedMessage {
        let payload: WebPushReceivedMessage.Payload
        switch decrypt(message) {
        case .success(nil): payload = .none
        case .success(let bytes?):
            if let text = String(validating: bytes, as: UTF8.self) { payload = .text(text) } else { payload = .binary(bytes) }
        case .failure(let f): payload = .undecryptable(f)
        }
        return WebPushReceivedMessage(receivedAt: receivedAt, ttl: message.ttl, urgency: message.urgency, topic: message.topic,
                                      encoding: message.contentEncoding, payload: payload)
    }
}

/// What the browser received: `{"receivedAt","ttl","urgency","topic","encoding","payload"}`.
///
/// `payload` is `null` (no body), `{"data":"<UTF-8 text>","base64":false}`,
/// `{"data":"<standard base64 (RFC 4648 §4, padded) of the bytes>","base64":true}` (not valid UTF-8), or
/// `{"error":"<failure code>","detail":"<text>"}` (could not decrypt).
public struct WebPushReceivedMessage: Sendable, Equatable {
    /// The decrypted content.
    public enum Payload: Sendable, Equatable {
        case none
        case text(String)
        case binary([UInt8])
        case undecryptable(WebPushDecryptionFailure)
    }

    public let receivedAt: Date
    public let ttl: Int64
    public let urgency: WebPushUrgency
    public let topic: String?
    public let encoding: WebPushContentEncoding?
    public let payload: Payload

    /// The record as JSON, members in the order above; `receivedAt` as RFC 3339 UTC with
    /// milliseconds.
    public var json: JSONValue {
        ["receivedAt": .string(Self.timestamp(receivedAt)), "ttl": .int(ttl), "urgency": .string(urgency.rawValue),
         "topic": topic.map { .string($0) } ?? .null, "encoding": encoding.map { .string($0.rawValue) } ?? .null,
         "payload": payloadJSON]
    }

    var payloadJSON: JSONValue {
        switch payload {
        case .none: return .null
        case .text(let s): return ["data": .string(s), "base64": false]
        case .binary(let b): return ["data": .string(Data(b).base64EncodedString()), "base64": true]
        case .undecryptable(let f): return ["error": .string(f.code), "detail": .string(f.description)]
        }
    }

    /// ``json`` as compact text.
    public var jsonText: String { json.compactJSON }

    static func timestamp(_ d: Date) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        f.timeZone = TimeZone(identifier: "UTC")
        return f.string(from: d)
    }
}
