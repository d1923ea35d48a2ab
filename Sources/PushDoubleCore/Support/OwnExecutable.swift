import Foundation

/// The running program's own file, for what lives next to it (the shipped scenarios) and for
/// children that should run the same `pushdouble` (`PUSHDOUBLE_BIN`).
public enum OwnExecutable {
    /// `/proc/self/exe`, resolved; nil where there is none (not Linux). When it is an anonymous
    /// memory file, the container image's launcher inflated this binary into one
    /// (docs/containers.md "Size") and named its own path, the one users run, in
    /// `PUSHDOUBLE_EXECUTABLE`; the variable is read only then, so an inherited one never
    /// misleads a binary started from a real file.
    public static let path: String? = resolve(
        procSelfExe: try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"),
        environment: ProcessInfo.processInfo.environment)

    /// The rule of ``path``, given the link's target and the environment.
    public static func resolve(procSelfExe: String?, environment: [String: String]) -> String? {
        guard let exe = procSelfExe else { return nil }
        if exe.hasPrefix("/memfd:"), let launcher = environment["PUSHDOUBLE_EXECUTABLE"], launcher.hasPrefix("/") {
            return launcher
        }
        return exe
    }
}
