import Foundation

/// One file of the shipped test credentials: its name in a credentials directory, its text, and
/// whether it is written readable by its owner only (a private key, a secret).
public struct TestCredentialFile: Sendable, Equatable {
    public var name: String
    public var contents: String
    /// Written with mode 0600 (else 0644).
    public var secret: Bool

    public init(name: String, contents: String, secret: Bool) {
        self.name = name; self.contents = contents; self.secret = secret
    }
}

/// One provider's share of the **test-only** credentials (`Certificates/`, the copy embedded in
/// the binary, `pushdouble certs --out`): which files it ships, how to make a fresh set of them,
/// which of its real host names the fakes' server certificate must cover, and its line of
/// `pushdouble certs --help`. The shared part — the test CA and the server certificate — is
/// ``TestCredentials``'; every provider-specific fact lives with the provider, which conforms its
/// provider module to this protocol (the registry finds it there).
public protocol TestCredentialSource: Sendable {
    /// Its files, in write order: name and whether it is secret.
    var credentialFiles: [(name: String, secret: Bool)] { get }
    /// Fresh contents for every file of ``credentialFiles``, by name (new random keys; fixed ids
    /// such as a key id or a project id stay what the provider declares).
    func generateCredentialFiles() throws(CryptoError) -> [String: String]
    /// Host names (no port) the fakes' TLS server certificate must cover for this provider:
    /// the real service's names that senders connect to through the CONNECT proxy.
    var certificateHostNames: [String] { get }
    /// What it ships, as one phrase of `pushdouble certs --help` ("an APNs .p8 key (key ID
    /// PDTESTKEY1, team PDTESTTEAM)").
    var credentialsSummary: String { get }
    /// ``generateCredentialFiles()`` for a set whose test CA is `issuer`: a source that ships
    /// certificates signed by the test CA (APNs provider certificates) issues them here. The
    /// default ignores the CA.
    func generateCredentialFiles(issuer: CertificateAuthority) throws(CryptoError) -> [String: String]
}

extension TestCredentialSource {
    public func generateCredentialFiles(issuer: CertificateAuthority) throws(CryptoError) -> [String: String] {
        try generateCredentialFiles()
    }
}

extension TestCredentialFile {
    /// Files whose bytes are binary (PKCS#12 `.p12`) are held as base64 text and written decoded.
    public static func isBinary(_ name: String) -> Bool { name.hasSuffix(".p12") }
}

extension TestCredentials {
    /// The host names of `authorities` (`"api.push.apple.com:443"` → `"api.push.apple.com"`),
    /// each once, in order: what a provider's real `host:port` names give its certificate.
    public static func hostNames(of authorities: [String]) -> [String] {
        var out: [String] = []
        for a in authorities {
            let host = a.split(separator: ":", maxSplits: 1).first.map(String.init) ?? a
            if !out.contains(host) { out.append(host) }
        }
        return out
    }
}
