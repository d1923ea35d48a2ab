import Foundation
// The sender's own mutant rows; imported in this file only, so no name of the executable
// meets the runner's names elsewhere in these tests.
@testable import ReferenceSender

/// The reference sender's planted bugs as the runner's tests pair them with the suite: read
/// from the sender's one table per provider (``Mutant``: `Sources/ReferenceSender/<Name>/<Name>Mutants.swift`,
/// the shared bugs in `Shared/Mutant.swift`). The judge itself names no mutant.
enum SenderMutants {
    /// One mutant: its name, summary, the checks it must fail, and whose table declares it
    /// (nil: the shared bugs, planted in every provider's sender).
    struct Row: Sendable {
        let name: String
        let summary: String
        let failingChecks: [String]
        let provider: String?
    }

    /// Every row, the shared table first, then each registered provider's, in registry order.
    static var all: [Row] {
        let tables: [(String?, [Mutant])] = [(nil, Mutant.generic)] + SenderProviders.all.map { ($0.id, $0.mutants) }
        return tables.flatMap { provider, mutants in
            mutants.map { Row(name: $0.rawValue, summary: $0.summary, failingChecks: $0.failingChecks, provider: provider) }
        }
    }
}
