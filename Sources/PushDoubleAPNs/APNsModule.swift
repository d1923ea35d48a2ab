import Foundation
import PushDoubleCore
import PushDoubleCrypto

extension ProviderID {
    /// Apple Push Notification service.
    public static let apns: ProviderID = "apns"
}

/// The APNs provider module: what the double needs to serve APNs (``ProviderModule``).
///
/// Listeners `apns-production` (8721) and `apns-sandbox` (8722), TLS with ALPN `h2` only and
/// Apple's SETTINGS (``APNsListeners``); options (`fakeOptions.apns` of a scenario, or
/// `serve --option apns.KEY=VALUE`): `maxConcurrentStreamsAfterAuth`, `initialMaxConcurrentStreams`,
/// `tokenMinRefreshSeconds`, `tooManyRequestsPerDevice`, `requireExactClaims`, `channels` (broadcast
/// channels the double starts with, ``APNsChannelSeed``). Senders get the
/// shipped `.p8` key and its ids (docs/conformance.md "Driver protocol v1": `APNS_URL`, `APNS_SANDBOX_URL`, `APNS_KEY_FILE`,
/// `APNS_KEY_ID`, `APNS_TEAM_ID`, `APNS_TOPIC`), and the provider certificates (`APNS_CERT_*`;
/// `providers.apns.certFile` when the option `senderCertificate` names one).
public struct APNsModule: ProviderModule {
    public init() {}

    public var provider: ProviderID { .apns }
    public var title: String { "Apple APNs" }

    /// The documented default ports (README port table).
    public static let productionPort = 8721
    public static let sandboxPort = 8722
    /// Channel management (broadcast push): `apns-manage-production` and `apns-manage-sandbox`.
    public static let managementProductionPort = 8728
    public static let managementSandboxPort = 8730

    public var listenerDefaults: [ListenerDefault] {
        [ListenerDefault(name: APNsEnvironment.production.listenerName, defaultPort: Self.productionPort,
                         summary: "APNs production (api.push.apple.com): TLS, ALPN h2 only",
                         realHosts: APNsEnvironment.production.realHosts),
         ListenerDefault(name: APNsEnvironment.sandbox.listenerName, defaultPort: Self.sandboxPort,
                         summary: "APNs sandbox (api.sandbox.push.apple.com): TLS, ALPN h2 only",
                         realHosts: APNsEnvironment.sandbox.realHosts),
         ListenerDefault(name: APNsEnvironment.production.managementListenerName, defaultPort: Self.managementProductionPort,
                         summary: "APNs channel management, production (api-manage-broadcast.push.apple.com:2196): TLS, ALPN h2 only",
                         realHosts: APNsEnvironment.production.managementRealHosts),
         ListenerDefault(name: APNsEnvironment.sandbox.managementListenerName, defaultPort: Self.managementSandboxPort,
                         summary: "APNs channel management, sandbox (api-manage-broadcast.sandbox.push.apple.com:2195): TLS, ALPN h2 only",
                         realHosts: APNsEnvironment.sandbox.managementRealHosts)]
    }

    /// The push (`POST /3/device/<token>`) and the broadcast (`POST /4/broadcasts/apps/<bundleId>`)
    /// on both push listeners, and channel management
    /// (create, read, delete, list) on both management listeners.
    public var endpoints: [ProviderEndpoint] {
        let management: [(String, String)] = [
            ("create", "POST /1/apps/{bundleId}/channels"), ("read", "GET /1/apps/{bundleId}/channels (apns-channel-id)"),
            ("delete", "DELETE /1/apps/{bundleId}/channels (apns-channel-id)"), ("list", "GET /1/apps/{bundleId}/all-channels"),
        ]
        return [ProviderEndpoint(APNsFake.endpoint, kind: .send, summary: "POST /3/device/{token} (production and sandbox)",
                                 reasons: APNsFake.faultReasons),
                ProviderEndpoint(APNsFake.broadcastEndpoint, kind: .send,
                                 summary: "POST /4/broadcasts/apps/{bundleId} with apns-channel-id (production and sandbox)",
                                 reasons: APNsFake.faultReasons)]
            + management.map { op, summary in
                ProviderEndpoint("apns.channels." + op, kind: .subscriptions,
                                 summary: summary + " on api-manage-broadcast (production and sandbox)", reasons: APNsFake.faultReasons)
            }
    }

    public var optionKeys: [String] {
        ["maxConcurrentStreamsAfterAuth", "initialMaxConcurrentStreams", "tokenMinRefreshSeconds", "tooManyRequestsPerDevice",
         "requireExactClaims", "senderCertificate", "channels"]
    }

    /// APNs devices have no attributes; `environment`, when given, names one of Apple's two.
    public func validateDevice(_ device: inout Device) throws {
        try DeviceSchemaError.refuseAttributes(of: device, allowed: [])
        if let e = device.environment, APNsEnvironment(rawValue: e) == nil {
            throw DeviceSchemaError(deviceID: device.id, field: "environment",
                                    message: "must be \"production\" or \"sandbox\", got \"\(e)\"")
        }
    }

    public func instantiate(options: JSONValue?, context: ProviderBuildContext) throws -> any ProviderInstance {
        let configuration = try self.configuration(options: options, context: context)
        let fake = APNsFake(configuration: configuration, clock: context.clock)
        let clock = context.clock
        /// Creates the configured channels; the first one over the limit, if any.
        @Sendable func seedChannels() -> APNsChannelSeed? {
            for seed in configuration.channels {
                guard case .created = seed.create(in: fake.channels, now: clock.now()) else { return seed }
            }
            return nil
        }
        if let seed = seedChannels() {
            throw ScenarioError(file: context.file, path: context.optionsPath + ".channels",
                                message: "more than \(fake.channels.limit) channels for \(seed.bundleID) in \(seed.environment.rawValue)")
        }
        // A reset forgets every channel, its subscriptions and stored message, and the
        // configured channels start again (as the double started).
        context.double?.onReset(of: provider) { fake.channels.removeAll(); _ = seedChannels() }
        return APNsInstance(fake: fake, devices: context.double?.devices)
    }

    /// The fake's settings for `options` (defaults: Apple's figures, the shipped key and topic).
    public func configuration(options: JSONValue?, context: ProviderBuildContext) throws -> APNsConfiguration {
        var c = APNsConfiguration.shipped
        for (key, value) in try optionMembers(options, context: context) {
            func count() throws -> Int64 {
                guard let n = value.intValue, n >= 0, n <= 1_000_000 else {
                    throw ScenarioError(file: context.file, path: context.optionsPath + "." + key, message: "expected a non-negative integer")
                }
                return n
            }
            switch key {
            case "maxConcurrentStreamsAfterAuth": c.maxConcurrentStreamsAfterAuth = UInt32(max(1, try count()))
            case "initialMaxConcurrentStreams": c.initialMaxConcurrentStreams = UInt32(max(1, try count()))
            case "tokenMinRefreshSeconds": c.tokenTiming.minRefreshInterval = Double(try count())
            case "tooManyRequestsPerDevice": c.tooManyRequestsPerDevice = Int(try count())
            case "requireExactClaims":
                guard case .bool(let b) = value else {
                    throw ScenarioError(file: context.file, path: context.optionsPath + "." + key, message: "expected true or false")
                }
                c.requireExactClaims = b
            case "channels":
                guard let list = value.arrayValue else {
                    throw ScenarioError(file: context.file, path: context.optionsPath + "." + key, message: "expected an array of channels")
                }
                c.channels = try list.enumerated().map { i, v in
                    do { return try APNsChannelSeed(v) } catch {
                        throw ScenarioError(file: context.file, path: context.optionsPath + ".\(key)[\(i)]", message: "\(error)")
                    }
                }
            case "senderCertificate":
                guard let kind = value.stringValue.flatMap(APNsTestCredentials.ProviderCertificate.init(rawValue:)) else {
                    throw ScenarioError(file: context.file, path: context.optionsPath + "." + key,
                                        message: "expected one of " + APNsTestCredentials.ProviderCertificate.allCases.map(\.rawValue).joined(separator: ", "))
                }
                c.senderCertificate = kind
            default: break
            }
        }
        return c
    }
}

/// The APNs fake built for one double: its two listeners and what a sender is told.
public struct APNsInstance: ProviderInstance {
    public let fake: APNsFake
    /// The double's devices, for the Live Activity subscriptions of `/apns/devices/{id}/channels`.
    let devices: DeviceRegistry?
    public init(fake: APNsFake, devices: DeviceRegistry? = nil) { self.fake = fake; self.devices = devices }

    /// `/apns/channels`: the broadcast channels and what each received;
    /// `/apns/devices/{id}/channels`: the channels a device's Live Activity subscribed to and
    /// the updates it received.
    public var adminRoutes: [AdminRoute] {
        APNsChannelAdmin.routes(fake) + APNsLiveActivityAdmin(fake: fake, devices: devices).routes
    }

    public var listeners: [FakeListenerSpec] {
        fake.listenerSpecs(productionPort: APNsModule.productionPort, sandboxPort: APNsModule.sandboxPort)
            + fake.managementListenerSpecs()
    }

    /// The shipped signing key as `AuthKey_<kid>.p8`, its ids and both URLs.
    public func senderMaterial(_ context: SenderMaterialContext) throws -> SenderMaterial? {
        let production = context.url(APNsEnvironment.production.listenerName)
        let sandbox = context.url(APNsEnvironment.sandbox.listenerName)
        guard let url = production ?? sandbox else { return nil }
        let keyID = APNsTestCredentials.keyID
        let keyFile = try context.writeFile("AuthKey_\(keyID).p8", contents: APNsTestCredentials.keyPEM)
        var environment: [(String, String)] = [("APNS_URL", url)]
        if let s = sandbox { environment.append(("APNS_SANDBOX_URL", s)) }
        // Broadcast channel management (docs/apns.md "Broadcast channels").
        if let m = context.url(APNsEnvironment.production.managementListenerName) { environment.append(("APNS_MANAGE_URL", m)) }
        if let m = context.url(APNsEnvironment.sandbox.managementListenerName) { environment.append(("APNS_MANAGE_SANDBOX_URL", m)) }
        environment += [("APNS_KEY_FILE", keyFile), ("APNS_KEY_ID", keyID),
                        ("APNS_TEAM_ID", APNsTestCredentials.teamID), ("APNS_TOPIC", APNsTestCredentials.topic)]
        environment += try certificateLines(context)
        var parameters: [(String, JSONValue)] = [("url", .string(url))]
        if let s = sandbox { parameters.append(("sandboxUrl", .string(s))) }
        if let m = context.url(APNsEnvironment.production.managementListenerName) { parameters.append(("manageUrl", .string(m))) }
        if let m = context.url(APNsEnvironment.sandbox.managementListenerName) { parameters.append(("manageSandboxUrl", .string(m))) }
        if let ca = context.caFile { parameters.append(("caFile", .string(ca))) }
        parameters += [("keyFile", .string(keyFile)), ("keyId", .string(keyID)),
                       ("teamId", .string(APNsTestCredentials.teamID)), ("topic", .string(APNsTestCredentials.topic))]
        if let kind = fake.configuration.senderCertificate {
            // A certificate-based sender authenticates with this instead of the key.
            parameters.append((SenderCredential.certificateParameter, .string(try context.writeFile(kind.pemFileName, contents: kind.pem))))
        }
        return SenderMaterial(environment: environment, driverParameters: .object(parameters))
    }

    /// The test provider certificates for certificate-based senders: the universal one as
    /// PEM (certificate + key) and PKCS#12 with its password, and the single-environment ones.
    private func certificateLines(_ context: SenderMaterialContext) throws -> [(String, String)] {
        typealias C = APNsTestCredentials.ProviderCertificate
        func pem(_ c: C) throws -> String { try context.writeFile(c.pemFileName, contents: c.pem) }
        let p12 = Data(base64Encoded: EmbeddedTestCredentials.contents(of: C.universal.pkcs12FileName)) ?? Data()
        return [("APNS_CERT_FILE", try pem(.universal)),
                ("APNS_CERT_P12_FILE", try context.writeFile(C.universal.pkcs12FileName, data: p12)),
                ("APNS_CERT_PASSWORD", APNsTestCredentials.certificatePassword),
                ("APNS_CERT_SANDBOX_FILE", try pem(.sandbox)), ("APNS_CERT_PRODUCTION_FILE", try pem(.production))]
    }
}
