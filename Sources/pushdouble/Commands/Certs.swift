import Foundation
import PushDoubleCrypto
import PushDouble

/// `pushdouble certs --out DIR`: writes a fresh set of test-only credentials.
/// `pushdouble certs --trust [--ca FILE]`: prints (never runs) the commands that make a trust
/// store accept the test CA: Debian's, Java's cacerts, Node's and Python's variables. Exit
/// status 0 when done, 1 when a file cannot be written or read, 2 for usage errors.
enum CertsCommand: ConsoleCommand {
    static let name = "certs"
    static let summary = "Regenerate the test CA and sample credentials (--out DIR), or print how to trust the test CA (--trust)."

    static let options: [OptionSpec] = [
        OptionSpec("--out", value: "DIR", help: "directory to write a fresh set of credentials into (created if missing)"),
        OptionSpec("--server-certificate", help: "with --out: write the shipped set with a new server certificate for today's host names, "
                       + "plus the files of a provider that has none yet (same CA, every existing key kept; for maintainers, "
                       + "Certificates/regenerate.sh)"),
        OptionSpec("--swift", value: "FILE", help: "with --out: also write the embedded copy of the set as Swift source "
                       + "(EmbeddedTestCredentials.swift; for maintainers, Certificates/regenerate.sh)"),
        OptionSpec("--trust", help: "print the commands that add the test CA to trust stores (Debian, Java, Node, Python, Go); runs nothing"),
        OptionSpec("--ca", value: "FILE", help: "with --trust: the CA file to name (default: the test CA serve uses, written to "
                       + "\(defaultCAFile))"),
        OptionSpec.help,
    ]

    /// Where `--trust` writes the embedded test CA (the one `serve` uses) when no `--ca` is given.
    static var defaultCAFile: String {
        FileManager.default.temporaryDirectory.appendingPathComponent(TestCredentials.FileName.caCertificate).path
    }

    static var help: CommandHelp {
        CommandHelp(usage: "pushdouble certs --out DIR [--server-certificate] [--swift FILE] | --trust [--ca FILE]",
                    summary: "--out: writes a new test CA, a server certificate (localhost, 127.0.0.1, ::1 and the real provider host names)\n"
                        + "and each provider's credentials into DIR:\n"
                        + FakeRegistry.credentialSources.map { "  " + $0.credentialsSummary + "\n" }.joined()
                        + "--trust: prints the trust-store commands for the test CA, to copy into a test machine's set-up.\n"
                        + "All of it is TEST-ONLY material: trust the CA only on machines that run tests.",
                    options: options, footer: "exit status: 0 done, 1 cannot write or read a file, 2 usage error")
    }

    static func run(parsed: ParsedOptions, out: Console, err: Console) -> Int32 {
        let trust = parsed.flag("--trust")
        guard parsed.value("--out") != nil || trust else {
            err.write(CLIError.message(CLIError.missingArgument("--out DIR or --trust"), command: name))
            return CLIError.exitStatus
        }
        if parsed.value("--ca") != nil && !trust {
            err.write(CLIError.message(CLIError.missingArgument("--trust (--ca only names the CA for --trust)"), command: name))
            return CLIError.exitStatus
        }
        if (parsed.flag("--server-certificate") || parsed.value("--swift") != nil) && parsed.value("--out") == nil {
            err.write(CLIError.message(CLIError.missingArgument("--out DIR (--server-certificate and --swift only go with --out)"), command: name))
            return CLIError.exitStatus
        }
        if let dir = parsed.value("--out") {
            do {
                let url = URL(fileURLWithPath: dir, isDirectory: true)
                try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
                let sources = FakeRegistry.credentialSources
                let set = parsed.flag("--server-certificate")
                    ? try TestCredentials.reissuingServerCertificate(
                        of: try TestCredentials.addingMissingFiles(to: .embedded, sources: sources), sources: sources)
                    : try TestCredentials.generate(sources: sources)
                try set.write(to: url)
                out.line("wrote test-only credentials to \(url.path)")
                if let swift = parsed.value("--swift") {
                    try Data(TestCredentials.embeddedSwiftSource(for: set).utf8).write(to: URL(fileURLWithPath: swift), options: .atomic)
                    out.line("wrote their embedded copy to \(swift)")
                }
            } catch {
                err.line("pushdouble \(name): \(error)")
                return 1
            }
        }
        guard trust else { return 0 }
        let ca: String
        if let given = parsed.value("--ca") {
            guard FileManager.default.isReadableFile(atPath: given) else {
                err.line("pushdouble \(name): cannot read CA file \(given)")
                return 1
            }
            ca = URL(fileURLWithPath: given).standardizedFileURL.path
        } else {
            do { try Data(EmbeddedTestCredentials.caPEM.utf8).write(to: URL(fileURLWithPath: defaultCAFile), options: .atomic) } catch {
                err.line("pushdouble \(name): cannot write \(defaultCAFile): \(error)")
                return 1
            }
            ca = defaultCAFile
        }
        out.write(trustCommands(caFile: ca))
        return 0
    }

    /// The trust-store commands for `caFile`, one block per ecosystem, as comments and commands
    /// to copy (nothing here is run).
    static func trustCommands(caFile: String) -> String {
        let ca = shellQuote(caFile)
        let alias = "pushdouble-test-ca"
        return """
        # pushdouble test CA: \(caFile)
        # TEST-ONLY. Trust it only on machines that run tests; nothing below has been run.

        # Debian / Ubuntu system store (curl, Go, OpenSSL-based clients, most others):
        sudo cp \(ca) /usr/local/share/ca-certificates/\(alias).crt
        sudo update-ca-certificates
        #   undo: sudo rm /usr/local/share/ca-certificates/\(alias).crt && sudo update-ca-certificates --fresh

        # Java (9+), the JDK's cacerts (default password changeit):
        keytool -importcert -noprompt -trustcacerts -alias \(alias) -file \(ca) -cacerts -storepass changeit
        #   or a separate trust store, given to the JVM:
        #   keytool -importcert -noprompt -alias \(alias) -file \(ca) -keystore pushdouble-truststore.p12 -storetype PKCS12 -storepass changeit
        #   java -Djavax.net.ssl.trustStore=pushdouble-truststore.p12 -Djavax.net.ssl.trustStorePassword=changeit …
        #   undo: keytool -delete -alias \(alias) -cacerts -storepass changeit

        # Node.js (added to its bundled roots):
        export NODE_EXTRA_CA_CERTS=\(ca)

        # Python: ssl's default context, httpx (SSL_CERT_FILE), requests (REQUESTS_CA_BUNDLE);
        # these replace the default roots, which is what a test wants (no other host is reachable):
        export SSL_CERT_FILE=\(ca)
        export REQUESTS_CA_BUNDLE=\(ca)

        # Go reads SSL_CERT_FILE too; curl takes --cacert \(ca) or CURL_CA_BUNDLE (Debian's curl ignores SSL_CERT_FILE):
        export CURL_CA_BUNDLE=\(ca)

        """
    }

    /// POSIX single-quoting when needed (the path may contain spaces).
    static func shellQuote(_ s: String) -> String { SenderKit.shellQuote(s) }
}
