import Foundation
import XCTest
import PushDouble

/// The layout rule of docs/adding-a-provider.md, checked on the source tree (fast tier, no tool):
/// a provider lives in its own folders (its fake module, its judge, its reference-sender part,
/// its crypto) and is named elsewhere in `Sources/` only on the registry lines that §3 lists;
/// every registry names every provider; no fake module imports another provider's module; the
/// reference sender and the judge stay independent of the fakes in `Package.swift`.
final class ProviderLayoutTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let sources = root.appendingPathComponent("Sources")

    /// Each registered provider's Swift name prefix (`APNsModule` → `APNs`).
    static var prefixes: [String] {
        FakeRegistry.modules.map { module in
            let name = String(describing: type(of: module))
            return name.hasSuffix("Module") ? String(name.dropLast("Module".count)) : name
        }
    }

    /// A provider's own folders, relative to `Sources/`.
    static func folders(of prefix: String) -> [String] {
        ["PushDouble\(prefix)/", "PushDoubleConformance/Providers/\(prefix)/", "ReferenceSender/\(prefix)/", "PushDoubleCrypto/\(prefix)/"]
    }

    /// The registry files of §3 (relative to `Sources/`): the only shared files that name providers.
    static let registries = ["PushDouble/FakeRegistry.swift", "PushDouble/Exports.swift", "PushDoubleConformance/Providers/ConformanceProviders.swift",
                             "ReferenceSender/SenderProviders.swift"]

    /// Every Swift file under `Sources/`, relative path → text with comments removed.
    static func swiftSources() throws -> [(path: String, code: String)] {
        let enumerator = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)
        var files: [(String, String)] = []
        while let url = enumerator?.nextObject() as? URL {
            guard url.pathExtension == "swift" else { continue }
            let relative = String(url.standardizedFileURL.path.dropFirst(sources.standardizedFileURL.path.count + 1))
            let text = String(decoding: try Data(contentsOf: url), as: UTF8.self)
            files.append((relative, Self.withoutComments(text)))
        }
        return files.sorted { $0.0 < $1.0 }
    }

    static func withoutComments(_ text: String) -> String {
        text.replacingOccurrences(of: #"/\*[\s\S]*?\*/"#, with: "", options: .regularExpression)
            .replacingOccurrences(of: #"//[^\n]*"#, with: "", options: .regularExpression)
    }

    /// Places where code names a provider: its types (`APNsSender`), its namespace (`APNs.`), its module.
    static func mentions(of prefix: String, in code: String) -> [String] {
        let pattern = "\\b\(prefix)[A-Z][A-Za-z0-9]*\\b|\\b\(prefix)\\.|import PushDouble\(prefix)\\b"
        let regex = try! NSRegularExpression(pattern: pattern)
        return regex.matches(in: code, range: NSRange(code.startIndex..., in: code)).compactMap { Range($0.range, in: code).map { String(code[$0]) } }
    }

    func testTheRegistryHasTheFourProviders() {
        XCTAssertEqual(Self.prefixes, ["APNs", "FCM", "Expo", "WebPush"])
    }

    func testProvidersAreNamedOutsideTheirFoldersOnlyOnRegistryLines() throws {
        let files = try Self.swiftSources()
        XCTAssertGreaterThan(files.count, 100)
        // Shared code: every file outside all providers' folders (inside them, another provider's
        // name is a style of its own, as Web Push's FCM-style push service; imports are checked below).
        let providerFolders = Self.prefixes.flatMap(Self.folders(of:))
        let shared = files.filter { file in !providerFolders.contains(where: { file.path.hasPrefix($0) }) && !Self.registries.contains(file.path) }
        XCTAssertGreaterThan(shared.count, 50)
        for prefix in Self.prefixes {
            let own = Self.folders(of: prefix)
            for file in shared {
                let found = Self.mentions(of: prefix, in: file.code)
                XCTAssertEqual(found, [], "Sources/\(file.path) names \(prefix) (\(Set(found).sorted().joined(separator: ", "))): "
                               + "move it into one of \(own.joined(separator: ", ")) or reach it through the provider seam")
            }
        }
    }

    func testEveryRegistryNamesEveryProvider() throws {
        for registry in Self.registries {
            let code = Self.withoutComments(String(decoding: try Data(contentsOf: Self.sources.appendingPathComponent(registry)), as: UTF8.self))
            for prefix in Self.prefixes {
                XCTAssertFalse(Self.mentions(of: prefix, in: code).isEmpty, "\(registry) does not register \(prefix)")
            }
        }
    }

    func testNoFakeModuleImportsAnotherProvider() throws {
        let files = try Self.swiftSources()
        for prefix in Self.prefixes {
            for file in files where file.path.hasPrefix("PushDouble\(prefix)/") {
                for other in Self.prefixes where other != prefix {
                    XCTAssertNil(file.code.range(of: "import PushDouble\(other)\n"), "Sources/\(file.path) imports PushDouble\(other)")
                }
            }
        }
    }

    /// The reference sender and the judge never link a fake: a sender that called the fake's
    /// validator would pass the very checks that validator gets wrong.
    func testTheSenderDependsOnNoFake() throws {
        let manifest = String(decoding: try Data(contentsOf: Self.root.appendingPathComponent("Package.swift")), as: UTF8.self)
        guard let line = manifest.split(separator: "\n").first(where: { $0.contains("name: \"ReferenceSender\"") }) else {
            return XCTFail("Package.swift has no ReferenceSender target")
        }
        for prefix in Self.prefixes {
            XCTAssertFalse(line.contains("\"PushDouble\(prefix)\""), "ReferenceSender depends on PushDouble\(prefix): \(line)")
        }
        XCTAssertFalse(line.contains("\"PushDouble\""), "ReferenceSender depends on the in-process server")
    }

    /// Every folder §2 of docs/adding-a-provider.md lists exists for every provider, and the
    /// page names every registry file this test reads (so the page and the test cannot drift).
    func testTheDocumentedFoldersAndRegistriesAreReal() throws {
        let doc = String(decoding: try Data(contentsOf: Self.root.appendingPathComponent("docs/adding-a-provider.md")), as: UTF8.self)
        for registry in Self.registries {
            XCTAssertTrue(doc.contains("Sources/" + registry), "docs/adding-a-provider.md does not list Sources/\(registry)")
        }
        for pattern in ["Sources/PushDouble<Name>/", "Sources/PushDoubleConformance/Providers/<Name>/", "Sources/ReferenceSender/<Name>/",
                        "Tests/PushDouble<Name>Tests/", "docs/<id>.md"] {
            XCTAssertTrue(doc.contains(pattern), "docs/adding-a-provider.md does not list \(pattern)")
        }
        for prefix in Self.prefixes {
            for folder in ["Sources/PushDouble\(prefix)", "Sources/PushDoubleConformance/Providers/\(prefix)", "Sources/ReferenceSender/\(prefix)",
                           "Tests/PushDouble\(prefix)Tests"] {
                var isDirectory: ObjCBool = false
                XCTAssertTrue(FileManager.default.fileExists(atPath: Self.root.appendingPathComponent(folder).path, isDirectory: &isDirectory) && isDirectory.boolValue,
                              "\(folder) is missing")
            }
            let id = FakeRegistry.modules[Self.prefixes.firstIndex(of: prefix)!].provider.rawValue
            XCTAssertTrue(FileManager.default.fileExists(atPath: Self.root.appendingPathComponent("docs/\(id).md").path), "docs/\(id).md is missing")
        }
    }

    /// Tests mirror the sources (docs/adding-a-provider.md §2): every folder inside a test target
    /// listed here names a folder of its source module at the same relative path (a provider's
    /// checks' tests under `Providers/<Name>/`, the sender's APNs tests under `APNs/`), so a
    /// provider's tests are found where its code is. `Fixtures` folders hold data, not tests.
    func testTestFoldersMirrorTheSourceFolders() throws {
        let mirrors = ["PushDoubleConformanceTests": "PushDoubleConformance", "ReferenceSenderTests": "ReferenceSender"]
        for (tests, module) in mirrors.sorted(by: { $0.key < $1.key }) {
            let testRoot = Self.root.appendingPathComponent("Tests/\(tests)")
            let enumerator = FileManager.default.enumerator(at: testRoot, includingPropertiesForKeys: [.isDirectoryKey])
            var folders = 0
            while let url = enumerator?.nextObject() as? URL {
                guard (try url.resourceValues(forKeys: [.isDirectoryKey])).isDirectory == true else { continue }
                if url.lastPathComponent == "Fixtures" { enumerator?.skipDescendants(); continue }
                let relative = String(url.standardizedFileURL.path.dropFirst(testRoot.standardizedFileURL.path.count + 1))
                var isDirectory: ObjCBool = false
                XCTAssertTrue(FileManager.default.fileExists(atPath: Self.sources.appendingPathComponent("\(module)/\(relative)").path, isDirectory: &isDirectory)
                              && isDirectory.boolValue, "Tests/\(tests)/\(relative) mirrors no folder of Sources/\(module)")
                folders += 1
            }
            XCTAssertGreaterThan(folders, 0, "Tests/\(tests) has no subfolders to mirror Sources/\(module)")
        }
    }
}
