import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends notifications with FCM HTTP v1 over URLSession:
/// `POST /v1/projects/<project>/messages:send` with an OAuth 2.0 access token the app
/// supplies (`accessToken`, e.g. from the service account's `token_uri`).
public struct FCMSender: Sendable {
    public let baseURL: URL
    public let projectID: String
    public let session: URLSession
    public let accessToken: @Sendable () async throws -> String

    public init(baseURL: URL, projectID: String, session: URLSession = .shared, accessToken: @escaping @Sendable () async throws -> String) {
        self.baseURL = baseURL; self.projectID = projectID; self.session = session; self.accessToken = accessToken
    }

    /// What FCM answered.
    public enum Outcome: Sendable, Equatable {
        /// The message name (`projects/<project>/messages/<id>`).
        case sent(name: String)
        /// A refusal: its status and the `errorCode` of its `FcmError` detail (`UNREGISTERED`, …),
        /// or the error's `status` when there is none.
        case failed(status: Int, code: String)
    }

    public func send(to token: String, title: String, body: String, data: [String: String] = [:]) async throws -> Outcome {
        var request = URLRequest(url: baseURL.appendingPathComponent("v1/projects/\(projectID)/messages:send"))
        request.httpMethod = "POST"
        request.setValue("Bearer " + (try await accessToken()), forHTTPHeaderField: "authorization")
        request.setValue("application/json", forHTTPHeaderField: "content-type")
        var message: [String: Any] = ["token": token, "notification": ["title": title, "body": body]]
        if !data.isEmpty { message["data"] = data }
        request.httpBody = try JSONSerialization.data(withJSONObject: ["message": message])
        let (responseBody, response) = try await session.data(for: request)
        let http = response as! HTTPURLResponse
        let json = (try? JSONSerialization.jsonObject(with: responseBody)) as? [String: Any]
        if http.statusCode == 200 { return .sent(name: json?["name"] as? String ?? "") }
        let error = json?["error"] as? [String: Any]
        let details = error?["details"] as? [[String: Any]] ?? []
        let code = details.compactMap { $0["errorCode"] as? String }.first ?? error?["status"] as? String ?? ""
        return .failed(status: http.statusCode, code: code)
    }
}
