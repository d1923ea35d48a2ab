import PushDoubleCore
import PushDoubleCrypto
import PushDoubleTransport

/// The FCM fake's admin API routes (docs/fcm.md "Devices, magic tokens, options, admin routes"):
///
/// - `GET /fcm/accounts` → `{"accounts":[{"clientEmail","projects":[…]}]}`
/// - `POST /fcm/accounts` with a service-account key file (docs/fcm.md §6.1) → 201 and the account;
///   its assertions are accepted from then on (a test can add accounts and projects while the fake runs).
/// - `POST /fcm/tokens/revoke` with `{"token":"ya29.…"}`, `{"clientEmail":"…"}` or `{}` (every
///   token) → `{"revoked":n}`; a revoked token is answered 401 UNAUTHENTICATED (docs/fcm.md §4.3).
enum FCMAdminRoutes {
    static func routes(_ fake: FCMFake) -> [AdminRoute] {
        [AdminRoute("GET", "/fcm/accounts") { _, _ in listAccounts(fake) },
         AdminRoute("POST", "/fcm/accounts") { request, _ in addAccount(fake, request) },
         AdminRoute("POST", "/fcm/tokens/revoke") { request, _ in revoke(fake, request) }]
    }

    static func accountJSON(_ a: GoogleKnownAccount) -> JSONValue {
        .object([("clientEmail", .string(a.clientEmail)), ("projects", .array(a.projects.sorted().map { .string($0) }))])
    }

    static func listAccounts(_ fake: FCMFake) -> HTTPResponse {
        AdminRoute.json(200, .object([("accounts", .array(fake.accounts.accounts.map(accountJSON)))]))
    }

    static func addAccount(_ fake: FCMFake, _ request: HTTPRequest) -> HTTPResponse {
        let sa: GoogleServiceAccount
        do { sa = try GoogleServiceAccount(json: request.body) } catch {
            return AdminRoute.error(400, "expected a service-account key file: \(error)")
        }
        let account: GoogleKnownAccount
        do { account = try GoogleKnownAccount(serviceAccount: sa) } catch {
            return AdminRoute.error(400, "private_key: \(error)")
        }
        fake.accounts.add(account)
        return AdminRoute.json(201, accountJSON(account))
    }

    static func revoke(_ fake: FCMFake, _ request: HTTPRequest) -> HTTPResponse {
        let body: JSONValue
        if request.body.isEmpty { body = .object([]) } else {
            guard let v = try? JSONValue.parse(request.body), v.objectValue != nil else {
                return AdminRoute.error(400, "expected a JSON object: {\"token\":…}, {\"clientEmail\":…} or {}")
            }
            body = v
        }
        let store = fake.accounts.store
        let n: Int
        if let token = body["token"]?.stringValue {
            n = store.revoke(token) ? 1 : 0
        } else if let email = body["clientEmail"]?.stringValue {
            n = store.revokeAll(clientEmail: email)
        } else if body.objectValue?.isEmpty == true {
            n = store.revokeAll()
        } else {
            return AdminRoute.error(400, "expected {\"token\":…}, {\"clientEmail\":…} or {}")
        }
        return AdminRoute.json(200, .object([("revoked", .int(Int64(n)))]))
    }
}
