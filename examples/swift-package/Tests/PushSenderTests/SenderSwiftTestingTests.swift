import Foundation
import Testing
import PushDoubleTesting
import PushSender

/// The same sender under Swift Testing: a scoped double per test.
@Suite struct SenderSwiftTestingTests {
    @Test func apnsAlertReachesAFreshDouble() async throws {
        try await withPushDouble(.ephemeral(tls: false)) { double in
            let sender = APNsSender(baseURL: URL(string: double.endpoint(named: "apns-production")!.url)!,
                                    topic: APNsTestCredentials.topic, providerToken: TestCredentials.apnsProviderToken)
            let outcome = try await sender.sendAlert(to: String(repeating: "12", count: 32), title: "Swift Testing", body: "ok")
            guard case .delivered = outcome else { Issue.record("not delivered: \(outcome)"); return }
            #expect(double.history.apnsPushes.map { $0.alert?.title } == ["Swift Testing"])
            #expect(double.history.apnsPushes.first?.exchange.environment == "production")
        }
    }
}
