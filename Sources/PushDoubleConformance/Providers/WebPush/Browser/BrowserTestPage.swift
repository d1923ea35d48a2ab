import Foundation
import PushDoubleCore
import PushDoubleTransport

/// The page a conformance case's browser opens, served on a loopback port of the runner
/// (`http://127.0.0.1` is a secure context, so a service worker may register there):
///
/// - `GET /?key=<VAPID public key>`: registers `/sw.js`, subscribes with that key and posts
///   the subscription's JSON to `/subscription` (or the error to `/error`); a `subscribe()`
///   made while Firefox's push service is still starting up may never settle, so the page
///   asks again every 5 s until one does;
/// - `GET /sw.js`: the service worker; on each `push` it posts `{"endpoint","text"}` (the
///   text the browser decrypted, null without data) to `/read` before it shows the
///   notification;
/// - `POST /read` is passed to the double (`POST /webpush/browsers/read`), which notes the text
///   on the exchange of the message the service worker read.
final class BrowserTestPage: Sendable {
    /// What the page reported about its subscription.
    enum Subscription: Sendable {
        case waiting
        case subscribed(JSONValue)
        case failed(String)
    }

    private let state = Locked<Subscription>(.waiting)
    private let server = HTTPServer(eventLoopCount: 1)
    /// The page's origin, `http://127.0.0.1:<port>`.
    let origin: String

    /// Starts serving; `forward` takes each `/read` body to the double.
    init(forward: @escaping @Sendable ([UInt8]) -> Void) throws {
        var router = Router()
        let state = self.state
        router.get("/") { _, _, _ in .respond(HTTPResponse(status: 200, contentType: "text/html; charset=utf-8", body: Self.html)) }
        router.get("/sw.js") { _, _, _ in .respond(HTTPResponse(status: 200, contentType: "text/javascript; charset=utf-8", body: Self.serviceWorker)) }
        router.post("/subscription") { request, _, _ in
            let json = (try? JSONValue.parse(request.body)) ?? .null
            state.withLock { $0 = .subscribed(json) }
            return .respond(HTTPResponse(status: 204))
        }
        router.post("/error") { request, _, _ in
            let text = String(decoding: request.body, as: UTF8.self)
            state.withLock { $0 = .failed(text) }
            return .respond(HTTPResponse(status: 204))
        }
        router.post("/read") { request, _, _ in
            forward(request.body)
            return .respond(HTTPResponse(status: 204))
        }
        let bound = try server.start([ListenerConfiguration(name: "browser-page", host: "127.0.0.1", port: 0, allowHTTP2: false,
                                                            responder: router.build())])
        origin = "http://127.0.0.1:\(bound.first?.port ?? 0)"
    }

    /// The page's subscription report so far.
    var subscription: Subscription { state.withLock { $0 } }

    func stop() { server.stop(timeout: 1) }

    static let html = """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><title>PushDouble conformance browser</title></head>
        <body><p>Subscribes through the double and reports what its service worker reads.</p>
        <script>
        "use strict";
        function bytes(text) {
          const padded = text.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((text.length + 3) % 4);
          return Uint8Array.from(atob(padded), (c) => c.charCodeAt(0));
        }
        function post(path, body) {
          return fetch(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
        }
        const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
        (async () => {
          try {
            const key = new URLSearchParams(location.search).get("key");
            const registration = await navigator.serviceWorker.register("/sw.js");
            await navigator.serviceWorker.ready;
            // A subscribe() made while Firefox's push service is still starting may never
            // settle: asked again every 5 s (a later call returns the same subscription).
            let subscription = null;
            while (subscription === null) {
              const asked = registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: bytes(key) });
              subscription = await Promise.race([asked, sleep(5000).then(() => null)]);
            }
            await post("/subscription", subscription.toJSON());
          } catch (e) {
            await post("/error", { error: String(e) });
          }
        })();
        </script></body></html>
        """

    static let serviceWorker = """
        "use strict";
        self.addEventListener("install", () => self.skipWaiting());
        self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));
        self.addEventListener("push", (event) => {
          const text = event.data ? event.data.text() : null;
          event.waitUntil((async () => {
            const subscription = await self.registration.pushManager.getSubscription();
            await fetch("/read", { method: "POST", headers: { "content-type": "application/json" },
                                   body: JSON.stringify({ endpoint: subscription ? subscription.endpoint : "", text }) });
            await self.registration.showNotification("PushDouble", { body: text === null ? "(no data)" : text }).catch(() => {});
          })());
        });
        """
}
