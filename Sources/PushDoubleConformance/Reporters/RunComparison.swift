import Foundation

/// What a sender did differently between two runs (`conform --compare OLD.json`): per case
/// present in both, the checks that newly fail or warn, the ones that recovered, and the cost
/// figures (``CaseCosts``) with their deltas, so a change that breaks no MUST rule (a
/// connection per push, retrying a 410, a JWT per request) still shows in review.
public struct RunComparison: Sendable {
    /// One case's difference.
    public struct CaseDiff: Sendable {
        public var id: String
        public var oldVerdict: Verdict
        public var newVerdict: Verdict
        /// `CHECK verdict` now failing or warning that did not before.
        public var regressions: [String]
        /// `CHECK` failing or warning before that no longer does.
        public var recoveries: [String]
        public var oldCosts: CaseCosts?
        public var newCosts: CaseCosts?
        /// The cost figures that differ: name, old, new.
        public var costChanges: [(name: String, old: Double?, new: Double?)] {
            guard let o = oldCosts?.figures, let n = newCosts?.figures else { return [] }
            return zip(o, n).filter { pair in pair.0.value != pair.1.value }.map { pair in (pair.0.name, pair.0.value, pair.1.value) }
        }
        public var changed: Bool { oldVerdict != newVerdict || !regressions.isEmpty || !recoveries.isEmpty || !costChanges.isEmpty }
    }

    public var cases: [CaseDiff]
    /// Case ids only in the new run, and only in the old one.
    public var added: [String]
    public var removed: [String]
    /// Summed figures over the cases both runs have.
    public var oldTotal: CaseCosts
    public var newTotal: CaseCosts

    public init(old: RunReport, new: RunReport) {
        let before = Dictionary(old.cases.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let nowIDs = Set(new.cases.map(\.id))
        var diffs: [CaseDiff] = []
        for c in new.cases {
            guard let o = before[c.id] else { continue }
            func problems(_ r: CaseResult) -> [String: Verdict] {
                Dictionary(r.checks.filter { $0.verdict == .fail || $0.verdict == .warn }.map { ($0.id, $0.verdict) }, uniquingKeysWith: max)
            }
            let was = problems(o), now = problems(c)
            diffs.append(CaseDiff(id: c.id, oldVerdict: o.verdict, newVerdict: c.verdict,
                                  regressions: now.filter { was[$0.key] != $0.value && (was[$0.key] ?? .pass) < $0.value }
                                      .map { "\($0.key) \($0.value.rawValue)" }.sorted(),
                                  recoveries: was.keys.filter { now[$0] == nil }.sorted(),
                                  oldCosts: o.costs, newCosts: c.costs))
        }
        cases = diffs
        added = new.cases.map(\.id).filter { before[$0] == nil }
        removed = old.cases.map(\.id).filter { !nowIDs.contains($0) }
        oldTotal = CaseCosts.total(diffs.compactMap { $0.oldCosts == nil || $0.newCosts == nil ? nil : $0.oldCosts })
        newTotal = CaseCosts.total(diffs.compactMap { $0.oldCosts == nil || $0.newCosts == nil ? nil : $0.newCosts })
    }

    /// "3 → 5 (+2)", "1.00 → 2.50 (+1.50)", "— → 1".
    public static func delta(_ old: Double?, _ new: Double?) -> String {
        func f(_ v: Double?) -> String {
            guard let v else { return "—" }
            return v == v.rounded() ? String(Int(v)) : String(format: "%.2f", v)
        }
        guard let o = old, let n = new else { return "\(f(old)) → \(f(new))" }
        let d = n - o
        return "\(f(o)) → \(f(n)) (" + (d >= 0 ? "+" : "-") + f(abs(d)) + ")"
    }

    /// The diff as text: every changed case, then the totals.
    public func render(oldName: String) -> String {
        var out = "behaviour diff against \(oldName):\n"
        let changed = cases.filter(\.changed)
        if changed.isEmpty { out += "  no case behaved differently\n" }
        for c in changed {
            out += "  \(c.id): \(c.oldVerdict.rawValue) → \(c.newVerdict.rawValue)\n"
            for r in c.regressions { out += "    now \(r)\n" }
            for r in c.recoveries { out += "    no longer fails/warns: \(r)\n" }
            for f in c.costChanges { out += "    \(f.name): " + Self.delta(f.old, f.new) + "\n" }
        }
        if !added.isEmpty { out += "  only in this run: \(added.joined(separator: ", "))\n" }
        if !removed.isEmpty { out += "  only in \(oldName): \(removed.joined(separator: ", "))\n" }
        out += "  total over \(cases.count) cases in both runs:\n"
        for (o, n) in zip(oldTotal.figures, newTotal.figures) { out += "    \(o.name): " + Self.delta(o.value, n.value) + "\n" }
        return out
    }
}
