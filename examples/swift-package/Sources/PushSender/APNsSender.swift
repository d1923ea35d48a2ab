import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends alerts to APNs over URLSession: `POST /3/device/<token>` with a provider token.
/// The app supplies the base URL (`https://api.push.apple.com` in production) and signs the
/// provider token itself (`providerToken`).
public struct APNsSender: Sendable {
    public let baseURL: URL
    public let topic: String
    public let session: URLSession
    public let providerToken: @Sendable () throws -> String

    public init(baseURL: URL, topic: String, session: URLSession = .shared, providerToken: @escaping @Sendable () throws -> String) {
        self.baseURL = baseURL; self.topic = topic; self.session = session; self.providerToken = providerToken
    }

    /// What APNs answered.
    public enum Outcome: Sendable, Equatable {
        case delivered(apnsID: String)
        /// A refusal: its status and `reason` (`BadDeviceToken`, `Unregistered`, …).
        case rejected(status: Int, reason: String)
    }

    public func sendAlert(to deviceToken: String, title: String, body: String, badge: Int? = nil) async throws -> Outcome {
        var request = URLRequest(url: baseURL.appendingPathComponent("3/device/\(deviceToken)"))
        request.httpMethod = "POST"
        request.setValue("bearer " + (try providerToken()), forHTTPHeaderField: "authorization")
        request.setValue(topic, forHTTPHeaderField: "apns-topic")
        request.setValue("alert", forHTTPHeaderField: "apns-push-type")
        var aps: [String: Any] = ["alert": ["title": title, "body": body]]
        if let badge { aps["badge"] = badge }
        request.httpBody = try JSONSerialization.data(withJSONObject: ["aps": aps])
        let (data, response) = try await session.data(for: request)
        let http = response as! HTTPURLResponse
        if http.statusCode == 200 { return .delivered(apnsID: http.value(forHTTPHeaderField: "apns-id") ?? "") }
        let reason = (try? JSONSerialization.jsonObject(with: data) as? [String: Any])?["reason"] as? String
        return .rejected(status: http.statusCode, reason: reason ?? "")
    }
}
