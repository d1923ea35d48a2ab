/// The `apns-push-type` values and the topic suffix each requires (docs/apns.md §3).
public enum APNsPushType: String, Sendable, CaseIterable, Codable {
    case alert, background, location, voip, complication, fileprovider, mdm, liveactivity, pushtotalk, widgets, controls

    /// The suffix `apns-topic` must carry after the bundle id ("" = the bare bundle id).
    /// `mdm` has no suffix rule: its topic comes from the MDM certificate.
    public var topicSuffix: String {
        switch self {
        case .alert, .background, .mdm: return ""
        case .location: return ".location-query"
        case .voip: return ".voip"
        case .complication: return ".complication"
        case .fileprovider: return ".pushkit.fileprovider"
        case .liveactivity: return ".push-type.liveactivity"
        case .pushtotalk: return ".voip-ptt"
        case .widgets: return ".push-type.widgets"
        case .controls: return ".push-type.controls"
        }
    }

    /// Whether Apple's payload for this type is `{"aps":{"content-changed":true}}`: WidgetKit
    /// widget and control reloads (docs/apns.md §3). The fake does not refuse other payloads
    /// (Apple documents no error for them); the conformance mapping check expects the key.
    public var signalsContentChanged: Bool { self == .widgets || self == .controls }

    /// Largest payload in bytes (docs/apns.md §4): 5120 for VoIP, 4096 otherwise.
    public var payloadLimit: Int { self == .voip ? 5120 : 4096 }

    /// Known suffixes, longest first, so that `.voip-ptt` is not read as `.voip`.
    static let suffixesLongestFirst: [(suffix: String, type: APNsPushType)] = APNsPushType.allCases
        .filter { !$0.topicSuffix.isEmpty }
        .map { ($0.topicSuffix, $0) }
        .sorted { $0.suffix.utf8.count > $1.suffix.utf8.count }

    /// The push type whose suffix `topic` ends with, and the bundle id before it
    /// (nil type = no known suffix, the topic is a bare bundle id).
    public static func splitTopic(_ topic: String) -> (bundleID: String, suffixType: APNsPushType?) {
        // Byte comparison: every suffix ends in a letter, and `String.hasSuffix` (Unicode
        // aware) showed up on the request path. Topics are ASCII when well-formed.
        var t = topic
        let found: (Int, APNsPushType)? = t.withUTF8 { u in
            guard let last = u.last, last >= 0x61 && last <= 0x7A else { return nil }
            for (suffix, type) in suffixesLongestFirst {
                let n = suffix.utf8.count
                guard u.count > n else { continue }
                var matches = true
                var j = u.count - n
                for c in suffix.utf8 { if u[j] != c { matches = false; break }; j += 1 }
                if matches { return (u.count - n, type) }
            }
            return nil
        }
        guard let (bundleBytes, type) = found else { return (topic, nil) }
        return (String(decoding: topic.utf8.prefix(bundleBytes), as: UTF8.self), type)
    }
}

/// The two APNs environments, their host names and the listener names of the fake.
public enum APNsEnvironment: String, Sendable, Codable, CaseIterable {
    case production, sandbox

    /// The real host name (docs/apns.md §1).
    public var host: String { self == .production ? "api.push.apple.com" : "api.sandbox.push.apple.com" }
    /// Every real host name of this environment with the ports Apple serves (443 and 2197,
    /// docs/apns.md §1): what the CONNECT proxy routes to this environment's listener.
    public var realHosts: [String] {
        let names = self == .production ? ["api.push.apple.com"] : ["api.sandbox.push.apple.com", "api.development.push.apple.com"]
        return names.flatMap { [$0 + ":443", $0 + ":2197"] }
    }
    /// The name of the fake's listener for this environment (``ConnectionInfo/listener``).
    public var listenerName: String { self == .production ? "apns-production" : "apns-sandbox" }

    /// The environment a real APNs host name designates (`:authority` or SNI, port
    /// ignored, case-insensitive), or nil when it is not one of Apple's hosts.
    /// `api.development.push.apple.com` is the older sandbox alias.
    public static func fromHost(_ authority: String) -> APNsEnvironment? {
        var host = Substring(authority)
        if let colon = host.lastIndex(of: ":"), !host.hasPrefix("[") { host = host[..<colon] }
        if host.hasSuffix(".") { host = host.dropLast() }
        // Cheap reject without allocating: the three names are 18, 26 and 30 bytes long.
        let n = host.utf8.count
        guard n == 18 || n == 26 || n == 30 else { return nil }
        let h = host.lowercased()
        switch h {
        case "api.push.apple.com": return .production
        case "api.sandbox.push.apple.com", "api.development.push.apple.com": return .sandbox
        default: return nil
        }
    }

    /// The environment by listener name ("apns-production" / "apns-sandbox"), if it is one.
    public static func fromListener(_ name: String) -> APNsEnvironment? {
        switch name {
        case "apns-production": return .production
        case "apns-sandbox": return .sandbox
        default: return nil
        }
    }
}
