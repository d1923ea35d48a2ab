// pushdouble: the command-line entry point. A table of commands; each command's
// implementation lives in the module responsible for it (serve/replay in PushDouble,
// conform in PushDoubleConformance, certs in PushDoubleCrypto). This file only
// dispatches and renders help from the same table.
import Foundation
import Glibc
import PushDouble
import PushDoubleConformance
import PushDoubleCrypto

/// One CLI command: its name, one-line summary and entry point.
struct Command: Sendable {
    let name: String
    let summary: String
    let run: @Sendable ([String]) -> Int32
}

enum CommandTable {
    static let commands: [Command] = [
    Command(name: "serve", summary: "Run every fake on loopback with the shipped test credentials (default ports, or --ephemeral).",
            run: ServeCommand.run),
    Command(name: "replay", summary: "Serve with a scenario file loaded and print each exchange in detail (for QA).",
            run: ReplayCommand.run),
    Command(name: "conform", summary: "Drive a push sender through the conformance suite and judge it (JUnit/JSON reports, exit code).",
            run: ConformCommand.run),
    Command(name: "certs", summary: "Regenerate the test CA, server certificate and sample credentials into a directory.",
            run: CertsCommand.run),
    ]
}
let commands = CommandTable.commands

func usage() -> String {
    var s = """
    pushdouble — offline test double of APNs (FCM, Expo, Web Push to follow) and a conformance runner for push senders.

    Usage: pushdouble <command> [options]     (pushdouble <command> --help for its options)

    Commands:

    """
    let width = CommandTable.commands.map(\.name.count).max() ?? 0
    for c in CommandTable.commands {
        s += "  " + c.name.padding(toLength: width + 2, withPad: " ", startingAt: 0) + c.summary + "\n"
    }
    s += "\nExamples:\n  swift run pushdouble serve\n  swift run pushdouble conform --sender \"$(swift build --show-bin-path)/pushdouble-reference-sender\"\n  swift run pushdouble certs --out /tmp/pd-certs\n"
    return s
}

/// `pushdouble certs --out DIR`: writes a fresh set of test-only credentials.
enum CertsCommand {
    static func run(_ arguments: [String]) -> Int32 {
        var out: String?
        var i = 0
        while i < arguments.count {
            let a = arguments[i]
            switch a {
            case "--help", "-h":
                print("Usage: pushdouble certs --out DIR\n\nWrites a new test CA, a server certificate (localhost, 127.0.0.1, ::1 and the real provider host names),\nan APNs .p8 key, a Firebase service-account JSON, an Expo access token and a VAPID key pair into DIR.\nAll of it is TEST-ONLY material.")
                return 0
            case "--out":
                guard i + 1 < arguments.count else { FileHandle.standardError.write(Data("pushdouble certs: --out needs a directory\n".utf8)); return 2 }
                out = arguments[i + 1]; i += 1
            default:
                FileHandle.standardError.write(Data("pushdouble certs: unknown option \(a) (see pushdouble certs --help)\n".utf8))
                return 2
            }
            i += 1
        }
        guard let dir = out else {
            FileHandle.standardError.write(Data("pushdouble certs: --out DIR is required\n".utf8)); return 2
        }
        do {
            let url = URL(fileURLWithPath: dir, isDirectory: true)
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            _ = try TestCredentials.generate(into: url)
            print("wrote test-only credentials to \(url.path)")
            return 0
        } catch {
            FileHandle.standardError.write(Data("pushdouble certs: \(error)\n".utf8))
            return 1
        }
    }
}

signal(SIGPIPE, SIG_IGN)
var args = Array(CommandLine.arguments.dropFirst())
guard let name = args.first else { print(usage()); exit(0) }
args.removeFirst()
switch name {
case "--help", "-h", "help":
    print(usage()); exit(0)
case "--version", "version":
    print("pushdouble 0.1.0"); exit(0)
default:
    guard let command = commands.first(where: { $0.name == name }) else {
        FileHandle.standardError.write(Data("pushdouble: unknown command '\(name)'\n\n".utf8))
        FileHandle.standardError.write(Data(usage().utf8))
        exit(2)
    }
    exit(command.run(args))
}
