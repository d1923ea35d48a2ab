import XCTest
import PushDoubleCore
import PushDoubleCrypto
import PushDoubleTransport
import PushDoubleWebPush
@testable import PushDouble

/// What the CONNECT proxy routes and how a shared real host is split, without sockets: every
/// declared real host is covered by the shipped server certificate, and ``HostRoute``s land on
/// the listener that declares their host (docs/transport.md "CONNECT proxy listeners"; the socket behaviour is
/// ConnectProxySocketTests and WebPushProxyTests).
final class ProxyRoutingTests: XCTestCase {
    /// RFC 6125 §6.4.3 matching of one certificate DNS name: exact, or `*.` for one label.
    static func covers(_ san: String, _ host: String) -> Bool {
        let san = san.lowercased(), host = host.lowercased()
        guard san.hasPrefix("*.") else { return san == host }
        let suffix = san.dropFirst(1)
        guard host.hasSuffix(suffix) else { return false }
        let label = host.dropLast(suffix.count)
        return !label.isEmpty && !label.contains(".")
    }

    func testShippedServerCertificateCoversEveryDeclaredRealHost() throws {
        let names = try X509Certificate(pem: EmbeddedTestCredentials.serverCertificatePEM).dnsNames
        let declared = FakeRegistry.modules.flatMap(\.listenerDefaults).flatMap(\.realHosts)
            + FakeRegistry.modules.compactMap { try? $0.instantiate(options: nil, context: ProviderBuildContext(clock: SystemClock(), optionsPath: "x")) }
                .flatMap(\.hostRoutes).map(\.authority)
        XCTAssertTrue(declared.contains("*.notify.windows.com:443"), "\(declared)")
        for authority in declared {
            let host = String(authority[..<authority.lastIndex(of: ":")!])
            // A wildcard authority is covered by the same wildcard name; a name under it by matching.
            XCTAssertTrue(names.contains { $0 == host || Self.covers($0, host) }, "\(host) is not in the certificate: \(names)")
        }
        XCTAssertTrue(names.contains { Self.covers($0, "db5p.notify.windows.com") })
        XCTAssertFalse(names.contains { Self.covers($0, "a.b.notify.windows.com") })
    }

    func testWebPushServiceHostsAreRoutedAndFCMsIsShared() {
        let server = PushDoubleServer(configuration: .ephemeral())
        let listeners = FakeRegistry.modules.flatMap(\.listenerDefaults).map(\.name)
        let routes = server.proxyRoutes(to: listeners).routes
        XCTAssertEqual(routes["updates.push.services.mozilla.com:443"], WebPushModule.listenerName)
        XCTAssertEqual(routes["web.push.apple.com:443"], WebPushModule.listenerName)
        XCTAssertEqual(routes["*.notify.windows.com:443"], WebPushModule.listenerName)
        XCTAssertEqual(routes["fcm.googleapis.com:443"], "fcm", "the FCM listener keeps its host; Web Push joins it by a HostRoute")
    }

    /// A ``HostRoute`` is added to the listener declaring its authority, restricted to that
    /// host, and to no other listener.
    func testHostRoutesJoinTheListenerThatDeclaresTheirHost() throws {
        let server = PushDoubleServer(configuration: .ephemeral())
        let webpush = WebPushInstance(fake: WebPushFake(), double: nil)
        XCTAssertEqual(webpush.hostRoutes.map(\.authority), ["fcm.googleapis.com:443", "fcm.googleapis.com:443"])
        XCTAssertEqual(webpush.hostRoutes.map(\.route.path), ["/fcm/send/:token", "/wp/:token"], "both FCM endpoint shapes (docs/webpush.md §6.1b)")
        let specs = FakeRegistry.defaultListeners()
        for spec in specs {
            let joined = server.adding(webpush.hostRoutes, to: spec)
            let added = joined.routes.count - spec.routes.count
            if spec.name == "fcm" {
                XCTAssertEqual(added, 2)
                XCTAssertEqual(joined.routes.last?.host, "fcm.googleapis.com")
                XCTAssertEqual(joined.routes.last?.method, "POST")
                XCTAssertTrue((joined.routes.last?.fake as? WebPushFake) === webpush.fake)
            } else {
                XCTAssertEqual(added, 0, spec.name)
            }
        }
    }
}
