import Foundation
import PushDoubleConformance
import PushDoubleCore

/// `pushdouble conform`: parses the flags, loads scenarios, runs them, writes reports,
/// and maps the outcome to an exit code (``RunSummary/Status``: 0 all MUST checks pass or are
/// known, 1 a new failure, 2 usage or configuration error, 3 the sender broke the driver protocol). The steps themselves are library API in
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
        var baselineStrict = false
        var updateBaseline = false
        var failOn: FailOn = .must
        var summaryMarkdown: String?
        var annotations: String?
        var compare: String?
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
        OptionSpec("--only", value: "GLOB", repeatable: true, help: "run only cases whose id matches, or tag:GLOB whose tags match (globs; also comma-separated)"),
        OptionSpec("--skip", value: "GLOB", repeatable: true, help: "skip cases whose id matches, or tag:GLOB whose tags match (globs; also comma-separated)"),
        OptionSpec("--list", help: "print the catalogue (checks, cases, references) and exit"),
        OptionSpec("--junit", value: "FILE", help: "write a JUnit XML report"),
        OptionSpec("--json", value: "FILE", help: "write a JSON report (everything, with history excerpts)"),
        OptionSpec("--html", value: "FILE", help: "write a self-contained HTML report (verdicts, evidence, each case's attempts on a retry timeline)"),
        OptionSpec("--baseline", value: "FILE", help: "known failures: fail only on new ones, report fixed ones"),
        OptionSpec("--write-baseline", value: "FILE", help: "write this run's failures and warnings as a baseline file (exit 0 once written, 3 if the sender broke)"),
        OptionSpec("--baseline-strict", help: "fail (exit 1) when a baseline entry is fixed, so the file must be refreshed"),
        OptionSpec("--update-baseline", help: "rewrite the --baseline file in place without its fixed entries"),
        OptionSpec("--fail-on", value: "LEVEL", help: "must (default): fail on new MUST failures; warn: new SHOULD warnings fail too"),
        OptionSpec("--summary-md", value: "FILE", help: "write the run summary as Markdown (e.g. $GITHUB_STEP_SUMMARY)"),
        OptionSpec("--annotations", value: "FORMAT", help: "github: print ::error/::warning lines for new failures and warnings"),
        OptionSpec("--compare", value: "OLD.json", help: "print what the sender did differently from a run's --json report (verdicts and costs)"),
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
                    footer: "exit codes: 0 every MUST check passed (or is in the baseline), 1 a new MUST failure (or a new warning under --fail-on warn,"
                        + " or a fixed entry under --baseline-strict), 2 usage or configuration error, 3 the sender or its adapter broke the driver protocol")
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
        a.baselineStrict = p.flag("--baseline-strict")
        a.updateBaseline = p.flag("--update-baseline")
        if a.updateBaseline && a.baseline == nil { throw CLIError.missingArgument("--baseline FILE (the file --update-baseline rewrites)") }
        a.failOn = try p.number("--fail-on", expected: "must or warn") { FailOn(rawValue: $0) } ?? .must
        a.summaryMarkdown = p.value("--summary-md")
        a.annotations = try p.number("--annotations", expected: "github") { $0 == "github" ? $0 : nil }
        a.compare = p.value("--compare")
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
        let baseline = try loadBaseline(a, scenarios: all)
        let old = try a.compare.map { path in
            do { return try JSONReporter.decode(Data(contentsOf: URL(fileURLWithPath: path))) }
            catch { throw CompareError(description: "--compare \(path): not a readable --json report (\(error))") }
        }
        var options = RunOptions(senderCommand: sender)
        options.timeout = a.timeout; options.seed = a.seed; options.reuseSender = a.reuseSender; options.jobs = a.jobs
        var report = ConformanceRunner(host: host, options: options).run(selected)
        report.failOn = a.failOn
        // Fixed entries an update removes no longer make the baseline stale.
        report.baselineStrict = a.baselineStrict && !a.updateBaseline
        baseline?.apply(to: &report)
        output(ConsoleReporter.caseLines(of: report.cases, verbose: a.verbose) + "\n")
        var written = writeReports(report, a, errors: errors)
        if let base = baseline, a.updateBaseline, let path = a.baseline {
            written = write(base.removingFixed(report).jsonData(), path, "updated baseline", errors: errors) && written
        }
        if a.annotations != nil { output(GitHubAnnotationsReporter.render(report)) }
        if let old, let path = a.compare { output("\n" + RunComparison(old: old, new: report).render(oldName: path)) }
        output(ConsoleReporter.summary(report) + "\n")
        if !written { return CLIError.exitStatus }
        let status = report.summary.status
        // A bootstrap run succeeds once the baseline is written, unless the sender broke.
        if a.writeBaseline != nil && status != .error { return 0 }
        return status.exitCode
    }

    /// Why `--compare` cannot be used (exit 2).
    struct CompareError: Error, CustomStringConvertible { var description: String }

    /// `--baseline`, refused (exit 2) when an entry names no loaded case or a check its case does not run.
    private static func loadBaseline(_ a: Arguments, scenarios: [ConformanceScenario]) throws -> Baseline? {
        guard let path = a.baseline else { return nil }
        let b = try Baseline.load(path)
        let unknown = b.unknownEntries(in: scenarios)
        if !unknown.isEmpty {
            throw Baseline.LoadError(description: "baseline \(path) names \(unknown.count) unknown case/check id(s); fix or remove them:\n"
                                     + unknown.map { "  " + $0 }.joined(separator: "\n"))
        }
        return b
    }

    /// Writes `data` to `path`; false (printed to `errors`) when it could not.
    private static func write(_ data: Data, _ path: String, _ what: String, errors: (String) -> Void) -> Bool {
        do { try data.write(to: URL(fileURLWithPath: path)); return true }
        catch { errors("cannot write \(what) to \(path): \(error.localizedDescription)\n"); return false }
    }

    /// `--junit`, `--json`, `--html`, `--summary-md`, `--write-baseline`; false when one could not be written (printed to `errors`).
    private static func writeReports(_ report: RunReport, _ a: Arguments, errors: (String) -> Void) -> Bool {
        var ok = true
        func save(_ data: Data, _ path: String, _ what: String) { ok = write(data, path, what, errors: errors) && ok }
        if let p = a.junit { save(Data(JUnitReporter.render(report).utf8), p, "JUnit report") }
        if let p = a.json { save(JSONReporter.render(report), p, "JSON report") }
        if let p = a.html { save(Data(HTMLReporter.render(report).utf8), p, "HTML report") }
        if let p = a.summaryMarkdown { save(Data(MarkdownSummaryReporter.render(report).utf8), p, "Markdown summary") }
        if let p = a.writeBaseline { save(Baseline.from(report).jsonData(), p, "baseline") }
        return ok
    }
}
