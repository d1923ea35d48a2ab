import Foundation

/// The server side of driver protocol v1 (DESIGN.md §4): JSON-RPC 2.0, one request per
/// stdin line, one reply per stdout line, handled in order. Logs go to stderr.
///
/// Threading: `run()` handles one request at a time; a `send` fans out to concurrent
/// tasks inside ``APNsSender``.
final class DriverServer {
    static let name = "pushdouble-reference-sender"
    static let version = "1.0.0"

    let mutant: Mutant?
    let variant: Variant?
    /// Seed for backoff jitter (nil: the system generator).
    let seed: UInt64?
    let environment: [String: String]
    /// Scripted test mode: an in-memory APNs and virtual time (see ScriptedTransport.swift).
    let scripted: ScriptedAPNs?
    private var sender: APNsSender?
    private var fcmSender: FCMSender?
    private var expoSender: ExpoSender?
    /// The Web Push sender, when `providers.webpush` (or VAPID_PRIVATE_KEY_FILE) configured one.
    private var webPush: WebPushSender?
    private var initialized = false

    init(mutant: Mutant?, variant: Variant? = nil, seed: UInt64? = nil, environment: [String: String], scripted: ScriptedAPNs?) {
        self.mutant = mutant
        self.variant = variant
        self.seed = seed
        self.environment = environment
        self.scripted = scripted
    }

    /// Serves until `shutdown` or end of input; returns the exit status.
    func run() async -> Int32 {
        for await event in LineReader.lines() {
            switch event {
            case .tooLong:
                reply(id: .null, error: .invalidRequest("line longer than \(LineReader.maxLineBytes) bytes"))
            case .line(let bytes):
                if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
                if await handle(line: bytes) == .exit {
                    await sender?.shutdown()
                    await fcmSender?.shutdown()
                    expoSender?.shutdown()
                    await webPush?.shutdown()
                    return 0
                }
            }
        }
        await sender?.shutdown()
        await fcmSender?.shutdown()
        expoSender?.shutdown()
        await webPush?.shutdown()
        return 0
    }

    enum Continuation { case keepGoing, exit }

    func handle(line: [UInt8]) async -> Continuation {
        let message: JSON
        do {
            message = try JSON.parse(line)
        } catch {
            reply(id: .null, error: .parse(error.description))
            return .keepGoing
        }
        guard let obj = message.objectValue else {
            reply(id: .null, error: .invalidRequest(message.arrayValue != nil ? "batches are not supported" : "expected an object"))
            return .keepGoing
        }
        // The id, if usable, is echoed even on errors; a missing id makes a notification.
        let id = obj["id"]
        let validId = id.map { v -> Bool in
            switch v { case .string, .int, .double, .null: return true; default: return false }
        } ?? true
        guard validId else {
            reply(id: .null, error: .invalidRequest("id must be a string, a number or null"))
            return .keepGoing
        }
        guard obj["jsonrpc"]?.stringValue == "2.0" else {
            reply(id: id ?? .null, error: .invalidRequest("jsonrpc must be \"2.0\""))
            return .keepGoing
        }
        guard let method = obj["method"]?.stringValue else {
            reply(id: id ?? .null, error: .invalidRequest("method must be a string"))
            return .keepGoing
        }
        let params = obj["params"] ?? .object(JSONObject())
        guard params.objectValue != nil || params.arrayValue != nil else {
            if let id { reply(id: id, error: .invalidRequest("params must be an object or an array")) }
            return .keepGoing
        }
        do {
            let result = try await dispatch(method: method, params: params)
            if let id { reply(id: id, result: result) }
        } catch {
            if let id { reply(id: id, error: error) }
        }
        return method == "shutdown" ? .exit : .keepGoing
    }

    private func dispatch(method: String, params: JSON) async throws(DriverError) -> JSON {
        switch method {
        case "initialize": return try initialize(params)
        case "send": return try await send(params)
        case "settle":
            // APNs answers synchronously: nothing is deferred. Expo tickets wait for receipts.
            let changed = await expoSender?.settle() ?? []
            return .object(["results": .array(changed.map(\.json))])
        case "shutdown": return .object(JSONObject())
        default:
            if method.hasPrefix("test/"), let scripted { return try await scripted.handle(method: method, params: params, server: self) }
            throw .methodNotFound(method)
        }
    }

    // MARK: initialize

    private func initialize(_ params: JSON) throws(DriverError) -> JSON {
        if let v = params["protocolVersion"], !v.isNull, v.intValue != 1 {
            throw .invalidParams("protocolVersion \(v.text) is not supported (this sender speaks 1)")
        }
        let given = params["providers"]?["apns"]?.jsonObject
        let old = sender, oldWebPush = webPush, oldFCM = fcmSender
        sender = nil
        webPush = nil
        fcmSender = nil
        expoSender?.shutdown()
        expoSender = nil
        initialized = true
        if let old { Task { await old.shutdown() } }
        if let oldWebPush { Task { await oldWebPush.shutdown() } }
        if let oldFCM { Task { await oldFCM.shutdown() } }
        var providers: [String] = []
        if let config = try APNsConfiguration(params: given, environment: environment) {
            sender = try makeSender(config)
            providers.append("apns")
            Log.info("initialize: apns \(config.url) sandbox \(config.sandboxUrl) team \(config.teamId) key \(config.keyId)"
                     + (mutant.map { " mutant \($0.rawValue)" } ?? "") + (variant.map { " variant \($0.rawValue)" } ?? "")
                     + (seed.map { " seed \($0)" } ?? ""))
        }
        // FCM is sent over real sockets only (the scripted mode is an in-memory APNs).
        if scripted == nil, let fcm = try FCMDriverConfiguration(params: params["providers"]?["fcm"]?.jsonObject, environment: environment) {
            let settings = try FCMSettings.load(url: fcm.url, serviceAccountFile: fcm.serviceAccountFile, projectId: fcm.projectId,
                                                caFile: fcm.caFile)
            fcmSender = FCMSender(settings: settings, clock: SystemSenderClock(), mutant: mutant, variant: variant, random: JitterSource(seed: seed))
            providers.append("fcm")
            Log.info("initialize: fcm \(fcm.url) project \(settings.projectId) account \(settings.clientEmail)"
                     + (mutant.map { " mutant \($0.rawValue)" } ?? "") + (variant.map { " variant \($0.rawValue)" } ?? ""))
        }
        if let w = try WebPushConfiguration(params: params["providers"]?["webpush"]?.jsonObject, environment: environment) {
            let connector: any APNsConnector = scripted?.connector ?? HTTP2APNsConnector(caFile: w.caFile)
            webPush = WebPushSender(configuration: w, connector: connector, clock: scripted?.clock ?? SystemSenderClock(), mutant: mutant,
                                    random: JitterSource(seed: seed), variant: variant)
            providers.append("webpush")
            Log.info("initialize: webpush, VAPID subject \(w.subject)")
        }
        if let expo = try ExpoConfiguration(params: params["providers"]?["expo"]?.jsonObject, environment: environment) {
            guard let endpoint = APNsEndpoint(url: expo.url) else { throw .invalidParams("expo.url \(expo.url) is not an https URL") }
            let clock: any SenderClock = scripted?.clock ?? SystemSenderClock()
            expoSender = ExpoSender(configuration: expo, endpoint: endpoint, clock: clock, mutant: mutant, variant: variant,
                                    random: JitterSource(seed: seed))
            Log.info("initialize: expo \(expo.url)" + (expo.accessToken == nil ? "" : " with an access token"))
            providers.append("expo")
        }
        if providers.isEmpty { Log.info("initialize: no apns, fcm, expo or webpush configuration (params or environment); no provider enabled") }
        return Self.initializeResult(providers: providers)
    }

    /// `targets` lists the non-device recipients it sends to (FCM topics and conditions, when FCM is configured).
    static func initializeResult(providers: [String]) -> JSON {
        var o: JSONObject = ["name": .string(name), "version": .string(version), "providers": .array(providers.map(JSON.string))]
        if providers.contains("fcm") { o["targets"] = .array(SendTarget.supportedKinds.map(JSON.string)) }
        return .object(o)
    }

    func makeSender(_ config: APNsConfiguration) throws(DriverError) -> APNsSender {
        guard let production = APNsEndpoint(url: config.url) else { throw .invalidParams("apns.url \(config.url) is not an https URL") }
        guard let sandbox = APNsEndpoint(url: config.sandboxUrl) else { throw .invalidParams("apns.sandboxUrl \(config.sandboxUrl) is not an https URL") }
        let pem: String
        do {
            pem = try String(contentsOfFile: config.keyFile, encoding: .utf8)
        } catch {
            throw .invalidParams("apns.keyFile \(config.keyFile) cannot be read: \(error.localizedDescription)")
        }
        let signer: any ProviderTokenSigner
        do {
            signer = try ES256ProviderTokenSigner(pem: pem)
        } catch {
            throw .invalidParams("apns.keyFile \(config.keyFile) is not a P-256 private key: \(error)")
        }
        let settings = APNsSettings(production: production, sandbox: sandbox, keyId: config.keyId, teamId: config.teamId, topic: config.topic)
        let random = JitterSource(seed: seed)
        if let scripted {
            return APNsSender(settings: settings, signer: signer, connector: scripted.connector, clock: scripted.clock, mutant: mutant,
                              variant: variant, random: random)
        }
        let connector = HTTP2APNsConnector(caFile: config.caFile)
        return APNsSender(settings: settings, signer: signer, connector: connector, clock: SystemSenderClock(), mutant: mutant,
                          variant: variant, random: random)
    }

    // MARK: send

    private func send(_ params: JSON) async throws(DriverError) -> JSON {
        if !initialized {
            // Adapters may skip initialize and rely on the environment alone.
            _ = try initialize(.object(JSONObject()))
        }
        guard let n = params["notification"] else { throw .invalidParams("notification is required") }
        let notification = try NeutralNotification(json: n)
        guard let list = params["devices"]?.arrayValue else { throw .invalidParams("devices must be an array") }
        var devices: [TargetDevice] = []
        devices.reserveCapacity(list.count)
        for (i, d) in list.enumerated() { devices.append(try TargetDevice(json: d, index: i)) }
        var targets: [SendTarget] = []
        if let t = params["targets"], !t.isNull {
            guard let tl = t.arrayValue else { throw .invalidParams("targets must be an array") }
            for (i, x) in tl.enumerated() { targets.append(try SendTarget(json: x, index: i)) }
        }
        // Each provider's devices to its sender; results in the request's order.
        let webIndices = devices.indices.filter { devices[$0].provider == "webpush" }
        let expoIndices = devices.indices.filter { devices[$0].provider == "expo" }
        let apnsIndices = devices.indices.filter { devices[$0].provider != "webpush" && devices[$0].provider != "expo" }
        var results = [DeviceResult?](repeating: nil, count: devices.count)
        let apnsDevices = apnsIndices.map { devices[$0] }
        let apnsResults: [DeviceResult]
        if apnsDevices.isEmpty { apnsResults = [] }
        else if let sender { apnsResults = await sender.send(notification, to: apnsDevices) }
        else { apnsResults = apnsDevices.map { DeviceResult(device: $0.id, outcome: .skipped, reason: "ProviderNotConfigured") } }
        for (k, i) in apnsIndices.enumerated() { results[i] = apnsResults[k] }
        let webDevices = webIndices.map { (devices[$0], list[$0]) }
        var webResults: [DeviceResult]
        if webDevices.isEmpty { webResults = [] }
        else if let webPush { webResults = await webPush.send(notification, to: webDevices) }
        else { webResults = webDevices.map { DeviceResult(device: $0.0.id, outcome: .skipped, reason: "ProviderNotConfigured") } }
        if mutant == .reportSentAlways { webResults = webResults.map { DeviceResult(device: $0.device, outcome: .sent) } }
        for (k, i) in webIndices.enumerated() { results[i] = webResults[k] }
        let expoDevices = expoIndices.map { devices[$0] }
        let expoResults: [DeviceResult]
        if expoDevices.isEmpty { expoResults = [] }
        else if let expoSender { expoResults = await expoSender.send(notification, to: expoDevices) }
        else { expoResults = expoDevices.map { DeviceResult(device: $0.id, outcome: .skipped, reason: "ProviderNotConfigured") } }
        for (k, i) in expoIndices.enumerated() { results[i] = expoResults[k] }
        // FCM devices went to the APNs group above (skipped there); the FCM sender answers them.
        var targetResults = targets.map { DeviceResult(device: $0.id, outcome: .skipped, reason: "ProviderNotConfigured") }
        if let fcmSender {
            let fcm = await fcmSender.send(notification, to: devices, targets: targets)
            for (i, r) in fcm.devices.enumerated() { if let r { results[i] = r } }
            for (i, r) in fcm.targets.enumerated() where targets[i].provider == "fcm" { targetResults[i] = r }
        }
        for (i, t) in targets.enumerated() where t.provider != "fcm" {
            targetResults[i] = DeviceResult(device: t.id, outcome: .rejected, reason: "UnsupportedTarget")
        }
        return .object(["results": .array(results.map { $0!.json } + targetResults.map(\.json))])
    }

    var currentSender: APNsSender? { sender }

    // MARK: replies

    private func reply(id: JSON, result: JSON) {
        StdoutWriter.writeLine(JSON.object(["jsonrpc": .string("2.0"), "id": id, "result": result]).bytes)
    }

    private func reply(id: JSON, error: DriverError) {
        let e: JSONObject = ["code": .int(error.code), "message": .string(error.message)]
        StdoutWriter.writeLine(JSON.object(["jsonrpc": .string("2.0"), "id": id, "error": .object(e)]).bytes)
    }
}

/// The `providers.apns` member of `initialize`, each field falling back to its
/// environment variable (DESIGN.md §4).
struct APNsConfiguration: Sendable, Equatable {
    var url: String
    var sandboxUrl: String
    var caFile: String?
    var keyFile: String
    var keyId: String
    var teamId: String
    var topic: String?

    /// Nil when neither the params nor the environment configure APNs at all.
    init?(params: JSONObject?, environment env: [String: String]) throws(DriverError) {
        func value(_ key: String, _ envName: String) throws(DriverError) -> String? {
            if let v = params?[key], !v.isNull {
                guard let s = v.stringValue else { throw .invalidParams("providers.apns.\(key) must be a string") }
                if !s.isEmpty { return s }
            }
            if let s = env[envName], !s.isEmpty { return s }
            return nil
        }
        guard let url = try value("url", "APNS_URL") else {
            if params != nil { throw .invalidParams("providers.apns.url (or APNS_URL) is required") }
            return nil
        }
        self.url = url
        sandboxUrl = try value("sandboxUrl", "APNS_SANDBOX_URL") ?? url
        caFile = try value("caFile", "PUSHDOUBLE_CA_FILE") ?? env["SSL_CERT_FILE"].flatMap { $0.isEmpty ? nil : $0 }
        guard let keyFile = try value("keyFile", "APNS_KEY_FILE") else { throw .invalidParams("providers.apns.keyFile (or APNS_KEY_FILE) is required") }
        guard let keyId = try value("keyId", "APNS_KEY_ID") else { throw .invalidParams("providers.apns.keyId (or APNS_KEY_ID) is required") }
        guard let teamId = try value("teamId", "APNS_TEAM_ID") else { throw .invalidParams("providers.apns.teamId (or APNS_TEAM_ID) is required") }
        self.keyFile = keyFile
        self.keyId = keyId
        self.teamId = teamId
        topic = try value("topic", "APNS_TOPIC")
    }
}

/// The `providers.fcm` member of `initialize`, each field falling back to its environment
/// variable (DESIGN.md §4: `FCM_URL`, `FCM_SERVICE_ACCOUNT_FILE`, `FCM_PROJECT_ID`).
struct FCMDriverConfiguration: Sendable, Equatable {
    var url: String
    var serviceAccountFile: String
    var projectId: String?
    var caFile: String?

    /// Nil when neither the params nor the environment configure FCM.
    init?(params: JSONObject?, environment env: [String: String]) throws(DriverError) {
        func value(_ key: String, _ envName: String) throws(DriverError) -> String? {
            if let v = params?[key], !v.isNull {
                guard let s = v.stringValue else { throw .invalidParams("providers.fcm.\(key) must be a string") }
                if !s.isEmpty { return s }
            }
            if let s = env[envName], !s.isEmpty { return s }
            return nil
        }
        guard let url = try value("url", "FCM_URL") else {
            if params != nil { throw .invalidParams("providers.fcm.url (or FCM_URL) is required") }
            return nil
        }
        guard let file = try value("serviceAccountFile", "FCM_SERVICE_ACCOUNT_FILE") else {
            throw .invalidParams("providers.fcm.serviceAccountFile (or FCM_SERVICE_ACCOUNT_FILE) is required")
        }
        self.url = url
        serviceAccountFile = file
        projectId = try value("projectId", "FCM_PROJECT_ID")
        caFile = try value("caFile", "PUSHDOUBLE_CA_FILE") ?? env["SSL_CERT_FILE"].flatMap { $0.isEmpty ? nil : $0 }
    }
}
