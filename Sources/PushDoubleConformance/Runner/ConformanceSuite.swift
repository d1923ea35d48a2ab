import Foundation
import PushDoubleCore

/// Why the conformance suite cannot run as configured (a missing scenario directory, a bad
/// scenario, no case selected, a sender command that names no program). ``ConformanceSuite``
/// throws it; `pushdouble conform` prints it and exits with status 2.
public enum ConformanceError: Error, Equatable, CustomStringConvertible {
    /// No directory was given and none of the places ``ConformanceSuite/defaultScenarioDirectory(currentDirectory:executable:)`` looks at has one.
    case noScenarioDirectory
    /// A scenario file does not load, or the fakes reject its devices, faults or quotas.
    case badScenario(String)
    /// The selection (`only` / `skip`) leaves no case of the `total` cases in `directory`.
    case noCaseSelected(total: Int, directory: String)
    /// The sender command is empty.
    case emptySenderCommand
    /// The sender command's program is a path that does not exist or is not executable.
    case senderNotExecutable(String)
    /// The sender command's program is a bare name that is not on PATH.
    case senderNotOnPath(String)

    public var description: String {
        switch self {
        case .noScenarioDirectory:
            return "cannot find the shipped Scenarios/ directory; give one with --scenarios DIR or set PUSHDOUBLE_SCENARIOS"
        case .badScenario(let message): return "bad scenario file: \(message)"
        case .noCaseSelected(let total, let directory): return "no case matches --only/--skip (\(total) cases in \(directory))"
        case .emptySenderCommand: return "--sender is empty: give the command that starts your adapter"
        case .senderNotExecutable(let program): return "sender not found: \(program) does not exist or is not executable (fix --sender)"
        case .senderNotOnPath(let program): return "sender not found: \"\(program)\" is not on PATH (fix --sender, or give a path)"
        }
    }
}

/// The steps before a conformance run, as library API: find the scenario directory, load and
/// validate its cases, select some, check that the sender command names a program. Running
/// them is ``ConformanceRunner``; reports are the reporters and ``Baseline``.
public enum ConformanceSuite {
    /// Finds the shipped scenario directory: $PUSHDOUBLE_SCENARIOS, ./Scenarios, then
    /// `Scenarios/` next to the executable or in any of its parent directories, then
    /// `../share/pushdouble/Scenarios` relative to the executable.
    public static func defaultScenarioDirectory(currentDirectory: String = FileManager.default.currentDirectoryPath,
                                                executable: String? = OwnExecutable.path ?? Bundle.main.executablePath ?? CommandLine.arguments.first) -> String? {
        let fm = FileManager.default
        func isDir(_ p: String) -> Bool { var d: ObjCBool = false; return fm.fileExists(atPath: p, isDirectory: &d) && d.boolValue }
        if let env = ProcessInfo.processInfo.environment["PUSHDOUBLE_SCENARIOS"], isDir(env) { return env }
        let here = (currentDirectory as NSString).appendingPathComponent("Scenarios")
        if isDir(here) { return here }
        guard let exe = executable else { return nil }
        var dir = ((exe as NSString).resolvingSymlinksInPath as NSString).deletingLastPathComponent
        let share = ((dir as NSString).deletingLastPathComponent as NSString).appendingPathComponent("share/pushdouble/Scenarios")
        while dir.count > 1 {
            let candidate = (dir as NSString).appendingPathComponent("Scenarios")
            if isDir(candidate) { return candidate }
            dir = (dir as NSString).deletingLastPathComponent
        }
        return isDir(share) ? share : nil
    }

    /// Every case in `directory`, each validated by `host` (its devices, faults and quotas) and
    /// for its `registeredAt` steps (``Registrations``);
    /// a file that does not load or validate is a ``ConformanceError/badScenario(_:)``.
    public static func loadScenarios(directory: String, host: any FakeHost) throws -> [ConformanceScenario] {
        let all: [ConformanceScenario]
        do { all = try ConformanceScenario.loadDirectory(directory, knownChecks: CheckCatalogue.ids) }
        catch let e as ScenarioError { throw ConformanceError.badScenario("\(e)") }
        for s in all {
            do { try host.validate(s); _ = try Registrations(s) } catch { throw ConformanceError.badScenario("\(s.file ?? s.id): \(error)") }
        }
        return all
    }

    /// The cases that match one of `only` (all when empty) and none of `skip`: a pattern is a
    /// glob over the case id (``globMatch(_:_:)``), or `tag:GLOB` over its tags (``CheckCatalogue/tags(of:)``).
    public static func select(_ scenarios: [ConformanceScenario], only: [String], skip: [String]) -> [ConformanceScenario] {
        func matches(_ pattern: String, _ s: ConformanceScenario) -> Bool {
            guard pattern.hasPrefix("tag:") else { return globMatch(pattern, s.id) }
            let tag = String(pattern.dropFirst(4))
            return CheckCatalogue.tags(of: s).contains { globMatch(tag, $0) }
        }
        return scenarios.filter { s in
            (only.isEmpty || only.contains { matches($0, s) }) && !skip.contains { matches($0, s) }
        }
    }

    /// Checks that the sender command's program exists, so that a typo is a clear error
    /// before any case starts (shell builtins such as `exec` or `env` are let through).
    public static func preflightSender(_ command: String) throws {
        let words = command.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard var program = words.first(where: { !$0.contains("=") || $0.hasPrefix("/") || $0.hasPrefix(".") }) else {
            throw ConformanceError.emptySenderCommand
        }
        if program.hasPrefix("\"") || program.hasPrefix("'") { program = String(program.dropFirst().dropLast()) }
        let builtins: Set<String> = ["exec", "env", "cd", "sh", "bash", "eval", "nice", "timeout", "command", "(", "{"]
        if builtins.contains(program) { return }
        let fm = FileManager.default
        if program.contains("/") {
            guard fm.isExecutableFile(atPath: program) else { throw ConformanceError.senderNotExecutable(program) }
            return
        }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for dir in path.split(separator: ":") where fm.isExecutableFile(atPath: "\(dir)/\(program)") { return }
        throw ConformanceError.senderNotOnPath(program)
    }
}
