import Foundation
import PushDoubleCore

/// What a running double hands senders (the sender environment, docs/conformance.md "Driver protocol v1"): the test CA and every provider's
/// credential files in one private (0700) temp directory, the environment lines, and the
/// driver protocol's `initialize` → `providers` params. Rendered from each provider module's
/// ``SenderMaterial`` once the ports are bound (``PushDoubleServer/senderKit()``).
///
/// The files live until ``remove()``.
public final class SenderKit: Sendable {
    /// The private directory holding the files.
    public let directory: URL
    /// The test CA file, if the double has TLS credentials.
    public let caFile: String?
    /// Environment lines in order: the protocol and admin lines, the CA, then each provider's.
    public let environment: [(String, String)]
    /// `initialize.params.providers`, one object per provider that has a listener bound.
    public let providers: [(id: String, parameters: JSONValue)]

    init(endpoints: [DoubleEndpoint], credentials: DoubleCredentials?,
         providers instances: [(ProviderID, any ProviderInstance)]) throws {
        let dir = FileManager.default.temporaryDirectory
            .appendingPathComponent("pushdouble-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        directory = dir
        do {
            var env: [(String, String)] = [("PUSHDOUBLE_PROTOCOL", "1")]
            if let a = endpoints.first(where: { $0.name == "admin" })?.url { env.append(("PUSHDOUBLE_ADMIN_URL", a)) }
            var ca: String? = nil
            if let c = credentials {
                let path = dir.appendingPathComponent("ca.pem").path
                try Data(c.caPEM.utf8).write(to: URL(fileURLWithPath: path))
                ca = path
                for name in ["SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "PUSHDOUBLE_CA_FILE", "NODE_EXTRA_CA_CERTS"] { env.append((name, path)) }
            }
            env += Self.proxyEnvironment(endpoints)
            caFile = ca
            let context = SenderMaterialContext(endpoints: endpoints, caFile: ca, directory: dir)
            var params: [(id: String, parameters: JSONValue)] = []
            for (provider, instance) in instances {
                guard let m = try instance.senderMaterial(context) else { continue }
                env += m.environment
                params.append((provider.rawValue, m.driverParameters))
            }
            environment = env
            providers = params
        } catch {
            try? FileManager.default.removeItem(at: dir)
            throw error
        }
    }

    /// The proxy lines when the CONNECT proxy is bound: `HTTPS_PROXY`/`https_proxy` (clients
    /// read one or the other), and `NO_PROXY`/`no_proxy` for loopback, so that clients given
    /// the fakes' own URLs (`APNS_URL`, …) keep reaching them directly (and the advertised host,
    /// ``PushDoubleConfiguration/advertisedHost``, for the same reason).
    static func proxyEnvironment(_ endpoints: [DoubleEndpoint]) -> [(String, String)] {
        guard let url = endpoints.first(where: { $0.name == PushDoubleServer.proxyListener })?.url else { return [] }
        // Loopback, and the advertised host of a double in a container (its service name).
        var direct = ["127.0.0.1", "localhost", "::1"]
        for e in endpoints where !direct.contains(e.host) { direct.append(e.host) }
        let noProxy = direct.joined(separator: ",")
        return [("HTTPS_PROXY", url), ("https_proxy", url), ("NO_PROXY", noProxy), ("no_proxy", noProxy)]
    }

    /// Deletes the files.
    public func remove() { try? FileManager.default.removeItem(at: directory) }

    /// `{"endpoints":[…],"environment":{…}}` for `--endpoints-file` (``EndpointsDocument``).
    public func endpointsDocument(endpoints: [DoubleEndpoint]) -> Data {
        var env: [String: String] = [:]
        for (k, v) in environment { env[k] = v }
        return EndpointsDocument(endpoints: endpoints, environment: env).encoded
    }

    /// Where `serve` on its fixed default ports writes the endpoints file when no
    /// `--endpoints-file` is given, and where `pushdouble env` reads it: only one double can
    /// hold the default ports, so the file is unambiguous. `$TMPDIR/pushdouble-endpoints.json`.
    public static var defaultEndpointsFile: String {
        FileManager.default.temporaryDirectory.appendingPathComponent("pushdouble-endpoints.json").path
    }

    /// POSIX shell single-quoting when needed (for the `export` lines of the banner).
    public static func shellQuote(_ s: String) -> String {
        let safe = s.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) || "/:._-,=+@%".unicodeScalars.contains($0) }
        return safe && !s.isEmpty ? s : "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}

/// The endpoints file of a running double (`serve --endpoints-file`): every bound listener
/// and the sender environment lines. Written by ``SenderKit/endpointsDocument(endpoints:)``,
/// read by `pushdouble env`.
public struct EndpointsDocument: Codable, Sendable, Equatable {
    public var endpoints: [DoubleEndpoint]
    public var environment: [String: String]
    public init(endpoints: [DoubleEndpoint], environment: [String: String]) {
        self.endpoints = endpoints; self.environment = environment
    }

    /// Pretty-printed JSON with sorted keys.
    public var encoded: Data {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return (try? e.encode(self)) ?? Data("{}".utf8)
    }

    /// Reads and decodes `path`.
    public static func read(path: String) throws -> EndpointsDocument {
        try JSONDecoder().decode(EndpointsDocument.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
    }
}
