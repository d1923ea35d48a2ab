// pushdouble-reference-sender: a correct push sender for every registered provider
// (SenderProviders.swift) speaking the PushDouble driver protocol v1 (JSON-RPC over
// stdin/stdout), with planted bugs (--mutant) and correct variants (--variant).
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Command-line options.
struct SenderArguments {
    /// Every `--mutant` given (stacked).
    var mutant = MutantSet()
    var variant: Variant?
    var seed: UInt64?
    /// `--scripted-<id>`: that provider's scripted test mode.
    var scripted: (any ScriptedMode)?
    var listMutants = false
    var listVariants = false
    var help = false

    enum ParseError: Error {
        case unknownMutant(String), unknownVariant(String), badSeed(String), missingValue(String), unknownOption(String)
    }

    /// `--scripted-<id>` for every registered provider that offers a scripted test mode.
    static var scriptedModes: [(flag: String, make: () -> (any ScriptedMode)?)] {
        SenderProviders.all.filter { $0.scriptedMode() != nil }.map { p in ("--scripted-" + p.id, { p.scriptedMode() }) }
    }

    /// The options that take a value, as `--name VALUE` or `--name=VALUE`.
    private static let valued = ["--mutant", "--variant", "--seed"]

    init(_ args: [String]) throws(ParseError) {
        var i = 0
        while i < args.count {
            var a = args[i]
            var value: String?
            if let eq = a.firstIndex(of: "="), Self.valued.contains(String(a[..<eq])) {
                value = String(a[a.index(after: eq)...])
                a = String(a[..<eq])
            } else if Self.valued.contains(a) {
                guard i + 1 < args.count else { throw .missingValue(a) }
                i += 1
                value = args[i]
            }
            switch a {
            case "--mutant":
                guard let m = Mutant(rawValue: value!) else { throw .unknownMutant(value!) }
                mutant = MutantSet(mutant.members + [m])
            case "--variant":
                guard let v = Variant(rawValue: value!) else { throw .unknownVariant(value!) }
                variant = v
            case "--seed":
                guard let n = UInt64(value!) else { throw .badSeed(value!) }
                seed = n
            case "--list-mutants": listMutants = true
            case "--list-variants": listVariants = true
            case "-h", "--help": help = true
            default:
                guard let mode = Self.scriptedModes.first(where: { $0.flag == a })?.make() else { throw .unknownOption(a) }
                scripted = mode
            }
            i += 1
        }
    }

    static var usage: String { """
    usage: pushdouble-reference-sender [--mutant NAME]... [--variant NAME] [--seed N]
                                       [--list-mutants] [--list-variants] \(scriptedModes.map { "[\($0.flag)]" }.joined(separator: " "))

    Speaks PushDouble driver protocol v1 (JSON-RPC 2.0, one message per line) on
    stdin/stdout and sends pushes correctly through \(SenderProviders.all.map { $0.id }.joined(separator: ", ")).
    --mutant plants a known bug (see --list-mutants); give it several times to
    stack bugs (an unknown name exits 2). --variant picks another
    correct behaviour (see --list-variants). --seed N makes backoff jitter
    reproducible. --scripted-<provider> answers from that provider's in-memory
    service with virtual time, for testing the sender itself.
    """ }
}

signal(SIGPIPE, SIG_IGN)
let arguments: SenderArguments
do {
    arguments = try SenderArguments(Array(CommandLine.arguments.dropFirst()))
} catch {
    switch error {
    case .unknownMutant(let name):
        Log.info("unknown mutant \"\(name)\"; known mutants: " + Mutant.allCases.map(\.rawValue).joined(separator: ", "))
    case .unknownVariant(let name):
        Log.info("unknown variant \"\(name)\"; known variants: " + Variant.allCases.map(\.rawValue).joined(separator: ", "))
    case .badSeed(let value):
        Log.info("--seed needs a non-negative integer, not \"\(value)\"")
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
    for m in Mutant.allCases { print(m.listing) }
    exit(0)
}
if arguments.listVariants {
    for v in Variant.allCases { print("\(v.rawValue)\t\(v.summary)") }
    exit(0)
}

let server = DriverServer(mutant: arguments.mutant, variant: arguments.variant, seed: arguments.seed, environment: ProcessInfo.processInfo.environment,
                          scripted: arguments.scripted)
let status = await server.run()
exit(status)
