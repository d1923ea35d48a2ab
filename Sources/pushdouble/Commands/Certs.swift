import Foundation
import PushDoubleCrypto

/// `pushdouble certs --out DIR`: writes a fresh set of test-only credentials. Exit status 0
/// when written, 1 when they cannot be written, 2 for usage errors.
enum CertsCommand: CLICommand {
    static let name = "certs"
    static let summary = "Regenerate the test CA, server certificate and sample credentials into a directory."

    static let options: [OptionSpec] = [
        OptionSpec("--out", value: "DIR", help: "directory to write the credentials into (created if missing); required"),
        OptionSpec.help,
    ]

    static var help: CommandHelp {
        CommandHelp(usage: "pushdouble certs --out DIR",
                    summary: "Writes a new test CA, a server certificate (localhost, 127.0.0.1, ::1 and the real provider host names),\n"
                        + "an APNs .p8 key, a Firebase service-account JSON, an Expo access token and a VAPID key pair into DIR.\n"
                        + "All of it is TEST-ONLY material.",
                    options: options, footer: "exit status: 0 written, 1 cannot write, 2 usage error")
    }

    static func run(_ arguments: [String]) -> Int32 {
        run(arguments, out: .standardOutput, err: .standardError)
    }

    static func run(_ arguments: [String], out: Console, err: Console) -> Int32 {
        let parsed: ParsedOptions
        switch ParseOutcome.parse(arguments, command: name, help: help, output: out.write, errors: err.write) {
        case .exit(let status): return status
        case .options(let p): parsed = p
        }
        guard let dir = parsed.value("--out") else {
            err.write(CLIError.message(CLIError.missingArgument("--out DIR"), command: name))
            return CLIError.exitStatus
        }
        do {
            let url = URL(fileURLWithPath: dir, isDirectory: true)
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            _ = try TestCredentials.generate(into: url)
            out.line("wrote test-only credentials to \(url.path)")
            return 0
        } catch {
            err.line("pushdouble \(name): \(error)")
            return 1
        }
    }
}
