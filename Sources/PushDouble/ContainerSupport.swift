import Foundation
import PushDoubleCore
import PushDoubleCrypto
import PushDoubleTransport

/// What a double run in a container (or reached from another machine) adds to the admin API,
/// so that a sender outside needs only an HTTP client (docs/containers.md):
///
/// - `GET /ca.pem`: the test CA to trust;
/// - `GET /sender/environment?format=json|dotenv|shell&dir=DIR`: the sender environment, its
///   file paths pointing into `DIR` (default ``defaultDirectory``) where the caller puts the files;
/// - `GET /sender/files` (their names), `GET /sender/files/{name}` (one file: the CA, the APNs
///   key, the service-account file whose `token_uri` names the advertised host, the VAPID keys…);
/// - `GET /sender/setup.sh?dir=DIR`: one shell script that writes every file into `DIR` and
///   exports the environment (`eval "$(curl -fsS …/sender/setup.sh)"`);
/// - `GET /metrics` when ``PushDoubleConfiguration/metrics`` is on (``ExchangeMetrics``).
struct ContainerSupport: Sendable {
    var metrics: ExchangeMetrics?
    /// The sender kit the downloads render, made at the first download, removed at stop.
    var kit: SenderKit?

    /// Where the downloaded environment points its files by default.
    static let defaultDirectory = "/tmp/pushdouble-sender"
}

extension PushDoubleConfiguration {
    /// The host clients are told for a listener bound to `bound` (``advertisedHost``).
    func toldHost(bound: String) -> String {
        if let a = advertisedHost, !a.isEmpty { return a }
        switch bound {
        case "0.0.0.0", "": return "127.0.0.1"
        case "::", "[::]": return "::1"
        default: return bound
        }
    }

    /// The TLS identity served: ``credentials``, with a server certificate reissued by the
    /// embedded test CA to cover ``advertisedHost`` when it is the embedded one and does not
    /// cover that name yet (a container's service name). Other credentials are served as given.
    func servedCredentials() throws -> DoubleCredentials? {
        guard var c = credentials, let host = advertisedHost, !host.isEmpty,
              c.caPEM == EmbeddedTestCredentials.caPEM, c.serverCertificatePEM == EmbeddedTestCredentials.serverCertificatePEM
        else { return credentials }
        var dns = TestCredentials.serverDNSNames(sources: FakeRegistry.credentialSources)
        var ips = TestCredentials.serverIPAddresses
        let isAddress = host.contains(":") || host.allSatisfy { $0.isNumber || $0 == "." }
        if isAddress { if !ips.contains(host) { ips.append(host) } } else if !dns.contains(host.lowercased()) { dns.append(host.lowercased()) }
        guard dns.count + ips.count > TestCredentials.serverDNSNames(sources: FakeRegistry.credentialSources).count
                + TestCredentials.serverIPAddresses.count else { return c }
        let ca = try CertificateAuthority(certificatePEM: EmbeddedTestCredentials.caPEM, privateKeyPEM: EmbeddedTestCredentials.caKeyPEM)
        let leaf = try ca.issueServerCertificate(commonName: TestCredentials.serverCommonName, dnsNames: dns, ipAddresses: ips,
                                                 key: try P256PrivateKey(pem: EmbeddedTestCredentials.serverKeyPEM))
        c.serverCertificatePEM = try leaf.certificatePEM
        return c
    }
}

extension PushDoubleServer {
    /// The admin routes of ``ContainerSupport`` (and the metrics counter, when configured).
    func containerRoutes(transport: HTTPServer) -> [AdminRoute] {
        if configuration.metrics {
            let m = ExchangeMetrics(history: history)
            container.withLock { $0.metrics = m }
        }
        return [
            AdminRoute("GET", "/ca.pem") { [weak self] _, _ in
                guard let pem = self?.configuration.credentials?.caPEM else { return AdminRoute.error(404, "this double has no TLS credentials") }
                return HTTPResponse(status: 200, contentType: "application/x-pem-file", body: pem)
            },
            AdminRoute("GET", "/sender/environment") { [weak self] request, _ in
                self?.download { try $0.environmentDownload(request) } ?? Self.gone
            },
            AdminRoute("GET", "/sender/setup.sh") { [weak self] request, _ in
                self?.download { try $0.setupScript(request) } ?? Self.gone
            },
            AdminRoute("GET", "/sender/files") { [weak self] _, _ in
                self?.download { kit in AdminRoute.json(200, .array(try kit.fileNames().map { .string($0) })) } ?? Self.gone
            },
            AdminRoute("GET", "/sender/files/:name") { [weak self] _, params in
                self?.download { try $0.fileDownload(QueryString.decode((params["name"] ?? "")[...], plusAsSpace: false)) } ?? Self.gone
            },
            AdminRoute("GET", "/metrics") { [weak self, weak transport] _, _ in
                guard let self else { return Self.gone }
                guard let m = container.withLock({ $0.metrics }) else {
                    return AdminRoute.error(404, "metrics are off (PushDoubleConfiguration.metrics; pushdouble serve counts them)")
                }
                return HTTPResponse(status: 200, contentType: PrometheusText.contentType,
                                    body: m.exposition(history: history, listeners: transport?.listenerStatistics ?? []))
            },
        ]
    }

    static var gone: HTTPResponse { AdminRoute.error(503, "the double is stopping") }

    /// Renders a download from the served sender kit (made at the first one).
    private func download(_ render: (SenderKit) throws -> HTTPResponse) -> HTTPResponse {
        do {
            let kit = try container.withLock { c -> SenderKit in
                if let k = c.kit { return k }
                let k = try senderKit()
                c.kit = k
                return k
            }
            return try render(kit)
        } catch let f as SenderDownloadError {
            return AdminRoute.error(f.status, f.message)
        } catch {
            return AdminRoute.error(500, "cannot render the sender kit: \(error)")
        }
    }

    /// Stops the metrics thread and removes the downloads' sender kit.
    func stopContainerSupport() {
        let c = container.withLock { c -> ContainerSupport in let old = c; c = ContainerSupport(); return old }
        c.metrics?.stop()
        c.kit?.remove()
    }
}

/// A download request the admin API refuses (400 bad format or directory, 404 no such file).
struct SenderDownloadError: Error {
    var status: Int
    var message: String
}

extension SenderKit {
    /// The names of the files in ``directory``, sorted.
    func fileNames() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    }

    /// ``environment`` with every path into ``directory`` pointed into `dir` instead.
    func environment(relocatedTo dir: String) -> [(String, String)] {
        let from = directory.path + "/"
        let to = dir.hasSuffix("/") ? dir : dir + "/"
        return environment.map { k, v in (k, v.hasPrefix(from) ? to + v.dropFirst(from.count) : v) }
    }

    /// The `dir` query parameter: an absolute path without quotes or newlines (it is written into shell lines).
    static func directory(_ query: [(String, String)]) throws -> String {
        let dir = query.last { $0.0 == "dir" }?.1 ?? ContainerSupport.defaultDirectory
        guard dir.hasPrefix("/"), !dir.contains(where: { "'\"\n\r\\$`".contains($0) }) else {
            throw SenderDownloadError(status: 400, message: "dir: expected an absolute path without quotes, backslashes, $, ` or newlines")
        }
        return dir
    }

    /// `GET /sender/environment`: `format` json (default), dotenv or shell.
    func environmentDownload(_ request: HTTPRequest) throws -> HTTPResponse {
        let query = QueryString.parse(request.query)
        let env = environment(relocatedTo: try Self.directory(query))
        switch query.last(where: { $0.0 == "format" })?.1 ?? "json" {
        case "json": return AdminRoute.json(200, .object(env.sorted { $0.0 < $1.0 }.map { ($0.0, .string($0.1)) }))
        case "dotenv": return HTTPResponse(status: 200, contentType: "text/plain; charset=utf-8", body: Self.lines(env, shell: false))
        case "shell": return HTTPResponse(status: 200, contentType: "text/x-shellscript; charset=utf-8", body: Self.lines(env, shell: true))
        case let other: throw SenderDownloadError(status: 400, message: "format: \"\(other)\" is not json, dotenv or shell")
        }
    }

    /// `GET /sender/files/{name}`.
    func fileDownload(_ name: String) throws -> HTTPResponse {
        guard try fileNames().contains(name) else {
            throw SenderDownloadError(status: 404, message: "no sender file \"\(name)\"; GET /sender/files lists them")
        }
        let data = [UInt8](try Data(contentsOf: directory.appendingPathComponent(name)))
        // Served byte for byte: a PKCS#12 file is binary.
        let type = name.hasSuffix(".json") ? "application/json" : name.hasSuffix(".pem") || name.hasSuffix(".p8") ? "application/x-pem-file"
            : name.hasSuffix(".p12") ? "application/x-pkcs12" : String(validating: data, as: UTF8.self) == nil ? "application/octet-stream" : "text/plain"
        return HTTPResponse(status: 200, headers: HTTPHeaders([("content-type", type)]), body: data)
    }

    /// `GET /sender/setup.sh`: writes every file into `dir` (0700, files 0600) and exports the environment.
    func setupScript(_ request: HTTPRequest) throws -> HTTPResponse {
        let dir = try Self.directory(QueryString.parse(request.query))
        var s = "# pushdouble sender setup: eval \"$(curl -fsS ADMIN/sender/setup.sh)\"\n"
        s += "mkdir -p '\(dir)' && chmod 700 '\(dir)'\n"
        for name in try fileNames() {
            let data = try Data(contentsOf: directory.appendingPathComponent(name))
            guard let text = String(validating: [UInt8](data), as: UTF8.self) else {
                // A binary file (a PKCS#12 certificate) travels as base64, decoded by coreutils' base64.
                let lines = data.base64EncodedString(options: [.lineLength76Characters, .endLineWithLineFeed])
                s += "(umask 077 && base64 -d > '\(dir)/\(name)' <<'PUSHDOUBLE_EOF'\n" + lines + "\nPUSHDOUBLE_EOF\n)\n"
                continue
            }
            var marker = "PUSHDOUBLE_EOF"
            while text.contains(marker) { marker += "_" }
            s += "(umask 077 && cat > '\(dir)/\(name)' <<'\(marker)'\n" + text + (text.hasSuffix("\n") ? "" : "\n") + marker + "\n)\n"
        }
        s += Self.lines(environment(relocatedTo: dir), shell: true)
        return HTTPResponse(status: 200, contentType: "text/x-shellscript; charset=utf-8", body: s)
    }

    /// One line per variable, sorted by name: `export NAME=quoted` (shell) or `NAME=value` (dotenv,
    /// `docker --env-file`, `$GITHUB_ENV`).
    public static func lines(_ environment: [(String, String)], shell: Bool) -> String {
        environment.sorted { $0.0 < $1.0 }.map { k, v in
            shell ? "export \(k)=\(shellQuote(v))\n" : "\(k)=\(v)\n"
        }.joined()
    }
}
