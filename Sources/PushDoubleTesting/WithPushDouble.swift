@_exported import PushDouble

/// Runs `body` with a fresh double, started with `configuration` and stopped (listeners closed,
/// sender-kit files removed) when `body` returns or throws: the scoped form for Swift Testing,
/// or any async code.
///
/// ```swift
/// @Test func sendsAnAlert() async throws {
///     try await withPushDouble(.ephemeral(tls: false)) { double in
///         let apns = double.endpoint(named: "apns-sandbox")!.url   // http://127.0.0.1:…
///         // … drive the sender …
///         #expect(double.history.apnsPushes.first?.alert?.title == "Hi")
///     }
/// }
/// ```
public func withPushDouble<T>(_ configuration: PushDoubleConfiguration = .ephemeral(),
                              isolation: isolated (any Actor)? = #isolation,
                              _ body: (PushDoubleServer) async throws -> T) async throws -> T {
    let double = PushDoubleServer(configuration: configuration)
    try double.start()
    defer { double.stop() }
    return try await body(double)
}
