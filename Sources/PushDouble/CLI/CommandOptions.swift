import Foundation
import PushDoubleCore

/// One command-line option as a command declares it; help is generated from the same table.
public struct OptionSpec: Sendable {
    public var name: String
    /// Placeholder of the value ("FILE"), nil for a flag.
    public var value: String?
    public var repeatable: Bool
    public var help: String
    public init(_ name: String, value: String? = nil, repeatable: Bool = false, help: String) {
        self.name = name; self.value = value; self.repeatable = repeatable; self.help = help
    }
}

/// A user-facing command-line error (exit status 2).
public enum CLIError: Error, Equatable, CustomStringConvertible {
    case unknownOption(String)
    case missingValue(String)
    case repeated(String)
    case invalidValue(option: String, value: String, expected: String)
    case unexpectedArgument(String)
    case missingArgument(String)

    public var description: String {
        switch self {
        case .unknownOption(let o): return "unknown option \(o)"
        case .missingValue(let o): return "option \(o) needs a value"
        case .repeated(let o): return "option \(o) given more than once"
        case .invalidValue(let o, let v, let e): return "option \(o): \"\(v)\" is not \(e)"
        case .unexpectedArgument(let a): return "unexpected argument \"\(a)\""
        case .missingArgument(let a): return "missing \(a)"
        }
    }
}

/// Parsed options: values by option name, in order, plus positional arguments.
public struct ParsedOptions: Sendable {
    public var values: [String: [String]] = [:]
    public var positional: [String] = []
    public func flag(_ name: String) -> Bool { values[name] != nil }
    public func value(_ name: String) -> String? { values[name]?.last }
    public func all(_ name: String) -> [String] { values[name] ?? [] }

    /// Splits `arguments` by `specs`: `--name value`, `--name=value`, flags, `--` ends options.
    public static func parse(_ arguments: [String], specs: [OptionSpec], maxPositional: Int) throws -> ParsedOptions {
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
            if name == "-h" { name = "--help" }
            guard let spec = specs.first(where: { $0.name == name }) else { throw CLIError.unknownOption(name) }
            if out.values[name] != nil && !spec.repeatable { throw CLIError.repeated(name) }
            if spec.value != nil {
                if let v = inline { out.values[name, default: []].append(v) } else {
                    guard i < arguments.count else { throw CLIError.missingValue(name) }
                    out.values[name, default: []].append(arguments[i])
                    i += 1
                }
            } else {
                if inline != nil { throw CLIError.invalidValue(option: name, value: inline!, expected: "allowed (a flag takes no value)") }
                out.values[name, default: []].append("")
            }
        }
        return out
    }

    /// Usage text generated from the option table.
    public static func help(usage: String, summary: String, specs: [OptionSpec]) -> String {
        var s = "usage: \(usage)\n\n\(summary)\n\noptions:\n"
        let lefts = specs.map { $0.name + ($0.value.map { " " + $0 } ?? "") }
        let width = (lefts.map(\.count).max() ?? 0) + 2
        for (spec, left) in zip(specs, lefts) {
            s += "  " + left + String(repeating: " ", count: width - left.count) + spec.help
            if spec.repeatable { s += " (repeatable)" }
            s += "\n"
        }
        return s
    }
}

/// Thread-safe text writer for stdout/stderr (exchange logs come from event-loop threads).
public final class Console: Sendable {
    private let lock = Locked<Void>(())
    private let sink: @Sendable (String) -> Void
    /// Write errors (a closed stdout) are ignored rather than trapping.
    public init(_ handle: FileHandle) { sink = { try? handle.write(contentsOf: Data($0.utf8)) } }
    /// A console that hands text to `sink` (tests capture output this way).
    public init(sink: @escaping @Sendable (String) -> Void) { self.sink = sink }
    public static let standardOutput = Console(.standardOutput)
    public static let standardError = Console(.standardError)
    public func write(_ text: String) { lock.withLock { _ in sink(text) } }
    public func line(_ text: String) { write(text + "\n") }
}
