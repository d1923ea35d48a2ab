/// A route path pattern such as `/3/device/:token` or `/static/*`, parsed once.
///
/// Segments are literal (`device`), a named parameter (`:token`, matches exactly one
/// non-empty segment) or a trailing wildcard (`*`, matches the rest, possibly empty).
/// Matching is on the raw path (no percent-decoding), without the query string.
public struct RoutePattern: Sendable, Equatable, CustomStringConvertible {
    enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
        case wildcard
    }

    let segments: [Segment]
    public let description: String

    /// Why a pattern string is not a valid ``RoutePattern``.
    public struct Invalid: Error, Equatable, CustomStringConvertible {
        public var pattern: String
        public var reason: String
        public var description: String { "invalid route pattern \"\(pattern)\": \(reason)" }
    }

    public init(_ pattern: String) throws(Invalid) {
        guard pattern.hasPrefix("/") else { throw Invalid(pattern: pattern, reason: "it must start with /") }
        var segs: [Segment] = []
        let parts = pattern.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        var names = Set<String>()
        for (i, p) in parts.enumerated() {
            if p == "*" {
                guard i == parts.count - 1 else { throw Invalid(pattern: pattern, reason: "* is only allowed as the last segment") }
                segs.append(.wildcard)
            } else if p.hasPrefix(":") {
                let name = String(p.dropFirst())
                guard !name.isEmpty else { throw Invalid(pattern: pattern, reason: "a parameter needs a name after :") }
                guard names.insert(name).inserted else { throw Invalid(pattern: pattern, reason: "parameter :\(name) appears twice") }
                segs.append(.parameter(name))
            } else {
                segs.append(.literal(String(p)))
            }
        }
        segments = segs
        description = pattern
    }

    /// Matches `path` (no query); on success returns the captured parameters.
    func match(_ path: Substring) -> RouteParameters? {
        guard path.first == "/" else { return nil }
        let segs = path.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        var params = RouteParameters()
        for (i, pat) in segments.enumerated() {
            switch pat {
            case .wildcard:
                // "/static/*" matches "/static/" and "/static/a/b", not "/static".
                guard i < segs.count else { return nil }
                params.wildcard = String(path[segs[i].startIndex...])
                return params
            case .literal(let lit):
                guard i < segs.count, segs[i] == lit else { return nil }
            case .parameter(let name):
                guard i < segs.count, !segs[i].isEmpty else { return nil }
                params.values.append((name, String(segs[i])))
            }
        }
        return segs.count == segments.count ? params : nil
    }
}
