import Foundation
import PushDoubleAPNs
import PushDoubleCore

/// The checks of a sender's APNs broadcast pushes (Live Activity channels), judged on the
/// `broadcast` steps (docs/conformance.md "broadcast") and what the fake recorded: Apple,
/// *Sending channel management requests to APNs* and *Sending broadcast push notification
/// requests to APNs* (docs/apns.md §13).
enum BroadcastChecks {
    /// One `broadcast` step: what the sender was asked for.
    struct Step {
        var record: StepRecord
        var channel: String
        var environment: String
        var policy: Int
        var event: String
        var contentState: JSONValue?
    }

    /// The broadcast part of a case: the steps and, per step, the exchanges that arrived while
    /// the sender answered it (the sender works on one step at a time).
    struct Digest {
        var steps: [Step]
        var history: APNsHistory
        /// Channel creations the fake answered 201, with the id, environment and policy asked for.
        var created: [(exchange: Exchange, id: String, environment: String, policy: Int?)]

        init(_ ctx: CheckContext) {
            history = APNsHistory(ctx)
            steps = ctx.steps.compactMap { r in
                guard r.type == "broadcast", let p = r.notification, let channel = r.targets?.first else { return nil }
                return Step(record: r, channel: channel, environment: p["environment"]?.stringValue ?? "production",
                            policy: Int(p["messageStoragePolicy"]?.intValue ?? 0), event: p["event"]?.stringValue ?? "",
                            contentState: p["contentState"])
            }
            created = history.all.compactMap { e in
                guard e.endpoint == "apns.channels.create", e.response.status == 201,
                      let id = Self.header(e.response.headers, "apns-channel-id") else { return nil }
                return (e, id, e.environment ?? "", Self.body(e)?["message-storage-policy"]?.intValue.map(Int.init))
            }
        }

        /// The exchanges that arrived during `step`.
        func during(_ step: Step) -> [Exchange] {
            history.all.filter { $0.transport.headReceivedAt >= step.record.startedAt && $0.transport.headReceivedAt <= step.record.endedAt }
        }
        /// The broadcast requests (`/4/…` on a push host) among `exchanges`.
        func broadcasts(_ exchanges: [Exchange]) -> [Exchange] { exchanges.filter { $0.endpoint == APNsFake.broadcastEndpoint } }

        static func header(_ headers: [[String]], _ name: String) -> String? {
            headers.first { $0.count == 2 && $0[0].lowercased() == name }?[1]
        }
        static func body(_ e: Exchange) -> JSONValue? {
            e.request.body.flatMap { try? JSONDecoder().decode(JSONValue.self, from: Data($0.utf8)) }
        }
        func evidence(_ e: Exchange, _ note: String) -> Evidence {
            Evidence("\(e.request.method) \(e.request.path) conn \(e.transport.connection.id) → \(e.response.status.map(String.init) ?? "-")"
                     + "\(e.response.reason.map { " " + $0 } ?? "") at \(history.time(e.transport.headReceivedAt)); \(note)", seqs: [e.seq])
        }
        func evidence(_ s: Step, _ note: String) -> Evidence {
            Evidence("step \(s.record.index) (broadcast \(s.channel), \(s.event)): \(note)", seqs: [])
        }
    }

    /// Runs `judge` over the case's broadcast steps; n/a without any.
    static func perStep(_ ctx: CheckContext, summary: String, violation: String,
                        _ judge: (Digest, Step) -> [Evidence]) -> Finding {
        let d = Digest(ctx)
        if d.steps.isEmpty { return .notApplicable("no broadcast steps") }
        let problems = d.steps.flatMap { judge(d, $0) }
        return problems.isEmpty ? .held("\(d.steps.count) broadcast step(s) \(summary)") : .violated(violation, problems)
    }

    static let path = CheckDefinition(
        id: "apns.broadcast.path", title: "A broadcast is POST /4/broadcasts/apps/<bundle id> on the push host of its environment",
        reference: "Apple, Sending broadcast push notification requests to APNs (:path, hosts); docs/apns.md §13", severity: .must
    ) { ctx in
        let topic = ctx.configuration?.apns?.topic
        return perStep(ctx, summary: "sent to /4/broadcasts/apps/<bundle id> on the right host", violation: "broadcast not sent where Apple takes it") { d, s in
            let during = d.during(s)
            var bad: [Evidence] = []
            for e in during where e.endpoint == "apns.push" || e.request.path.hasPrefix(APNsRequestValidator.pathPrefix) {
                bad.append(d.evidence(e, "a device push during a broadcast step: broadcasts go to /4/broadcasts/apps/<bundle id>"))
            }
            let sent = d.broadcasts(during)
            if sent.isEmpty { bad.append(d.evidence(s, "no request to /4/broadcasts/apps/<bundle id>")) }
            for e in sent {
                if e.request.method != "POST" { bad.append(d.evidence(e, "method \(e.request.method), must be POST")) }
                if let topic, e.request.path != "/4/broadcasts/apps/\(topic)" {
                    bad.append(d.evidence(e, "path \(e.request.path), expected /4/broadcasts/apps/\(topic)"))
                }
                if e.environment != s.environment {
                    bad.append(d.evidence(e, "sent to the \(e.environment ?? "?") host for a \(s.environment) broadcast"))
                }
            }
            return bad
        }
    }

    static let headers = CheckDefinition(
        id: "apns.broadcast.headers",
        title: "A broadcast carries apns-channel-id of a channel of its environment, apns-push-type liveactivity, apns-priority, and apns-expiration (0 on a no-storage channel)",
        reference: "Apple, Sending broadcast push notification requests to APNs (header table: apns-channel-id, apns-expiration, apns-priority, apns-push-type required; a nonzero expiration on a No Message Stored channel is rejected); docs/apns.md §13",
        severity: .must
    ) { ctx in
        perStep(ctx, summary: "with Apple's required broadcast headers", violation: "broadcast headers break Apple's rules") { d, s in
            var bad: [Evidence] = []
            for e in d.broadcasts(d.during(s)) {
                let h = e.request.headers
                var why: [String] = []
                let channelID = Digest.header(h, "apns-channel-id")
                let channel = channelID.flatMap { id in d.created.first { $0.id == id && $0.environment == s.environment } }
                if channelID == nil { why.append("no apns-channel-id") }
                else if channel == nil { why.append("apns-channel-id \(channelID!) names no channel the sender created in \(s.environment)") }
                let pushType = Digest.header(h, "apns-push-type")
                if pushType?.lowercased() != APNsPushType.liveactivity.rawValue { why.append("apns-push-type \(pushType ?? "absent"), must be liveactivity") }
                let priority = Digest.header(h, "apns-priority")
                if !["10", "5", "1"].contains(priority ?? "") { why.append("apns-priority \(priority ?? "absent"), required: 10, 5 or 1") }
                switch Digest.header(h, "apns-expiration") {
                case nil: why.append("no apns-expiration (required on broadcasts)")
                case let v? where Int64(v) == nil: why.append("apns-expiration \(v) is not UNIX seconds")
                case let v? where (channel?.policy ?? s.policy) == 0 && Int64(v) != 0:
                    why.append("apns-expiration \(v) on a No Message Stored channel (must be 0)")
                default: break
                }
                if !why.isEmpty { bad.append(d.evidence(e, why.joined(separator: "; "))) }
            }
            return bad
        }
    }

    static let payload = CheckDefinition(
        id: "apns.broadcast.payload",
        title: "A broadcast's aps carries timestamp, the event asked for, and content-state (on update) as asked",
        reference: "Apple, Starting and updating Live Activities with ActivityKit push notifications (aps timestamp, event, content-state); docs/apns.md §13",
        severity: .must
    ) { ctx in
        perStep(ctx, summary: "with the Live Activity payload asked for", violation: "Live Activity payload wrong") { d, s in
            d.broadcasts(d.during(s)).compactMap { e in
                guard let aps = Digest.body(e)?["aps"], aps.objectValue != nil else { return d.evidence(e, "payload has no aps dictionary") }
                var why: [String] = []
                if aps["timestamp"]?.intValue == nil && aps["timestamp"]?.doubleValue == nil { why.append("aps.timestamp missing or not a number") }
                if aps["event"]?.stringValue != s.event { why.append("aps.event \(aps["event"]?.compactJSON ?? "absent"), asked for \(s.event)") }
                if let want = s.contentState, aps["content-state"] != want {
                    why.append("aps.content-state \(aps["content-state"]?.compactJSON ?? "absent"), asked for \(want.compactJSON)")
                }
                return why.isEmpty ? nil : d.evidence(e, why.joined(separator: "; "))
            }
        }
    }

    static let channel = CheckDefinition(
        id: "apns.broadcast.channel",
        title: "Each channel is created once on the channel management host with the storage policy asked for, reused, and deleted after its end event",
        reference: "Apple, Sending channel management requests to APNs (hosts, POST /1/apps/<bundle id>/channels, message-storage-policy, push-type LiveActivity; delete a channel once its event is complete); docs/apns.md §13",
        severity: .must
    ) { ctx in
        perStep(ctx, summary: "on channels created once, with the policy asked for", violation: "channel management wrong") { d, s in
            var bad: [Evidence] = []
            // Every step of this channel name up to this one, from its last end on: one life of the channel.
            let earlier = d.steps.filter { $0.channel == s.channel && $0.record.index < s.record.index }
            let lifeStart = earlier.last(where: { $0.event == "end" }).map { $0.record.index } ?? -1
            let life = earlier.filter { $0.record.index > lifeStart } + [s]
            let creates = life.flatMap { d.during($0).filter { $0.endpoint == "apns.channels.create" && $0.response.status == 201 } }
            if creates.count > 1 {
                bad.append(contentsOf: creates.dropFirst().map { d.evidence($0, "channel \(s.channel) created again instead of reused") })
            }
            for e in d.during(s) where e.endpoint == "apns.channels.create" {
                let body = Digest.body(e)
                if body?["message-storage-policy"]?.intValue != Int64(s.policy) {
                    bad.append(d.evidence(e, "message-storage-policy \(body?["message-storage-policy"]?.compactJSON ?? "absent"), asked for \(s.policy)"))
                }
                if body?["push-type"]?.stringValue != "LiveActivity" { bad.append(d.evidence(e, "push-type \(body?["push-type"]?.compactJSON ?? "absent"), must be LiveActivity")) }
                if e.environment != s.environment { bad.append(d.evidence(e, "created in \(e.environment ?? "?") for a \(s.environment) broadcast")) }
            }
            if creates.isEmpty { bad.append(d.evidence(s, "no channel \(s.channel) was created on the channel management host")) }
            let sentOn = Set(d.broadcasts(d.during(s)).compactMap { Digest.header($0.request.headers, "apns-channel-id") })
            if s.event == "end" {
                let deleted = d.during(s).filter { $0.endpoint == "apns.channels.delete" && (200..<300).contains($0.response.status ?? 0) }
                    .compactMap { Digest.header($0.request.headers, "apns-channel-id") }
                for id in sentOn where !deleted.contains(id) { bad.append(d.evidence(s, "channel \(id) not deleted after its end event")) }
            }
            // A broadcast on a channel id deleted before this step.
            let deletedBefore = d.history.all.filter { $0.endpoint == "apns.channels.delete" && $0.transport.headReceivedAt < s.record.startedAt }
                .compactMap { Digest.header($0.request.headers, "apns-channel-id") }
            for id in sentOn where deletedBefore.contains(id) { bad.append(d.evidence(s, "broadcast on channel \(id) after it was deleted")) }
            return bad
        }
    }

    static let retried = CheckDefinition(
        id: "apns.broadcast.retried",
        title: "A broadcast or channel request answered 429 or 5xx is sent again, as a push would be",
        reference: "Apple, Handling error responses from APNs (429 TooManyRequests, 500, 503: retry later); docs/apns.md §7.2, §13", severity: .must
    ) { ctx in
        perStep(ctx, summary: "with every 429/5xx answer retried", violation: "a transient broadcast error not retried") { d, s in
            let requests = d.during(s).filter { $0.endpoint == APNsFake.broadcastEndpoint || $0.endpoint.hasPrefix("apns.channels.") }
            return requests.enumerated().compactMap { i, e in
                guard let status = e.response.status, status == 429 || status >= 500 else { return nil }
                let again = requests.dropFirst(i + 1).contains { $0.endpoint == e.endpoint }
                return again ? nil : d.evidence(e, "\(status) answered, never sent again during the step")
            }
        }
    }

    static let all = [path, headers, payload, channel, retried]
}
