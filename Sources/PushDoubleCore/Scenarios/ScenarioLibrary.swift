import Foundation

/// The scenario files the inbox's library lists (`GET /scenarios`): every `*.json` of some
/// directories (the shipped `Scenarios/`, `serve --scenarios DIR`) but the schema, each with its
/// title, the devices and rules it arms and its document, which the page posts to
/// `POST /scenarios?merge=true` to load it.
public struct ScenarioLibrary: Sendable {
    public var directories: [String]
    public init(directories: [String]) { self.directories = directories }

    /// A device as the library lists it.
    public struct DeviceSummary: Encodable, Equatable {
        public var id: String
        public var provider: String
        public var state: String
    }

    /// One file of the library; `error` (and no scenario) when it does not load.
    public struct Entry: Encodable {
        public var file: String
        public var directory: String
        public var id: String?
        public var title: String?
        public var description: String?
        public var devices: [DeviceSummary]
        public var rules: [String]
        /// Loaded since the last full reset (``DoubleState/loadedScenarios``).
        public var loaded: Bool
        public var document: JSONValue?
        public var error: String?
    }

    /// The entries, by directory then file name.
    public func entries(loaded: [String]) -> [Entry] {
        directories.flatMap { dir -> [Entry] in
            let files = (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
            return files.filter { $0.hasSuffix(".json") && $0 != Self.schemaFile }.sorted().map { entry(dir, $0, loaded: loaded) }
        }
    }

    /// The JSON schema of scenario files, kept beside them.
    public static let schemaFile = "scenario.schema.json"

    private func entry(_ dir: String, _ file: String, loaded: [String]) -> Entry {
        let url = URL(fileURLWithPath: dir).appendingPathComponent(file)
        var e = Entry(file: file, directory: dir, devices: [], rules: [], loaded: false)
        do {
            let s = try ScenarioLoader.load(contentsOf: url)
            e.id = s.id; e.title = s.title; e.description = s.description
            e.devices = s.devices.map { DeviceSummary(id: $0.id, provider: $0.provider.rawValue, state: DeviceStateKind($0.state).rawValue) }
            e.rules = s.rules.map(\.id)
            e.loaded = loaded.contains(s.id)
            e.document = try JSONDecoder().decode(JSONValue.self, from: Data(contentsOf: url))
        } catch {
            e.error = "\(error)"
        }
        return e
    }
}
