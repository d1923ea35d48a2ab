import PushDoubleCore
import PushDoubleTransport
@testable import pushdouble

/// What a command wrote to one of its consoles.
final class Captured: Sendable {
    let text = Locked("")
    var console: Console { Console(sink: { s in self.text.withLock { $0 += s } }) }
    var value: String { text.withLock { $0 } }
}
