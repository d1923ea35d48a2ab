import Foundation

/// Creates, writes, reads and embeds PushDouble's **test-only** credentials: the test CA and the
/// server certificate for the fakes' TLS (shared), plus each provider's own files
/// (``TestCredentialSource``: an APNs key, a service-account file, an access token, a key pair…).
///
/// Nothing here is secret: the files ship in `Certificates/` and as constants in
/// `EmbeddedTestCredentials`, so they must never be trusted outside tests.
public enum TestCredentials {
    public static let caCommonName = "PushDouble Test CA (TEST ONLY, DO NOT TRUST)"
    public static let serverCommonName = "PushDouble Test Server (TEST ONLY)"
    /// The server certificate's IP addresses.
    public static let serverIPAddresses = ["127.0.0.1", "::1"]

    /// Every host name the server certificate covers: `localhost`, then each source's
    /// ``TestCredentialSource/certificateHostNames`` in order, each once. A wildcard name
    /// matches exactly one label (RFC 6125 §6.4.3).
    public static func serverDNSNames(sources: [any TestCredentialSource]) -> [String] {
        var out = ["localhost"]
        for name in sources.flatMap(\.certificateHostNames) where !out.contains(name) { out.append(name) }
        return out
    }

    /// The shared files' names inside a credentials directory.
    public enum FileName {
        public static let caCertificate = "pushdouble-test-ca.pem"
        public static let caKey = "pushdouble-test-ca.key.pem"
        public static let serverCertificate = "pushdouble-test-server.pem"
        public static let serverKey = "pushdouble-test-server.key.pem"
    }

    /// Generates a fresh set in memory (random keys, serials and ids): a new CA, a server
    /// certificate for ``serverDNSNames(sources:)``, and every source's files.
    public static func generate(sources: [any TestCredentialSource]) throws(CryptoError) -> GeneratedCredentialSet {
        let ca = try CertificateAuthority.generate(commonName: caCommonName)
        let server = try ca.issueServerCertificate(commonName: serverCommonName, dnsNames: serverDNSNames(sources: sources),
                                                   ipAddresses: serverIPAddresses)
        var files: [TestCredentialFile] = []
        for source in sources { files += try freshFiles(of: source, issuer: ca) }
        return GeneratedCredentialSet(caPEM: try ca.certificate.pem, caKeyPEM: try ca.privateKey.pemPKCS8,
                                      serverCertificatePEM: try server.certificatePEM, serverKeyPEM: try server.privateKeyPEM,
                                      files: files)
    }

    /// `set` with a new server certificate for ``serverDNSNames(sources:)`` and
    /// ``serverIPAddresses``, issued by its own CA for its own server key: what `pushdouble certs
    /// --server-certificate` (`Certificates/regenerate.sh --server-certificate`) ships when the
    /// names change, keeping the CA and every other key.
    public static func reissuingServerCertificate(of set: GeneratedCredentialSet,
                                                  sources: [any TestCredentialSource]) throws(CryptoError) -> GeneratedCredentialSet {
        let ca = try CertificateAuthority(certificatePEM: set.caPEM, privateKeyPEM: set.caKeyPEM)
        let server = try ca.issueServerCertificate(commonName: serverCommonName, dnsNames: serverDNSNames(sources: sources),
                                                   ipAddresses: serverIPAddresses, key: try P256PrivateKey(pem: set.serverKeyPEM))
        var copy = set
        copy.serverCertificatePEM = try server.certificatePEM
        return copy
    }

    /// `set` with the files of every source that has none yet (a newly registered provider),
    /// freshly generated; every file already there stays as it is.
    public static func addingMissingFiles(to set: GeneratedCredentialSet,
                                          sources: [any TestCredentialSource]) throws(CryptoError) -> GeneratedCredentialSet {
        var copy = set
        let ca = try CertificateAuthority(certificatePEM: set.caPEM, privateKeyPEM: set.caKeyPEM)
        for source in sources where source.credentialFiles.contains(where: { set.contents(of: $0.name) == nil }) {
            copy.files += try freshFiles(of: source, issuer: ca).filter { set.contents(of: $0.name) == nil }
        }
        // In the sources' declared order, as `load(from:sources:)` reads them back.
        let order = sources.flatMap(\.credentialFiles).map(\.name)
        copy.files.sort { (order.firstIndex(of: $0.name) ?? .max) < (order.firstIndex(of: $1.name) ?? .max) }
        return copy
    }

    /// A fresh set of `source`'s files, in its declared order.
    static func freshFiles(of source: any TestCredentialSource, issuer: CertificateAuthority) throws(CryptoError) -> [TestCredentialFile] {
        let made = try source.generateCredentialFiles(issuer: issuer)
        var out: [TestCredentialFile] = []
        for spec in source.credentialFiles {
            guard let contents = made[spec.name] else { throw .fileIO(path: spec.name, reason: "its source generated no such file") }
            out.append(TestCredentialFile(name: spec.name, contents: contents, secret: spec.secret))
        }
        return out
    }

    /// Generates a fresh set and writes it into `directory` (created if needed).
    @discardableResult
    public static func generate(into directory: URL, sources: [any TestCredentialSource]) throws(CryptoError) -> GeneratedCredentialSet {
        let set = try generate(sources: sources)
        try set.write(to: directory)
        return set
    }

    /// JSON text with `fields` in order, 2-space indent and `/` unescaped: the layout of the
    /// JSON files providers ship (a Google service-account file, a key's ids).
    public static func prettyJSON(_ fields: [(String, String)]) -> String {
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
        func value(_ s: String) -> String { s.contains("\n") ? literal(s) : line(s) }
        var out = """
        // GENERATED by TestCredentials.embeddedSwiftSource(for:) from the files in Certificates/.
        // Do not edit: regenerate with Certificates/regenerate.sh (see docs/crypto.md). A test
        // checks that these constants equal the files, so they cannot drift apart.
        //
        // TEST ONLY. These keys are public; never trust this CA outside tests.

        /// The shipped test credentials as constants, so `pushdouble serve` runs without files:
        /// the shared CA and server certificate, then every provider's files by name.
        public enum EmbeddedTestCredentials {

        """
        for (name, text) in [("caPEM", set.caPEM), ("caKeyPEM", set.caKeyPEM),
                             ("serverCertificatePEM", set.serverCertificatePEM), ("serverKeyPEM", set.serverKeyPEM)] {
            out += "    public static let \(name) = " + value(text) + "\n"
        }
        out += "    /// Every provider's files (``TestCredentialSource``), in write order.\n"
        out += "    public static let files: [TestCredentialFile] = [\n"
        for f in set.files {
            out += "        TestCredentialFile(name: " + line(f.name) + ", contents: " + value(f.contents) + ", secret: \(f.secret)),\n"
        }
        out += "    ]\n"
        out += """

            /// The text of the provider file `name`; traps when the shipped set has no such file
            /// (a provider naming a file it does not ship is a build-time mistake).
            public static func contents(of name: String) -> String {
                guard let f = files.first(where: { $0.name == name }) else { fatalError("no shipped test credential file \\(name)") }
                return f.contents
            }
        }

        """
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
    /// Every provider's files, in write order.
    public var files: [TestCredentialFile]

    public init(caPEM: String, caKeyPEM: String, serverCertificatePEM: String, serverKeyPEM: String, files: [TestCredentialFile]) {
        self.caPEM = caPEM
        self.caKeyPEM = caKeyPEM
        self.serverCertificatePEM = serverCertificatePEM
        self.serverKeyPEM = serverKeyPEM
        self.files = files
    }

    /// The shipped set compiled into the binary.
    public static var embedded: GeneratedCredentialSet {
        GeneratedCredentialSet(
            caPEM: EmbeddedTestCredentials.caPEM, caKeyPEM: EmbeddedTestCredentials.caKeyPEM,
            serverCertificatePEM: EmbeddedTestCredentials.serverCertificatePEM, serverKeyPEM: EmbeddedTestCredentials.serverKeyPEM,
            files: EmbeddedTestCredentials.files)
    }

    /// The text of the provider file `name`, if the set has it.
    public func contents(of name: String) -> String? { files.first { $0.name == name }?.contents }

    /// Every file of the set: the CA and the server certificate with their keys, then the
    /// providers' files.
    public func fileContents() -> [TestCredentialFile] {
        typealias F = TestCredentials.FileName
        return [TestCredentialFile(name: F.caCertificate, contents: caPEM, secret: false),
                TestCredentialFile(name: F.caKey, contents: caKeyPEM, secret: true),
                TestCredentialFile(name: F.serverCertificate, contents: serverCertificatePEM, secret: false),
                TestCredentialFile(name: F.serverKey, contents: serverKeyPEM, secret: true)] + files
    }

    /// Writes every file into `directory` (created if missing). Secret files get mode 0600.
    public func write(to directory: URL) throws(CryptoError) {
        let fm = FileManager.default
        do { try fm.createDirectory(at: directory, withIntermediateDirectories: true) } catch {
            throw .fileIO(path: directory.path, reason: "\(error)")
        }
        for file in fileContents() {
            let url = directory.appendingPathComponent(file.name)
            do {
                let bytes = TestCredentialFile.isBinary(file.name) ? Data(base64Encoded: file.contents) ?? Data() : Data(file.contents.utf8)
                try bytes.write(to: url, options: .atomic)
                try fm.setAttributes([.posixPermissions: file.secret ? 0o600 : 0o644], ofItemAtPath: url.path)
            } catch {
                throw .fileIO(path: url.path, reason: "\(error)")
            }
        }
    }

    /// Reads a set from a directory written by `write(to:)`: the shared files and every
    /// source's files.
    public static func load(from directory: URL, sources: [any TestCredentialSource]) throws(CryptoError) -> GeneratedCredentialSet {
        typealias F = TestCredentials.FileName
        func read(_ name: String) throws(CryptoError) -> String {
            let url = directory.appendingPathComponent(name)
            do {
                if TestCredentialFile.isBinary(name) { return try Data(contentsOf: url).base64EncodedString() }
                return try String(contentsOf: url, encoding: .utf8)
            } catch { throw .fileIO(path: url.path, reason: "\(error)") }
        }
        var files: [TestCredentialFile] = []
        for spec in sources.flatMap(\.credentialFiles) {
            files.append(TestCredentialFile(name: spec.name, contents: try read(spec.name), secret: spec.secret))
        }
        return GeneratedCredentialSet(caPEM: try read(F.caCertificate), caKeyPEM: try read(F.caKey),
                                      serverCertificatePEM: try read(F.serverCertificate), serverKeyPEM: try read(F.serverKey),
                                      files: files)
    }
}
