import Foundation
import PushDoubleCore

/// `pushdouble conform`: parses the flags, loads scenarios, runs them, writes reports,
/// and maps the outcome to an exit code (0 all MUST checks pass or are known, 1 a new
/// failure, 2 usage or configuration error).
public enum ConformCommand {
    /// A usage or configuration error: exit code 2 with this text.
    public struct UsageError: Error, CustomStringConvertible, Equatable {
        public var description: String
        public init(_ d: String) { description = d }
    }

    /// Parsed flags.
    public struct Arguments: Equatable {
        public var sender: String?
        public var scenarios: String?
        public var only: [String] = []
        public var skip: [String] = []
        public var list = false
        public var junit: String?
        public var json: String?
        public var baseline: String?
        public var writeBaseline: String?
        public var seed: UInt64?
        public var timeout: Double = 60
        public var reuseSender = false
        public var jobs = 4
        public var verbose = false
        public var help = false
    }

    /// The flag table: name, value placeholder (nil = switch), help. Usage text is rendered from it.
    static let flags: [(String, String?, String)] = [
        ("--sender", "CMD", "command that starts the sender's adapter (run with /bin/sh -c); required to run"),
        ("--scenarios", "DIR", "directory of scenario files (default: the shipped Scenarios/, see docs)"),
        ("--only", "GLOB", "run only cases whose id matches (repeatable, or comma-separated)"),
        ("--skip", "GLOB", "skip cases whose id matches (repeatable, or comma-separated)"),
        ("--list", nil, "print the catalogue (checks, cases, references) and exit"),
        ("--junit", "FILE", "write a JUnit XML report"),
        ("--json", "FILE", "write a JSON report (everything, with history excerpts)"),
        ("--baseline", "FILE", "known failures: fail only on new ones, report fixed ones"),
        ("--write-baseline", "FILE", "write this run's failures as a baseline file"),
        ("--seed", "N", "seed for the fakes' random choices (overrides each scenario's own seed; default: the scenario's, else 1)"),
        ("--timeout", "S", "seconds allowed for each driver reply (default 60)"),
        ("--reuse-sender", nil, "start the sender once for all cases (cases then run one at a time)"),
        ("--jobs", "N", "cases run at the same time (default 4)"),
        ("--verbose", nil, "also print info verdicts"),
        ("--help", nil, "show this help"),
    ]

    public static var usage: String {
        var s = "usage: pushdouble conform --sender \"CMD\" [options]\n\noptions:\n"
        for (name, value, help) in flags {
            let left = value.map { "\(name) \($0)" } ?? name
            s += "  " + left.padding(toLength: 24, withPad: " ", startingAt: 0) + help + "\n"
        }
        s += "\nexit codes: 0 every MUST check passed (or is in the baseline), 1 a MUST check failed, 2 usage or configuration error\n"
        return s
    }

    /// Parses flags (a leading "conform" word is ignored).
    public static func parse(_ arguments: [String]) throws -> Arguments {
        var a = Arguments()
        var args = arguments[...]
        if args.first == "conform" { args = args.dropFirst() }
        func value(_ name: String) throws -> String {
            guard let v = args.popFirst() else { throw UsageError("\(name) needs a value") }
            return v
        }
        while let raw = args.popFirst() {
            var flag = raw
            if raw.hasPrefix("--"), let eq = raw.firstIndex(of: "=") {
                flag = String(raw[..<eq])
                args.insert(String(raw[raw.index(after: eq)...]), at: args.startIndex)
            }
            switch flag {
            case "--sender": a.sender = try value(flag)
            case "--scenarios": a.scenarios = try value(flag)
            case "--only": a.only += try value(flag).split(separator: ",").map(String.init)
            case "--skip": a.skip += try value(flag).split(separator: ",").map(String.init)
            case "--list": a.list = true
            case "--junit": a.junit = try value(flag)
            case "--json": a.json = try value(flag)
            case "--baseline": a.baseline = try value(flag)
            case "--write-baseline": a.writeBaseline = try value(flag)
            case "--seed":
                let v = try value(flag)
                guard let n = UInt64(v) else { throw UsageError("--seed needs a non-negative integer, got \"\(v)\"") }
                a.seed = n
            case "--timeout":
                let v = try value(flag)
                guard let n = Double(v), n > 0, n <= 86400 else { throw UsageError("--timeout needs seconds > 0, got \"\(v)\"") }
                a.timeout = n
            case "--jobs":
                let v = try value(flag)
                guard let n = Int(v), n >= 1, n <= 64 else { throw UsageError("--jobs needs 1…64, got \"\(v)\"") }
                a.jobs = n
            case "--reuse-sender": a.reuseSender = true
            case "--verbose", "-v": a.verbose = true
            case "--help", "-h": a.help = true
            default: throw UsageError("unknown option \"\(raw)\"")
            }
        }
        return a
    }

    /// Finds the shipped scenario directory: $PUSHDOUBLE_SCENARIOS, ./Scenarios, then
    /// `Scenarios/` next to the executable or in any of its parent directories, then
    /// `../share/pushdouble/Scenarios` relative to the executable.
    public static func defaultScenarioDirectory(currentDirectory: String = FileManager.default.currentDirectoryPath,
                                                executable: String? = Bundle.main.executablePath ?? CommandLine.arguments.first) -> String? {
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

    /// Checks that the sender command's program exists, so that a typo is a clear exit-2 error.
    public static func preflightSender(_ command: String) throws {
        let words = command.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard var program = words.first(where: { !$0.contains("=") || $0.hasPrefix("/") || $0.hasPrefix(".") }) else {
            throw UsageError("--sender is empty: give the command that starts your adapter")
        }
        if program.hasPrefix("\"") || program.hasPrefix("'") { program = String(program.dropFirst().dropLast()) }
        let builtins: Set<String> = ["exec", "env", "cd", "sh", "bash", "eval", "nice", "timeout", "command", "(", "{"]
        if builtins.contains(program) { return }
        let fm = FileManager.default
        if program.contains("/") {
            guard fm.isExecutableFile(atPath: program) else {
                throw UsageError("sender not found: \(program) does not exist or is not executable (fix --sender)")
            }
            return
        }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for dir in path.split(separator: ":") where fm.isExecutableFile(atPath: "\(dir)/\(program)") { return }
        throw UsageError("sender not found: \"\(program)\" is not on PATH (fix --sender, or give a path)")
    }

    /// Selects cases by `--only` / `--skip`.
    public static func select(_ scenarios: [ConformanceScenario], only: [String], skip: [String]) -> [ConformanceScenario] {
        scenarios.filter { s in
            (only.isEmpty || only.contains { globMatch($0, s.id) }) && !skip.contains { globMatch($0, s.id) }
        }
    }

    /// The entry point the `pushdouble` executable calls. Prints to stdout/stderr.
    public static func run(_ arguments: [String]) -> Int32 {
        run(arguments, host: defaultHost(), output: { FileHandle.standardOutput.write(Data($0.utf8)) },
            errors: { FileHandle.standardError.write(Data($0.utf8)) })
    }

    /// Testable entry point.
    public static func run(_ arguments: [String], host: any FakeHost, output: (String) -> Void, errors: (String) -> Void) -> Int32 {
        do {
            let a = try parse(arguments)
            if a.help { output(usage); return 0 }
            guard let dir = a.scenarios ?? defaultScenarioDirectory() else {
                throw UsageError("cannot find the shipped Scenarios/ directory; give one with --scenarios DIR or set PUSHDOUBLE_SCENARIOS")
            }
            let all: [ConformanceScenario]
            do { all = try ConformanceScenario.loadDirectory(dir, knownChecks: CheckCatalogue.ids) }
            catch let e as ScenarioError { throw UsageError("bad scenario file: \(e)") }
            for s in all {
                do { try host.validate(s); _ = try Registrations(s) } catch { throw UsageError("bad scenario file: \(s.file ?? s.id): \(error)") }
            }
            let selected = select(all, only: a.only, skip: a.skip)
            if a.list { output(CatalogueReporter.render(scenarios: selected)); return 0 }
            guard let sender = a.sender else { throw UsageError("--sender \"CMD\" is required (the command that starts your adapter)\n\n" + usage) }
            try preflightSender(sender)
            if selected.isEmpty { throw UsageError("no case matches --only/--skip (\(all.count) cases in \(dir))") }
            let baseline = try a.baseline.map { p -> Baseline in
                do { return try Baseline.load(p) } catch { throw UsageError("\(error)") }
            }
            var options = RunOptions(senderCommand: sender)
            options.timeout = a.timeout; options.seed = a.seed; options.reuseSender = a.reuseSender; options.jobs = a.jobs
            var report = ConformanceRunner(host: host, options: options).run(selected)
            baseline?.apply(to: &report)
            output(report.cases.map { ConsoleReporter.caseLines($0, verbose: a.verbose) }.joined(separator: "\n") + "\n")
            var writeFailed = false
            func write(_ data: Data, _ path: String, _ what: String) {
                do { try data.write(to: URL(fileURLWithPath: path)) }
                catch { errors("cannot write \(what) to \(path): \(error.localizedDescription)\n"); writeFailed = true }
            }
            if let p = a.junit { write(Data(JUnitReporter.render(report).utf8), p, "JUnit report") }
            if let p = a.json { write(JSONReporter.render(report), p, "JSON report") }
            if let p = a.writeBaseline { write(Baseline.from(report).jsonData(), p, "baseline") }
            output(ConsoleReporter.summary(report) + "\n")
            if writeFailed { return 2 }
            return report.succeeded ? 0 : 1
        } catch {
            errors("pushdouble conform: \(error)\n")
            return 2
        }
    }
}
