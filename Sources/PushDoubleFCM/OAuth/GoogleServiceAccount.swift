import PushDoubleCrypto
import PushDoubleJSON

/// A Google service-account JSON key file (docs/fcm.md §6.1 [A]/[L]): the file senders load and
/// whose `client_email`, `private_key_id` and `private_key` make the token assertion.
public struct GoogleServiceAccount: Sendable, Equatable {
    /// `"service_account"` (the Python SDK rejects any other value, §6.1).
    public var type: String
    public var projectID: String?
    /// Becomes the assertion's `kid` (§6.1).
    public var privateKeyID: String?
    /// PKCS#8 PEM RSA key (§6.1).
    public var privateKeyPEM: String
    /// Becomes the assertion's `iss` (§6.1).
    public var clientEmail: String
    /// Numeric id, as a string.
    public var clientID: String?
    public var authURI: String?
    /// Where the SDK sends its token request (§6.4; Python honours it).
    public var tokenURI: String?
    public var authProviderX509CertURL: String?
    public var clientX509CertURL: String?
    /// `"googleapis.com"` in newer files.
    public var universeDomain: String?

    /// Why a key file was refused.
    public enum ParseError: Error, Sendable, Equatable {
        case notJSON(String)
        case notAnObject
        case missingField(String)
        /// A field that is present but not a string.
        case wrongType(String)
        /// `type` other than `service_account`.
        case notServiceAccount(String)
    }

    /// The fields of docs/fcm.md §6.1, in the order Google writes them.
    public static let fieldNames = ["type", "project_id", "private_key_id", "private_key", "client_email", "client_id",
                                    "auth_uri", "token_uri", "auth_provider_x509_cert_url", "client_x509_cert_url", "universe_domain"]

    /// Parses a key file. `type`, `private_key` and `client_email` are required; the others
    /// are kept when present. Unknown members are ignored.
    public init<Bytes: Collection>(json: Bytes) throws(ParseError) where Bytes.Element == UInt8 {
        let root: JSONValue
        do { root = try JSONValue.parse(json) } catch { throw .notJSON(error.description) }
        guard case .object(let members) = root else { throw .notAnObject }
        var fields: [String: String] = [:]
        for name in Self.fieldNames {
            guard let v = members[name], !v.isNull else { continue }
            guard case .string(let s) = v else { throw .wrongType(name) }
            fields[name] = s
        }
        guard let type = fields["type"] else { throw .missingField("type") }
        guard type == "service_account" else { throw .notServiceAccount(type) }
        guard let key = fields["private_key"] else { throw .missingField("private_key") }
        guard let email = fields["client_email"] else { throw .missingField("client_email") }
        self.type = type; privateKeyPEM = key; clientEmail = email
        projectID = fields["project_id"]; privateKeyID = fields["private_key_id"]; clientID = fields["client_id"]
        authURI = fields["auth_uri"]; tokenURI = fields["token_uri"]
        authProviderX509CertURL = fields["auth_provider_x509_cert_url"]; clientX509CertURL = fields["client_x509_cert_url"]
        universeDomain = fields["universe_domain"]
    }

    /// Parses a key file given as text.
    public init(jsonText: String) throws(ParseError) { try self.init(json: Array(jsonText.utf8)) }

    /// The RSA private key (signing the assertion, in tests and senders).
    public func privateKey() throws(CryptoError) -> RSAPrivateKey { try RSAPrivateKey(pem: privateKeyPEM) }

    /// The RSA public key the token endpoint verifies assertions with.
    public func publicKey() throws(CryptoError) -> RSAPublicKey { try privateKey().publicKey }
}
