/// Static APNs settings from `initialize` (or the environment variables).
struct APNsSettings: Sendable {
    var production: HTTPSEndpoint
    var sandbox: HTTPSEndpoint
    var keyId: String
    var teamId: String
    /// Bundle id used when a device names no topic.
    var topic: String?
    /// Certificate-based provider authentication: the connections present a client
    /// certificate and requests carry no `authorization` (apns.md "Certificate-based …").
    var usesCertificate = false
}

/// Sends one neutral notification to many APNs devices and reports an outcome for each,
/// retries included. Owns the process-wide state: JWT cache, connection pool, dead tokens.
///
/// Threading: `send` may run on any task; the devices of a batch are delivered
/// concurrently (a bounded task group); shared state is in actors and mutexes.
final class APNsSender: Sendable {
    /// At most this many pushes of one batch are in flight at once (the HTTP/2 client
    /// additionally keeps to the server's MAX_CONCURRENT_STREAMS).
    static let maxConcurrentPushes = 64

    let settings: APNsSettings
    let tokens: ProviderTokenCache
    let pool: ConnectionPool
    let dead = DeadTokenRegistry()
    let clock: any SenderClock
    let mutant: MutantSet
    let variant: Variant?
    let decider: APNsRetryDecider
    let builder: APNsRequestBuilder
    let random: JitterSource

    /// - Parameter variant: a correct alternative behaviour (``Variant``); `policy` nil = the
    ///   variant's retry policy (the default one without a variant).
    init(settings: APNsSettings, signer: any ProviderTokenSigner, connector: any PushConnector,
         clock: any SenderClock, mutant: MutantSet, variant: Variant? = nil, random: JitterSource = JitterSource(seed: nil),
         policy: RetryPolicy? = nil) {
        self.settings = settings
        // jwt-refresh-50min: the first token is 49 min 59 s old (by its whole-second iat), so
        // its 50-min refresh comes at the next second boundary, inside a conformance case.
        let inherited = variant == .jwtRefresh50min ? APNs.jwtRefreshSeconds - 1 : nil
        self.tokens = ProviderTokenCache(signer: signer, perRequest: mutant.contains(.jwtPerRequest), inheritedAge: inherited)
        self.pool = ConnectionPool(connector: connector, clock: clock, size: variant == .multiConnection || variant == .jwtPerConnection ? Variant.poolSize : 1)
        self.clock = clock
        self.mutant = mutant
        self.variant = variant
        self.random = random
        self.decider = APNsRetryDecider(policy: (policy ?? RetryPolicy.forVariant(variant)).planting(mutant), mutant: mutant)
        self.builder = APNsRequestBuilder(mutant: mutant, variant: variant)
    }

    /// One device's final result and the connection its last attempt used.
    private struct Delivery: Sendable {
        var result: DeviceResult
        var connection: (any PushConnection)?
        var push: PreparedPush?
    }

    func send(_ notification: NeutralNotification, to devices: [TargetDevice]) async -> [DeviceResult] {
        var deliveries = [Delivery?](repeating: nil, count: devices.count)
        await withTaskGroup(of: (Int, Delivery).self) { group in
            var next = 0
            func addNext() {
                let i = next
                let device = devices[i]
                next += 1
                group.addTask { (i, await self.deliver(notification, to: device)) }
            }
            while next < devices.count && next < Self.maxConcurrentPushes { addNext() }
            while let (i, d) = await group.next() {
                deliveries[i] = d
                if next < devices.count { addNext() }
            }
        }
        var results = deliveries.map { $0!.result }

        if mutant.contains(.resendAllAfterGoaway) {
            // Planted bug: every push that went over a connection that later got a GOAWAY
            // is sent again, although the server processed it (stream ≤ last-stream-id).
            for (i, d) in deliveries.enumerated() {
                guard let d, d.result.outcome == .sent, let c = d.connection, c.receivedGoAway, let push = d.push else { continue }
                results[i] = await deliver(push, deviceID: d.result.device).result
            }
        }
        await pool.closeRetired()
        if mutant.contains(.reportSentAlways) {
            results = results.map { DeviceResult(device: $0.device, outcome: .sent, reason: nil, providerMessageId: $0.providerMessageId) }
        }
        return results
    }

    private func deliver(_ n: NeutralNotification, to device: TargetDevice) async -> Delivery {
        guard device.provider == "apns" else {
            return Delivery(result: DeviceResult(device: device.id, outcome: .skipped, reason: "UnsupportedProvider"))
        }
        if let registered = device.registeredAt, !mutant.contains(.neverReviveDeadTokens), dead.revive(device.token, registeredAt: registered) {
            Log.info("device \(device.id): registered again after its token died; using it again")
        }
        if !mutant.contains(.retryDeadTokens), let reason = dead.reason(for: device.token) {
            return Delivery(result: DeviceResult(device: device.id, outcome: .skipped, reason: reason))
        }
        let plan = builder.plan(n, device: device, defaultTopic: settings.topic,
                                now: Int64(clock.now().rounded(.down)), apnsId: APNsRequestBuilder.newApnsId())
        switch plan {
        case .rejected(let reason):
            Log.info("device \(device.id): rejected locally (\(reason))")
            return Delivery(result: DeviceResult(device: device.id, outcome: .rejected, reason: reason))
        case .unusableToken(let reason):
            Log.info("device \(device.id): unusable token (\(reason))")
            return Delivery(result: DeviceResult(device: device.id, outcome: .dead, reason: reason))
        case .push(let push):
            return await deliver(push, deviceID: device.id)
        }
    }

    /// The pool key of a request to `endpoint` carrying `token`: jwt-refresh-50min binds
    /// connections to a token, so a new token means a new connection. Pushes and broadcasts
    /// share it, so a connection never carries two of the team's tokens.
    func poolKey(_ endpoint: HTTPSEndpoint, token: ProviderTokenCache.Token?) -> ConnectionPool.Key {
        ConnectionPool.Key(endpoint: endpoint, account: settings.usesCertificate ? "certificate" : settings.teamId,
                           generation: variant == .jwtRefresh50min ? token?.generation ?? 0 : 0)
    }

    /// The attempt loop for one prepared push (same apns-id on every attempt).
    private func deliver(_ push: PreparedPush, deviceID: String) async -> Delivery {
        let endpoint = push.environment == .sandbox ? settings.sandbox : settings.production
        var state = RetryState()
        let started = clock.now()
        while true {
            // jwt-per-connection: the token is the connection's own, so it is taken once the
            // connection is known; every other sender shares one team-wide token.
            let perConnection = variant == .jwtPerConnection
            var token: ProviderTokenCache.Token?
            if !settings.usesCertificate {
                do {
                    token = try tokens.token(teamId: settings.teamId, keyId: settings.keyId, now: clock.now())
                } catch {
                    Log.info("device \(deviceID): cannot sign the provider token: \(error)")
                    return Delivery(result: DeviceResult(device: deviceID, outcome: .failed, reason: "ProviderTokenSigningFailed"))
                }
            }
            let key = poolKey(endpoint, token: token)
            let connected = mutant.contains(.connectionPerPush)
                ? await pool.unpooledConnection(for: key)
                : await pool.connection(for: key)
            var connection: (any PushConnection)?
            var usedToken: ProviderTokenCache.Token?
            let result: AttemptResult
            switch connected {
            case .failure(let f):
                result = .failure(f)
            case .success(let c):
                connection = c
                if perConnection, token != nil, let own = try? tokens.token(teamId: settings.teamId, keyId: settings.keyId, now: clock.now(),
                                                                            scope: String(c.connectionID)) {
                    token = own
                }
                usedToken = token
                var headers: [(name: String, value: String)] = token.map { [(APNs.Header.authorization, "bearer " + $0.jwt)] } ?? []
                headers.append(contentsOf: push.headers)
                result = await c.send(WireRequest(path: push.path, authority: endpoint.authority, headers: headers, body: push.body))
                if mutant.contains(.connectionPerPush) { await c.close() }
            }

            switch decider.decide(result, state: &state, now: clock.now()) {
            case .finish(let outcome, let reason, let markDead):
                if markDead, let reason { dead.markDead(push.token, reason: reason, at: clock.now()) }
                var messageId: String?
                if outcome == .sent {
                    if case .response(let r) = result { messageId = r.header(APNs.Header.id) }
                    messageId = messageId ?? push.apnsId
                }
                if outcome != .sent { Log.info("device \(deviceID): \(outcome.rawValue) (\(reason ?? "-"))") }
                return Delivery(result: DeviceResult(device: deviceID, outcome: outcome, reason: reason, providerMessageId: messageId),
                                connection: connection, push: push)
            case .retry(let action):
                if action.retireConnection, let connection { await pool.retire(connection) }
                if action.refreshToken, let usedToken {
                    tokens.invalidate(teamId: settings.teamId, keyId: settings.keyId, token: usedToken,
                                      scope: perConnection ? connection.map { String($0.connectionID) } ?? "" : "")
                }
                let wait = decider.delay(for: action, state: &state, random: random.unit())
                if clock.now() + wait - started > decider.policy.maxTotalSeconds {
                    Log.info("device \(deviceID): failed (\(action.reason)); no time left for another attempt")
                    return Delivery(result: DeviceResult(device: deviceID, outcome: .failed, reason: action.reason),
                                    connection: connection, push: push)
                }
                Log.info("device \(deviceID): retrying after \(action.reason) in \(wait) s")
                await clock.sleep(seconds: wait)
            }
        }
    }

    func shutdown() async { await pool.closeAll() }
}
