import Foundation
import PushDoubleCore
import PushDoubleTransport
import PushDoubleWebPush

/// The Web Push devices of a case that a real Firefox plays (`"browser": "firefox"`,
/// docs/conformance.md "A real browser as the device"): Firefox is found (else the case is
/// n/a), started headless with the double's autopush listener as its push service on the
/// ``BrowserTestPage``, which subscribes with the sender's VAPID key; the subscription it got
/// is the device the sender is told. What its service worker reads is noted on the exchange
/// (`serviceWorker`), beside the relay's `browser` record (delivery, ack code):
/// `webpush.browser-decrypted` judges both.
///
/// One Firefox per case that has such a device, started only when the case applies to the
/// sender, stopped when the case ends. One browser device per case (the first is played).
final class WebPushBrowserDevices: LiveDevices {
    /// Seconds for Firefox to start and the page to subscribe.
    static let subscribeTimeout: Double = 60
    /// Seconds to wait after the steps for the browser to ack what was relayed to it.
    static let settleTimeout: Double = 10
    /// The reason a case is n/a without Firefox.
    static let notFound = "Firefox not found (\(FirefoxProcess.binaries[0]))"

    let device: ScenarioDevice
    private let running = Locked<(page: BrowserTestPage?, firefox: FirefoxProcess?)>((nil, nil))

    init(device: ScenarioDevice) { self.device = device }

    func start(session: any FakeSession) -> LiveDevicesStart {
        guard let binary = FirefoxProcess.find() else { return .notApplicable(Self.notFound) }
        guard let listener = session.listenerURL(WebPushModule.autopushListenerName),
              let key = session.configuration.providers.first(where: { $0.id == ProviderID.webpush.rawValue })?
                .parameters["vapidPublicKey"]?.stringValue else {
            return .failed("the fakes serve no \(WebPushModule.autopushListenerName) listener or VAPID key")
        }
        let page: BrowserTestPage, firefox: FirefoxProcess
        do {
            page = try BrowserTestPage { body in _ = session.admin(method: "POST", path: "/webpush/browsers/read", body: body) }
            running.withLock { $0.page = page }
            firefox = try FirefoxProcess(binary: binary, serverURL: "ws://" + (listener.components(separatedBy: "://").last ?? listener),
                                         page: page.origin + "/?key=" + key)
            running.withLock { $0.firefox = firefox }
        } catch {
            return .failed("cannot start Firefox (\(binary)): \(error)")
        }
        let deadline = Date().addingTimeInterval(Self.subscribeTimeout)
        while Date() < deadline {
            switch page.subscription {
            case .subscribed(let json): return subscribed(json)
            case .failed(let why): return .failed("the browser's page could not subscribe: \(why)")
            case .waiting:
                if let exit = firefox.exitText { return .failed(exit) }
                Thread.sleep(forTimeInterval: 0.05)
            }
        }
        return .failed("the browser did not subscribe within \(Int(Self.subscribeTimeout)) s: " + String(firefox.process.log.suffix(2000)))
    }

    /// The scenario device with the browser's subscription: the endpoint as a bare path (the
    /// provider gives it the URL the sender is told), the keys Firefox made.
    private func subscribed(_ json: JSONValue) -> LiveDevicesStart {
        guard let endpoint = json["endpoint"]?.stringValue, let p256dh = json["keys"]?["p256dh"]?.stringValue,
              let auth = json["keys"]?["auth"]?.stringValue else {
            return .failed("the browser's subscription lacks endpoint or keys: \(json.compactJSON)")
        }
        let path = AutopushHub.path(of: endpoint)
        guard let token = WebPushEndpointPath.parse(path)?.token else { return .failed("the browser got an endpoint of no known shape: \(endpoint)") }
        var d = device
        d.token = token
        d.attributes.removeAll { $0.0 == "subscription" }
        d.attributes.append(("subscription", ["endpoint": .string(path), "expirationTime": .null,
                                              "keys": ["p256dh": .string(p256dh), "auth": .string(auth)]]))
        return .ready([d])
    }

    func settle(session: any FakeSession) {
        let deadline = Date().addingTimeInterval(Self.settleTimeout)
        while Date() < deadline, !Self.settled(session.history()) { Thread.sleep(forTimeInterval: 0.05) }
    }

    /// Whether every message relayed to a browser is done: acked (and, when acked as
    /// delivered, read by the service worker), nacked, dropped or expired.
    static func settled(_ history: [Exchange]) -> Bool {
        settled(annotations: history.filter { $0.provider == .webpush }.map(\.annotations))
    }

    /// ``settled(_:)`` over the Web Push exchanges' annotations.
    static func settled(annotations: [JSONValue?]) -> Bool {
        annotations.allSatisfy { notes in
            guard let relay = notes?["browser"] else { return true }
            switch relay["delivery"]?.stringValue {
            case "acked": return relay["code"]?.intValue != 100 || notes?["serviceWorker"] != nil
            case "nacked", "dropped", "expired": return true
            default: return false
            }
        }
    }

    func stop() {
        let (page, firefox) = running.withLock { r in
            defer { r = (nil, nil) }
            return r
        }
        firefox?.stop()
        page?.stop()
    }
}
