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
