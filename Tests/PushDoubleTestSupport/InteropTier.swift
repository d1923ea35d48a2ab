// The test tiers (docs/testing.md). A test class belongs to the interop tier by calling
// ``requireInteropTier(needs:)`` first in its `setUpWithError()`; nothing else lists it.
import Foundation
import XCTest

/// The environment variable naming the tier a run is limited to: `fast` skips the interop tier
/// (`bash Tests/run.sh --fast` sets it). Unset or any other value: every tier runs.
public let testTierVariable = "PUSHDOUBLE_TIER"

/// Whether this run is the fast tier (`PUSHDOUBLE_TIER=fast`).
public var isFastTierRun: Bool { ProcessInfo.processInfo.environment[testTierVariable] == "fast" }

/// Marks the calling test as interop tier: it drives external tools or whole processes
/// (`needs`, e.g. `"curl"`, `"python3 (firebase-admin)"`, `"the reference sender's process"`).
/// In a fast-tier run it throws `XCTSkip` naming what it needs; otherwise it does nothing, and a
/// missing tool is reported by ``requireTool(_:)`` as a failure, not a skip.
///
/// Call it first in `setUpWithError()`, so the whole class is one tier:
///
///     override func setUpWithError() throws { try requireInteropTier(needs: "curl") }
public func requireInteropTier(needs: String...) throws {
    guard isFastTierRun else { return }
    let what = needs.isEmpty ? "" : " (needs " + needs.joined(separator: ", ") + ")"
    throw XCTSkip("interop tier\(what): skipped because \(testTierVariable)=fast")
}
