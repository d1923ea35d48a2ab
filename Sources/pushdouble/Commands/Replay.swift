/// `pushdouble replay FILE`: serve with a scenario loaded, printing each exchange in detail.
/// Runs ``ServeCommand`` in its replay mode; the same exit statuses.
enum ReplayCommand: CLICommand {
    static let name = "replay"
    static let summary = "Serve with a scenario file loaded and print each exchange in detail (for QA)."

    static var options: [OptionSpec] { ServeCommand.options.filter { $0.name != "--quiet" } }

    static var help: CommandHelp {
        CommandHelp(usage: "pushdouble replay [options] SCENARIO.json",
                    summary: "Serve with a scenario loaded (devices, faults, quotas) and print every exchange in detail as it happens, until interrupted.",
                    options: options, footer: ServeCommand.exitStatuses)
    }

    static func run(_ arguments: [String]) -> Int32 {
        ServeCommand.run(arguments, mode: .replay, out: .standardOutput, err: .standardError)
    }
}
