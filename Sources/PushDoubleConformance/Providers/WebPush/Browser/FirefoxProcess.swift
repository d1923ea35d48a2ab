import Foundation
import PushDouble

/// A headless Firefox whose push service is a double's autopush listener, opened on one page
/// (docs/webpush.md "Browsers over the autopush WebSocket protocol"). The profile carries the
/// preferences the Python kit's launcher writes (`pushdouble.browser.PUSH_PREFS`,
/// `OFFLINE_PREFS`, kept equal by `RealBrowserCaseTests`) but `marionette.port` and
/// `browser.startup.page` (no Marionette: the start-up page itself subscribes and reports over
/// HTTP), plus `network.proxy.type`.
final class FirefoxProcess: Sendable {
    /// Preferences that make Firefox use the double as its push service, headless and offline
    /// (`dom.push.connection.enabled` must be set: automation turns it off otherwise).
    static let preferences: [(String, String)] = [
        ("dom.push.enabled", "true"), ("dom.push.connection.enabled", "true"),
        ("dom.push.testing.allowInsecureServerURL", "true"), ("dom.push.testing.ignorePermission", "true"),
        ("permissions.default.desktop-notification", "1"), ("alerts.useSystemBackend", "false"),
        ("dom.serviceWorkers.enabled", "true"), ("dom.serviceWorkers.testing.enabled", "true"),
        ("dom.push.retryBaseInterval", "500"),
        // A quiet, offline start: no first-run pages, updates, telemetry or remote services.
        ("browser.shell.checkDefaultBrowser", "false"), ("browser.startup.homepage_override.mstone", "\"ignore\""),
        ("browser.newtabpage.enabled", "false"), ("app.update.disabledForTesting", "true"), ("app.normandy.enabled", "false"),
        ("datareporting.policy.dataSubmissionEnabled", "false"), ("toolkit.telemetry.reportingpolicy.firstRun", "false"),
        ("network.captive-portal-service.enabled", "false"), ("network.connectivity-service.enabled", "false"),
        ("network.manage-offline-status", "false"), ("browser.safebrowsing.malware.enabled", "false"),
        ("browser.safebrowsing.phishing.enabled", "false"), ("extensions.update.enabled", "false"),
        ("services.settings.server", "\"data:,#remote-settings-disabled\""),
        // No proxy from the environment (Firefox's default reads http_proxy): all is loopback.
        ("network.proxy.type", "0"),
    ]

    /// The binaries looked for on `PATH`, in order, after `$PUSHDOUBLE_FIREFOX`.
    static let binaries = ["firefox-esr", "firefox"]

    /// The Firefox binary: `$PUSHDOUBLE_FIREFOX`, else the first of ``binaries`` on `PATH`.
    static func find(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        if let explicit = environment["PUSHDOUBLE_FIREFOX"], !explicit.isEmpty { return explicit }
        let dirs = (environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":").map(String.init)
        for name in binaries {
            for dir in dirs where FileManager.default.isExecutableFile(atPath: dir + "/" + name) { return dir + "/" + name }
        }
        return nil
    }

    /// `user.js` for a push service at `serverURL` (`ws://…`).
    static func userJS(serverURL: String) -> String {
        (preferences + [("dom.push.serverURL", "\"\(serverURL)\"")]).map { "user_pref(\"\($0.0)\", \($0.1));\n" }.joined()
    }

    let profile: String
    let process: SenderProcess

    /// Writes a fresh profile and starts `binary` headless on `page`.
    init(binary: String, serverURL: String, page: String) throws {
        profile = NSTemporaryDirectory() + "pushdouble-firefox-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: profile, withIntermediateDirectories: true)
        try Self.userJS(serverURL: serverURL).write(toFile: profile + "/user.js", atomically: true, encoding: .utf8)
        let command = ["exec", binary, "-headless", "-no-remote", "-profile", profile, page].map(SenderKit.shellQuote).joined(separator: " ")
        do {
            process = try SenderProcess(command: command, environment: ["MOZ_CRASHREPORTER_DISABLE": "1"])
        } catch {
            try? FileManager.default.removeItem(atPath: profile)
            throw error
        }
    }

    /// Why Firefox is no longer running (its exit and the end of its output), nil while it runs.
    var exitText: String? {
        guard let status = process.exitDescription else { return nil }
        return "Firefox exited (\(status)): " + String(process.log.suffix(2000))
    }

    /// Ends Firefox and every process it started, and removes the profile.
    func stop() {
        process.terminate(grace: 0)
        try? FileManager.default.removeItem(atPath: profile)
    }
}
