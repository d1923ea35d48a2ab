/// Topic subscription management (driver protocol `subscribe`, docs/fcm.md §8 "Topic
/// subscriptions"): the Instance ID API's `batchAdd`, on the FCM connection.
extension FCMSender {
    /// Tokens per `batchAdd` request (docs/fcm.md §8: at most 1000).
    static let maxTopicBatch = 1000

    /// Subscribes the FCM devices' tokens to `topic`: tokens already known dead are skipped; the
    /// rest go in batches of at most ``maxTopicBatch``. One result per device, in order
    /// (`sent` subscribed, `dead` NOT_FOUND, `rejected` another per-token error, `failed`
    /// retries exhausted, `skipped` known dead or not an FCM device).
    func subscribe(topic: String, devices: [TargetDevice]) async -> [DeviceResult] {
        var results: [String: DeviceResult] = [:]
        var live: [TargetDevice] = []
        for d in devices where d.provider == "fcm" {
            if !mutant.contains(.fcmTopicKeepNotFound), let reason = dead.reason(for: d.token) {
                results[d.id] = DeviceResult(device: d.id, outcome: .skipped, reason: reason)
            } else {
                live.append(d)
            }
        }
        let size = mutant.contains(.fcmTopicOneBatch) ? max(live.count, 1) : Self.maxTopicBatch
        for first in stride(from: 0, to: live.count, by: size) {
            for r in await subscribeBatch(topic: topic, Array(live[first..<min(first + size, live.count)])) { results[r.device] = r }
        }
        return devices.map { results[$0.id] ?? DeviceResult(device: $0.id, outcome: .skipped, reason: "UnsupportedProvider") }
    }

    /// One `POST /iid/v1:batchAdd` until answered for good: 200 → a result per token (`{}` sent;
    /// `NOT_FOUND` dead, the token remembered and never named again; another code rejected);
    /// 401 → one re-mint; 429/5xx and lost connections → retried with the send's backoff
    /// (Retry-After first); any other status → every token rejected.
    private func subscribeBatch(topic: String, _ batch: [TargetDevice]) async -> [DeviceResult] {
        let started = clock.now()
        var attempt = 0, reminted = false
        var previous: Double? = nil
        var lastReason = "?"
        let body = Self.batchBody(topic: topic, tokens: batch.map(\.token))
        while attempt < policy.maxAttempts {
            attempt += 1
            var retryAfter: String? = nil
            if let bearer = await accessToken() {
                switch await post(body, bearer: bearer, path: "/iid/v1:batchAdd", headers: [("access_token_auth", "true")]) {
                case .failure(let why): lastReason = why.description
                case .success(let r):
                    if r.status == 200, let list = (try? JSON.parse(r.body))?["results"]?.arrayValue, list.count == batch.count {
                        let out = zip(batch, list).map { d, item in batchResult(d, error: item["error"]?.stringValue) }
                        if mutant.contains(.fcmTopicResendBatch), out.contains(where: { $0.outcome != .sent }) {
                            // The planted bug: the batch sent again without its bad tokens.
                            let again = zip(batch, out).filter { $0.1.outcome == .sent }.map(\.0.token)
                            if !again.isEmpty { _ = await post(Self.batchBody(topic: topic, tokens: again), bearer: bearer, path: "/iid/v1:batchAdd",
                                                                headers: [("access_token_auth", "true")]) }
                        }
                        return out
                    }
                    if r.status == 401 && !reminted {
                        reminted = true
                        await invalidate(bearer)
                        attempt -= 1
                        continue
                    }
                    lastReason = "HTTP \(r.status)"
                    guard r.status == 429 || r.status >= 500 else {
                        return batch.map { DeviceResult(device: $0.id, outcome: .rejected, reason: lastReason) }
                    }
                    retryAfter = r.header("retry-after")
                }
            } else {
                lastReason = "TokenRequestFailed"
            }
            if mutant.contains(.fcmTopicNoRetry) { break }
            if !(await wait(attempt: attempt, retryAfter: retryAfter, started: started, previous: &previous, label: "/topics/\(topic)",
                            reason: lastReason)) { break }
        }
        return batch.map { DeviceResult(device: $0.id, outcome: .failed, reason: lastReason) }
    }

    private func batchResult(_ d: TargetDevice, error: String?) -> DeviceResult {
        guard let code = error else { return DeviceResult(device: d.id, outcome: .sent) }
        guard code == "NOT_FOUND" else { return DeviceResult(device: d.id, outcome: .rejected, reason: code) }
        if !mutant.contains(.fcmTopicKeepNotFound) { dead.markDead(d.token, reason: code, at: clock.now()) }
        return DeviceResult(device: d.id, outcome: .dead, reason: code)
    }

    /// `{"to":"/topics/<topic>","registration_tokens":[…]}`.
    static func batchBody(topic: String, tokens: [String]) -> [UInt8] {
        JSON.object(["to": .string("/topics/" + topic), "registration_tokens": .array(tokens.map(JSON.string))]).bytes
    }
}
