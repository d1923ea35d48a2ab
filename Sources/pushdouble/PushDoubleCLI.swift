// pushdouble: the command-line entry point. A table of commands (serve, replay, conform, env,
// certs, in Commands/), one option parser and usage error for all of them (Options/), and
// the console and exchange log they print with (Output/). What the commands run is library
// API: PushDouble (the server), PushDoubleConformance (the suite), PushDoubleCrypto (certs).
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import PushDouble

/// Every command, in the order the top-level usage lists them.
enum CommandTable {
    static let commands: [any CLICommand.Type] = [ServeCommand.self, ReplayCommand.self, ConformCommand.self, CertsCommand.self, EnvCommand.self, HostsCommand.self, ProbeCommand.self]

    static let version = "pushdouble 0.1.0"

    /// `pushdouble --help`: generated from the command table.
    static var usage: String {
        let served: String = FakeRegistry.modules.map { $0.title }.joined(separator: "; ")
        var s = """
        pushdouble — offline test double of push providers (\(served)) and a conformance runner for push senders.

        Usage: pushdouble <command> [options]     (pushdouble <command> --help for its options)

        Commands:

        """
        let width = commands.map { $0.name.count }.max() ?? 0
        for c in commands {
            s += "  " + c.name.padding(toLength: width + 2, withPad: " ", startingAt: 0) + c.summary + "\n"
        }
        s += "\nExamples:\n  swift run pushdouble serve\n  swift run pushdouble conform --sender \"$(swift build --show-bin-path)/pushdouble-reference-sender\"\n  swift run pushdouble certs --out /tmp/pd-certs\n"
        return s
    }

    /// Runs `arguments` (without the program name): a command, help or version. Returns the exit status.
    static func run(_ arguments: [String], out: Console, err: Console) -> Int32 {
        guard let name = arguments.first else { out.line(usage); return 0 }
        switch name {
        case "--help", "-h", "help":
            out.line(usage); return 0
        case "--version", "version":
            out.line(version); return 0
        default:
            guard let command = commands.first(where: { $0.name == name }) else {
                err.write("pushdouble: unknown command '\(name)'\n\n" + usage)
                return CLIError.exitStatus
            }
            return command.run(Array(arguments.dropFirst()))
        }
    }
}

/// The executable's entry point (an `@main` type, so the test target can import the module).
@main
enum PushDoubleCLI {
    static func main() {
        signal(SIGPIPE, SIG_IGN)
        exit(CommandTable.run(Array(CommandLine.arguments.dropFirst()), out: .standardOutput, err: .standardError))
    }
}
