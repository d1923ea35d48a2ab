import Foundation
#if canImport(Glibc)
import Glibc
#endif
import PushDouble
import PushDoubleCore
import PushDoubleConformance

/// `pushdouble serve`: runs every fake and the admin API until SIGINT/SIGTERM.
///
/// Prints the endpoints and the environment variables a sender needs (docs/conformance.md "Driver protocol v1"), then
/// `ready`; logs one line per exchange unless `--quiet` (off the request path, flushed
/// every 100 ms and at exit; lines are dropped and counted rather than slowing requests). Exit status: 0 after a clean
/// stop, 1 when it cannot start (port in use, bad scenario), 2 for usage errors.
enum ServeCommand: CLICommand {
    static let name = "serve"
    static let summary = "Run every fake on loopback with the shipped test credentials (default ports, or --ephemeral)."

    /// The fixed default ports, from the registry: `admin 8720, apns-production 8721, …`.
    static var defaultPorts: String {
        FakeRegistry.listenerDefaults.map { "\($0.name) \($0.defaultPort)" }.joined(separator: ", ")
    }

    /// Every module's option keys, from the registry: `apns.maxConcurrentStreamsAfterAuth, …`.
    static var optionKeys: String {
        FakeRegistry.modules.flatMap { m in m.optionKeys.map { m.provider.rawValue + "." + $0 } }.joined(separator: ", ")
    }

    static var options: [OptionSpec] { [
        OptionSpec("--ephemeral", help: "listen on ephemeral ports instead of the fixed defaults (\(defaultPorts))"),
        OptionSpec("--host", value: "ADDR", help: "address to listen on (default 127.0.0.1; 0.0.0.0 in a container)"),
        OptionSpec("--advertised-host", value: "HOST",
                   help: "host name or address the URLs, environment and inbox name instead of the listening address "
                       + "(a container's service name; default $\(advertisedHostVariable), else --host, else 127.0.0.1 for 0.0.0.0); "
                       + "the server certificate is reissued to cover it"),
        OptionSpec("--scenario", value: "FILE", repeatable: true, help: "load a scenario file (devices, faults, quotas) before serving"),
        OptionSpec("--scenarios", value: "DIR", repeatable: true, help: "a directory of scenario files the inbox's library lists (GET /scenarios; default: the shipped Scenarios/)"),
        OptionSpec("--endpoints-file", value: "FILE",
                   help: "write the endpoints and environment as JSON to FILE once listening (default on the fixed ports: "
                       + "\(SenderKit.defaultEndpointsFile), removed at stop; read by pushdouble env)"),
        OptionSpec("--history-cap", value: "N", help: "keep at most N exchanges (older ones are dropped and counted; default 50000)"),
        OptionSpec("--history-max-bytes", value: "BYTES",
                   help: "keep at most BYTES of history, e.g. 268435456, 512K, 256M, 2G (units of 1024; older exchanges are dropped "
                       + "and counted like the count cap's; default 256M)"),
        OptionSpec("--seed", value: "N", help: "seed of the fault engine's generator (default 0)"),
        OptionSpec("--option", value: "PROVIDER.KEY=VALUE", repeatable: true,
                   help: "set a fake's option, over a scenario's fakeOptions (VALUE is JSON, else a string); keys: \(optionKeys)"),
        OptionSpec("--quiet", help: "do not log each exchange"),
        OptionSpec("--log-format", value: "FORMAT",
                   help: "line (default) or json: one JSON object per exchange on stdout (the banner goes to stderr); default $\(logFormatVariable)"),
        OptionSpec("--no-metrics", help: "do not count exchanges for GET /metrics (one history feed and one thread fewer; /metrics answers 404)"),
        OptionSpec("--no-proxy", help: "do not open the CONNECT proxy (port \(DefaultPorts.proxy); HTTPS_PROXY for unmodified senders)"),
        OptionSpec("--exit-with-parent",
                   help: "stop (as on SIGTERM) when the process that started serve exits, even by SIGKILL (the Python and Node kits pass it)"),
        OptionSpec.help,
    ] }

    /// The environment variables `serve` reads when the option is not given (a container's `-e`).
    static let advertisedHostVariable = "PUSHDOUBLE_ADVERTISED_HOST"
    static let logFormatVariable = "PUSHDOUBLE_LOG_FORMAT"

    static let exitStatuses = "exit status: 0 after a clean stop, 1 when it cannot start (port in use, bad scenario), 2 usage error"

    static var help: CommandHelp {
        CommandHelp(usage: "pushdouble serve [options]",
                    summary: "Serve the push-provider fakes and the admin API on loopback until interrupted (SIGINT/SIGTERM).",
                    options: options, footer: exitStatuses)
    }

    /// Runs the command; blocks until SIGINT/SIGTERM. Returns the exit status.
    public static func run(_ arguments: [String]) -> Int32 {
        run(arguments, mode: .serve, out: .standardOutput, err: .standardError)
    }

    /// `serve`, or `replay` (which is serve with a scenario and the detailed log).
    enum Mode {
        case serve, replay
        var command: any CLICommand.Type { self == .serve ? ServeCommand.self : ReplayCommand.self }
    }

    /// SIGINT/SIGTERM are ignored once per process, before the first dispatch signal
    /// source exists, so they reach the sources instead of killing the process. Only
    /// once: on Linux libdispatch installs its own handler when a source is first
    /// registered, and setting SIG_IGN again later would silently replace it.
    static let ignoreStopSignalsOnce: Void = {
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
    }()

    /// One run, phase by phase (``Phases``); what a phase starts is stopped, in reverse
    /// order, when the run returns.
    static func run(_ arguments: [String], mode: Mode, out: Console, err: Console,
                    fakes: [FakeListenerSpec]? = nil, credentials: DoubleCredentials?? = nil) -> Int32 {
        let phases = Phases(mode: mode, out: out, err: err)
        let parsed: ParsedOptions
        switch ParseOutcome.parse(arguments, command: phases.command, help: mode.command.help, maxPositional: mode == .replay ? 8 : 0,
                                  output: out.write, errors: err.write) {
        case .exit(let status): return status
        case .options(let p): parsed = p
        }
        let started = Date()
        guard let config = phases.configuration(parsed, fakes: fakes, credentials: credentials) else { return CLIError.exitStatus }
        guard let scenarios = phases.scenarios(parsed) else { return 1 }

        // Signal handlers first: a stop request that arrives while starting is not lost.
        let stop = StopSignals()
        defer { stop.cancel() }
        if parsed.flag("--exit-with-parent") { stop.watchParent() }

        var fromScenarios = config
        fromScenarios.applyFakeOptions(of: scenarios)
        do { try fromScenarios.validateProviderOptions() } catch {
            err.line("pushdouble \(phases.command): \(error)")
            return 1
        }
        guard let configured = phases.commandLineOptions(parsed, over: fromScenarios) else { return CLIError.exitStatus }
        let server = PushDoubleServer(configuration: configured)
        guard phases.load(scenarios, into: server) else { return 1 }
        let log = phases.exchangeLog(of: server, parsed)
        defer { log?.stop() }
        guard phases.start(server) else { return 1 }
        defer { server.stop() }

        guard let kit = phases.senderKit(server) else { return 1 }
        defer { kit.remove() }
        guard let endpointsFile = phases.writeEndpointsFile(parsed, endpoints: server.endpoints, kit: kit) else { return 1 }
        defer { if let path = endpointsFile.path { try? FileManager.default.removeItem(atPath: path) } }
        let armed = mode == .replay ? ArmedSummary.text(scenarios: scenarios, devices: server.devices.list(), rules: server.faults.list().map(\.rule)) : ""
        phases.announce(endpoints: server.endpoints, scenarios: scenarios, armed: armed, environment: kit.environment, since: started,
                        to: phases.bannerConsole(parsed))

        stop.wait()
        // Stop serving first, so the log ends with the last exchange, then flush it.
        server.stop()
        log?.stop()
        phases.bannerConsole(parsed).line("pushdouble \(phases.command): stopping (\(server.history.nextSeq - 1) exchanges, \(server.history.dropped) dropped)")
        return 0
    }

    /// The phases of one `serve` / `replay` run. A phase that fails prints its error (before
    /// anything already started is stopped) and returns nil or false; ``run(_:mode:out:err:fakes:credentials:)``
    /// then returns the exit status.
    struct Phases {
        let mode: Mode
        let out: Console
        let err: Console
        var command: String { mode.command.name }

        /// A byte count: digits with an optional K, M or G (powers of 1024); nil unless positive
        /// and representable.
        static func byteCount(_ text: String) -> Int? {
            let shifts: [Character: Int] = ["K": 10, "k": 10, "M": 20, "m": 20, "G": 30, "g": 30]
            var digits = Substring(text), shift = 0
            if let last = text.last, let s = shifts[last] { digits = text.dropLast(); shift = s }
            guard !digits.isEmpty, digits.allSatisfy({ $0 >= "0" && $0 <= "9" }), let n = Int(digits), n > 0, n <= Int.max >> shift else { return nil }
            return n << shift
        }

        /// The server's configuration from the options (a bad value is a usage error).
        func configuration(_ parsed: ParsedOptions, fakes: [FakeListenerSpec]?, credentials: DoubleCredentials??) -> PushDoubleConfiguration? {
            var creds = FakeRegistry.embeddedCredentials
            if let c = credentials { creds = c }
            var config = PushDoubleConfiguration(fakes: fakes, credentials: creds)
            config.ephemeralPorts = parsed.flag("--ephemeral")
            config.proxy = !parsed.flag("--no-proxy")
            if let h = parsed.value("--host") { config.host = h }
            config.metrics = !parsed.flag("--no-metrics")
            let library = parsed.all("--scenarios")
            config.scenarioLibrary = library.isEmpty ? ConformanceSuite.defaultScenarioDirectory().map { [$0] } ?? [] : library
            do {
                config.advertisedHost = try Self.advertisedHost(parsed)
                if let n = try parsed.number("--history-cap", expected: "a positive integer", { Int($0).flatMap { $0 > 0 ? $0 : nil } }) {
                    config.historyCap = n
                }
                if let n = try parsed.number("--history-max-bytes", expected: "a positive byte count (N, NK, NM or NG)", Self.byteCount) {
                    config.historyMaxBytes = n
                }
                if let n = try parsed.number("--seed", expected: "a non-negative integer", { UInt64($0) }) { config.seed = n }
                _ = try logStyle(parsed)
                if mode == .replay && parsed.all("--scenario").isEmpty && parsed.positional.isEmpty {
                    throw CLIError.missingArgument("scenario file (pushdouble replay FILE)")
                }
            } catch {
                err.write(CLIError.message(error, command: command))
                return nil
            }
            return config
        }

        /// `--option PROVIDER.KEY=VALUE` over the scenarios' `fakeOptions`, judged by the modules
        /// before anything listens (a bad one is a usage error).
        func commandLineOptions(_ parsed: ParsedOptions, over config: PushDoubleConfiguration) -> PushDoubleConfiguration? {
            var c = config
            guard !parsed.all("--option").isEmpty else { return c }
            do {
                for item in parsed.all("--option") {
                    guard let eq = item.firstIndex(of: "="), let dot = item[..<eq].firstIndex(of: "."),
                          dot != item.startIndex, item.index(after: dot) != eq else {
                        throw CLIError.invalidValue(option: "--option", value: item, expected: "PROVIDER.KEY=VALUE")
                    }
                    let text = String(item[item.index(after: eq)...])
                    let value = (try? JSONValue.parse(text)) ?? .string(text)
                    c.setProviderOption(String(item[..<dot]), String(item[item.index(after: dot)..<eq]), value)
                    c.providerOptionsSource = "--option"
                }
                try c.validateProviderOptions()
            } catch {
                err.write(CLIError.message(error, command: command))
                return nil
            }
            return c
        }

        /// Scenarios are read before anything listens, so a bad file fails fast.
        func scenarios(_ parsed: ParsedOptions) -> [Scenario]? {
            var scenarios: [Scenario] = []
            for path in parsed.all("--scenario") + parsed.positional {
                do { scenarios.append(try ScenarioLoader.load(path: path)) } catch {
                    err.line("pushdouble \(command): \(error)")
                    return nil
                }
            }
            return scenarios
        }

        func load(_ scenarios: [Scenario], into server: PushDoubleServer) -> Bool {
            do {
                for (i, s) in scenarios.enumerated() { try server.load(scenario: s, merge: i > 0) }
                return true
            } catch {
                err.line("pushdouble \(command): cannot load scenarios: \(error)")
                return false
            }
        }

        /// `--advertised-host` or ``ServeCommand/advertisedHostVariable``: a host name or IP address
        /// without scheme, port or path (it is put into URLs and the server certificate).
        static func advertisedHost(_ parsed: ParsedOptions) throws -> String? {
            let given = parsed.value("--advertised-host")
            guard let host = given ?? environmentValue(ServeCommand.advertisedHostVariable) else { return nil }
            let colons = host.filter { $0 == ":" }.count
            guard !host.isEmpty, colons != 1, host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-._:".contains($0)) }) else {
                throw CLIError.invalidValue(option: given == nil ? ServeCommand.advertisedHostVariable : "--advertised-host", value: host,
                                            expected: "a host name or IP address (no scheme, port or path)")
            }
            return host
        }

        /// A non-empty environment variable.
        static func environmentValue(_ name: String) -> String? {
            ProcessInfo.processInfo.environment[name].flatMap { $0.isEmpty ? nil : $0 }
        }

        /// The exchange log's style: detailed on `replay`; on `serve` `--log-format`
        /// (or ``ServeCommand/logFormatVariable``) line or json. A bad value is a usage error.
        func logStyle(_ parsed: ParsedOptions) throws -> ExchangeLogWriter.Style {
            if mode == .replay { return .detailed }
            let given = parsed.value("--log-format")
            switch given ?? Self.environmentValue(ServeCommand.logFormatVariable) ?? "line" {
            case "line": return .line
            case "json": return .json
            case let other: throw CLIError.invalidValue(option: given == nil ? ServeCommand.logFormatVariable : "--log-format",
                                                        value: other, expected: "line or json")
            }
        }

        /// The exchange log (written off the request path, see ``ExchangeLogWriter``):
        /// detailed on `replay`, one line (or JSON object) per exchange on `serve` unless `--quiet`.
        func exchangeLog(of server: PushDoubleServer, _ parsed: ParsedOptions) -> ExchangeLogWriter? {
            let style = (try? logStyle(parsed)) ?? .line
            if mode == .replay || !parsed.flag("--quiet") { return ExchangeLogWriter(history: server.history, console: out, style: style) }
            return nil
        }

        /// Where the banner and the closing line go: stderr when stdout carries JSON log lines.
        func bannerConsole(_ parsed: ParsedOptions) -> Console {
            (try? logStyle(parsed)) == .json ? err : out
        }

        func start(_ server: PushDoubleServer) -> Bool {
            do {
                try server.start()
                return true
            } catch {
                err.line("pushdouble \(command): cannot start: \(error)")
                return false
            }
        }

        func senderKit(_ server: PushDoubleServer) -> SenderKit? {
            do { return try server.senderKit() } catch {
                err.line("pushdouble \(command): cannot write credential files: \(error)")
                return nil
            }
        }

        /// Which endpoints file a run wrote. Either is removed at stop: its credential paths
        /// name files that stop removes too, so `pushdouble env` must not find it afterwards.
        enum EndpointsFile {
            /// `--endpoints-file FILE`.
            case given(String)
            /// ``SenderKit/defaultEndpointsFile`` on the fixed ports.
            case defaultFile(String)
            /// Ephemeral ports and no `--endpoints-file`.
            case none
            var path: String? {
                switch self { case .given(let p), .defaultFile(let p): return p; case .none: return nil }
            }
        }

        /// The endpoints and environment as JSON: to `--endpoints-file`, or on the fixed default
        /// ports to ``SenderKit/defaultEndpointsFile`` (for `pushdouble env`). nil when it cannot be written.
        func writeEndpointsFile(_ parsed: ParsedOptions, endpoints: [DoubleEndpoint], kit: SenderKit) -> EndpointsFile? {
            let file: EndpointsFile
            if let p = parsed.value("--endpoints-file") { file = .given(p) }
            else if parsed.flag("--ephemeral") { return EndpointsFile.none }
            else { file = .defaultFile(SenderKit.defaultEndpointsFile) }
            guard let path = file.path else { return file }
            do {
                try kit.endpointsDocument(endpoints: endpoints)
                    .write(to: URL(fileURLWithPath: path), options: .atomic)
                return file
            } catch {
                err.line("pushdouble \(command): cannot write \(path): \(error)")
                return nil
            }
        }

        /// The endpoints, the scenarios, what they armed (`replay`: ``ArmedSummary``), the sender
        /// environment, then `ready`.
        func announce(endpoints: [DoubleEndpoint], scenarios: [Scenario], armed: String = "", environment: [(String, String)],
                      since started: Date, to console: Console) {
            var banner = ""
            // Names padded to the longest one (at least 16), never cut.
            let width = max(16, endpoints.map(\.name.count).max() ?? 0)
            for e in endpoints {
                banner += "  " + e.name.padding(toLength: width, withPad: " ", startingAt: 0) + " " + e.url + "\n"
            }
            if let admin = endpoints.first(where: { $0.name == "admin" }) {
                banner += "inbox (web UI): " + admin.url + "/inbox\n"
            }
            if scenarios.isEmpty == false { banner += "scenarios: " + scenarios.map(\.id).joined(separator: ", ") + "\n" }
            banner += armed
            banner += "\n# environment for senders:\n"
            for (k, v) in environment { banner += "export \(k)=\(SenderKit.shellQuote(v))\n" }
            let ms = Int(Date().timeIntervalSince(started) * 1000)
            console.write("pushdouble \(command): listening\n" + banner + "ready (\(ms) ms)\n")
        }
    }

    /// SIGINT/SIGTERM as a stop request: handled by dispatch sources from creation on.
    final class StopSignals {
        private let stop = DispatchSemaphore(value: 0)
        private var sources: [DispatchSourceSignal] = []

        init() {
            _ = ServeCommand.ignoreStopSignalsOnce
            for sig in [SIGINT, SIGTERM] {
                let s = DispatchSource.makeSignalSource(signal: sig, queue: .global())
                s.setEventHandler { [stop] in stop.signal() }
                s.resume()
                sources.append(s)
            }
        }

        /// Blocks until a stop signal arrives (or the watched parent is gone).
        func wait() { stop.wait() }

        func cancel() {
            for s in sources { s.cancel() }
            parentTimer?.cancel()
        }

        private var parentTimer: DispatchSourceTimer?

        /// `--exit-with-parent`: a stop request once the parent process is gone. Polls
        /// `getppid()` (an orphan is re-parented, so its parent id changes) rather than Linux's
        /// `PR_SET_PDEATHSIG`, which fires when the parent's *thread* that started serve ends
        /// (a test runner's worker thread) and does not exist on macOS.
        func watchParent(every interval: DispatchTimeInterval = .milliseconds(200)) {
            let watch = ParentWatch(parent: getppid(), current: { getppid() })
            let timer = DispatchSource.makeTimerSource(queue: .global())
            timer.schedule(deadline: .now() + interval, repeating: interval)
            timer.setEventHandler { [stop] in if watch.parentIsGone { stop.signal() } }  // repeats are harmless: one wait
            timer.resume()
            parentTimer = timer
        }
    }

    /// Whether the process that started serve is gone: its parent id is no longer the one
    /// it had at start (the orphan went to init or a subreaper).
    struct ParentWatch: Sendable {
        let parent: pid_t
        let current: @Sendable () -> pid_t
        var parentIsGone: Bool { current() != parent }
    }
}
