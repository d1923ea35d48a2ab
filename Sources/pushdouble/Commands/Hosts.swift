import Foundation
import PushDouble

/// `pushdouble hosts [--json]`: the real services' host names and the listener of a double that
/// stands in for each — what the CONNECT proxy routes and what an in-process host redirect maps
/// (the Python and Node kits read their tables from here instead of keeping copies). Exit status
/// 0 printed, 2 usage error.
enum HostsCommand: ConsoleCommand {
    static let name = "hosts"
    static let summary = "List the real provider host names and the listener that stands in for each."

    static var options: [OptionSpec] { [
        OptionSpec("--json", help: "print {\"hosts\": {\"host:port\": listener}, \"listeners\": [{name, provider, realHosts}]} instead of a table"),
        OptionSpec.help,
    ] }

    static var help: CommandHelp {
        CommandHelp(usage: "pushdouble hosts [--json]",
                    summary: "Lists every real host:port a listener stands in for (a name may be a wildcard, \"*.notify.windows.com:443\",\n"
                        + "standing for exactly one more label). A name declared by two listeners goes to the first, as in the proxy.",
                    options: options, footer: "exit status: 0 printed, 2 usage error")
    }

    /// (real host:port, listener, provider), in module order, first claim wins.
    static var table: [(host: String, listener: String, provider: String)] {
        var seen = Set<String>()
        var rows: [(String, String, String)] = []
        for module in FakeRegistry.modules {
            for d in module.listenerDefaults {
                for h in d.realHosts where seen.insert(h.lowercased()).inserted { rows.append((h, d.name, module.provider.rawValue)) }
            }
        }
        return rows
    }

    static func run(parsed: ParsedOptions, out: Console, err: Console) -> Int32 {
        if parsed.flag("--json") {
            out.write(String(decoding: json, as: UTF8.self) + "\n")
        } else {
            let width = table.map(\.host.count).max() ?? 0
            for row in table { out.line(row.host.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + row.listener) }
        }
        return 0
    }

    /// The `--json` document (sorted keys).
    static var json: Data {
        struct Listener: Encodable { var name: String; var provider: String; var realHosts: [String] }
        struct Document: Encodable { var hosts: [String: String]; var listeners: [Listener] }
        let listeners = FakeRegistry.modules.flatMap { m in
            m.listenerDefaults.filter { !$0.realHosts.isEmpty }.map { Listener(name: $0.name, provider: m.provider.rawValue, realHosts: $0.realHosts) }
        }
        let doc = Document(hosts: Dictionary(table.map { ($0.host, $0.listener) }, uniquingKeysWith: { a, _ in a }), listeners: listeners)
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? e.encode(doc)) ?? Data("{}".utf8)
    }
}
