import Foundation
import PushDoubleConformance
import PushDoubleCore

/// `pushdouble conform`: parses the flags, loads scenarios, runs them, writes reports,
/// and maps the outcome to an exit code (0 all MUST checks pass or are known, 1 a new
/// failure, 2 usage or configuration error). The steps themselves are library API in
/// PushDoubleConformance (``ConformanceSuite``, ``ConformanceRunner``, the reporters, ``Baseline``).
enum ConformCommand: CLICommand {
    static let name = "conform"
    static let summary = "Drive a push sender through the conformance suite and judge it (JUnit/JSON/HTML reports, exit code)."

    /// Parsed flags.
    struct Arguments: Equatable {
        var sender: String?
        var scenarios: String?
        var only: [String] = []
        var skip: [String] = []
        var list = false
        var junit: String?
        var json: String?
        var html: String?
        var baseline: String?
        var writeBaseline: String?
        var seed: UInt64?
        var timeout: Double = 60
        var reuseSender = false
        var jobs = 4
        var verbose = false
        var realHosts = false
    }

    static let options: [OptionSpec] = [
        OptionSpec("--sender", value: "CMD", help: "command that starts the sender's adapter (run with /bin/sh -c); required to run"),
        OptionSpec("--scenarios", value: "DIR", help: "directory of scenario files (default: the shipped Scenarios/, see docs)"),
        OptionSpec("--only", value: "GLOB", repeatable: true, help: "run only cases whose id matches (globs; also comma-separated)"),
        OptionSpec("--skip", value: "GLOB", repeatable: true, help: "skip cases whose id matches (globs; also comma-separated)"),
        OptionSpec("--list", help: "print the catalogue (checks, cases, references) and exit"),
        OptionSpec("--junit", value: "FILE", help: "write a JUnit XML report"),
        OptionSpec("--json", value: "FILE", help: "write a JSON report (everything, with history excerpts)"),
        OptionSpec("--html", value: "FILE", help: "write a self-contained HTML report (verdicts, evidence, each case's attempts on a retry timeline)"),
        OptionSpec("--baseline", value: "FILE", help: "known failures: fail only on new ones, report fixed ones"),
        OptionSpec("--write-baseline", value: "FILE", help: "write this run's failures as a baseline file"),
        OptionSpec("--seed", value: "N", help: "seed for the fakes' random choices (overrides each scenario's own seed; default: the scenario's, else 1)"),
        OptionSpec("--timeout", value: "S", help: "seconds allowed for each driver reply (default 60)"),
        OptionSpec("--reuse-sender", help: "start the sender once for all cases (cases then run one at a time)"),
        OptionSpec("--jobs", value: "N", help: "cases run at the same time (default 4)"),
        OptionSpec("--real-hosts", help: "give the sender the providers' real URLs (https://api.push.apple.com, …) and HTTPS_PROXY, a CONNECT proxy that routes them to the case's fakes"),
        OptionSpec("--verbose", short: "-v", help: "also print info verdicts"),
        OptionSpec.help,
    ]

    static var help: CommandHelp {
        CommandHelp(usage: "pushdouble conform --sender \"CMD\" [options]",
                    summary: "Drive a push sender through the conformance suite over the driver protocol and judge what it sent to the fakes.",
                    options: options,
                    footer: "exit codes: 0 every MUST check passed (or is in the baseline), 1 a MUST check failed, 2 usage or configuration error")
    }

    /// The flags (a leading "conform" word is ignored); `--help` is not part of ``Arguments``
    /// (``run(_:host:output:errors:)`` handles it).
    static func parse(_ arguments: [String]) throws -> Arguments {
        let args = arguments.first == name ? Array(arguments.dropFirst()) : arguments
        return try decode(try ParsedOptions.parse(args, specs: options))
    }

    /// ``Arguments`` from the parsed options (numbers checked).
    private static func decode(_ p: ParsedOptions) throws -> Arguments {
        var a = Arguments()
        a.sender = p.value("--sender")
        a.scenarios = p.value("--scenarios")
        a.only = p.all("--only").flatMap { $0.split(separator: ",").map(String.init) }
        a.skip = p.all("--skip").flatMap { $0.split(separator: ",").map(String.init) }
        a.list = p.flag("--list")
        a.junit = p.value("--junit")
        a.json = p.value("--json")
        a.html = p.value("--html")
        a.baseline = p.value("--baseline")
        a.writeBaseline = p.value("--write-baseline")
        a.seed = try p.number("--seed", expected: "a non-negative integer") { UInt64($0) }
        a.timeout = try p.number("--timeout", expected: "a number of seconds in (0, 86400]") {
            Double($0).flatMap { $0 > 0 && $0 <= 86400 ? $0 : nil }
        } ?? a.timeout
        a.jobs = try p.number("--jobs", expected: "an integer from 1 to 64") { Int($0).flatMap { (1...64).contains($0) ? $0 : nil } } ?? a.jobs
        a.reuseSender = p.flag("--reuse-sender")
        a.verbose = p.flag("--verbose")
        a.realHosts = p.flag("--real-hosts")
        return a
    }

    /// The entry point the `pushdouble` executable calls. Prints to stdout/stderr.
    static func run(_ arguments: [String]) -> Int32 {
        run(arguments, host: ServerFakeHost(), output: { Console.standardOutput.write($0) }, errors: { Console.standardError.write($0) })
    }

    /// Testable entry point.
    static func run(_ arguments: [String], host: any FakeHost, output: (String) -> Void, errors: (String) -> Void) -> Int32 {
        let args = arguments.first == name ? Array(arguments.dropFirst()) : arguments
        let a: Arguments
        do {
            switch ParseOutcome.parse(args, command: name, help: help, output: output, errors: errors) {
            case .exit(let status): return status
            case .options(let p): a = try decode(p)
            }
            if a.sender == nil && !a.list {
                throw CLIError.missingArgument("--sender \"CMD\" (the command that starts your adapter)")
            }
        } catch {
            errors(CLIError.message(error, command: name))
            return CLIError.exitStatus
        }
        var host = host
        if a.realHosts, var fakes = host as? ServerFakeHost {
            fakes.realHosts = true
            host = fakes
        }
        do {
            return try run(a, host: host, output: output, errors: errors)
        } catch {
            errors("pushdouble \(name): \(error)\n")
            return CLIError.exitStatus
        }
    }

    /// Loads, selects and runs the cases, then prints and writes the reports.
    private static func run(_ a: Arguments, host: any FakeHost, output: (String) -> Void, errors: (String) -> Void) throws -> Int32 {
        guard let dir = a.scenarios ?? ConformanceSuite.defaultScenarioDirectory() else { throw ConformanceError.noScenarioDirectory }
        let all = try ConformanceSuite.loadScenarios(directory: dir, host: host)
        let selected = ConformanceSuite.select(all, only: a.only, skip: a.skip)
        if a.list { output(CatalogueReporter.render(scenarios: selected)); return 0 }
        guard let sender = a.sender else { return CLIError.exitStatus }  // checked while parsing
        try ConformanceSuite.preflightSender(sender)
        if selected.isEmpty { throw ConformanceError.noCaseSelected(total: all.count, directory: dir) }
        let baseline = try a.baseline.map { try Baseline.load($0) }
        var options = RunOptions(senderCommand: sender)
        options.timeout = a.timeout; options.seed = a.seed; options.reuseSender = a.reuseSender; options.jobs = a.jobs
        var report = ConformanceRunner(host: host, options: options).run(selected)
        baseline?.apply(to: &report)
        output(report.cases.map { ConsoleReporter.caseLines($0, verbose: a.verbose) }.joined(separator: "\n") + "\n")
        let written = writeReports(report, a, errors: errors)
        output(ConsoleReporter.summary(report) + "\n")
        if !written { return CLIError.exitStatus }
        return report.succeeded ? 0 : 1
    }

    /// `--junit`, `--json`, `--html`, `--write-baseline`; false when one could not be written (printed to `errors`).
    private static func writeReports(_ report: RunReport, _ a: Arguments, errors: (String) -> Void) -> Bool {
        var ok = true
        func write(_ data: Data, _ path: String, _ what: String) {
            do { try data.write(to: URL(fileURLWithPath: path)) }
            catch { errors("cannot write \(what) to \(path): \(error.localizedDescription)\n"); ok = false }
        }
        if let p = a.junit { write(Data(JUnitReporter.render(report).utf8), p, "JUnit report") }
        if let p = a.json { write(JSONReporter.render(report), p, "JSON report") }
        if let p = a.html { write(Data(HTMLReporter.render(report).utf8), p, "HTML report") }
        if let p = a.writeBaseline { write(Baseline.from(report).jsonData(), p, "baseline") }
        return ok
    }
}
