import Foundation
import PushDoubleCore
import PushDoubleTransport

/// The Expo provider module (``ProviderModule``): listener `expo` (8725), TLS with ALPN `h2`
/// and `http/1.1` (the Node SDK speaks HTTP/1.1 through undici, the Python SDK through
/// requests), host `exp.host` by the test certificate; two routes, `POST /--/api/v2/push/send`
/// and `POST /--/api/v2/push/getReceipts` (docs/expo.md §1), and the admin route
/// `POST /expo/receipts/release`.
///
/// Options (`fakeOptions.expo`): `requireAccessToken` (default true), `accessToken`,
/// `receiptDelaySeconds` (default 0), `holdReceipts` (default false), `receiptRetentionSeconds`
/// (default 86400), `rateLimitPerSecond` (default 600, 0 = off), `defaultProject`,
/// `messageTooBig` ("receipt" | "ticket"), `singleTicket` ("object" | "array"), `errorStatuses` ({code: status}). Sender material (docs/conformance.md "Driver protocol v1"): `EXPO_URL`,
/// `EXPO_BASE_URL`, `EXPO_ACCESS_TOKEN`; driver params `providers.expo {url, accessToken, caFile}`.
public struct ExpoModule: ProviderModule {
    public init() {}

    public var provider: ProviderID { .expo }
    public var title: String { "Expo push service (send + getReceipts)" }

    /// The documented default port (README port table).
    public static let port = 8725
    /// The listener's name.
    public static let listenerName = "expo"
    /// The real service this listener stands in for (docs/expo.md §1: `https://exp.host`).
    public static let realHosts = ["exp.host:443"]

    public var listenerDefaults: [ListenerDefault] {
        [ListenerDefault(name: Self.listenerName, defaultPort: Self.port,
                         summary: "Expo push service (exp.host): TLS, ALPN h2 and http/1.1", realHosts: Self.realHosts)]
    }

    /// The send, getReceipts, and the fallback answering every other path; a rule hits
    /// receipts or the fallback only when it names them.
    public var endpoints: [ProviderEndpoint] {
        let requestErrors = ExpoErrorCode.allCases.map(\.rawValue)
        return [ProviderEndpoint(ExpoSendFake.endpoint, kind: .send, summary: "POST /--/api/v2/push/send",
                                 reasons: requestErrors + ExpoPushErrorKind.allCases.map(\.rawValue)),
                ProviderEndpoint(ExpoReceiptsFake.endpoint, kind: .receipts, summary: "POST /--/api/v2/push/getReceipts",
                                 reasons: requestErrors),
                ProviderEndpoint(ExpoFallbackFake.endpoint, kind: .other, summary: "any other path (answered 404)",
                                 reasons: requestErrors)]
    }

    public var optionKeys: [String] {
        ["requireAccessToken", "accessToken", "receiptDelaySeconds", "holdReceipts", "receiptRetentionSeconds",
         "rateLimitPerSecond", "defaultProject", "messageTooBig", "singleTicket", "errorStatuses"]
    }

    /// Expo devices may carry `receipt` (the receipt of their ok tickets, ``ExpoDeviceOutcome``);
    /// `topic` is the project (`@owner/slug`), `environment` means nothing to Expo.
    public func validateDevice(_ device: inout Device) throws {
        try DeviceSchemaError.refuseAttributes(of: device, allowed: [ExpoDeviceOutcome.receiptAttribute])
        if let value = device.attributes[ExpoDeviceOutcome.receiptAttribute] {
            guard let s = value.stringValue, ExpoDeviceOutcome.receiptValues.contains(s) else {
                throw DeviceSchemaError(deviceID: device.id, field: ExpoDeviceOutcome.receiptAttribute,
                                        message: "must be one of " + ExpoDeviceOutcome.receiptValues.joined(separator: ", "))
            }
        }
        guard ExpoPushTokenForm.of(device.token) != nil else {
            throw DeviceSchemaError(deviceID: device.id, field: "token",
                                    message: "must be an Expo push token (ExponentPushToken[…], ExpoPushToken[…] or a bare UUID)")
        }
        if device.environment != nil {
            throw DeviceSchemaError(deviceID: device.id, field: "environment", message: "Expo devices have no environment")
        }
    }

    public func instantiate(options: JSONValue?, context: ProviderBuildContext) throws -> any ProviderInstance {
        ExpoInstance(service: ExpoService(configuration: try configuration(options: options, context: context), clock: context.clock))
    }

    /// The fake's settings for `options` (defaults: docs/expo.md's figures, the shipped access token).
    public func configuration(options: JSONValue?, context: ProviderBuildContext) throws -> ExpoFakeConfiguration {
        var c = ExpoFakeConfiguration()
        var delay: Double = 0
        var hold = false
        for (key, value) in try optionMembers(options, context: context) {
            func fail(_ message: String) -> ScenarioError {
                ScenarioError(file: context.file, path: context.optionsPath + "." + key, message: message)
            }
            func bool() throws -> Bool {
                guard case .bool(let b) = value else { throw fail("expected true or false") }
                return b
            }
            func seconds() throws -> Double {
                guard let d = value.doubleValue, d >= 0, d <= 365 * 86_400 else { throw fail("expected a number of seconds from 0 to 31536000") }
                return d
            }
            func text() throws -> String {
                guard let s = value.stringValue, !s.isEmpty, s.utf8.count <= 4096 else { throw fail("expected a non-empty string") }
                return s
            }
            switch key {
            case "requireAccessToken": c.requireAccessToken = try bool()
            case "accessToken": c.accessToken = try text()
            case "receiptDelaySeconds": delay = try seconds()
            case "holdReceipts": hold = try bool()
            case "receiptRetentionSeconds":
                c.receiptRetention = try seconds()
                if c.receiptRetention <= 0 { throw fail("expected a positive number of seconds") }
            case "rateLimitPerSecond":
                guard let n = value.intValue, n >= 0, n <= 1_000_000 else { throw fail("expected an integer from 0 to 1000000") }
                c.rateLimitPerSecond = Int(n)
            case "defaultProject": c.defaultProject = try text()
            case "errorStatuses":
                // docs/expo.md §7: every request-level status but 429 is UNCONFIRMED, so each can be changed.
                guard let members = value.objectValue else { throw fail("expected an object such as {\"UNAUTHORIZED\": 403}") }
                for (code, status) in members {
                    guard let errorCode = ExpoErrorCode(rawValue: code) else {
                        throw ScenarioError(file: context.file, path: context.optionsPath + ".errorStatuses." + code,
                                            message: "unknown code; expected one of " + ExpoErrorCode.allCases.map(\.rawValue).joined(separator: ", "))
                    }
                    guard let n = status.intValue, (400...599).contains(n) else {
                        throw ScenarioError(file: context.file, path: context.optionsPath + ".errorStatuses." + code, message: "expected an HTTP status from 400 to 599")
                    }
                    c.decoder.statuses.overrides[errorCode] = Int(n)
                }
            case "messageTooBig":
                guard let s = value.stringValue, let m = ExpoMessageTooBigReport(rawValue: s) else { throw fail("expected \"receipt\" or \"ticket\"") }
                c.decoder.messageTooBig = m
            case "singleTicket":
                guard let s = value.stringValue, let shape = ExpoSingleTicketShape(rawValue: s) else { throw fail("expected \"object\" or \"array\"") }
                c.singleTicket = shape
            default: break
            }
        }
        c.receiptAvailability = hold ? .heldUntilReleased : .afterDelay(seconds: delay)
        return c
    }
}

/// The Expo fake built for one double: its listener, its admin route and what a sender is told.
public struct ExpoInstance: ProviderInstance {
    public let service: ExpoService
    public init(service: ExpoService) { self.service = service }

    public var listeners: [FakeListenerSpec] { [service.listenerSpec()] }

    /// `POST /expo/receipts/release`: makes held or delayed receipts visible now. Body
    /// optional: `{"ids":[…]}` releases those, anything else (or none) every waiting receipt.
    /// Answers `{"released":n}`.
    public var adminRoutes: [AdminRoute] {
        let store = service.receipts
        let clock = service.clock
        return [AdminRoute("POST", "/expo/receipts/release") { request, _ in
            let now = clock.now().timeIntervalSince1970
            var body: JSONValue? = nil
            if !request.body.isEmpty {
                guard let parsed = try? JSONValue.parse(request.body) else { return AdminRoute.error(400, "expected a JSON object such as {\"ids\":[\"…\"]} or no body") }
                body = parsed
            }
            if let ids = body?["ids"] {
                guard let items = ids.arrayValue, items.allSatisfy({ $0.stringValue != nil }) else {
                    return AdminRoute.error(400, "ids: expected an array of ticket ids")
                }
                let n = items.compactMap(\.stringValue).reduce(0) { $0 + (store.release($1, now: now) ? 1 : 0) }
                return AdminRoute.json(200, ["released": .int(Int64(n))])
            }
            return AdminRoute.json(200, ["released": .int(Int64(store.releaseAll(now: now)))])
        }]
    }

    /// `EXPO_URL` and `EXPO_BASE_URL` (the base URL the Node SDK reads, docs/expo.md §6.1) and
    /// `EXPO_ACCESS_TOKEN` (only when enhanced push security is on).
    public func senderMaterial(_ context: SenderMaterialContext) throws -> SenderMaterial? {
        guard let url = context.url(ExpoModule.listenerName) else { return nil }
        var environment: [(String, String)] = [("EXPO_URL", url), ("EXPO_BASE_URL", url)]
        var parameters: [(String, JSONValue)] = [("url", .string(url))]
        if service.configuration.requireAccessToken {
            environment.append(("EXPO_ACCESS_TOKEN", service.configuration.accessToken))
            parameters.append(("accessToken", .string(service.configuration.accessToken)))
        }
        if let ca = context.caFile { parameters.append(("caFile", .string(ca))) }
        return SenderMaterial(environment: environment, driverParameters: .object(parameters))
    }
}

extension ExpoService {
    /// The `expo` listener: TLS, ALPN `h2` then `http/1.1`, both protocols, the two routes,
    /// and the fallback fake for everything else (unknown paths, transport limit refusals).
    public func listenerSpec(port: Int = ExpoModule.port) -> FakeListenerSpec {
        var spec = FakeListenerSpec(name: ExpoModule.listenerName, defaultPort: port, fake: fallbackFake,
                                    alpn: ["h2", "http/1.1"], allowHTTP1: true, allowHTTP2: true, useTLS: true)
        spec.routes = [FakeRoute("POST", ExpoService.sendPath, fake: sendFake),
                       FakeRoute("POST", ExpoService.receiptsPath, fake: receiptsFake)]
        return spec
    }
}
