import Foundation
import PushDoubleTransport

/// Counters of a double's exchanges for `GET /metrics` (Prometheus text format 0.0.4,
/// docs/containers.md "Metrics"): exchanges by provider, endpoint, status and reason, fault
/// rules fired, and a request latency histogram per provider.
///
/// Counted off the request path: the history queues a reference per exchange on a
/// ``HistoryFeed`` (as for the `serve` log); a ``HistoryFeedPump`` thread folds them into the
/// counters every `interval` seconds, and a scrape folds in what is still queued first, so a
/// scrape sees every exchange recorded before it. Counters are never reset by `DELETE
/// /history` or `POST /reset` (Prometheus counters only grow). ``stop()`` ends the thread.
public final class ExchangeMetrics: Sendable {
    /// Upper bounds (seconds) of the latency histogram's buckets (`+Inf` is added).
    public static let latencyBuckets: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    struct ExchangeKey: Hashable { let provider: String, endpoint: String, status: String, reason: String }
    struct RuleKey: Hashable { let provider: String, rule: String }
    struct Latency {
        var buckets = [UInt64](repeating: 0, count: ExchangeMetrics.latencyBuckets.count)
        var count: UInt64 = 0
        var sum: Double = 0

        mutating func add(_ seconds: Double) {
            for (i, bound) in ExchangeMetrics.latencyBuckets.enumerated() where seconds <= bound { buckets[i] += 1 }
            count += 1
            sum += seconds
        }
    }
    struct Counters {
        var exchanges: [ExchangeKey: UInt64] = [:]
        var rules: [RuleKey: UInt64] = [:]
        var latency: [String: Latency] = [:]
        /// Exchanges the feed did not queue because this reader was behind (not counted above).
        var uncounted: UInt64 = 0
        /// The key of the last exchange counted and how many in a row had it, not yet added to
        /// `exchanges` (``flush()``): a run of alike exchanges costs a compare each, not a
        /// summary and a hash.
        var run: (key: ExchangeKey, count: UInt64)? = nil
    }

    private let feed: HistoryFeed
    private let counters = Locked(Counters())
    private let pump: HistoryFeedPump

    public init(history: HistoryStore, interval: Double = 0.25) {
        let (feed, _) = history.feed()
        self.feed = feed
        let counters = self.counters
        pump = HistoryFeedPump(feed: feed, interval: interval, name: "pushdouble.metrics") { events in
            Self.fold(events, into: counters)
        }
    }

    /// Folds what is queued into the counters now (a scrape calls this first).
    public func catchUp() { Self.fold(feed.take(), into: counters) }

    /// Stops the counting thread (the counters keep their values).
    public func stop() { pump.stop() }

    static func fold(_ events: [HistoryFeedEvent], into counters: Locked<Counters>) {
        guard !events.isEmpty else { return }
        counters.withLock { c in
            for event in events {
                switch event {
                case .dropped(let n): c.uncounted += n
                case .exchange(let item): c.count(item.entry)
                }
            }
            c.flush()
        }
    }

    /// The Prometheus text exposition of the counters, the history's size and drops
    /// (`history`) and each listener's connections (`listeners`).
    public func exposition(history: HistoryStore, listeners: [ListenerStatistics]) -> String {
        catchUp()
        let c = counters.withLock { $0 }
        var out = PrometheusText()
        out.family("pushdouble_exchanges_total", .counter,
                   "Exchanges answered, by provider, endpoint, HTTP status (none: no status sent) and reason.")
        for (k, v) in c.exchanges.sorted(by: { ($0.key.provider, $0.key.endpoint, $0.key.status, $0.key.reason) < ($1.key.provider, $1.key.endpoint, $1.key.status, $1.key.reason) }) {
            out.sample("pushdouble_exchanges_total", ["provider": k.provider, "endpoint": k.endpoint, "status": k.status, "reason": k.reason], Double(v))
        }
        out.family("pushdouble_fault_rules_fired_total", .counter, "Exchanges decided by a fault or quota rule, by provider and rule id.")
        for (k, v) in c.rules.sorted(by: { ($0.key.provider, $0.key.rule) < ($1.key.provider, $1.key.rule) }) {
            out.sample("pushdouble_fault_rules_fired_total", ["provider": k.provider, "rule": k.rule], Double(v))
        }
        out.family("pushdouble_exchanges_uncounted_total", .counter,
                   "Exchanges recorded while the metrics reader was a full queue behind (in the history, not in the counters above).")
        out.sample("pushdouble_exchanges_uncounted_total", [:], Double(c.uncounted))
        out.family("pushdouble_request_duration_seconds", .histogram, "Time from a request's arrival to its answer, by provider.")
        for (provider, l) in c.latency.sorted(by: { $0.key < $1.key }) {
            for (i, bound) in Self.latencyBuckets.enumerated() {
                out.sample("pushdouble_request_duration_seconds_bucket", ["provider": provider, "le": PrometheusText.number(bound)], Double(l.buckets[i]))
            }
            out.sample("pushdouble_request_duration_seconds_bucket", ["provider": provider, "le": "+Inf"], Double(l.count))
            out.sample("pushdouble_request_duration_seconds_sum", ["provider": provider], l.sum)
            out.sample("pushdouble_request_duration_seconds_count", ["provider": provider], Double(l.count))
        }
        historyFamilies(history, into: &out)
        connectionFamilies(listeners, into: &out)
        return out.text
    }

    private func historyFamilies(_ h: HistoryStore, into out: inout PrometheusText) {
        out.family("pushdouble_history_exchanges", .gauge, "Exchanges the history holds now.")
        out.sample("pushdouble_history_exchanges", [:], Double(h.count))
        out.family("pushdouble_history_bytes", .gauge, "Bytes the stored exchanges are charged against the history's byte cap.")
        out.sample("pushdouble_history_bytes", [:], Double(h.bytes))
        out.family("pushdouble_history_max_bytes", .gauge, "The history's byte cap.")
        out.sample("pushdouble_history_max_bytes", [:], Double(h.maxBytes))
        out.family("pushdouble_history_dropped_total", .counter, "Exchanges dropped from the history by its count or byte cap.")
        out.sample("pushdouble_history_dropped_total", [:], Double(h.dropped))
    }

    private func connectionFamilies(_ listeners: [ListenerStatistics], into out: inout PrometheusText) {
        let families: [(String, PrometheusText.Kind, String, (ListenerStatistics) -> Int)] = [
            ("pushdouble_connections_open", .gauge, "Connections open now, by listener.", \.openConnections),
            ("pushdouble_connections_refused_total", .counter, "Connections closed at accept (limit reached or no descriptor), by listener.", \.refusedConnections),
            ("pushdouble_connections_shed_total", .counter, "Silent connections closed to make room for a newer one, by listener.", \.shedConnections),
        ]
        for (name, kind, help, value) in families {
            out.family(name, kind, help)
            for l in listeners { out.sample(name, ["listener": l.listener.name], Double(value(l))) }
        }
    }
}

extension ExchangeMetrics.Counters {
    mutating func count(_ entry: HistoryStore.Entry) {
        switch entry {
        case .record(let seq, let box):
            // A packed record is read in place; strings are made only when the key changes.
            box.withLineFields(seq) { f in
                count(provider: f.provider, status: f.status, receivedAt: f.receivedAt, respondedAt: box.respondedAt,
                      same: { key in Self.same(f.endpoint, key.endpoint) && Self.same(f.reason, key.reason) },
                      key: { ExchangeMetrics.ExchangeKey(provider: f.provider, endpoint: f.endpoint.string, status: Self.status(f.status),
                                                          reason: f.reason?.string ?? "") },
                      rule: f.stage == .fault || f.stage == .quota ? f.decisionDetail?.string : nil)
            }
        case .exchange(let e):
            let s = ExchangeSummary(e)
            let provider = s.provider.rawValue
            count(provider: provider, status: s.status, receivedAt: s.receivedAt, respondedAt: e.respondedAt,
                  same: { $0.endpoint == s.endpoint && $0.reason == s.reason ?? "" },
                  key: { ExchangeMetrics.ExchangeKey(provider: provider, endpoint: s.endpoint, status: Self.status(s.status), reason: s.reason ?? "") },
                  rule: s.decidedBy.stage == .fault || s.decidedBy.stage == .quota ? s.decidedBy.detail : nil)
        }
    }

    /// Counts one exchange under the key `key()` makes, unless `same` says the current run's key
    /// (same provider and status checked here) is it.
    private mutating func count(provider: String, status: Int?, receivedAt: Date, respondedAt: Date,
                                same: (ExchangeMetrics.ExchangeKey) -> Bool, key: () -> ExchangeMetrics.ExchangeKey, rule: String?) {
        if let r = run, r.key.provider == provider, r.key.status == Self.status(status), same(r.key) {
            run = (r.key, r.count + 1)
        } else {
            flush()
            run = (key(), 1)
        }
        if let rule { rules[ExchangeMetrics.RuleKey(provider: provider, rule: rule), default: 0] += 1 }
        latency[provider, default: ExchangeMetrics.Latency()].add(max(0, respondedAt.timeIntervalSince(receivedAt)))
    }

    /// Adds the current run to `exchanges`.
    mutating func flush() {
        guard let r = run else { return }
        exchanges[r.key, default: 0] += r.count
        run = nil
    }

    static func status(_ s: Int?) -> String {
        guard let s else { return "none" }
        return s >= 0 && s < statusTexts.count ? statusTexts[s] : String(s)
    }
    /// "0"…"599": the status label without formatting a number per exchange.
    private static let statusTexts = (0..<600).map(String.init)

    private static func same(_ text: ExchangeLine.Text?, _ s: String) -> Bool {
        guard let text else { return s.isEmpty }
        return text.withBytes { b in UTF8Bytes.of(s) { $0.elementsEqual(b) } }
    }
}

extension HistoryStore.Entry {
    /// When the answer was sent (or the exchange otherwise settled).
    var respondedAt: Date {
        switch self { case .record(_, let r): return r.respondedAt; case .exchange(let e): return e.respondedAt }
    }
}

/// Prometheus text exposition format 0.0.4: `# HELP` / `# TYPE` lines, then samples with
/// escaped label values (https://prometheus.io/docs/instrumenting/exposition_formats/).
public struct PrometheusText: Sendable {
    /// A metric family's type.
    public enum Kind: String, Sendable { case counter, gauge, histogram }
    /// The content type of a scrape answer.
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    public private(set) var text = ""
    public init() {}

    public mutating func family(_ name: String, _ kind: Kind, _ help: String) {
        text += "# HELP \(name) \(help.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\n", with: "\\n"))\n"
        text += "# TYPE \(name) \(kind.rawValue)\n"
    }

    /// One sample; labels in name order.
    public mutating func sample(_ name: String, _ labels: [String: String], _ value: Double) {
        text += name
        if !labels.isEmpty {
            text += "{" + labels.sorted { $0.key < $1.key }.map { "\($0.key)=\"\(Self.escape($0.value))\"" }.joined(separator: ",") + "}"
        }
        text += " " + Self.number(value) + "\n"
    }

    /// A label value with `\`, `"` and newlines escaped.
    public static func escape(_ value: String) -> String {
        var s = ""
        for ch in value {
            switch ch {
            case "\\": s += "\\\\"
            case "\"": s += "\\\""
            case "\n": s += "\\n"
            default: s.append(ch)
            }
        }
        return s
    }

    /// A sample value: integers without a fraction, others in Swift's shortest form.
    public static func number(_ v: Double) -> String {
        if v.isInfinite { return v > 0 ? "+Inf" : "-Inf" }
        if v.isNaN { return "NaN" }
        if v == v.rounded(), abs(v) < 1e15 { return String(Int64(v)) }
        return String(v)
    }
}
