import Foundation
import PushDoubleCore
import PushDoubleWebPush

/// `webpush.declarative`: a declarative Web Push message a sender sends is one the browser
/// shows (docs/webpush.md "Declarative Web Push"). Judged for the messages that claim to be
/// declarative (decrypted text with `web_push`) and those to subscriptions the application
/// marked declarative (`"declarative": true`, the driver feature `declarative`); n/a otherwise.
extension WebPushChecks {
    static let declarative = CheckDefinition(
        id: "webpush.declarative",
        title: "A declarative message is well-formed: web_push 8030, a notification with a string title and an absolute navigate URL (the notification's link), app_badge and mutable of their types",
        reference: "webpush.md \"Declarative Web Push\" (WebKit, Meet Declarative Web Push; the Push API's declarative push message)",
        severity: .must
    ) { ctx in
        let marked = Set(ctx.scenario.devices.filter(\.wantsDeclarativeWebPush).map(\.id))
        return perRequest(ctx, filter: { accepted($0) && (marked.contains($0.device) || claimsDeclarative($0)) },
                          none: "no declarative message (no decrypted text with web_push, no subscription marked declarative)",
                          summary: "shown by the browser as declarative messages",
                          violation: "a declarative message the browser would not show as sent") { r in
            guard let text = r.plaintext else { return "no decrypted text (\(r.notification?["payload"].map { $0.compactJSON } ?? "nothing"))" }
            var problems = WebPushDeclarativeMessage.problems(text)
            if case .notification(let shown, _, _) = WebPushDeclarativeMessage.interpret(text),
               let link = ctx.notification(step: r.step)?["link"]?.stringValue, shown["navigate"]?.stringValue != link {
                problems.append("navigate \(shown["navigate"]?.stringValue ?? "?") is not the notification's link \(link)")
            }
            return problems.isEmpty ? nil : problems.joined(separator: "; ")
        }
    }

    /// Whether the decrypted text is a JSON object with a `web_push` member (what the browser
    /// takes for a declarative message, valid or not).
    static func claimsDeclarative(_ r: WebPushRequestRecord) -> Bool {
        guard let text = r.plaintext else { return false }
        return WebPushDeclarativeMessage.interpret(text) != .ordinary
    }
}
