import Synchronization

/// Sends neutral notifications through Expo's push service and follows each ticket to its
/// receipt (docs/expo.md): one message per device, ≤ 100 recipients per request,
/// bodies over 1024 bytes gzipped (§6.1), the access token when configured, tickets mapped to
/// devices in order (§3.1), receipts fetched in `settle` in chunks of ≤ 1000 ids, only for the
/// tickets this sender holds (§4). Outcomes (the driver protocol's): an ok ticket is `pending` until its
/// receipt says `sent`, `dead` (DeviceNotRegistered: never sent to again), `rejected`
/// (MessageTooBig) or `failed`; an absent receipt leaves it `pending`. A `DeviceNotRegistered`
/// ticket is `dead` at once; 429, 5xx, lost connections and `MessageRateExceeded` tickets are
/// retried with exponential backoff (Retry-After honoured); a message over 4096 bytes is
/// `rejected` without sending.
///
/// Threading: `send` and `settle` are called one at a time by the driver; state is in mutexes.
final class ExpoSender: Sendable {
    let connection: ExpoConnection
    let accessToken: String?
    let clock: any SenderClock
    let mutant: MutantSet
    let variant: Variant?
    let random: JitterSource
    let policy: RetryPolicy
    let dead = DeadTokenRegistry()

    /// A ticket waiting for its receipt.
    struct Pending: Sendable {
        var ticketID: String
        var device: String
        var token: String
        var message: JSON
    }
    private let pending = Mutex<[Pending]>([])

    init(configuration: ExpoConfiguration, endpoint: HTTPSEndpoint, clock: any SenderClock, mutant: MutantSet, variant: Variant?,
         random: JitterSource) {
        connection = ExpoConnection(endpoint: endpoint, caFile: configuration.caFile)
        accessToken = mutant.contains(.expoNoAccessToken) ? nil : configuration.accessToken
        self.clock = clock
        self.mutant = mutant
        self.variant = variant
        self.random = random
        policy = RetryPolicy.forVariant(variant).planting(mutant)
    }

    // MARK: send

    func send(_ notification: NeutralNotification, to devices: [TargetDevice]) async -> [DeviceResult] {
        var results = [DeviceResult?](repeating: nil, count: devices.count)
        var queue: [(index: Int, message: JSON)] = []
        for (i, d) in devices.enumerated() {
            // A registration after the death makes the token usable again (as for APNs).
            if let registered = d.registeredAt, !mutant.contains(.neverReviveDeadTokens) { _ = dead.revive(d.token, registeredAt: registered) }
            if let reason = dead.reason(for: d.token), !mutant.contains(.expoIgnoreTicketErrors), !mutant.contains(.expoIgnoreReceiptDead) {
                results[i] = DeviceResult(device: d.id, outcome: .skipped, reason: reason)
                continue
            }
            let message = Self.message(notification, to: d.token)
            // expo-too-big-from-receipt: no local size check; the receipt's MessageTooBig says it.
            if !mutant.contains(.expoResendTooBig), variant != .expoTooBigFromReceipt, Self.payloadBytes(message) > Expo.maxMessageBytes {
                results[i] = DeviceResult(device: d.id, outcome: .rejected, reason: "MessageTooBig")
                continue
            }
            queue.append((i, message))
        }
        let size = mutant.contains(.expoNoChunking) ? max(1, queue.count) : Expo.maxRecipients
        var start = 0
        while start < queue.count {
            let chunk = Array(queue[start..<min(queue.count, start + size)])
            start += size
            for (i, r) in await sendChunk(chunk, devices: devices) { results[i] = r }
        }
        return results.enumerated().map { $1 ?? DeviceResult(device: devices[$0].id, outcome: .failed, reason: "NotAttempted") }
    }

    /// One chunk, retried as needed; returns a result per index of the chunk.
    private func sendChunk(_ chunk: [(index: Int, message: JSON)], devices: [TargetDevice]) async -> [(Int, DeviceResult)] {
        var out: [(Int, DeviceResult)] = []
        var toSend = chunk
        var failures = 0
        var previousBackoff: Double? = nil  // the decorrelated-jitter variant grows from it
        let first = clock.now()
        while !toSend.isEmpty {
            let reply = await connection.post(Expo.sendPath, json: .array(toSend.map(\.message)), accessToken: accessToken, gzip: true)
            var retryAfter: Double? = nil
            var retry: [(index: Int, message: JSON)] = []
            switch reply {
            case .failure(let why):
                Log.info("expo: send failed: \(why)")
                retry = toSend
            case .response(let status, let headers, let body):
                let json = try? JSON.parse(body)
                if status == 200, let tickets = json?["data"]?.arrayValue, json?["errors"] == nil, tickets.count == toSend.count {
                    let mapped = mutant.contains(.expoTicketsReversed) ? Array(tickets.reversed()) : tickets
                    for (item, ticket) in zip(toSend, mapped) {
                        if let r = outcome(of: ticket, item: item, device: devices[item.index]) { out.append((item.index, r)) } else { retry.append(item) }
                    }
                } else if let parts = Self.projectParts(json, of: toSend), parts.count > 1 {
                    // PUSH_TOO_MANY_EXPERIENCE_IDS (§3.2): one request per project, as `details` groups the tokens.
                    if mutant.contains(.expoResendMixedProjects) { retry = toSend } else {
                        for part in parts { out += await sendChunk(part, devices: devices) }
                    }
                } else if status == 429 || status >= 500 {
                    retry = toSend
                    retryAfter = headers["retry-after"].flatMap { RetryAfter.seconds($0, now: clock.now()) }
                } else {
                    let code = json?["errors"]?.arrayValue?.first?["code"]?.stringValue ?? "HTTP \(status)"
                    let outcome: Outcome = status == 401 || status == 403 ? .failed : .rejected
                    for item in toSend { out.append((item.index, DeviceResult(device: devices[item.index].id, outcome: outcome, reason: code))) }
                }
            }
            guard !retry.isEmpty else { break }
            failures += 1
            let delay = mutant.contains(.expoNoBackoff) ? 0 : (retryAfter ?? policy.backoff(retry: failures, previous: previousBackoff, random: random.unit()))
            previousBackoff = delay
            if failures >= policy.maxAttempts || clock.now() + delay - first > policy.maxTotalSeconds || delay > policy.maxRetryAfter {
                for item in retry { out.append((item.index, DeviceResult(device: devices[item.index].id, outcome: .failed, reason: "RetriesExhausted"))) }
                break
            }
            Log.info("expo: retrying \(retry.count) message(s) in \(delay) s")
            await clock.sleep(seconds: delay)
            toSend = retry
        }
        return out
    }

    /// The parts of a chunk refused with `PUSH_TOO_MANY_EXPERIENCE_IDS` (docs/expo.md §3.2),
    /// one per project of the refusal's `details` ({project: [tokens]}), in chunk order; tokens
    /// no project names go with the first part. Nil for any other answer.
    static func projectParts(_ json: JSON?, of chunk: [(index: Int, message: JSON)]) -> [[(index: Int, message: JSON)]]? {
        guard let error = json?["errors"]?.arrayValue?.first, error["code"]?.stringValue == Expo.mixedProjectsCode,
              let details = error["details"]?.objectValue else { return nil }
        var projectOf: [String: Int] = [:]
        for (n, (_, tokens)) in details.enumerated() {
            for t in tokens.arrayValue ?? [] { if let t = t.stringValue, projectOf[t] == nil { projectOf[t] = n } }
        }
        var parts: [Int: [(index: Int, message: JSON)]] = [:]
        for item in chunk {
            let project = item.message["to"]?.stringValue.flatMap { projectOf[$0] } ?? 0
            parts[project, default: []].append(item)
        }
        return parts.keys.sorted().compactMap { parts[$0] }
    }

    /// A ticket's outcome for its device; nil = retry it (MessageRateExceeded).
    private func outcome(of ticket: JSON, item: (index: Int, message: JSON), device: TargetDevice) -> DeviceResult? {
        let status = ticket["status"]?.stringValue ?? "error"
        if status == "ok", let id = ticket["id"]?.stringValue {
            pending.withLock { $0.append(Pending(ticketID: id, device: device.id, token: device.token, message: item.message)) }
            return DeviceResult(device: device.id, outcome: .pending, providerMessageId: id)
        }
        let error = ticket["details"]?["error"]?.stringValue ?? "UnknownTicketError"
        if mutant.contains(.expoIgnoreTicketErrors) { return DeviceResult(device: device.id, outcome: .pending) }
        switch error {
        case "DeviceNotRegistered":
            dead.markDead(device.token, reason: error, at: clock.now())
            return DeviceResult(device: device.id, outcome: .dead, reason: error)
        case "MessageTooBig": return DeviceResult(device: device.id, outcome: .rejected, reason: error)
        case "MessageRateExceeded": return nil
        default: return DeviceResult(device: device.id, outcome: .failed, reason: error)
        }
    }

    // MARK: settle

    /// Fetches the receipts of held tickets; returns the devices whose outcome changed.
    func settle() async -> [DeviceResult] {
        guard !mutant.contains(.expoNoReceipts) else { return [] }
        let held = pending.withLock { $0 }
        guard !held.isEmpty else { return [] }
        var ids = held.map(\.ticketID)
        if mutant.contains(.expoReceiptsForeignIDs) { ids.append(contentsOf: (1...3).map { "00000000-0000-4000-8000-00000000000\($0)" }) }
        let size = mutant.contains(.expoReceiptsOneRequest) ? ids.count : Expo.maxReceiptIDs
        var receipts: [String: JSON] = [:]
        var start = 0
        while start < ids.count {
            let chunk = Array(ids[start..<min(ids.count, start + size)])
            start += size
            for (id, r) in await fetchReceipts(chunk) { receipts[id] = r }
        }
        var changed: [DeviceResult] = []
        var resend: [Pending] = []
        var settled = Set<String>()
        for p in held {
            guard let receipt = receipts[p.ticketID] else {
                if mutant.contains(.expoAbsentReceiptIsOK) {
                    settled.insert(p.ticketID)
                    changed.append(DeviceResult(device: p.device, outcome: .sent, providerMessageId: p.ticketID))
                }
                continue
            }
            settled.insert(p.ticketID)
            let error = receipt["details"]?["error"]?.stringValue
            switch (receipt["status"]?.stringValue, error) {
            case ("ok", _):
                changed.append(DeviceResult(device: p.device, outcome: .sent, providerMessageId: p.ticketID))
            case (_, "DeviceNotRegistered") where !mutant.contains(.expoIgnoreReceiptDead):
                dead.markDead(p.token, reason: "DeviceNotRegistered", at: clock.now())
                changed.append(DeviceResult(device: p.device, outcome: .dead, reason: "DeviceNotRegistered", providerMessageId: p.ticketID))
            case (_, "DeviceNotRegistered"):
                changed.append(DeviceResult(device: p.device, outcome: .sent, providerMessageId: p.ticketID))
            case (_, "MessageTooBig"):
                if mutant.contains(.expoResendTooBig) { resend.append(p) }
                changed.append(DeviceResult(device: p.device, outcome: .rejected, reason: "MessageTooBig", providerMessageId: p.ticketID))
            default:
                changed.append(DeviceResult(device: p.device, outcome: .failed, reason: error ?? "UnknownReceiptError", providerMessageId: p.ticketID))
            }
        }
        pending.withLock { list in list.removeAll { settled.contains($0.ticketID) } }
        for p in resend {
            _ = await connection.post(Expo.sendPath, json: .array([p.message]), accessToken: accessToken, gzip: true)
        }
        return changed
    }

    /// One getReceipts request, retried on 429 / 5xx / lost connections; id → receipt.
    private func fetchReceipts(_ ids: [String]) async -> [(String, JSON)] {
        var failures = 0
        var previousBackoff: Double? = nil
        while true {
            let reply = await connection.post(Expo.receiptsPath, json: .object(["ids": .array(ids.map(JSON.string))]),
                                              accessToken: accessToken, gzip: true)
            var retryAfter: Double? = nil
            switch reply {
            case .response(200, _, let body):
                guard let data = (try? JSON.parse(body))?["data"]?.objectValue else { return [] }
                return data.map { ($0.0, $0.1) }
            case .response(let status, let headers, _) where status == 429 || status >= 500:
                retryAfter = headers["retry-after"].flatMap { RetryAfter.seconds($0, now: clock.now()) }
            case .response(let status, _, let body):
                Log.info("expo: getReceipts refused (\(status)): \(String(decoding: body.prefix(300), as: UTF8.self))")
                return []
            case .failure(let why):
                Log.info("expo: getReceipts failed: \(why)")
            }
            failures += 1
            guard failures < policy.maxAttempts else { return [] }
            let delay = mutant.contains(.expoNoBackoff) ? 0 : (retryAfter ?? policy.backoff(retry: failures, previous: previousBackoff, random: random.unit()))
            previousBackoff = delay
            await clock.sleep(seconds: delay)
        }
    }

    func shutdown() { connection.close() }

    // MARK: messages

    /// The Expo message for a neutral notification (expo.md §2 fields).
    static func message(_ n: NeutralNotification, to token: String) -> JSON {
        var m: JSONObject = ["to": .string(token)]
        if let t = n.title { m["title"] = .string(t) }
        if let s = n.subtitle { m["subtitle"] = .string(s) }
        if let b = n.body { m["body"] = .string(b) }
        if let d = n.data { m["data"] = .object(d) }
        if let s = n.sound?.stringValue { m["sound"] = s == "default" ? .string(s) : .string("default") }
        if let b = n.badge { m["badge"] = .int(b) }
        if let t = n.ttlSeconds { m["ttl"] = .int(t) }
        if let p = n.priority { m["priority"] = .string(p.rawValue) }
        if let c = n.channelId { m["channelId"] = .string(c) }
        if let c = n.category { m["categoryId"] = .string(c) }
        if n.contentAvailable { m["_contentAvailable"] = .bool(true) }
        return .object(m)
    }

    /// The bytes the 4096 limit is measured on: the compact message without `to`.
    static func payloadBytes(_ message: JSON) -> Int {
        guard case .object(let members) = message else { return 0 }
        return JSON.object(members.filter { $0.0 != "to" }).bytes.count
    }
}
