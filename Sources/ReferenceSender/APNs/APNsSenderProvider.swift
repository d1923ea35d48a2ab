/// The reference sender's APNs half: configuration from `initialize.params.providers.apns`
/// (or the `APNS_*` environment), then ``APNsSender``.
final class APNsSenderProvider: SenderProvider {
    static let id = "apns"
    let sender: APNsSender
    let broadcaster: APNsBroadcaster
    private let mutant: MutantSet

    init(sender: APNsSender, mutant: MutantSet, manage: [TargetDevice.Environment: HTTPSEndpoint] = [:]) {
        self.sender = sender; self.mutant = mutant
        broadcaster = APNsBroadcaster(sender: sender, manage: manage)
    }

    /// `--scripted-apns`: an in-memory APNs with scripted answers and virtual time (ScriptedAPNs.swift).
    static func scriptedMode() -> (any ScriptedMode)? { ScriptedAPNs() }

    static func configure(_ params: JSONObject?, context: SenderContext) throws(DriverError) -> APNsSenderProvider? {
        guard let config = try APNsConfiguration(ProviderParameters(provider: id, params: params, environment: context.environment)) else {
            return nil
        }
        let sender = try makeSender(config, context: context)
        let auth = config.certFile.map { "certificate \($0)" } ?? "team \(config.teamId ?? "-") key \(config.keyId ?? "-")"
        Log.info("initialize: apns \(config.url) sandbox \(config.sandboxUrl) \(auth)" + context.logSuffix)
        var manage: [TargetDevice.Environment: HTTPSEndpoint] = [:]
        manage[.production] = config.manageUrl.flatMap(HTTPSEndpoint.init(url:))
        manage[.sandbox] = (config.manageSandboxUrl ?? config.manageUrl).flatMap(HTTPSEndpoint.init(url:))
        return APNsSenderProvider(sender: sender, mutant: context.mutant, manage: manage)
    }

    static func makeSender(_ config: APNsConfiguration, context: SenderContext) throws(DriverError) -> APNsSender {
        guard let production = HTTPSEndpoint(url: config.url) else { throw .invalidParams("apns.url \(config.url) is not an https URL") }
        guard let sandbox = HTTPSEndpoint(url: config.sandboxUrl) else {
            throw .invalidParams("apns.sandboxUrl \(config.sandboxUrl) is not an https URL")
        }
        var certificatePEM: String?
        if let certFile = config.certFile {
            do {
                certificatePEM = try String(contentsOfFile: certFile, encoding: .utf8)
            } catch {
                throw .invalidParams("apns.certFile \(certFile) cannot be read: \(error.localizedDescription)")
            }
        }
        let signer: any ProviderTokenSigner
        if let keyFile = config.keyFile {
            let pem: String
            do {
                pem = try String(contentsOfFile: keyFile, encoding: .utf8)
            } catch {
                throw .invalidParams("apns.keyFile \(keyFile) cannot be read: \(error.localizedDescription)")
            }
            do {
                signer = try ES256ProviderTokenSigner(pem: pem)
            } catch {
                throw .invalidParams("apns.keyFile \(keyFile) is not a P-256 private key: \(error)")
            }
        } else {
            signer = NoProviderKey()
        }
        var settings = APNsSettings(production: production, sandbox: sandbox, keyId: config.keyId ?? "", teamId: config.teamId ?? "",
                                    topic: config.topic)
        settings.usesCertificate = certificatePEM != nil
        let connector: any PushConnector = context.scripted?.connector
            ?? HTTP2PushConnector(caFile: config.caFile, clientCertificatePEM: certificatePEM)
        return APNsSender(settings: settings, signer: signer, connector: connector, clock: context.clock, mutant: context.mutant,
                          variant: context.variant, random: context.jitterSource())
    }

    func send(_ notification: NeutralNotification, to devices: [DriverDevice], targets: [SendTarget]) async -> [DeviceResult] {
        await sender.send(notification, to: devices.map(\.device))
    }

    func broadcast(_ params: JSON) async throws(DriverError) -> DeviceResult? {
        await broadcaster.broadcast(try BroadcastRequest(params))
    }

    func shutdown() async { await sender.shutdown() }
}

/// Certificate mode has no signing key: nothing may ask it for a JWT.
struct NoProviderKey: ProviderTokenSigner {
    struct Missing: Error {}
    func sign(keyId: String, teamId: String, issuedAt: Int64) throws -> String { throw Missing() }
}

/// The `providers.apns` member of `initialize`, each field falling back to its environment
/// variable (`APNS_URL`, `APNS_SANDBOX_URL`, `APNS_KEY_FILE`, `APNS_KEY_ID`, `APNS_TEAM_ID`,
/// `APNS_TOPIC`; the CA from `caFile`, `PUSHDOUBLE_CA_FILE` or `SSL_CERT_FILE`).
struct APNsConfiguration: Sendable, Equatable {
    var url: String
    var sandboxUrl: String
    var caFile: String?
    /// PEM with the provider certificate and its key (`certFile` in params only: an
    /// environment that names both a key and a certificate keeps token auth).
    var certFile: String?
    var keyFile: String?
    var keyId: String?
    var teamId: String?
    var topic: String?
    /// The channel management hosts (`manageUrl`, `manageSandboxUrl`; `APNS_MANAGE_URL`,
    /// `APNS_MANAGE_SANDBOX_URL`), for broadcasts.
    var manageUrl: String?
    var manageSandboxUrl: String?

    /// Nil when neither the params nor the environment configure APNs at all.
    init?(_ p: ProviderParameters) throws(DriverError) {
        guard let url = try p.string("url", "APNS_URL") else {
            if p.given { throw .invalidParams("providers.apns.url (or APNS_URL) is required") }
            return nil
        }
        self.url = url
        sandboxUrl = try p.string("sandboxUrl", "APNS_SANDBOX_URL") ?? url
        caFile = try p.caFile()
        certFile = try p.string("certFile")
        if certFile == nil {
            keyFile = try p.required("keyFile", "APNS_KEY_FILE")
            keyId = try p.required("keyId", "APNS_KEY_ID")
            teamId = try p.required("teamId", "APNS_TEAM_ID")
        } else {
            keyFile = nil; keyId = nil; teamId = nil
        }
        topic = try p.string("topic", "APNS_TOPIC")
        manageUrl = try p.string("manageUrl", "APNS_MANAGE_URL")
        manageSandboxUrl = try p.string("manageSandboxUrl", "APNS_MANAGE_SANDBOX_URL")
    }
}
