/// FCM Web Push answers (docs/webpush.md §6.1 [O]).
enum FCMStyle {
    /// The 410 body: 46 characters + newline = 47 bytes (§6.1 [V]).
    static let goneBody = "push subscription has unsubscribed or expired.\n"
    /// The 410's `Content-Type` (§6.1).
    static let goneContentType = "text/plain; charset=utf-8"
    /// The beginning of the stale-subscription 404 body, exactly as far as docs/webpush.md §6.1
    /// records it (Pushpad: "body text beginning `A valid push subscription endpoint should
    /// be specified in the URL as such: https://fcm.googleapis.com/wp/…`"); the rest of the
    /// text is not recorded, so the body ends there.
    static let staleBody = "A valid push subscription endpoint should be specified in the URL as such: https://fcm.googleapis.com/wp/"
    /// The legacy bad-VAPID / sender page (§6.1: `400 UnauthorizedRegistration` with an HTML
    /// body `<TITLE>UnauthorizedRegistration</TITLE>…<H2>Error 400</H2>`). Only the TITLE
    /// and H2 elements are recorded; the markup around them is a reconstruction (docs/webpush.md).
    static let unauthorizedRegistrationHTML = """
    <HTML>
    <HEAD>
    <TITLE>UnauthorizedRegistration</TITLE>
    </HEAD>
    <BODY BGCOLOR="#FFFFFF" TEXT="#000000">
    <H1>UnauthorizedRegistration</H1>
    <H2>Error 400</H2>
    </BODY>
    </HTML>

    """

    /// The key-mismatch body: 120 characters + newline = 121 bytes, `text/plain; charset=utf-8`,
    /// status 403 (§6.1a: FCM's answer since it stopped sending the HTML page).
    static let vapidMismatchBody = "the VAPID credentials in the authorization header do not correspond to the credentials used to create the subscriptions.\n"

    static func response(_ outcome: WebPushOutcome, _ options: WebPushStyleOptions) -> WebPushResponse {
        switch outcome {
        case let .accepted(messageID, endpoint, _):
            // §6.1: 201, empty body, a Location (format UNCONFIRMED: options.fcmLocation).
            switch options.fcmLocation {
            case .endpointMessage: return WebPushResponse(status: 201, headers: [.init("Location", messageLocation(endpoint: endpoint, messageID: messageID))])
            case .omitted: return WebPushResponse(status: 201)
            }
        case .rejected(let r):
            if r.rule == .vapidKeyMismatch {
                return WebPushResponse(status: 403, headers: [.init("Content-Type", goneContentType)], body: Array(vapidMismatchBody.utf8))
            }
            if r.rule.isVAPID {
                return WebPushResponse(status: 400, headers: [.init("Content-Type", "text/html; charset=UTF-8")],
                                       body: Array(unauthorizedRegistrationHTML.utf8))
            }
            return WebPushResponse(status: r.rule.rfcStatus)
        case .gone(let reason):
            switch reason {
            case .expired, .unsubscribed:
                return WebPushResponse(status: 410, headers: [.init("Content-Type", goneContentType)], body: Array(goneBody.utf8))
            case .invalidEndpoint:
                return WebPushResponse(status: 404)
            case .stale:
                return WebPushResponse(status: 404, headers: [.init("Content-Type", goneContentType)], body: Array(staleBody.utf8))
            }
        case .throttled(let s):
            return rfcThrottle(s)
        }
    }
}
