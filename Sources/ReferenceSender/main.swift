// pushdouble-reference-sender: a correct APNs push sender speaking the PushDouble driver
// protocol v1 (JSON-RPC over stdin/stdout), with planted bugs selectable by --mutant.
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Command-line options.
struct SenderArguments {
    var mutant: Mutant?
    var scripted = false
    var listMutants = false
    var help = false

    enum ParseError: Error { case unknownMutant(String), missingValue(String), unknownOption(String) }

    init(_ args: [String]) throws(ParseError) {
        var i = 0
        while i < args.count {
            let a = args[i]
            var value: String?
            if a.hasPrefix("--mutant=") { value = String(a.dropFirst("--mutant=".count)) }
            switch a {
            case "--mutant":
                guard i + 1 < args.count else { throw .missingValue(a) }
                i += 1
                value = args[i]
                fallthrough
            case _ where value != nil:
                let name = value!
                guard let m = Mutant(rawValue: name) else { throw .unknownMutant(name) }
                mutant = m
            case "--list-mutants": listMutants = true
            case "--scripted-apns": scripted = true
            case "-h", "--help": help = true
            default: throw .unknownOption(a)
            }
            i += 1
        }
    }

    static let usage = """
    usage: pushdouble-reference-sender [--mutant NAME] [--list-mutants] [--scripted-apns]

    Speaks PushDouble driver protocol v1 (JSON-RPC 2.0, one message per line) on
    stdin/stdout and sends APNs pushes correctly. --mutant plants one known bug
    (see --list-mutants). --scripted-apns answers from an in-memory APNs with virtual
    time, for testing the sender itself.
    """
}

signal(SIGPIPE, SIG_IGN)
let arguments: SenderArguments
do {
    arguments = try SenderArguments(Array(CommandLine.arguments.dropFirst()))
} catch {
    switch error {
    case .unknownMutant(let name):
        Log.info("unknown mutant \"\(name)\"; known mutants: " + Mutant.allCases.map(\.rawValue).joined(separator: ", "))
    case .missingValue(let option):
        Log.info("\(option) needs a value")
    case .unknownOption(let option):
        Log.info("unknown option \(option)\n" + SenderArguments.usage)
    }
    exit(2)
}
if arguments.help {
    print(SenderArguments.usage)
    exit(0)
}
if arguments.listMutants {
    for m in Mutant.allCases { print("\(m.rawValue)\t\(m.summary)") }
    exit(0)
}

let server = DriverServer(mutant: arguments.mutant, environment: ProcessInfo.processInfo.environment,
                          scripted: arguments.scripted ? ScriptedAPNs() : nil)
let status = await server.run()
exit(status)
