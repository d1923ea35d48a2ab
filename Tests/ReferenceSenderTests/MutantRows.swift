// The sender's mutant table, imported in this file only (no name of the executable meets the
// test helpers' names elsewhere).
@testable import ReferenceSender

/// The `--list-mutants` lines the sender's table (``Mutant``, one per provider plus the shared
/// bugs) should print, in order.
enum MutantRows {
    static var listing: [String] { Mutant.allCases.map(\.listing) }
}
