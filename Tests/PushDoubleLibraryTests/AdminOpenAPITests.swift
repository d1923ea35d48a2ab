import Foundation
import XCTest
import PushDoubleTesting
import PushDoubleClient

/// Every admin API route a running double serves — the core's, each provider's — is documented
/// in docs/admin-openapi.yaml under its path and method: the console and automation share one
/// documented path (docs/inbox.md). The core's routes come from the admin index (`GET /`), the
/// providers' from their instances; the inbox page's own assets are not API routes.
final class AdminOpenAPITests: XCTestCase {
    func testEveryAdminRouteIsInTheOpenAPIFile() async throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let yaml = try String(contentsOf: root.appendingPathComponent("docs/admin-openapi.yaml"), encoding: .utf8)
        let lines = yaml.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        func documented(_ method: String, _ path: String) -> Bool {
            guard let start = lines.firstIndex(of: "  \(path):") else { return false }
            let operations = lines[(start + 1)...].prefix { !$0.hasPrefix("  /") && !$0.hasPrefix("components:") }
            return operations.contains("    \(method.lowercased()):")
        }
        try await withPushDouble(.ephemeral(tls: false)) { double in
            let admin = try XCTUnwrap(URLComponents(string: try XCTUnwrap(double.endpoint(named: "admin")).url))
            let connection = try await HTTPClientConnection.connect(host: try XCTUnwrap(admin.host), port: try XCTUnwrap(admin.port), tls: false,
                                                                    configuration: HTTPClientConfiguration())
            defer { connection.close() }
            let index = try await connection.send(HTTPClientRequest(method: "GET", path: "/", authority: "127.0.0.1", scheme: "http", body: []))
            let listed = try XCTUnwrap(try JSONValue.parse(index.body)["routes"]?.arrayValue).compactMap(\.stringValue)
            var routes = listed.map { r -> (String, String) in
                let parts = r.split(separator: " ", maxSplits: 1).map(String.init)
                return (parts[0], parts.count > 1 ? parts[1] : "")
            }.filter { !$0.1.hasPrefix("/inbox") }
            XCTAssertTrue(routes.contains { $0 == ("POST", "/reset") }, "\(listed)")
            for instance in double.providerInstances {
                for r in instance.adminRoutes {
                    let path = r.path.split(separator: "/", omittingEmptySubsequences: false)
                        .map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0) }.joined(separator: "/")
                    routes.append((r.method, path))
                }
            }
            XCTAssertGreaterThan(routes.count, 30)
            let missing = routes.filter { !documented($0.0, $0.1) }.map { "\($0.0) \($0.1)" }
            XCTAssertEqual(missing, [], "admin routes not in docs/admin-openapi.yaml")
        }
    }
}
