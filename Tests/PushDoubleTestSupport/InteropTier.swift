// The test tiers (docs/testing.md). A test class belongs to the interop tier by calling
// ``requireInteropTier(needs:)`` first in its `setUpWithError()`; nothing else lists it.
import Foundation
import XCTest

/// The environment variable naming the tier a run is limited to: `fast` (`bash Tests/run.sh
/// --fast` sets it) is the run without the interop tier. Unset or any other value: every tier runs.
public let testTierVariable = "PUSHDOUBLE_TIER"

/// Whether this run is the fast tier (`PUSHDOUBLE_TIER=fast`).
public var isFastTierRun: Bool { ProcessInfo.processInfo.environment[testTierVariable] == "fast" }

/// Marks the calling test as interop tier: it drives external tools or whole processes
/// (`needs`, e.g. `"curl"`, `"python3 (firebase-admin)"`, `"the reference sender's process"`).
/// `bash Tests/run.sh --fast` leaves every class that calls it out of the run
/// (Tests/interop-classes.sh finds them in the source), so in a fast-tier run it is never
/// reached; if it is (a class the listing missed), the test fails naming what it needs. Otherwise
/// it does nothing, and a missing tool is reported by ``requireTool(_:)`` as a failure.
///
/// Call it first in `setUpWithError()`, so the whole class is one tier:
///
///     override func setUpWithError() throws { try requireInteropTier(needs: "curl") }
public func requireInteropTier(needs: String...) throws {
    guard isFastTierRun else { return }
    let what = needs.isEmpty ? "" : " (needs " + needs.joined(separator: ", ") + ")"
    throw InteropTierError(description: "an interop-tier test\(what) ran in the fast tier: Tests/interop-classes.sh did not list its class")
}

/// An interop-tier test reached in a fast-tier run.
public struct InteropTierError: Error, CustomStringConvertible {
    public var description: String
}
