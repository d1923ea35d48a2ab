/// One `pushdouble` command: its name, its line in the top-level usage, its help (generated
/// from its option table) and its entry point. ``CommandTable`` lists them.
protocol CLICommand: Sendable {
    static var name: String { get }
    /// The one line of the top-level usage.
    static var summary: String { get }
    static var help: CommandHelp { get }
    /// Runs the command with the arguments after its name; returns the exit status.
    static func run(_ arguments: [String]) -> Int32
}

/// A command that prints to the two consoles once its options are parsed (certs, env): the
/// entry points and the parse step are shared, the command supplies ``run(parsed:out:err:)``.
protocol ConsoleCommand: CLICommand {
    /// Runs with parsed options; returns the exit status.
    static func run(parsed: ParsedOptions, out: Console, err: Console) -> Int32
}

extension ConsoleCommand {
    static func run(_ arguments: [String]) -> Int32 {
        run(arguments, out: .standardOutput, err: .standardError)
    }

    /// Parses `arguments` (help and usage errors answered here), then runs.
    static func run(_ arguments: [String], out: Console, err: Console) -> Int32 {
        switch ParseOutcome.parse(arguments, command: name, help: help, output: out.write, errors: err.write) {
        case .exit(let status): return status
        case .options(let parsed): return run(parsed: parsed, out: out, err: err)
        }
    }
}
