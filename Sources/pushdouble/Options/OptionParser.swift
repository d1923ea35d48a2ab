import Foundation

/// One command-line option as a command declares it; help is generated from the same table.
struct OptionSpec: Sendable {
    var name: String
    /// A one-letter alias ("-v"), nil for none.
    var short: String?
    /// Placeholder of the value ("FILE"), nil for a flag.
    var value: String?
    var repeatable: Bool
    var help: String
    init(_ name: String, short: String? = nil, value: String? = nil, repeatable: Bool = false, help: String) {
        self.name = name; self.short = short; self.value = value; self.repeatable = repeatable; self.help = help
    }

    /// `--help` / `-h`, which every command has.
    static let help = OptionSpec("--help", short: "-h", help: "show this help")
}

/// A user-facing command-line error of any command (exit status 2).
enum CLIError: Error, Equatable, CustomStringConvertible {
    case unknownOption(String)
    case missingValue(String)
    case repeated(String)
    case invalidValue(option: String, value: String, expected: String)
    case unexpectedArgument(String)
    case missingArgument(String)

    /// Exit status of a usage error, the same for every command.
    static let exitStatus: Int32 = 2

    var description: String {
        switch self {
        case .unknownOption(let o): return "unknown option \(o)"
        case .missingValue(let o): return "option \(o) needs a value"
        case .repeated(let o): return "option \(o) given more than once"
        case .invalidValue(let o, let v, let e): return "option \(o): \"\(v)\" is not \(e)"
        case .unexpectedArgument(let a): return "unexpected argument \"\(a)\""
        case .missingArgument(let a): return "missing \(a)"
        }
    }

    /// The text every command prints for a usage error: the error, then where the help is.
    static func message(_ error: any Error, command: String) -> String {
        "pushdouble \(command): \(error)\nrun `pushdouble \(command) --help` for usage\n"
    }
}

/// Parsed options: values by option name, in order, plus positional arguments.
struct ParsedOptions: Sendable {
    var values: [String: [String]] = [:]
    var positional: [String] = []
    func flag(_ name: String) -> Bool { values[name] != nil }
    func value(_ name: String) -> String? { values[name]?.last }
    func all(_ name: String) -> [String] { values[name] ?? [] }

    /// Splits `arguments` by `specs`: `--name value`, `--name=value`, flags, short aliases,
    /// `--` ends options. At most `maxPositional` positional arguments.
    static func parse(_ arguments: [String], specs: [OptionSpec], maxPositional: Int = 0) throws -> ParsedOptions {
        var out = ParsedOptions()
        var i = 0
        var optionsDone = false
        while i < arguments.count {
            let arg = arguments[i]
            i += 1
            if !optionsDone && arg == "--" { optionsDone = true; continue }
            if optionsDone || !arg.hasPrefix("-") || arg == "-" {
                guard out.positional.count < maxPositional else { throw CLIError.unexpectedArgument(arg) }
                out.positional.append(arg)
                continue
            }
            var name = arg, inline: String? = nil
            if let eq = arg.firstIndex(of: "=") { name = String(arg[..<eq]); inline = String(arg[arg.index(after: eq)...]) }
            guard let spec = specs.first(where: { $0.name == name || $0.short == name }) else { throw CLIError.unknownOption(name) }
            name = spec.name
            if out.values[name] != nil && !spec.repeatable { throw CLIError.repeated(name) }
            if spec.value != nil {
                if let v = inline { out.values[name, default: []].append(v) } else {
                    guard i < arguments.count else { throw CLIError.missingValue(name) }
                    out.values[name, default: []].append(arguments[i])
                    i += 1
                }
            } else {
                if let v = inline { throw CLIError.invalidValue(option: name, value: v, expected: "allowed (a flag takes no value)") }
                out.values[name, default: []].append("")
            }
        }
        return out
    }

    /// The value of `name` as a number that `convert` accepts, nil when the option is absent.
    /// A value it rejects is ``CLIError/invalidValue(option:value:expected:)`` with `expected`.
    func number<T>(_ name: String, expected: String, _ convert: (String) -> T?) throws -> T? {
        guard let v = value(name) else { return nil }
        guard let n = convert(v) else { throw CLIError.invalidValue(option: name, value: v, expected: expected) }
        return n
    }
}

/// What `pushdouble CMD --help` prints, generated from the command's option table.
struct CommandHelp: Sendable {
    /// The synopsis after `usage: `.
    var usage: String
    /// One paragraph on what the command does.
    var summary: String
    var options: [OptionSpec]
    /// A closing paragraph (exit statuses), nil for none.
    var footer: String?

    var text: String {
        var s = "usage: \(usage)\n\n\(summary)\n\noptions:\n"
        let lefts = options.map { spec in
            (spec.short.map { $0 + ", " } ?? "") + spec.name + (spec.value.map { " " + $0 } ?? "")
        }
        let width = (lefts.map(\.count).max() ?? 0) + 2
        for (spec, left) in zip(options, lefts) {
            s += "  " + left + String(repeating: " ", count: width - left.count) + spec.help
            if spec.repeatable { s += " (repeatable)" }
            s += "\n"
        }
        if let f = footer { s += "\n" + f + "\n" }
        return s
    }
}

/// A parse that ran (`options`), or ended the command: help printed (0) or a usage error printed (2).
enum ParseOutcome {
    case options(ParsedOptions)
    case exit(Int32)

    /// Parses `arguments` for `command`; `--help` prints `help` to `output`, a usage error
    /// prints ``CLIError/message(_:command:)`` to `errors`.
    static func parse(_ arguments: [String], command: String, help: CommandHelp, maxPositional: Int = 0,
                      output: (String) -> Void, errors: (String) -> Void) -> ParseOutcome {
        do {
            let parsed = try ParsedOptions.parse(arguments, specs: help.options, maxPositional: maxPositional)
            if parsed.flag(OptionSpec.help.name) { output(help.text); return .exit(0) }
            return .options(parsed)
        } catch {
            errors(CLIError.message(error, command: command))
            return .exit(CLIError.exitStatus)
        }
    }
}
