import Foundation

/// Creates, writes, reads and embeds PushDouble's **test-only** credentials: a test CA and
/// server certificate for the fakes' TLS, an APNs `.p8` key, a Firebase service-account
/// file, an Expo access token and a VAPID key pair.
///
/// Nothing here is secret: the files ship in `Certificates/` and as constants in
/// `EmbeddedTestCredentials`, so they must never be trusted outside tests.
public enum TestCredentials {
    public static let apnsKeyID = "PDTESTKEY1"
    public static let apnsTeamID = "PDTESTTEAM"
    public static let apnsTopic = "com.example.pushdouble"
    public static let firebaseProjectID = "pushdouble-test"
    public static let firebaseClientEmail = "pushdouble-test@pushdouble-test.iam.gserviceaccount.com"
    /// The fake OAuth token endpoint's default address.
    public static let firebaseTokenURI = "https://127.0.0.1:8724/token"
    public static let caCommonName = "PushDouble Test CA (TEST ONLY, DO NOT TRUST)"
    public static let serverCommonName = "PushDouble Test Server (TEST ONLY)"
    /// Every host name the fakes answer for.
    public static let serverDNSNames = [
        "localhost", "api.push.apple.com", "api.sandbox.push.apple.com", "api.development.push.apple.com",
        "fcm.googleapis.com", "oauth2.googleapis.com", "exp.host", "push.pushdouble.test",
        // Web Push services (docs/webpush.md §6.2–§6.4; FCM's is fcm.googleapis.com above). The
        // wildcard matches one label (RFC 6125 §6.4.3): wns.notify.windows.com, db5p.notify.windows.com.
        "updates.push.services.mozilla.com", "web.push.apple.com", "*.notify.windows.com",
    ]
    public static let serverIPAddresses = ["127.0.0.1", "::1"]

    /// File names inside a credentials directory.
    public enum FileName {
        public static let caCertificate = "pushdouble-test-ca.pem"
        public static let caKey = "pushdouble-test-ca.key.pem"
        public static let serverCertificate = "pushdouble-test-server.pem"
        public static let serverKey = "pushdouble-test-server.key.pem"
        public static let apnsKey = "AuthKey_PDTESTKEY1.p8"
        public static let apnsKeyInfo = "apns-test-key.json"
        public static let firebaseServiceAccount = "firebase-test-service-account.json"
        public static let expoAccessToken = "expo-test-access-token.txt"
        public static let vapidPrivateKey = "vapid-test-private.pem"
        public static let vapidPrivateKeyRaw = "vapid-test-private.txt"
        public static let vapidPublicKey = "vapid-test-public.txt"
        /// Every file, in the order they are written.
        public static let all = [caCertificate, caKey, serverCertificate, serverKey, apnsKey, apnsKeyInfo,
                                 firebaseServiceAccount, expoAccessToken, vapidPrivateKey, vapidPrivateKeyRaw, vapidPublicKey]
    }

    /// Generates a fresh set in memory (random keys, serials and ids).
    public static func generate() throws(CryptoError) -> GeneratedCredentialSet {
        let ca = try CertificateAuthority.generate(commonName: caCommonName)
        let server = try ca.issueServerCertificate(commonName: serverCommonName, dnsNames: serverDNSNames,
                                                   ipAddresses: serverIPAddresses)
        let apnsKey = try P256PrivateKey.generate()
        let firebaseKey = try RSAPrivateKey.generate(bits: 2048)
        let vapid = try P256PrivateKey.generate()
        let keyIDBytes = try WebPushCipher.randomBytes(20)
        let privateKeyID = keyIDBytes.lowercaseHex
        let clientID = "1" + (try WebPushCipher.randomBytes(20)).map { String($0 % 10) }.joined()
        let expoToken = "pdtest_expo_" + Base64URL.encode(try WebPushCipher.randomBytes(24))
        return GeneratedCredentialSet(
            caPEM: try ca.certificate.pem,
            caKeyPEM: try ca.privateKey.pemPKCS8,
            serverCertificatePEM: try server.certificatePEM,
            serverKeyPEM: try server.privateKeyPEM,
            apnsKeyPEM: try apnsKey.pemPKCS8,
            apnsKeyID: apnsKeyID, apnsTeamID: apnsTeamID, apnsTopic: apnsTopic,
            firebaseServiceAccountJSON: firebaseServiceAccountJSON(privateKeyID: privateKeyID, privateKeyPEM: try firebaseKey.pem, clientID: clientID),
            expoAccessToken: expoToken,
            vapidPrivateKeyPEM: try vapid.pemPKCS8,
            vapidPublicKey: Base64URL.encode(try vapid.publicKey.rawRepresentation))
    }

    /// `set` with a new server certificate for ``serverDNSNames`` and ``serverIPAddresses``,
    /// issued by its own CA for its own server key: what `Certificates/regenerate.sh
    /// --server-certificate` ships when the names change, keeping the CA and every other key.
    public static func reissuingServerCertificate(of set: GeneratedCredentialSet) throws(CryptoError) -> GeneratedCredentialSet {
        let ca = try CertificateAuthority(certificatePEM: set.caPEM, privateKeyPEM: set.caKeyPEM)
        let server = try ca.issueServerCertificate(commonName: serverCommonName, dnsNames: serverDNSNames,
                                                   ipAddresses: serverIPAddresses, key: try P256PrivateKey(pem: set.serverKeyPEM))
        var copy = set
        copy.serverCertificatePEM = try server.certificatePEM
        return copy
    }

    /// Generates a fresh set and writes it into `directory` (created if needed).
    @discardableResult
    public static func generate(into directory: URL) throws(CryptoError) -> GeneratedCredentialSet {
        let set = try generate()
        try set.write(to: directory)
        return set
    }

    /// A Google-style service-account file: the same fields in the same order and layout
    /// (2-space indent, `/` unescaped) as the JSON the Google Cloud console downloads.
    static func firebaseServiceAccountJSON(privateKeyID: String, privateKeyPEM: String, clientID: String) -> String {
        let email = firebaseClientEmail
        let fields: [(String, String)] = [
            ("type", "service_account"),
            ("project_id", firebaseProjectID),
            ("private_key_id", privateKeyID),
            ("private_key", privateKeyPEM),
            ("client_email", email),
            ("client_id", clientID),
            ("auth_uri", "https://accounts.google.com/o/oauth2/auth"),
            ("token_uri", firebaseTokenURI),
            ("auth_provider_x509_cert_url", "https://www.googleapis.com/oauth2/v1/certs"),
            ("client_x509_cert_url", "https://www.googleapis.com/robot/v1/metadata/x509/" + email.replacingOccurrences(of: "@", with: "%40")),
            ("universe_domain", "googleapis.com"),
        ]
        return prettyJSON(fields)
    }

    static func prettyJSON(_ fields: [(String, String)]) -> String {
        var out = "{\n"
        for (i, (k, v)) in fields.enumerated() {
            out += "  " + JOSEValue.string(k).compactJSON + ": " + JOSEValue.string(v).compactJSON
            out += i == fields.count - 1 ? "\n" : ",\n"
        }
        return out + "}\n"
    }

    /// Renders `EmbeddedTestCredentials.swift` for `set`: one raw string literal per item.
    public static func embeddedSwiftSource(for set: GeneratedCredentialSet) -> String {
        func literal(_ s: String) -> String {
            // Multi-line raw string: content verbatim, including a trailing newline if present.
            precondition(!s.contains("\"\"\"#"), "credential text contains a raw-string terminator")
            return "#\"\"\"\n" + s + (s.hasSuffix("\n") ? "\n" : "") + "\"\"\"#"
        }
        func line(_ s: String) -> String {
            precondition(!s.contains("\"#") && !s.contains("\n"))
            return "#\"" + s + "\"#"
        }
        var out = """
        // GENERATED by TestCredentials.embeddedSwiftSource(for:) from the files in Certificates/.
        // Do not edit: regenerate with `pushdouble certs` (see docs/crypto.md). A test checks
        // that these constants equal the files, so they cannot drift apart.
        //
        // TEST ONLY. These keys are public; never trust this CA outside tests.

        /// The shipped test credentials as constants, so `pushdouble serve` runs without files.
        public enum EmbeddedTestCredentials {

        """
        let items: [(String, String, Bool)] = [
            ("caPEM", set.caPEM, true), ("caKeyPEM", set.caKeyPEM, true),
            ("serverCertificatePEM", set.serverCertificatePEM, true), ("serverKeyPEM", set.serverKeyPEM, true),
            ("apnsKeyPEM", set.apnsKeyPEM, true), ("apnsKeyID", set.apnsKeyID, false), ("apnsTeamID", set.apnsTeamID, false),
            ("apnsTopic", set.apnsTopic, false), ("firebaseServiceAccountJSON", set.firebaseServiceAccountJSON, true),
            ("expoAccessToken", set.expoAccessToken, false), ("vapidPrivateKeyPEM", set.vapidPrivateKeyPEM, true),
            ("vapidPublicKey", set.vapidPublicKey, false),
        ]
        for (name, value, multiline) in items {
            out += "    public static let \(name) = " + (multiline ? literal(value) : line(value)) + "\n"
        }
        out += "}\n"
        return out
    }
}

/// One complete set of test credentials as text, plus how to write and read it as files.
public struct GeneratedCredentialSet: Sendable, Equatable {
    /// Test CA certificate (PEM). Trust this in the sender under test.
    public var caPEM: String
    /// Test CA private key (PKCS#8 PEM), to issue more certificates.
    public var caKeyPEM: String
    /// TLS server certificate for all fake hosts (PEM).
    public var serverCertificatePEM: String
    /// Its key (PKCS#8 PEM).
    public var serverKeyPEM: String
    /// APNs token-auth key, `.p8` format (PKCS#8 PEM, P-256).
    public var apnsKeyPEM: String
    public var apnsKeyID: String
    public var apnsTeamID: String
    public var apnsTopic: String
    /// Firebase service-account JSON (RS256 key; `token_uri` points at the fake).
    public var firebaseServiceAccountJSON: String
    /// Expo "enhanced push security" access token.
    public var expoAccessToken: String
    /// VAPID private key (PKCS#8 PEM, P-256).
    public var vapidPrivateKeyPEM: String
    /// VAPID public key: base64url of the 65-byte uncompressed point.
    public var vapidPublicKey: String

    public init(caPEM: String, caKeyPEM: String, serverCertificatePEM: String, serverKeyPEM: String, apnsKeyPEM: String,
                apnsKeyID: String, apnsTeamID: String, apnsTopic: String, firebaseServiceAccountJSON: String,
                expoAccessToken: String, vapidPrivateKeyPEM: String, vapidPublicKey: String) {
        self.caPEM = caPEM
        self.caKeyPEM = caKeyPEM
        self.serverCertificatePEM = serverCertificatePEM
        self.serverKeyPEM = serverKeyPEM
        self.apnsKeyPEM = apnsKeyPEM
        self.apnsKeyID = apnsKeyID
        self.apnsTeamID = apnsTeamID
        self.apnsTopic = apnsTopic
        self.firebaseServiceAccountJSON = firebaseServiceAccountJSON
        self.expoAccessToken = expoAccessToken
        self.vapidPrivateKeyPEM = vapidPrivateKeyPEM
        self.vapidPublicKey = vapidPublicKey
    }

    /// The shipped set compiled into the binary.
    public static var embedded: GeneratedCredentialSet {
        GeneratedCredentialSet(
            caPEM: EmbeddedTestCredentials.caPEM, caKeyPEM: EmbeddedTestCredentials.caKeyPEM,
            serverCertificatePEM: EmbeddedTestCredentials.serverCertificatePEM, serverKeyPEM: EmbeddedTestCredentials.serverKeyPEM,
            apnsKeyPEM: EmbeddedTestCredentials.apnsKeyPEM, apnsKeyID: EmbeddedTestCredentials.apnsKeyID,
            apnsTeamID: EmbeddedTestCredentials.apnsTeamID, apnsTopic: EmbeddedTestCredentials.apnsTopic,
            firebaseServiceAccountJSON: EmbeddedTestCredentials.firebaseServiceAccountJSON,
            expoAccessToken: EmbeddedTestCredentials.expoAccessToken,
            vapidPrivateKeyPEM: EmbeddedTestCredentials.vapidPrivateKeyPEM, vapidPublicKey: EmbeddedTestCredentials.vapidPublicKey)
    }

    /// `apns-test-key.json`: the key's ids and topic, for adapters that read one file.
    public var apnsKeyInfoJSON: String {
        TestCredentials.prettyJSON([("keyId", apnsKeyID), ("teamId", apnsTeamID), ("topic", apnsTopic),
                                    ("keyFile", TestCredentials.FileName.apnsKey), ("note", "TEST ONLY: PushDouble test credentials")])
    }

    /// The VAPID private key as base64url of the 32-byte scalar (what node web-push expects).
    public var vapidPrivateKeyBase64URL: String {
        get throws(CryptoError) { Base64URL.encode(try P256PrivateKey(pem: vapidPrivateKeyPEM).rawPrivateScalar) }
    }

    /// File name → contents, for every file of the set.
    public func fileContents() throws(CryptoError) -> [(name: String, contents: String)] {
        typealias F = TestCredentials.FileName
        return [
            (F.caCertificate, caPEM), (F.caKey, caKeyPEM), (F.serverCertificate, serverCertificatePEM),
            (F.serverKey, serverKeyPEM), (F.apnsKey, apnsKeyPEM), (F.apnsKeyInfo, apnsKeyInfoJSON),
            (F.firebaseServiceAccount, firebaseServiceAccountJSON), (F.expoAccessToken, expoAccessToken),
            (F.vapidPrivateKey, vapidPrivateKeyPEM), (F.vapidPrivateKeyRaw, try vapidPrivateKeyBase64URL),
            (F.vapidPublicKey, vapidPublicKey),
        ]
    }

    /// Writes every file into `directory` (created if missing). Key files get mode 0600.
    public func write(to directory: URL) throws(CryptoError) {
        let fm = FileManager.default
        do { try fm.createDirectory(at: directory, withIntermediateDirectories: true) } catch {
            throw .fileIO(path: directory.path, reason: "\(error)")
        }
        for (name, contents) in try fileContents() {
            let url = directory.appendingPathComponent(name)
            do {
                try Data(contents.utf8).write(to: url, options: .atomic)
                let secret = name.hasSuffix(".key.pem") || name.hasSuffix(".p8") || name.contains("private") || name.contains("service-account")
                try fm.setAttributes([.posixPermissions: secret ? 0o600 : 0o644], ofItemAtPath: url.path)
            } catch {
                throw .fileIO(path: url.path, reason: "\(error)")
            }
        }
    }

    /// Reads a set from a directory written by `write(to:)` (ids come from `apns-test-key.json`).
    public static func load(from directory: URL) throws(CryptoError) -> GeneratedCredentialSet {
        typealias F = TestCredentials.FileName
        func read(_ name: String) throws(CryptoError) -> String {
            let url = directory.appendingPathComponent(name)
            do { return try String(contentsOf: url, encoding: .utf8) } catch { throw .fileIO(path: url.path, reason: "\(error)") }
        }
        let info: JOSEObject
        do {
            guard let o = try JOSEValue.parse(json: Array(try read(F.apnsKeyInfo).utf8)).jsonObject else {
                throw CryptoError.fileIO(path: F.apnsKeyInfo, reason: "not a JSON object")
            }
            info = o
        } catch let e as CryptoError { throw e } catch { throw .fileIO(path: F.apnsKeyInfo, reason: "\(error)") }
        guard let keyID = info.string("keyId"), let teamID = info.string("teamId"), let topic = info.string("topic") else {
            throw .fileIO(path: F.apnsKeyInfo, reason: "needs keyId, teamId and topic")
        }
        return GeneratedCredentialSet(
            caPEM: try read(F.caCertificate), caKeyPEM: try read(F.caKey), serverCertificatePEM: try read(F.serverCertificate),
            serverKeyPEM: try read(F.serverKey), apnsKeyPEM: try read(F.apnsKey), apnsKeyID: keyID, apnsTeamID: teamID,
            apnsTopic: topic, firebaseServiceAccountJSON: try read(F.firebaseServiceAccount),
            expoAccessToken: try read(F.expoAccessToken), vapidPrivateKeyPEM: try read(F.vapidPrivateKey),
            vapidPublicKey: try read(F.vapidPublicKey))
    }
}
