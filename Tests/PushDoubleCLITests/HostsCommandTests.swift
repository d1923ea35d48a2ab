import Foundation
import XCTest
import PushDouble
import PushDoubleCore
@testable import pushdouble

/// `pushdouble hosts`: the real host names from the registered modules, the same names a
/// running double reports per listener (`realHosts` in its endpoints) and the proxy routes.
final class HostsCommandTests: XCTestCase {
    func testJSONListsEveryDeclaredNameOnce() throws {
        let out = Captured(), err = Captured()
        XCTAssertEqual(HostsCommand.run(["--json"], out: out.console, err: err.console), 0, err.value)
        let doc = try JSONSerialization.jsonObject(with: Data(out.value.utf8)) as? [String: Any]
        let hosts = try XCTUnwrap(doc?["hosts"] as? [String: String])
        let declared = FakeRegistry.listenerDefaults.flatMap { d in d.realHosts.map { ($0, d.name) } }
        XCTAssertEqual(hosts.count, Set(declared.map(\.0)).count)
        for (name, listener) in declared { XCTAssertEqual(hosts[name], listener, name) }
        XCTAssertEqual(hosts["api.push.apple.com:443"], "apns-production")
        XCTAssertEqual(hosts["*.notify.windows.com:443"], "webpush")
        let listeners = try XCTUnwrap(doc?["listeners"] as? [[String: Any]])
        XCTAssertEqual(Set(listeners.compactMap { $0["provider"] as? String }), Set(FakeRegistry.modules.map(\.provider.rawValue)))
    }

    func testTableAndUsage() {
        let out = Captured(), err = Captured()
        XCTAssertEqual(HostsCommand.run([], out: out.console, err: err.console), 0)
        XCTAssertTrue(out.value.contains("fcm.googleapis.com:443"), out.value)
        XCTAssertEqual(out.value.split(separator: "\n").count, HostsCommand.table.count)
        XCTAssertEqual(HostsCommand.run(["--bogus"], out: out.console, err: err.console), 2)
    }

    /// A running double's endpoints carry the same names, listener by listener.
    func testARunningDoubleReportsTheSameNames() throws {
        let server = PushDoubleServer(configuration: .ephemeral())
        try server.start()
        defer { server.stop() }
        var fromEndpoints: [String: String] = [:]
        for e in server.endpoints { for h in e.realHosts ?? [] where fromEndpoints[h] == nil { fromEndpoints[h] = e.name } }
        XCTAssertEqual(fromEndpoints, Dictionary(HostsCommand.table.map { ($0.host, $0.listener) }, uniquingKeysWith: { a, _ in a }))
        XCTAssertNil(server.endpoints.first { $0.name == "admin" }?.realHosts)
    }
}
