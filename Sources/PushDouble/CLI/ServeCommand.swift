import Foundation
#if canImport(Glibc)
import Glibc
#endif
import PushDoubleCore

/// `pushdouble serve`: runs every fake and the admin API until SIGINT/SIGTERM.
///
/// Prints the endpoints and the environment variables a sender needs (DESIGN §4), then
/// `ready`; logs one line per exchange unless `--quiet` (off the request path, flushed
/// every 100 ms and at exit; lines are dropped and counted rather than slowing requests). Exit status: 0 after a clean
/// stop, 1 when it cannot start (port in use, bad scenario), 2 for usage errors.
public enum ServeCommand {
    public static let options: [OptionSpec] = [
        OptionSpec("--ephemeral", help: "listen on ephemeral ports instead of the fixed defaults (admin 8720, apns-production 8721, apns-sandbox 8722, fcm 8723, oauth 8724, expo 8725, webpush 8726)"),
        OptionSpec("--host", value: "ADDR", help: "address to listen on (default 127.0.0.1)"),
        OptionSpec("--scenario", value: "FILE", repeatable: true, help: "load a scenario file (devices, faults, quotas) before serving"),
        OptionSpec("--endpoints-file", value: "FILE", help: "write the endpoints and environment as JSON to FILE once listening"),
        OptionSpec("--history-cap", value: "N", help: "keep at most N exchanges (older ones are dropped and counted; default 50000)"),
        OptionSpec("--seed", value: "N", help: "seed of the fault engine's generator (default 0)"),
        OptionSpec("--quiet", help: "do not log each exchange"),
        OptionSpec("--help", help: "show this help"),
    ]

    public static var help: String {
        ParsedOptions.help(usage: "pushdouble serve [options]",
                           summary: "Serve the push-provider fakes and the admin API on loopback until interrupted (SIGINT/SIGTERM).",
                           specs: options)
    }

    /// Runs the command; blocks until SIGINT/SIGTERM. Returns the exit status.
    public static func run(_ arguments: [String]) -> Int32 {
        run(arguments, mode: .serve, out: .standardOutput, err: .standardError)
    }

    enum Mode { case serve, replay }

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
        guard let parsed = phases.parse(arguments) else { return 2 }
        if parsed.flag("--help") {
            out.write(mode == .serve ? help : ReplayCommand.help)
            return 0
        }
        let started = Date()
        guard let config = phases.configuration(parsed, fakes: fakes, credentials: credentials) else { return 2 }
        guard let scenarios = phases.scenarios(parsed) else { return 1 }

        // Signal handlers first: a stop request that arrives while starting is not lost.
        let stop = StopSignals()
        defer { stop.cancel() }

        var configured = config
        configured.applyFakeOptions(of: scenarios)
        let server = PushDoubleServer(configuration: configured)
        guard phases.load(scenarios, into: server) else { return 1 }
        let log = phases.exchangeLog(of: server, parsed)
        defer { log?.stop() }
        guard phases.start(server) else { return 1 }
        defer { server.stop() }

        guard let kit = phases.senderKit(server) else { return 1 }
        defer { kit.remove() }
        guard phases.writeEndpointsFile(parsed, endpoints: server.endpoints, kit: kit) else { return 1 }
        phases.announce(endpoints: server.endpoints, scenarios: scenarios, environment: kit.environment, since: started)

        stop.wait()
        // Stop serving first, so the log ends with the last exchange, then flush it.
        server.stop()
        log?.stop()
        out.line("pushdouble \(phases.command): stopping (\(server.history.nextSeq - 1) exchanges, \(server.history.dropped) dropped)")
        return 0
    }

    /// The phases of one `serve` / `replay` run. A phase that fails prints its error (before
    /// anything already started is stopped) and returns nil or false; ``run(_:mode:out:err:fakes:credentials:)``
    /// then returns the exit status.
    struct Phases {
        let mode: Mode
        let out: Console
        let err: Console
        var command: String { mode == .serve ? "serve" : "replay" }

        private func usageError(_ error: any Error) {
            err.line("pushdouble \(command): \(error)\nrun `pushdouble \(command) --help` for usage")
        }

        func parse(_ arguments: [String]) -> ParsedOptions? {
            do {
                return try ParsedOptions.parse(arguments, specs: mode == .serve ? options : ReplayCommand.options,
                                               maxPositional: mode == .replay ? 8 : 0)
            } catch {
                usageError(error)
                return nil
            }
        }

        /// The server's configuration from the options (a bad value is a usage error).
        func configuration(_ parsed: ParsedOptions, fakes: [FakeListenerSpec]?, credentials: DoubleCredentials??) -> PushDoubleConfiguration? {
            var creds = FakeRegistry.embeddedCredentials
            if let c = credentials { creds = c }
            var config = PushDoubleConfiguration(fakes: fakes, credentials: creds)
            config.ephemeralPorts = parsed.flag("--ephemeral")
            if let h = parsed.value("--host") { config.host = h }
            do {
                if let v = parsed.value("--history-cap") {
                    guard let n = Int(v), n > 0 else { throw CLIError.invalidValue(option: "--history-cap", value: v, expected: "a positive integer") }
                    config.historyCap = n
                }
                if let v = parsed.value("--seed") {
                    guard let n = UInt64(v) else { throw CLIError.invalidValue(option: "--seed", value: v, expected: "a non-negative integer") }
                    config.seed = n
                }
                if mode == .replay && parsed.all("--scenario").isEmpty && parsed.positional.isEmpty {
                    throw CLIError.missingArgument("scenario file (pushdouble replay FILE)")
                }
            } catch {
                usageError(error)
                return nil
            }
            return config
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

        /// The exchange log (written off the request path, see ``ExchangeLogWriter``):
        /// detailed on `replay`, one line per exchange on `serve` unless `--quiet`.
        func exchangeLog(of server: PushDoubleServer, _ parsed: ParsedOptions) -> ExchangeLogWriter? {
            if mode == .replay { return ExchangeLogWriter(history: server.history, console: out, style: .detailed) }
            if !parsed.flag("--quiet") { return ExchangeLogWriter(history: server.history, console: out, style: .line) }
            return nil
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

        /// `--endpoints-file`: the endpoints and environment as JSON (nothing to do without it).
        func writeEndpointsFile(_ parsed: ParsedOptions, endpoints: [DoubleEndpoint], kit: SenderKit) -> Bool {
            guard let path = parsed.value("--endpoints-file") else { return true }
            do {
                try kit.endpointsDocument(endpoints: endpoints)
                    .write(to: URL(fileURLWithPath: path), options: .atomic)
                return true
            } catch {
                err.line("pushdouble \(command): cannot write \(path): \(error)")
                return false
            }
        }

        /// The endpoints, the scenarios, the sender environment, then `ready`.
        func announce(endpoints: [DoubleEndpoint], scenarios: [Scenario], environment: [(String, String)], since started: Date) {
            var banner = ""
            for e in endpoints {
                banner += "  " + e.name.padding(toLength: 16, withPad: " ", startingAt: 0) + " " + e.url + "\n"
            }
            if scenarios.isEmpty == false { banner += "scenarios: " + scenarios.map(\.id).joined(separator: ", ") + "\n" }
            banner += "\n# environment for senders:\n"
            for (k, v) in environment { banner += "export \(k)=\(SenderKit.shellQuote(v))\n" }
            let ms = Int(Date().timeIntervalSince(started) * 1000)
            out.write("pushdouble \(command): listening\n" + banner + "ready (\(ms) ms)\n")
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

        /// Blocks until a stop signal arrives.
        func wait() { stop.wait() }

        func cancel() { for s in sources { s.cancel() } }
    }
}

/// `pushdouble replay FILE`: serve with a scenario loaded, printing each exchange in detail.
public enum ReplayCommand {
    public static let options: [OptionSpec] = ServeCommand.options.filter { $0.name != "--quiet" }

    public static var help: String {
        ParsedOptions.help(usage: "pushdouble replay [options] SCENARIO.json",
                           summary: "Serve with a scenario loaded (devices, faults, quotas) and print every exchange in detail as it happens, until interrupted.",
                           specs: options)
    }

    public static func run(_ arguments: [String]) -> Int32 {
        ServeCommand.run(arguments, mode: .replay, out: .standardOutput, err: .standardError)
    }
}
