/// The path parameters (and trailing wildcard) a route captured from a request path.
public struct RouteParameters: Sendable, Equatable {
    var values: [(String, String)] = []
    /// What a trailing `*` matched (without the leading slash), if the route has one.
    public internal(set) var wildcard: String?

    public init() {}

    /// The value of `:name`, raw (not percent-decoded).
    public subscript(_ name: String) -> String? {
        for (n, v) in values where n == name { return v }
        return nil
    }

    /// Every captured parameter, in pattern order.
    public var all: [(name: String, value: String)] { values.map { ($0.0, $0.1) } }

    public static func == (a: RouteParameters, b: RouteParameters) -> Bool {
        a.wildcard == b.wildcard && a.values.elementsEqual(b.values) { $0.0 == $1.0 && $0.1 == $1.1 }
    }
}

/// A route handler: the request, its path parameters, and the connection context.
public typealias RouteHandler = @Sendable (HTTPRequest, RouteParameters, RequestContext) -> ResponseAction

/// A mutable builder of routes (method + path pattern + optional host) that freezes into an
/// immutable ``RouterResponder`` with ``build()``.
///
/// ```swift
/// var router = Router()
/// router.on("POST", "/3/device/:token") { request, params, context in
///     .respond(HTTPResponse(status: 200, headers: ["apns-id": UUID().uuidString]))
/// }
/// router.notFound = { request, _ in .respond(HTTPResponse(status: 404, contentType: "application/json", body: "{\"reason\":\"BadPath\"}")) }
/// let responder = router.build()
/// ```
///
/// Matching: the first registered route whose host and pattern match wins. If some route
/// matches host and path but none the method, ``methodNotAllowed`` answers (405 with
/// `allow` by default); if no route matches the path, ``notFound`` (404 by default).
public struct Router: Sendable {
    struct Route: Sendable {
        var method: String
        var pattern: RoutePattern
        /// Lowercased host to match against the request authority without its port; nil = any.
        var host: String?
        var handler: RouteHandler
    }

    var routes: [Route] = []

    /// Answers requests no route matches. Default: 404 text/plain.
    public var notFound: @Sendable (HTTPRequest, RequestContext) -> ResponseAction = { request, _ in
        .respond(HTTPResponse(status: 404, contentType: "text/plain; charset=utf-8", body: "No route for \(request.method) \(request.pathWithoutQuery)\n"))
    }

    /// Answers requests whose path matches but not the method; gets the allowed methods.
    /// Default: 405 with an `allow` header.
    public var methodNotAllowed: @Sendable (HTTPRequest, [String], RequestContext) -> ResponseAction = { request, allowed, _ in
        var h = HTTPHeaders()
        h.add(name: "allow", value: allowed.joined(separator: ", "))
        return .respond(HTTPResponse(status: 405, contentType: "text/plain; charset=utf-8",
                                     body: "\(request.method) is not allowed on \(request.pathWithoutQuery)\n", headers: h))
    }

    /// Shapes transport-refused requests (see ``Responder/limitExceeded(_:head:context:)``);
    /// nil = the transport's default plain-text error.
    public var limitExceeded: (@Sendable (LimitViolation, HTTPRequest, RequestContext) -> HTTPResponse?)?

    /// Hears streams the transport turned away (see ``Responder/streamRefused(_:head:context:)``).
    public var streamRefused: (@Sendable (StreamRefusal, HTTPRequest, RequestContext) -> Void)?

    /// Hears every finished response (see ``Responder/responseCompleted(for:outcome:)``).
    public var responseCompleted: (@Sendable (RequestInfo, ResponseOutcome) -> Void)?

    public init() {}

    /// Adds a route. `pattern` must be valid (see ``RoutePattern``): an invalid pattern is a
    /// programming error and traps with the reason; use ``add(_:_:host:_:)`` to get it as an error.
    public mutating func on(_ method: String, _ pattern: String, host: String? = nil, _ handler: @escaping RouteHandler) {
        do { try add(method, pattern, host: host, handler) } catch { preconditionFailure(error.description) }
    }

    /// Adds a route, throwing ``RoutePattern/Invalid`` for a bad pattern.
    public mutating func add(_ method: String, _ pattern: String, host: String? = nil, _ handler: @escaping RouteHandler) throws(RoutePattern.Invalid) {
        routes.append(Route(method: method, pattern: try RoutePattern(pattern), host: host?.lowercased(), handler: handler))
    }

    public mutating func get(_ pattern: String, host: String? = nil, _ handler: @escaping RouteHandler) { on("GET", pattern, host: host, handler) }
    public mutating func post(_ pattern: String, host: String? = nil, _ handler: @escaping RouteHandler) { on("POST", pattern, host: host, handler) }
    public mutating func put(_ pattern: String, host: String? = nil, _ handler: @escaping RouteHandler) { on("PUT", pattern, host: host, handler) }
    public mutating func delete(_ pattern: String, host: String? = nil, _ handler: @escaping RouteHandler) { on("DELETE", pattern, host: host, handler) }

    /// Freezes the routes into a responder.
    public func build() -> RouterResponder { RouterResponder(self) }
}

/// The immutable, thread-safe responder a ``Router`` builds: dispatches each request to the
/// first matching route.
public final class RouterResponder: Responder {
    private let router: Router

    init(_ router: Router) { self.router = router }

    /// The host part of an authority ("Host.example:443" → "host.example"; "[::1]:8443" → "[::1]").
    static func hostOnly(_ authority: String?) -> Substring? {
        guard let a = authority else { return nil }
        if a.utf8.first != UInt8(ascii: "["), let colon = ASCIIText.lastIndex(of: UInt8(ascii: ":"), in: a) {
            // ASCII (the usual case) and no bracket: the bytes answer what the Characters would.
            guard let colon else { return a[...] }
            return a[..<colon]
        }
        if a.hasPrefix("[") {
            if let close = a.firstIndex(of: "]") { return a[...close] }
            return a[...]
        }
        if let colon = a.lastIndex(of: ":") { return a[..<colon] }
        return a[...]
    }

    public func respond(to request: HTTPRequest, context: RequestContext) -> ResponseAction {
        let path = request.pathWithoutQuery
        let host = Self.hostOnly(request.authority)
        var allowed: [String] = []
        for route in router.routes {
            if let want = route.host {
                // The byte count first (equalsIgnoringCase compares bytes, ASCII case folded).
                guard let host, host.utf8.count == want.utf8.count, HTTPHeaders.equalsIgnoringCase(String(host), want) else { continue }
            }
            guard let params = route.pattern.match(path) else { continue }
            if route.method == request.method { return route.handler(request, params, context) }
            if !allowed.contains(route.method) { allowed.append(route.method) }
        }
        if !allowed.isEmpty { return router.methodNotAllowed(request, allowed, context) }
        return router.notFound(request, context)
    }

    public func responseCompleted(for request: RequestInfo, outcome: ResponseOutcome) {
        router.responseCompleted?(request, outcome)
    }

    public func limitExceeded(_ violation: LimitViolation, head: HTTPRequest, context: RequestContext) -> HTTPResponse? {
        if let custom = router.limitExceeded { return custom(violation, head, context) }
        return HTTPResponse(status: violation.suggestedStatus, contentType: "text/plain; charset=utf-8", body: violation.message + "\n")
    }

    public func streamRefused(_ refusal: StreamRefusal, head: HTTPRequest, context: RequestContext) {
        router.streamRefused?(refusal, head, context)
    }
}
