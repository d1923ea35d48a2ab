#if canImport(XCTest)
import XCTest

extension XCTestCase {
    /// A fresh double for the running test, started with `configuration` and stopped at the
    /// test's end (a teardown block, so after `tearDown`). Call it in `setUp` or in the test:
    /// each test gets its own double, its own ports and an empty history.
    ///
    /// ```swift
    /// final class SenderTests: XCTestCase {
    ///     var double: PushDoubleServer!
    ///     override func setUpWithError() throws { double = try startPushDouble(.ephemeral(tls: false)) }
    /// }
    /// ```
    public func startPushDouble(_ configuration: PushDoubleConfiguration = .ephemeral()) throws -> PushDoubleServer {
        let double = PushDoubleServer(configuration: configuration)
        try double.start()
        addTeardownBlock { double.stop() }
        return double
    }
}
#endif
