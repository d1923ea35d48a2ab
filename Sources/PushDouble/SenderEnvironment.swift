import Foundation
import PushDoubleCore

/// Credential files written for senders (the CA, the APNs key) in a private temp directory.
public struct SenderFiles: Sendable {
    /// The private directory holding the files (nil when nothing was written).
    public var directory: URL?
    public var caFile: String?
    public var apnsKeyFile: String?

    /// Writes the files `credentials` has into a new private directory (nothing without credentials).
    public static func write(credentials: DoubleCredentials?) throws -> SenderFiles {
        guard let c = credentials else { return SenderFiles() }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pushdouble-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        var files = SenderFiles(directory: dir)
        let ca = dir.appendingPathComponent("ca.pem")
        try Data(c.caPEM.utf8).write(to: ca)
        files.caFile = ca.path
        if let k = c.apnsKeyPEM {
            let key = dir.appendingPathComponent("AuthKey_\(c.apnsKeyID ?? "TEST").p8")
            try Data(k.utf8).write(to: key)
            files.apnsKeyFile = key.path
        }
        return files
    }

    /// Removes the directory and its files.
    public func remove() { if let d = directory { try? FileManager.default.removeItem(at: d) } }
}

/// The environment variables of the driver protocol (DESIGN §4) for a running double.
public enum SenderEnvironment {
    /// The variables in the order `serve` prints them.
    public static func variables(endpoints: [DoubleEndpoint], credentials: DoubleCredentials?, files: SenderFiles) -> [(String, String)] {
        var env: [(String, String)] = [("PUSHDOUBLE_PROTOCOL", "1")]
        func url(_ name: String) -> String? { endpoints.first { $0.name == name }?.url }
        if let a = url("admin") { env.append(("PUSHDOUBLE_ADMIN_URL", a)) }
        if let ca = files.caFile {
            env.append(("SSL_CERT_FILE", ca)); env.append(("REQUESTS_CA_BUNDLE", ca)); env.append(("PUSHDOUBLE_CA_FILE", ca))
            env.append(("NODE_EXTRA_CA_CERTS", ca))
        }
        if let p = url("apns-production") ?? url("apns-sandbox") {
            env.append(("APNS_URL", p))
            if let s = url("apns-sandbox") { env.append(("APNS_SANDBOX_URL", s)) }
            if let k = files.apnsKeyFile { env.append(("APNS_KEY_FILE", k)) }
            if let v = credentials?.apnsKeyID { env.append(("APNS_KEY_ID", v)) }
            if let v = credentials?.apnsTeamID { env.append(("APNS_TEAM_ID", v)) }
            if let v = credentials?.apnsTopic { env.append(("APNS_TOPIC", v)) }
        }
        if let f = url("fcm") { env.append(("FCM_URL", f)) }
        if let o = url("oauth") { env.append(("FCM_TOKEN_URI", o + "/token")) }
        if let e = url("expo") { env.append(("EXPO_URL", e)) }
        if let w = url("webpush") { env.append(("WEBPUSH_URL", w)) }
        return env
    }

    /// `{"endpoints":[…],"environment":{…}}` for `--endpoints-file`.
    public static func endpointsDocument(endpoints: [DoubleEndpoint], environment: [(String, String)]) -> Data {
        struct Doc: Encodable { let endpoints: [DoubleEndpoint]; let environment: [String: String] }
        var env: [String: String] = [:]
        for (k, v) in environment { env[k] = v }
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return (try? e.encode(Doc(endpoints: endpoints, environment: env))) ?? Data("{}".utf8)
    }

    /// POSIX shell single-quoting when needed.
    public static func shellQuote(_ s: String) -> String {
        let safe = s.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) || "/:._-,=+@%".unicodeScalars.contains($0) }
        return safe && !s.isEmpty ? s : "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
