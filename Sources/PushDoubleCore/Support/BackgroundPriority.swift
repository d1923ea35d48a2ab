import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Work that must never slow the providers down (history dumps, the history stream's
/// fan-out) runs on threads with a lower scheduling priority: under load the event loops get
/// the CPU first, and the background work falls behind instead.
public enum BackgroundPriority {
    /// The nice value given to such threads.
    public static let nice: Int32 = 10

    /// Lowers the calling thread's priority (Linux threads have their own nice value; the
    /// `who` 0 of `setpriority` is the calling thread there). A no-op elsewhere.
    public static func lowerCurrentThread() {
        #if os(Linux)
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, nice)
        #endif
    }
}
