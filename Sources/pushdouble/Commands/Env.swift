import Foundation
import PushDouble

/// `pushdouble env [--endpoints-file FILE] [--shell]`: the sender environment of a running
/// double, read from its endpoints file, so that `eval "$(pushdouble env --shell)"` in a test
/// script points the code under test at it (the CA, `HTTPS_PROXY`, the fakes' URLs and
/// credentials). Exit status 0 printed, 1 no readable endpoints file (or a stale one: its CA file is gone), 2 usage error.
enum EnvCommand: ConsoleCommand {
    static let name = "env"
    static let summary = "Print the sender environment of a running pushdouble serve (from its endpoints file)."

    static var options: [OptionSpec] { [
        OptionSpec("--endpoints-file", value: "FILE",
                   help: "the running instance's endpoints file (default \(SenderKit.defaultEndpointsFile), which serve writes on its fixed ports)"),
        OptionSpec("--shell", help: "print POSIX shell export lines (eval \"$(pushdouble env --shell)\") instead of NAME=value lines"),
        OptionSpec.help,
    ] }

    static var help: CommandHelp {
        CommandHelp(usage: "pushdouble env [--endpoints-file FILE] [--shell]",
                    summary: "Prints the environment variables a sender needs to reach a running double: NAME=value lines\n"
                        + "(an env file for docker --env-file or $GITHUB_ENV), or with --shell, export lines to eval.",
                    options: options, footer: "exit status: 0 printed, 1 no readable endpoints file (is serve running?) or a stale one, 2 usage error")
    }

    static func run(parsed: ParsedOptions, out: Console, err: Console) -> Int32 {
        let path = parsed.value("--endpoints-file") ?? SenderKit.defaultEndpointsFile
        let document: EndpointsDocument
        do { document = try EndpointsDocument.read(path: path) } catch {
            let hint = FileManager.default.fileExists(atPath: path) ? "\(error)"
                : "no such file (start pushdouble serve, or pass the --endpoints-file it was given)"
            err.line("pushdouble \(name): cannot read endpoints file \(path): \(hint)")
            return 1
        }
        if let ca = document.environment["PUSHDOUBLE_CA_FILE"], !FileManager.default.fileExists(atPath: ca) {
            err.line("pushdouble \(name): stale endpoints file \(path): its CA file \(ca) is gone, so the serve that wrote it "
                     + "is no longer running (it was killed before it could remove the file)")
            return 1
        }
        out.write(lines(document.environment, shell: parsed.flag("--shell")))
        return 0
    }

    /// One line per variable, sorted by name: `export NAME=quoted` or `NAME=value`.
    static func lines(_ environment: [String: String], shell: Bool) -> String {
        SenderKit.lines(environment.map { ($0.key, $0.value) }, shell: shell)
    }
}
