import Foundation
import XCTest
import PushDoubleTestSupport
@testable import PushDoubleInbox
import PushDouble

/// The scripts under node (interop tier: needs `node`): each parses (`node --check`), and
/// the real inbox.js renders notifications whose every field is `<script>`/markup text into
/// a recording DOM whose HTML sinks throw: the markup arrives as text, no element is made
/// from it.
final class InboxScriptNodeTests: XCTestCase {
    override func setUpWithError() throws { try requireInteropTier(needs: "node") }

    private func write(_ text: String, _ name: String) throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pd-inbox-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let url = dir.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url
    }

    /// Runs ``harness`` over the real inbox.js in `mode` ("views" with `cases` as its input,
    /// "verdicts", or nil for the markup render) and returns the JSON it prints.
    private func runHarness(mode: String?, cases: String? = nil, file: StaticString = #filePath, line: UInt = #line) throws -> Any {
        try requireTool("node")
        // The providers' views (views.js) first, as the page loads them, then the preview and
        // story renderers, then inbox.js.
        let views = InboxAssetChecks.views.first { $0.path == "/inbox/views.js" }?.text ?? ""
        let scripts = try ["/inbox/preview.js", "/inbox/story.js", "/inbox/inbox.js"].map { try XCTUnwrap(InboxPage.asset(at: $0)).text }
        let script = try write(([views] + scripts).joined(separator: "\n"), "inbox.js")
        let dir = script.deletingLastPathComponent()
        defer { try? FileManager.default.removeItem(at: dir) }
        let harness = dir.appendingPathComponent("harness.js")
        try Data(Self.harness.utf8).write(to: harness)
        var args = ["node", harness.path, script.path]
        if let mode { args.append(mode) }
        if let cases {
            let input = dir.appendingPathComponent("cases.json")
            try Data(cases.utf8).write(to: input)
            args.append(input.path)
        }
        let r = try runCommand(args)
        XCTAssertEqual(r.status, 0, r.stderr, file: file, line: line)
        return try JSONSerialization.jsonObject(with: Data(r.stdout.utf8))
    }

    func testEveryScriptParses() throws {
        try requireTool("node")
        for asset in InboxAssetChecks.scripts {
            let file = try write(asset.text, String(asset.path.split(separator: "/").last!))
            defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
            let r = try runCommand(["node", "--check", file.path])
            XCTAssertEqual(r.status, 0, "\(asset.path): \(r.stderr)")
        }
    }

    /// `node --check` on the source files themselves (the inbox's and the HTML report's), not on
    /// copies: what an editor saves is what is checked.
    func testEverySourceScriptFileParses() throws {
        try requireTool("node")
        // The inbox's own scripts (inbox, timeline, preview, story, the console's), one view per provider, the report's.
        XCTAssertEqual(InboxAssetChecks.scriptFiles.count, InboxPage.assets.filter { $0.contentType.hasPrefix("text/javascript") }.count
                       + FakeRegistry.modules.count + 1)
        XCTAssertGreaterThanOrEqual(InboxPage.assets.filter { $0.contentType.hasPrefix("text/javascript") }.count, 4)
        for file in InboxAssetChecks.scriptFiles {
            XCTAssertTrue(FileManager.default.fileExists(atPath: file.path), file.path)
            let r = try runCommand(["node", "--check", file.path])
            XCTAssertEqual(r.status, 0, "\(file.path): \(r.stderr)")
        }
    }

    /// A recording DOM: elements keep children, attributes and text; innerHTML, outerHTML and
    /// insertAdjacentHTML throw. Renders one notification per platform from exchanges whose
    /// strings are markup, and prints what the tree holds.
    static let harness = #"""
    'use strict';
    const sinks = [];
    class El {
      constructor(tag) { this.tagName = tag; this.children = []; this.attrs = {}; this.own = '';
        this.classList = { toggle() {}, add() {}, remove() {} }; }
      set innerHTML(v) { sinks.push('innerHTML'); throw new Error('innerHTML'); }
      get innerHTML() { sinks.push('innerHTML'); throw new Error('innerHTML'); }
      set outerHTML(v) { sinks.push('outerHTML'); throw new Error('outerHTML'); }
      insertAdjacentHTML() { sinks.push('insertAdjacentHTML'); throw new Error('insertAdjacentHTML'); }
      set textContent(v) { this.own = String(v); this.children = []; }
      get textContent() { return this.own + this.children.map(c => c.textContent).join(''); }
      set className(v) { this.attrs['class'] = v; } get className() { return this.attrs['class']; }
      setAttribute(k, v) { this.attrs[k] = String(v); } getAttribute(k) { return k in this.attrs ? this.attrs[k] : null; }
      addEventListener() {} remove() {}
      append(...cs) { cs.forEach(c => this.children.push(c)); }
      appendChild(c) { this.children.push(c); return c; }
      get childNodes() { return this.children; }
      prepend(...cs) { this.children.unshift(...cs); }
      replaceChildren(...cs) { this.own = ''; this.children = cs; }
    }
    class Text { constructor(t) { this.data = String(t); this.tagName = '#text'; this.children = []; this.attrs = {}; }
      get textContent() { return this.data; } }
    global.window = global;
    global.document = { readyState: 'loading', addEventListener() {}, createElement: t => new El(t),
      createTextNode: t => new Text(t), createDocumentFragment: () => new El('#fragment'), getElementById: () => new El('div'),
      head: new El('head'), body: new El('body') };
    require(process.argv[2]);
    if (process.argv[3] === 'verdicts') {
      const P = window.PushDoubleInbox;
      console.log(JSON.stringify([
        P.verdict({}),
        P.verdict({ auth: { scheme: 'apns-jwt', valid: true, extra: {} } }),
        P.verdict({ auth: { scheme: 'apns-jwt', valid: false, extra: {} }, decidedBy: { stage: 'auth', detail: 'malformed JWT: x' },
                    response: { reason: 'InvalidProviderToken' } }),
        P.verdict({ auth: { scheme: 'vapid', valid: false, extra: { rule: 'vapidExpired', detail: 'exp in the past' } }, decidedBy: { stage: 'validation' } }),
        P.verdict({ auth: { scheme: 'none', valid: false, extra: {} }, decidedBy: { stage: 'auth' }, response: { reason: 'MissingProviderToken' } }),
        P.decodeJWT('eyJhbGciOiJFUzI1NiIsImtpZCI6IksxIn0.eyJpc3MiOiJURUFNIiwiaWF0IjoxNzAwMDAwMDAwfQ.c2ln'),
        P.decodeJWT('not-a-jwt'),
        P.decisionText({ stage: 'fault', detail: 'busy' }), P.decisionText({ stage: 'validation', detail: 'BadTopic' }), P.decisionText(null),
        P.curlCommand({ transport: { version: 'HTTP/2' }, request: { method: 'POST', scheme: 'https', authority: '127.0.0.1:8721', path: '/3/device/ab',
          headers: [[':method', 'POST'], ['apns-topic', "it's"], ['content-length', '9']], body: '{"a":"b"}' } }),
        P.curlCommand({ transport: { version: 'HTTP/1.1' }, request: { method: 'POST', scheme: 'http', authority: 'h:1', path: '/p',
          headers: [['Host', 'h:1']], body: null, bodyBase64: 'AAE=', bodySize: 2 } }),
        P.curlCommand({ transport: { version: 'HTTP/2' }, request: { method: 'GET', scheme: 'http', authority: 'h:2', path: '/q',
          headers: [[':path', '/q'], ['user-agent', 'ua/1'], ['accept', '*/*']], body: '' } })
      ]));
      process.exit(0);
    }
    if (process.argv[3] === 'rows') {
      const cases = JSON.parse(require('fs').readFileSync(process.argv[4], 'utf8'));
      console.log(JSON.stringify(cases.map(([ex]) => window.PushDoubleInbox.rowText(ex))));
      process.exit(0);
    }
    if (process.argv[3] === 'hooks') {
      // The providers' hooks (docs/inbox.md, "Provider hooks") through the inbox's own code.
      const P = window.PushDoubleInbox;
      const jwt = 'eyJhbGciOiJFUzI1NiIsImtpZCI6IksxIn0.eyJpc3MiOiJURUFNIiwiaWF0IjoxNzAwMDAwMDAwfQ.c2ln';
      const ok = { response: { status: 200 }, decidedBy: { stage: 'accepted' } };
      const ex = (provider, more) => Object.assign({ provider }, ok, more);
      const auth = (provider, value) => ex(provider, { request: { headers: [['authorization', value]] } });
      const cred = c => ({ label: c.label, iss: c.jwt ? c.jwt.claims.iss : null, raw: c.raw || null, opaque: c.opaque || null, lines: c.lines || [] });
      console.log(JSON.stringify({
        delivered: [
          P.delivered(ex('fcm', { notification: { validateOnly: true } }), -1),
          P.delivered(ex('fcm', { notification: { validateOnly: false } }), -1),
          P.delivered(ex('fcm', { notification: { message: {} } }), -1),
          P.delivered(ex('apns', { notification: { validateOnly: true } }), -1),
          P.delivered(ex('expo', { recipients: [{ token: 'a', accepted: true }, { token: 'b', accepted: false }] }), 0),
          P.delivered(ex('expo', { recipients: [{ token: 'a', accepted: true }, { token: 'b', accepted: false }] }), 1),
          P.delivered(ex('zz-no-view', {}), -1),
          P.delivered(ex('fcm', { response: { status: 400 } }), -1),
        ],
        credentials: [
          P.credentials(auth('webpush', 'vapid t=' + jwt + ', k=BKEY')).map(cred),
          P.credentials(auth('webpush', 'WebPush ' + jwt)).map(cred),
          P.credentials(auth('webpush', 'Bearer ' + jwt)).map(cred),
          P.credentials(auth('apns', 'bearer ' + jwt)).map(cred),
          P.credentials(auth('fcm', 'Bearer ya29.opaque')).map(cred),
          P.credentials(auth('apns', 'vapid t=' + jwt)).map(cred),
          P.credentials(auth('zz-no-view', 'Basic abc')).map(cred),
        ],
        details: [
          P.credentialDetails(ex('fcm', { notification: { claims: { iss: 'sa@example.iam' }, grant_type: 'g' } })),
          P.credentialDetails(ex('fcm', { notification: { message: {} } })),
          P.credentialDetails(ex('apns', { notification: { claims: { iss: 'x' } } })),
          P.credentialDetails(ex('zz-no-view', {})),
        ],
      }));
      process.exit(0);
    }
    if (process.argv[3] === 'previews') {
      const t = '2026-12-01T00:00:00.000Z';
      const cases = JSON.parse(require('fs').readFileSync(process.argv[4], 'utf8'));
      console.log(JSON.stringify(cases.map(([ex, index]) => {
        const v = window.PushDoubleInbox.notificationView(Object.assign({ receivedAt: t }, ex), index);
        const p = v.preview;
        if (!p) return null;
        return { kind: p.kind, label: p.label, hidden: p.hidden || null, outcome: v.outcome || null,
                 surfaces: (p.surfaces || []).map(s => ({ id: s.id, parts: s.parts.filter(x => x.text).map(x => x.role + ':' + (x.lines || 'all') + ':' + x.text) })),
                 facts: Object.fromEntries((p.facts || []).filter(f => f[1] !== undefined && f[1] !== null && f[1] !== '').map(f => [f[0], String(f[1])])),
                 drawn: window.PushDoublePreview.render(p, { platform: v.platform }).attrs['data-kind'] };
      })));
      process.exit(0);
    }
    if (process.argv[3] === 'views') {
      const t = '2026-12-01T00:00:00.000Z';
      const cases = JSON.parse(require('fs').readFileSync(process.argv[4], 'utf8'));
      console.log(JSON.stringify(cases.map(([ex, index]) => {
        const v = window.PushDoubleInbox.notificationView(Object.assign({ receivedAt: t }, ex), index);
        return { platform: v.platform, title: v.title, subtitle: v.subtitle || '', body: v.body, silent: !!v.silent,
                 badge: v.badge === undefined ? null : v.badge, decryptError: v.decryptError || null,
                 meta: Object.fromEntries(v.meta.filter(m => m[1] !== undefined && m[1] !== null).map(m => [m[0], String(m[1])])) };
      })));
      process.exit(0);
    }
    const X = '<script>alert(1)</script><img src=x onerror=alert(2)>';
    const t = '2026-12-01T00:00:00.000Z';
    const exchanges = [
      [{ seq: 1, provider: 'apns', receivedAt: t, notification: { headers: { 'apns-topic': X, 'apns-collapse-id': X }, pushType: 'alert', priority: 10,
        payload: { aps: { alert: { title: X, subtitle: X, body: X }, badge: 1, sound: X, 'thread-id': X }, [X]: X } } }, -1],
      [{ seq: 2, provider: 'fcm', receivedAt: t, notification: { notification: { title: X, body: X, image: X },
        android: { collapse_key: X, notification: { channel_id: X } }, data: { [X]: X } } }, -1],
      [{ seq: 3, provider: 'webpush', receivedAt: t, notification: { service: X, payload: { data: JSON.stringify({ title: X, body: X, icon: X }), base64: false } } }, -1],
      [{ seq: 4, provider: 'webpush', receivedAt: t, notification: { service: 'mozilla', payload: { data: X, base64: false } } }, -1],
      [{ seq: 5, provider: 'webpush', receivedAt: t, notification: { service: 'mozilla', payload: { error: X, detail: X } } }, -1],
      [{ seq: 6, provider: 'expo', receivedAt: t, topic: X, notification: [{ to: ['ExponentPushToken[a]'], title: X, subtitle: X, body: X, sound: X, channelId: X, data: { [X]: X } }],
        recipients: [{ token: 'ExponentPushToken[a]', accepted: true, detail: { id: X } }] }, 0],
    ];
    const out = exchanges.map(([ex, index]) => {
      const node = window.PushDoubleInbox.renderNotification(ex, index);
      const tags = [], attrs = [], texts = [];
      (function walk(n) {
        tags.push(n.tagName);
        Object.keys(n.attrs).forEach(k => attrs.push(k + '=' + n.attrs[k]));
        if (n.tagName === '#text') texts.push(n.data); else if (n.own) texts.push(n.own);
        n.children.forEach(walk);
      })(node);
      const find = id => { let r = null; (function walk(n) { if (n.attrs['data-testid'] === id && !r) r = n; n.children.forEach(walk); })(node); return r && r.textContent; };
      return { seq: ex.seq, platform: node.attrs['data-platform'], tags, attrs, texts,
               title: find('notification-title'), body: find('notification-body'), decryptError: find('decrypt-error') };
    });
    console.log(JSON.stringify({ sinks, out }));
    """#

    /// The platform views from exchanges shaped as each fake records them: what is the title
    /// and body, what is silent, which override wins, which recipient of an Expo batch.
    static let viewCases = #"""
    [
     [{"seq":1,"provider":"apns","topic":"com.example.app","notification":{"headers":{"apns-topic":"com.example.app","apns-collapse-id":"c1"},"pushType":"alert","priority":10,
       "payload":{"aps":{"alert":{"title":"T","subtitle":"S","body":"B"},"badge":3,"sound":"default","thread-id":"th"}}}}, -1],
     [{"seq":2,"provider":"apns","notification":{"headers":{},"pushType":"alert","priority":10,"payload":{"aps":{"alert":"just a body"}}}}, -1],
     [{"seq":3,"provider":"apns","notification":{"headers":{},"pushType":"background","priority":5,"payload":{"aps":{"content-available":1},"k":"v"}}}, -1],
     [{"seq":4,"provider":"fcm","notification":{"project":"p","notification":{"title":"MT","body":"MB","image":"https://example.invalid/i.png"},
       "android":{"collapse_key":"ck","notification":{"title":"AT","channel_id":"news"}}}}, -1],
     [{"seq":5,"provider":"fcm","notification":{"project":"p","data":{"k":"v"}}}, -1],
     [{"seq":6,"provider":"fcm","notification":{"project":"p","android":{"collapseKey":"camel","notification":{"body":"only android","channelId":"c2"}}}}, -1],
     [{"seq":7,"provider":"webpush","notification":{"service":"mozilla","ttl":60,"urgency":"high","payload":{"data":"{\"title\":\"WT\",\"body\":\"WB\"}","base64":false}}}, -1],
     [{"seq":8,"provider":"webpush","notification":{"service":"fcm","ttl":0,"urgency":"normal","payload":{"data":"plain text","base64":false}}}, -1],
     [{"seq":9,"provider":"webpush","notification":{"service":"apple","ttl":0,"urgency":"normal","payload":null}}, -1],
     [{"seq":10,"provider":"webpush","notification":{"service":"wns","ttl":0,"urgency":"normal","payload":{"error":"noPrivateKey","detail":"why"}}}, -1],
     [{"seq":11,"provider":"expo","notification":[{"to":["ExponentPushToken[a]","ExponentPushToken[b]"],"title":"E1","body":"first","badge":2,"channelId":"ch"},
                                                {"to":"ExponentPushToken[c]","_contentAvailable":true,"data":{"x":1}}],
       "recipients":[{"token":"ExponentPushToken[a]","accepted":true},{"token":"ExponentPushToken[b]","accepted":true},{"token":"ExponentPushToken[c]","accepted":true}]}, 1],
     [{"seq":11,"provider":"expo","notification":[{"to":["ExponentPushToken[a]","ExponentPushToken[b]"],"title":"E1","body":"first"},
                                                {"to":"ExponentPushToken[c]","_contentAvailable":true,"data":{"x":1}}],
       "recipients":[{"token":"ExponentPushToken[a]","accepted":true},{"token":"ExponentPushToken[b]","accepted":true},{"token":"ExponentPushToken[c]","accepted":true}]}, 2],
     [{"seq":12,"provider":"expo","notification":{"to":"ExponentPushToken[d]","title":"single","subtitle":"sub","body":"one"}}, -1],
     [{"seq":13,"provider":"webpush","notification":{"service":"mozilla","ttl":60,"urgency":"normal","payload":{"browser":"autopush","detail":"d"}},
       "annotations":{"browser":{"uaid":"u","channelID":"c","version":"v","delivery":"acked","code":100}}}, -1],
     [{"seq":14,"provider":"webpush","notification":{"service":"apple","ttl":60,"urgency":"normal","payload":{"data":"{}","base64":false},
       "declarative":{"shown":"notification","notification":{"title":"DT","navigate":"https://example.com/n","body":"DB","icon":"https://example.com/i.png","lang":"fr"},"app_badge":5,"mutable":true}}}, -1],
     [{"seq":15,"provider":"webpush","notification":{"service":"apple","ttl":60,"urgency":"normal","payload":{"data":"{\"web_push\":8030,\"notification\":{\"title\":\"FT\"}}","base64":false},
       "declarative":{"shown":"serviceWorkerPush","fallback":"notification.navigate is missing or not a string"}}}, -1]
    ]
    """#

    /// Exchanges as the fakes record them, for the previews: an iOS alert with an interruption
    /// level, a background push, a Live Activity update to a token and one broadcast on a channel,
    /// FCM with android.notification, data-only and validate_only, Expo with a fetched error
    /// receipt, Web Push JSON, binary and declarative, a channel-management request.
    static let previewCases = #"""
    [
     [{"seq":1,"provider":"apns","endpoint":"apns.push","notification":{"headers":{"apns-topic":"com.example.app"},"pushType":"alert","priority":10,
       "payload":{"aps":{"alert":{"title":"T","subtitle":"S","body":"B"},"badge":0,"sound":{"critical":1,"name":"alarm.caf","volume":0.5},"interruption-level":"critical"}}}}, -1],
     [{"seq":2,"provider":"apns","endpoint":"apns.push","notification":{"headers":{},"pushType":"background","priority":5,"payload":{"aps":{"content-available":1}}}}, -1],
     [{"seq":3,"provider":"apns","endpoint":"apns.push","notification":{"headers":{},"pushType":"liveactivity","priority":10,
       "payload":{"aps":{"timestamp":1700000000,"event":"update","content-state":{"score":"2-1"},"stale-date":1700000600}}}}, -1],
     [{"seq":4,"provider":"apns","endpoint":"apns.broadcast","notification":{"bundleId":"com.example.app","channelId":"dHN0","pushType":"liveactivity","priority":10,
       "payload":{"aps":{"timestamp":1700000000,"event":"end","content-state":{"score":"3-1"},"alert":{"title":"Full time","body":"3-1"}}}}}, -1],
     [{"seq":5,"provider":"fcm","endpoint":"fcm.send","notification":{"project":"p","notification":{"title":"MT","body":"MB"},
       "android":{"priority":"high","notification":{"channel_id":"news","image":"https://example.invalid/i.png"}}}}, -1],
     [{"seq":6,"provider":"fcm","endpoint":"fcm.send","notification":{"project":"p","data":{"k":"v"}}}, -1],
     [{"seq":7,"provider":"fcm","endpoint":"fcm.send","notification":{"project":"p","validateOnly":true,"notification":{"title":"V"}}}, -1],
     [{"seq":8,"provider":"expo","endpoint":"expo.send","notification":[{"to":"ExponentPushToken[a]","title":"E","subtitle":"ES","body":"EB","badge":2}],
       "recipients":[{"token":"ExponentPushToken[a]","accepted":true,"detail":{"status":"ok","id":"tk1"}}],
       "annotations":{"receipts":{"tk1":{"receipt":{"status":"error","message":"gone","details":{"error":"DeviceNotRegistered"}},"fetchedAt":"2026-12-01T00:00:01.000Z","fetches":1}}}}, 0],
     [{"seq":9,"provider":"expo","endpoint":"expo.send","notification":[{"to":"ExponentPushToken[b]","title":"E2"}],
       "recipients":[{"token":"ExponentPushToken[b]","accepted":true,"detail":{"status":"ok","id":"tk2"}}]}, 0],
     [{"seq":10,"provider":"webpush","endpoint":"webpush.push","notification":{"service":"mozilla","ttl":60,"urgency":"high","payload":{"data":"{\"title\":\"WT\",\"body\":\"WB\"}","base64":false}}}, -1],
     [{"seq":11,"provider":"webpush","endpoint":"webpush.push","notification":{"service":"mozilla","ttl":60,"urgency":"high","payload":{"data":"AAE=","base64":true}}}, -1],
     [{"seq":12,"provider":"webpush","endpoint":"webpush.push","notification":{"service":"apple","ttl":60,"urgency":"normal","payload":{"data":"{}","base64":false},
       "declarative":{"shown":"notification","notification":{"title":"DT","navigate":"https://example.com/n","body":"DB"},"app_badge":5}}}, -1],
     [{"seq":13,"provider":"apns","endpoint":"apns.channels","notification":{"headers":{},"pushType":"alert","priority":10,"payload":null}}, -1]
    ]
    """#

    /// Each provider's preview description (docs/inbox.md "Previews") as preview.js draws it:
    /// the kind, the surfaces with their line limits, what is hidden and why, the facts.
    func testEachProvidersPreview() throws {
        let out = try XCTUnwrap(try runHarness(mode: "previews", cases: Self.previewCases) as? [Any])
        XCTAssertEqual(out.count, 13)
        func p(_ i: Int) -> [String: Any] { out[i] as? [String: Any] ?? [:] }
        func surfaces(_ i: Int) -> [String: [String]] {
            Dictionary(uniqueKeysWithValues: (p(i)["surfaces"] as? [[String: Any]] ?? []).map { ($0["id"] as? String ?? "", $0["parts"] as? [String] ?? []) })
        }
        func facts(_ i: Int) -> [String: String] { p(i)["facts"] as? [String: String] ?? [:] }
        XCTAssertEqual((0..<12).map { p($0)["kind"] as? String },
                       ["alert", "silent", "live-activity", "live-activity", "alert", "silent", "silent", "alert", "alert", "alert", "data", "alert"])
        XCTAssertEqual((0..<12).map { p($0)["drawn"] as? String }, (0..<12).map { p($0)["kind"] as? String }, "preview.js draws the kind it is given")
        // iOS: title and subtitle 1 line, body 4 on the banner and the lock screen; all when expanded.
        XCTAssertEqual(surfaces(0)["banner"], ["title:1:T", "subtitle:1:S", "body:4:B"])
        XCTAssertEqual(surfaces(0)["lock-screen"], ["title:1:T", "subtitle:1:S", "body:4:B"])
        XCTAssertEqual(surfaces(0)["expanded"], ["title:all:T", "subtitle:all:S", "body:all:B"])
        XCTAssertEqual(facts(0)["app icon badge"], "0 (badge removed)")
        XCTAssertEqual(facts(0)["sound"], "critical alarm.caf at volume 0.5")
        XCTAssertTrue(facts(0)["interruption level"]?.hasPrefix("critical — ") ?? false, "\(facts(0))")
        XCTAssertTrue((p(1)["hidden"] as? String)?.contains("content-available: 1") ?? false, "\(p(1))")
        XCTAssertEqual(surfaces(1), [:])
        // Live Activity: to a token, and a broadcast with its alert.
        XCTAssertEqual(p(2)["label"] as? String, "Live Activity update")
        XCTAssertEqual(surfaces(2)["live-activity"], ["event:all:update", "state:all:score: 2-1"])
        XCTAssertEqual(facts(2)["stale date"], "1700000600 (2023-11-14T22:23:20.000Z)")
        XCTAssertEqual(p(3)["label"] as? String, "Live Activity end (broadcast)")
        XCTAssertEqual(surfaces(3)["live-activity-alert"], ["title:1:Full time", "body:4:3-1"])
        XCTAssertEqual(facts(3)["channel"], "dHN0 (every activity subscribed to it)")
        // Android: collapsed title and text 1 line each.
        XCTAssertEqual(surfaces(4)["shade"], ["title:1:MT", "body:1:MB"])
        XCTAssertEqual(surfaces(4)["expanded"], ["title:1:MT", "body:all:MB"])
        XCTAssertEqual(facts(4)["channel"], "news")
        XCTAssertEqual(facts(4)["message priority"], "high")
        XCTAssertEqual(p(5)["label"] as? String, "data message (silent)")
        XCTAssertEqual(p(6)["label"] as? String, "validate only")
        // Expo: both platforms; the fetched receipt is the device's outcome.
        XCTAssertEqual(surfaces(7)["ios-banner"], ["title:1:E", "subtitle:1:ES", "body:4:EB"])
        XCTAssertEqual(surfaces(7)["android-shade"], ["title:1:E", "body:1:EB"])
        let outcome = try XCTUnwrap(p(7)["outcome"] as? [String: Any])
        XCTAssertEqual(outcome["text"] as? String, "error DeviceNotRegistered: gone")
        XCTAssertEqual(outcome["bad"] as? Bool, true)
        XCTAssertEqual((p(8)["outcome"] as? [String: Any])?["text"] as? String, "not fetched yet (ticket tk2)")
        // Web Push: JSON title/body as the service worker would show it; binary data not drawn; declarative with its badge.
        XCTAssertEqual(surfaces(9)["desktop"], ["title:1:WT", "body:4:WB"])
        XCTAssertTrue((p(10)["hidden"] as? String)?.contains("binary") ?? false, "\(p(10))")
        XCTAssertEqual(p(11)["label"] as? String, "browser notification (declarative)")
        XCTAssertEqual(facts(11)["on click"], "https://example.com/n")
        // A channel-management request is no notification.
        XCTAssertTrue(out[12] is NSNull, "\(out[12])")
    }

    func testEachPlatformViewReadsWhatItsFakeRecords() throws {
        let views = try XCTUnwrap(try runHarness(mode: "views", cases: Self.viewCases) as? [[String: Any]])
        func v(_ i: Int, _ key: String) -> String? { views[i][key].map { "\($0)" } }
        func meta(_ i: Int, _ key: String) -> String? { (views[i]["meta"] as? [String: String])?[key] }
        XCTAssertEqual(views.count, 16)
        // APNs: alert object, string alert, background push.
        XCTAssertEqual([v(0, "platform"), v(0, "title"), v(0, "subtitle"), v(0, "body"), v(0, "badge")], ["ios", "T", "S", "B", "3"])
        XCTAssertEqual([meta(0, "thread-id"), meta(0, "collapse-id"), meta(0, "sound")], ["th", "c1", "default"])
        XCTAssertEqual(views[0]["silent"] as? Bool, false)
        XCTAssertEqual([v(1, "title"), v(1, "body")], ["", "just a body"])
        XCTAssertEqual(views[2]["silent"] as? Bool, true)
        XCTAssertEqual(meta(2, "content-available"), "1")
        XCTAssertEqual(meta(2, "custom k"), "\"v\"")
        // FCM: android.notification over message.notification, data-only silent, camelCase spelling.
        XCTAssertEqual([v(3, "platform"), v(3, "title"), v(3, "body")], ["android", "AT", "MB"])
        XCTAssertEqual([meta(3, "collapse_key"), meta(3, "channel"), meta(3, "image (not loaded)")], ["ck", "news", "https://example.invalid/i.png"])
        XCTAssertEqual(views[3]["silent"] as? Bool, false)
        XCTAssertEqual(views[4]["silent"] as? Bool, true)
        XCTAssertEqual([v(5, "body"), meta(5, "collapse_key"), meta(5, "channel")], ["only android", "camel", "c2"])
        XCTAssertEqual(views[5]["silent"] as? Bool, false)
        // Web Push: JSON title/body, plain text, no payload, undecryptable.
        XCTAssertEqual([v(6, "platform"), v(6, "title"), v(6, "body"), meta(6, "urgency")], ["browser", "WT", "WB", "high"])
        XCTAssertEqual([v(7, "title"), v(7, "body")], ["", "plain text"])
        XCTAssertEqual(views[8]["silent"] as? Bool, true)
        XCTAssertEqual(v(9, "decryptError"), "noPrivateKey: why")
        XCTAssertEqual(views[9]["silent"] as? Bool, false)
        // Expo: the recipient's own message of a batch; background; a single message.
        XCTAssertEqual([v(10, "platform"), v(10, "title"), v(10, "body"), v(10, "badge"), meta(10, "channelId")], ["expo", "E1", "first", "2", "ch"])
        XCTAssertEqual(views[11]["silent"] as? Bool, true)
        XCTAssertEqual(meta(11, "_contentAvailable"), "true")
        XCTAssertEqual([v(12, "title"), v(12, "subtitle"), v(12, "body")], ["single", "sub", "one"])
        // Web Push relayed to a real browser: its delivery and ack from the annotation.
        XCTAssertEqual([v(13, "title"), meta(13, "browser delivery"), meta(13, "channel")], ["Relayed to a real browser", "acked (code 100)", "c"])
        // Declarative Web Push: the notification the browser shows (app badge as the badge); an
        // invalid one is the service worker's ordinary push, its text as the body, with the reason.
        XCTAssertEqual([v(14, "title"), v(14, "body"), v(14, "badge"), meta(14, "navigate"), meta(14, "icon (not loaded)"), meta(14, "lang"), meta(14, "mutable")],
                       ["DT", "DB", "5", "https://example.com/n", "https://example.com/i.png", "fr", "yes (a service worker may replace it)"])
        XCTAssertEqual(meta(14, "shown by"), "the browser (declarative Web Push, no service worker)")
        XCTAssertEqual([v(15, "title"), v(15, "body")], ["", #"{"web_push":8030,"notification":{"title":"FT"}}"#])
        XCTAssertEqual(meta(15, "shown by"), "the service worker's push event (not a valid declarative message: notification.navigate is missing or not a string)")
    }

    /// An APNs broadcast (its recorded notification names a channel) is drawn as the Live
    /// Activity shows it: the alert, else "Live Activity <event>" with the content-state; the
    /// channel, event, content-state and the stored-message mark as facts; never silent.
    func testAPNsBroadcastIsDrawnAsALiveActivityUpdate() throws {
        let cases = #"""
        [[{"provider":"apns","endpoint":"apns.broadcast","topic":"com.example.app","notification":{"bundleId":"com.example.app","channelId":"Y2g=",
           "pushType":"liveactivity","priority":10,"payload":{"aps":{"event":"update","timestamp":1700000000,"content-state":{"score":"2-1"},
           "alert":{"title":"Goal!","body":"2-1"}}}}}, -1],
         [{"provider":"apns","notification":{"bundleId":"com.example.app","channelId":"Y2g=","priority":5,"fromStorage":true,
           "payload":{"aps":{"event":"end","timestamp":1700000000,"content-state":{"score":"3-1"},"dismissal-date":1700003600}}}}, -1]]
        """#
        let views = try XCTUnwrap(try runHarness(mode: "views", cases: cases) as? [[String: Any]])
        func v(_ i: Int, _ key: String) -> String? { views[i][key].map { "\($0)" } }
        func meta(_ i: Int, _ key: String) -> String? { (views[i]["meta"] as? [String: String])?[key] }
        XCTAssertEqual([v(0, "platform"), v(0, "title"), v(0, "body")], ["ios", "Goal!", "2-1"])
        XCTAssertEqual([meta(0, "channel"), meta(0, "event"), meta(0, "content-state"), meta(0, "timestamp")],
                       ["Y2g=", "update", #"{"score":"2-1"}"#, "2023-11-14T22:13:20.000Z"])
        XCTAssertEqual(views[0]["silent"] as? Bool, false)
        XCTAssertNil(meta(0, "delivered"))
        XCTAssertEqual([v(1, "title"), v(1, "body"), meta(1, "dismissal-date"), meta(1, "priority")],
                       ["Live Activity end", #"{"score":"3-1"}"#, "1700003600", "5"])
        XCTAssertEqual(meta(1, "delivered"), "from the channel's stored message, when the device subscribed")
        XCTAssertEqual(views[1]["silent"] as? Bool, false)
    }

    /// A timeline row says what its notification says, as a mail list shows a subject: the
    /// title, else the body (Web Push's decrypted text), else "silent", else why it could not be
    /// read; nothing for an exchange without a notification; long text cut at 80 characters.
    func testEachRowSaysWhatItsNotificationSays() throws {
        // The view cases, each addressed to a token (Expo's through its recipients), then an OAuth
        // token request (a recorded assertion, no device) and a long body.
        var cases = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(Self.viewCases.utf8)) as? [[Any]])
        cases = cases.map { c in
            var ex = c[0] as! [String: Any]
            if ex["recipients"] == nil { ex["token"] = "token-\(ex["seq"]!)" }
            return [ex, c[1]]
        }
        let long = String(repeating: "word ", count: 40)
        cases.append([["seq": 13, "provider": "fcm", "endpoint": "oauth.token",
                       "notification": ["grant_type": "urn:ietf:params:oauth:grant-type:jwt-bearer"]], -1])
        cases.append([["seq": 14, "provider": "apns", "token": "t14",
                       "notification": ["headers": [:], "pushType": "alert", "payload": ["aps": ["alert": ["body": long]]]]], -1])
        cases.append([["seq": 15, "provider": "apns", "token": "t15"], -1])
        let json = String(decoding: try JSONSerialization.data(withJSONObject: cases), as: UTF8.self)
        let rows = try XCTUnwrap(try runHarness(mode: "rows", cases: json) as? [String])
        XCTAssertEqual(Array(rows.prefix(16)), ["T", "just a body", "silent", "AT", "silent", "only android", "WT", "plain text", "silent",
                                                "undecryptable: noPrivateKey: why", "E1", "E1", "single", "Relayed to a real browser",
                                                "DT", #"{"web_push":8030,"notification":{"title":"FT"}}"#])
        XCTAssertEqual(rows[16], "", "a token request addresses no device: nothing said")
        XCTAssertEqual(rows[17].count, 80)
        XCTAssertTrue(rows[17].hasPrefix("word word") && rows[17].hasSuffix("…"), rows[17])
        XCTAssertEqual(rows[18], "", "no notification recorded, nothing said")
    }

    /// The auth verdict is the fake's (`AuthIdentity.valid`) with its recorded reason, or "not
    /// recorded"; JWTs decode into header and claims; the deciding stage reads as words; a
    /// request becomes a curl command with shell-quoted parts.
    func testVerdictsJWTsAndDecisions() throws {
        let out = try XCTUnwrap(try runHarness(mode: "verdicts") as? [Any])
        let texts = out.prefix(5).map { ($0 as? [String: Any])?["text"] as? String }
        XCTAssertEqual(texts, ["not recorded", "valid", "invalid: malformed JWT: x", "invalid: vapidExpired: exp in the past", "invalid: MissingProviderToken"])
        let jwt = try XCTUnwrap(out[5] as? [String: Any])
        XCTAssertEqual(jwt["header"] as? [String: String], ["alg": "ES256", "kid": "K1"])
        XCTAssertEqual((jwt["claims"] as? [String: Any])?["iss"] as? String, "TEAM")
        XCTAssertEqual((jwt["claims"] as? [String: Any])?["iat"] as? Int, 1_700_000_000)
        XCTAssertTrue(out[6] is NSNull)
        XCTAssertEqual(out[7..<10].map { $0 as? String }, ["fault rule: busy", "validation rule: BadTopic", "not recorded"])
        // curl's own Accept, User-Agent, Content-Type (with a body) and Expect (HTTP/1.1 with a
        // body) are removed where the request had none; the framing headers are curl's to write.
        XCTAssertEqual(out[10] as? String, #"curl -sS -i --http2 --cacert "$PUSHDOUBLE_CA_FILE" -X 'POST' -H 'apns-topic: it'\''s' "#
                       + #"-H 'Accept:' -H 'User-Agent:' -H 'Content-Type:' --data-binary '{"a":"b"}' 'https://127.0.0.1:8721/3/device/ab'"#)
        // A binary body: decoded from its base64 onto curl's standard input.
        XCTAssertEqual(out[11] as? String, "printf '%s' 'AAE=' | base64 -d | curl -sS -i -X 'POST' -H 'Accept:' -H 'User-Agent:' "
                       + "-H 'Content-Type:' -H 'Expect:' --data-binary @- 'http://h:1/p'")
        // Cleartext HTTP/2 (h2c), no body, the request's own user-agent and accept kept.
        XCTAssertEqual(out[12] as? String, "curl -sS -i --http2-prior-knowledge -X 'GET' -H 'user-agent: ua/1' -H 'accept: */*' 'http://h:2/q'")
    }

    /// The providers' hooks as the inbox uses them: `delivers` (FCM: a validate_only send
    /// delivers nothing), `decodeAuthorization` (Web Push: VAPID and the legacy WebPush scheme),
    /// `credentialDetails` (FCM: a token request's recorded assertion), each with the inbox's
    /// default for a provider that registers none.
    func testProviderHooksAndTheirDefaults() throws {
        let out = try XCTUnwrap(try runHarness(mode: "hooks") as? [String: Any])
        XCTAssertEqual(out["delivered"] as? [Bool], [false, true, true, true, true, false, true, false])
        let creds = try XCTUnwrap(out["credentials"] as? [[[String: Any]]])
        XCTAssertEqual(creds.map(\.count), [1, 1, 1, 1, 1, 1, 1])
        func c(_ i: Int, _ key: String) -> Any? { creds[i][0][key].flatMap { $0 is NSNull ? nil : $0 } }
        let jwt = "eyJhbGciOiJFUzI1NiIsImtpZCI6IksxIn0.eyJpc3MiOiJURUFNIiwiaWF0IjoxNzAwMDAwMDAwfQ.c2ln"
        // Web Push's decoder: VAPID t= and k=, the legacy scheme; Bearer falls to the inbox's.
        XCTAssertEqual(c(0, "label") as? String, "VAPID (Authorization: vapid t=…, k=…)")
        XCTAssertEqual(c(0, "iss") as? String, "TEAM")
        XCTAssertEqual(c(0, "raw") as? String, jwt)
        XCTAssertEqual(c(0, "lines") as? [String], ["k (application server public key) = BKEY"])
        XCTAssertEqual(c(1, "label") as? String, "VAPID, legacy WebPush scheme")
        XCTAssertEqual(c(1, "iss") as? String, "TEAM")
        XCTAssertEqual(c(1, "lines") as? [String], [])
        XCTAssertEqual(c(2, "label") as? String, "Bearer JWT")
        // No decoder registered (APNs, FCM, an unknown provider): the inbox's generic decoding.
        XCTAssertEqual([c(3, "label") as? String, c(3, "iss") as? String], ["Bearer JWT", "TEAM"])
        XCTAssertEqual([c(4, "label") as? String, c(4, "opaque") as? String], ["Bearer token (opaque, 11 characters)", "ya29.opaque"])
        XCTAssertEqual([c(5, "label") as? String, c(5, "opaque") as? String], ["Authorization (vapid)", "vapid t=" + jwt],
                       "a scheme is decoded by the exchange's own provider's view only")
        XCTAssertEqual([c(6, "label") as? String, c(6, "opaque") as? String], ["Authorization (basic)", "Basic abc"])
        // FCM's token-request details; none without claims, none from a provider without the hook.
        let details = try XCTUnwrap(out["details"] as? [[[String: String]]])
        XCTAssertEqual(details.map(\.count), [1, 0, 0, 0])
        XCTAssertEqual(details[0][0]["label"], "Assertion as the token endpoint recorded it")
        XCTAssertTrue(details[0][0]["text"]?.contains("sa@example.iam") ?? false, "\(details)")
    }

    func testMarkupInTheHistoryIsRenderedAsText() throws {
        let doc = try XCTUnwrap(try runHarness(mode: nil) as? [String: Any])
        XCTAssertEqual(doc["sinks"] as? [String], [])
        let out = try XCTUnwrap(doc["out"] as? [[String: Any]])
        XCTAssertEqual(out.map { $0["platform"] as? String }, ["ios", "android", "browser", "browser", "browser", "expo"])
        let markup = "<script>alert(1)</script><img src=x onerror=alert(2)>"
        for item in out {
            let seq = item["seq"] as? Int ?? 0
            let tags = Set(item["tags"] as? [String] ?? [])
            XCTAssertTrue(tags.isSubset(of: ["li", "div", "span", "button", "#text", "figure", "figcaption", "p", "dl", "dt", "dd"]),
                          "seq \(seq) made \(tags)")
            XCTAssertTrue(tags.contains("figure"), "seq \(seq): no preview drawn")
            XCTAssertTrue((item["texts"] as? [String] ?? []).contains { $0.contains(markup) }, "seq \(seq): the markup is shown as text")
            for a in item["attrs"] as? [String] ?? [] { XCTAssertFalse(a.contains("<"), "seq \(seq): attribute \(a)") }
        }
        XCTAssertEqual(out[0]["title"] as? String, markup)
        XCTAssertEqual(out[1]["body"] as? String, markup)
        XCTAssertEqual(out[2]["title"] as? String, markup)
        XCTAssertEqual(out[3]["body"] as? String, markup)
        XCTAssertEqual(out[4]["decryptError"] as? String, markup + ": " + markup)
        XCTAssertEqual(out[5]["title"] as? String, markup)
    }
}
