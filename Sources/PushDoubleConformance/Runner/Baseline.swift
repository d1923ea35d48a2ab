import Foundation

/// One known failure: a check id on a case id.
public struct BaselineEntry: Sendable, Codable, Hashable {
    public var `case`: String
    public var check: String
    public init(case c: String, check: String) { self.case = c; self.check = check }
}

/// Known failures (`--baseline FILE`): a run fails only on new ones and reports fixed ones.
/// An entry excuses a MUST failure or a SHOULD warning (`--fail-on warn`) of its check.
///
/// File format: JSON `{"knownFailures":[{"case":"apns.unregistered","check":"apns.no-retry-permanent"}]}`,
/// or plain text with one `CASE-ID CHECK-ID` pair per line (`#` starts a comment).
public struct Baseline: Sendable, Equatable {
    public var entries: Set<BaselineEntry>
    public init(_ entries: Set<BaselineEntry> = []) { self.entries = entries }

    /// Why a baseline file could not be read.
    public struct LoadError: Error, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }

    public static func load(_ path: String) throws -> Baseline {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw LoadError(description: "baseline file \(path) cannot be read")
        }
        return try parse(data, name: path)
    }

    public static func parse(_ data: Data, name: String) throws -> Baseline {
        let text = String(decoding: data, as: UTF8.self)
        if text.trimmingCharacters(in: .whitespacesAndNewlines).hasPrefix("{") {
            struct File: Decodable { var knownFailures: [BaselineEntry] }
            do { return Baseline(Set(try JSONDecoder().decode(File.self, from: data).knownFailures)) }
            catch { throw LoadError(description: "baseline \(name): expected {\"knownFailures\":[{\"case\":…,\"check\":…}]} (\(error))") }
        }
        var out: Set<BaselineEntry> = []
        for (n, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init)?
                .trimmingCharacters(in: .whitespaces) ?? ""
            if line.isEmpty { continue }
            let parts = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard parts.count == 2 else { throw LoadError(description: "baseline \(name):\(n + 1): expected \"CASE-ID CHECK-ID\"") }
            out.insert(BaselineEntry(case: String(parts[0]), check: String(parts[1])))
        }
        return Baseline(out)
    }

    /// The entries that name no case among `scenarios` (every loaded case, selected or not), or
    /// a check that case does not run (`driver.protocol` is every case's), each as
    /// `"CASE CHECK: why"`; empty when every entry names a real check of a real case.
    public func unknownEntries(in scenarios: [ConformanceScenario]) -> [String] {
        let byID = Dictionary(scenarios.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        var out: [String] = []
        for e in entries.sorted(by: { ($0.case, $0.check) < ($1.case, $1.check) }) {
            guard let s = byID[e.case] else { out.append("\(e.case) \(e.check): no such case"); continue }
            let checks = Set(s.checks.map { CheckCatalogue.canonicalID($0.id) } + [CheckCatalogue.driverCheckID])
            if !checks.contains(CheckCatalogue.canonicalID(e.check)) {
                out.append("\(e.case) \(e.check): the case has no such check (its checks: \(s.checks.map(\.id).joined(separator: ", ")))")
            }
        }
        return out
    }

    /// This baseline without the entries `report` found fixed (`--update-baseline`): the known
    /// failures that still fail, and the entries of cases that did not run.
    public func removingFixed(_ report: RunReport) -> Baseline {
        Baseline(entries.subtracting(report.fixed))
    }

    /// Marks known failures and warnings in `report` and records fixed entries (those whose
    /// case ran and whose check no longer fails or warns).
    /// Check ids are compared by their canonical id, so an entry naming an old id
    /// (`apns.no-retry-permanent`) matches a result under the generic one and the reverse.
    public func apply(to report: inout RunReport) {
        func canonical(_ e: BaselineEntry) -> BaselineEntry { BaselineEntry(case: e.case, check: CheckCatalogue.canonicalID(e.check)) }
        let known = Set(entries.map(canonical))
        var stillFailing: Set<BaselineEntry> = []
        for i in report.cases.indices {
            for j in report.cases[i].checks.indices where [.fail, .warn].contains(report.cases[i].checks[j].verdict) {
                let e = canonical(BaselineEntry(case: report.cases[i].id, check: report.cases[i].checks[j].id))
                if known.contains(e) { report.cases[i].checks[j].known = true; stillFailing.insert(e) }
            }
        }
        let ran = Set(report.cases.filter { $0.verdict != .notApplicable }.map(\.id))
        report.fixed = entries.filter { ran.contains($0.case) && !stillFailing.contains(canonical($0)) }
            .sorted { ($0.case, $0.check) < ($1.case, $1.check) }
    }

    /// The baseline that would excuse every failure and warning of `report`.
    public static func from(_ report: RunReport) -> Baseline {
        Baseline(Set(report.cases.flatMap { c in
            c.checks.filter { [.fail, .warn].contains($0.verdict) }.map { BaselineEntry(case: c.id, check: $0.id) }
        }))
    }

    public func jsonData() -> Data {
        struct File: Encodable { var knownFailures: [BaselineEntry] }
        let e = JSONEncoder(); e.outputFormatting = [.prettyPrinted, .sortedKeys]
        return (try? e.encode(File(knownFailures: entries.sorted { ($0.case, $0.check) < ($1.case, $1.check) }))) ?? Data()
    }
}
