import Foundation
import XCTest
import PushDoubleTestSupport
import PushDoubleCore
import PushDoubleTransport
import PushDoubleInbox
import PushDouble

/// The retry timeline renderer (``InboxAsset/timelineScript``) run under node: its grouping
/// and Retry-After rules on histories encoded by the real history encoder, and its DOM
/// output through a minimal DOM (no HTML parser, so text that reached markup would show).
final class TimelineScriptTests: XCTestCase {
    override func setUpWithError() throws { try requireInteropTier(needs: "node") }

    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    /// One history exchange; times in seconds from t0.
    static func exchange(_ seq: UInt64, provider: ProviderID = "apns", path: String? = nil, token: String? = "aa01",
                         headers: [(String, String)] = [], body: String = #"{"aps":{"alert":"hi"}}"#, at start: Double,
                         duration: Double = 0.01, status: Int? = 200, reason: String? = nil, action: String = "respond",
                         responseHeaders: [[String]] = [], recipients: [String]? = nil) -> Exchange {
        let begin = t0 + start
        let ci = ConnectionInfo(id: 1, listener: "test", peer: "127.0.0.1:5000", localPort: 443, tls: nil, acceptedAt: t0)
        let info = RequestInfo(connection: ci, streamID: UInt32(seq * 2 + 1), version: .http2, headReceivedAt: begin, bodyReceivedAt: begin)
        let req = HTTPRequest(method: "POST", path: path ?? "/3/device/" + (token ?? ""), scheme: "https", authority: "localhost",
                              headers: HTTPHeaders(headers), body: Array(body.utf8), info: info)
        return Exchange(seq: seq, provider: provider, endpoint: "\(provider).push", transport: info, request: RecordedRequest(req),
                        token: recipients == nil ? token : nil, topic: nil, environment: nil, deviceID: nil, auth: nil, notification: nil,
                        response: RecordedResponse(action: action, status: status, headers: responseHeaders, reason: reason),
                        decidedBy: Decision(.accepted), receivedAt: begin, respondedAt: begin + duration,
                        recipients: recipients?.map { RecipientOutcome(token: $0, accepted: status == 200) })
    }

    static func date(_ format: String, _ d: Date) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX"); f.timeZone = TimeZone(identifier: "GMT"); f.dateFormat = format
        return f.string(from: d)
    }

    /// An answer asking to wait `value`, then two retries at `early` and `late` seconds.
    static func window(_ value: String, early: Double, late: Double) -> [Exchange] {
        [exchange(1, at: 0, status: 429, reason: "TooManyRequests", responseHeaders: [["retry-after", value]]),
         exchange(2, at: early, status: 503, reason: "ServiceUnavailable"),
         exchange(3, at: late)]
    }

    /// Six attempts of one notification a millisecond apart (a sender retrying in a tight loop).
    static func burst() -> [Exchange] {
        var list: [Exchange] = []
        for i in 1...6 {
            let last = i == 6
            list.append(exchange(UInt64(i), token: "cc01", at: Double(i - 1) * 0.001, duration: 0.0005,
                                 status: last ? 200 : 503, reason: last ? nil : "ServiceUnavailable"))
        }
        return list
    }

    static func fixtures() -> [String: [Exchange]] {
        let due = t0 + 5
        let fcmPath = "/v1/projects/demo/messages:send"
        let fcmBody = #"{"message":{"token":"f1","notification":{"title":"a"}}}"#
        return [
            "secondsWindow": window("2", early: 0.51, late: 2.11),
            "dateIMF": window(DateFormats.httpDate(due), early: 3, late: 6),
            "dateRFC850": window(date("EEEE, dd-MMM-yy HH:mm:ss 'GMT'", due), early: 3, late: 6),
            "dateAsctime": window(date("EEE MMM d HH:mm:ss yyyy", due), early: 3, late: 6), // day 15: two digits, no padding
            "withinTolerance": [exchange(1, at: 0, status: 429, responseHeaders: [["Retry-After", "1"]]), exchange(2, at: 0.98)],
            "okWithRetryAfter": [exchange(1, at: 0, responseHeaders: [["retry-after", "10"]]), exchange(2, at: 0.1)],
            "unreadable": [exchange(1, at: 0, status: 503, responseHeaders: [["retry-after", "soon"]]), exchange(2, at: 0.1)],
            "noRetryAfter": [exchange(1, at: 0, status: 503), exchange(2, at: 0.1)],
            "apnsSameIdDifferentBodies": [exchange(1, headers: [("apns-id", "6b0e6b0e-0000-4000-8000-000000000001")], body: "{\"a\":1}", at: 0, status: 500),
                                          exchange(2, headers: [("apns-id", "6b0e6b0e-0000-4000-8000-000000000001")], body: "{\"a\":2}", at: 1)],
            "apnsNoIdDifferentBodies": [exchange(1, body: "{\"a\":1}", at: 0), exchange(2, body: "{\"a\":2}", at: 1)],
            "apnsNoIdSameBody": [exchange(1, at: 0, status: 500), exchange(2, at: 1)],
            "apnsDifferentTokens": [exchange(1, token: "aa01", at: 0), exchange(2, token: "aa02", at: 0.1)],
            "fcmSameBody": [exchange(1, provider: "fcm", path: fcmPath, token: "f1", body: fcmBody, at: 0, status: 503),
                            exchange(2, provider: "fcm", path: fcmPath, token: "f1", body: fcmBody, at: 1)],
            "fcmDifferentBodies": [exchange(1, provider: "fcm", path: fcmPath, token: "f1", body: fcmBody, at: 0),
                                   exchange(2, provider: "fcm", path: fcmPath, token: "f1", body: fcmBody.replacingOccurrences(of: "\"a\"", with: "\"b\""), at: 1)],
            "webpushReencrypted": [exchange(1, provider: "webpush", path: "/wpush/s1", token: "s1", headers: [("topic", "news")], body: "AAAA", at: 0, status: 429),
                                   exchange(2, provider: "webpush", path: "/wpush/s1", token: "s1", headers: [("topic", "news")], body: "BBBB", at: 2)],
            "webpushOtherTopic": [exchange(1, provider: "webpush", path: "/wpush/s1", token: "s1", headers: [("topic", "news")], body: "AAAA", at: 0),
                                  exchange(2, provider: "webpush", path: "/wpush/s1", token: "s1", headers: [("topic", "sport")], body: "AAAA", at: 2)],
            "expoBatchRetry": [exchange(1, provider: "expo", path: "/--/api/v2/push/send", body: "[{\"to\":\"x\"}]", at: 0, status: 429, recipients: ["ExponentPushToken[a]", "ExponentPushToken[b]"]),
                               exchange(2, provider: "expo", path: "/--/api/v2/push/send", body: "[{\"to\":\"x\"}]", at: 3, recipients: ["ExponentPushToken[a]", "ExponentPushToken[b]"])],
            "mixed": [exchange(1, at: 0, status: 500), exchange(2, provider: "fcm", path: fcmPath, token: "f1", body: fcmBody, at: 0.1), exchange(3, at: 0.2)],
            "hostile": [exchange(9, token: "bb01", at: 0, status: 400, reason: "</script><img src=x onerror=alert(1)>")],
            "burst": burst(),
        ]
    }

    /// The history encoder's JSON of every fixture, as `{"name": [exchange, …]}`.
    static func fixturesJSON() throws -> Data {
        let encoder = ExchangeEncoding.makeEncoder()
        var parts: [String] = []
        for (name, list) in fixtures().sorted(by: { $0.key < $1.key }) {
            parts.append("\"\(name)\":" + String(decoding: try encoder.encode(list), as: UTF8.self))
        }
        return Data(("{" + parts.joined(separator: ",") + "}").utf8)
    }

    /// Runs `script` under node in a fresh directory holding the timeline asset and `files`;
    /// the script's arguments are the paths of timeline.js, then of each file, in order.
    static func runNode(_ script: String, files: [(name: String, data: Data)]) throws -> (status: Int32, output: String) {
        try requireTool("node")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pd-timeline-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let all = [("timeline.js", Data(InboxAsset.timelineScript.text.utf8))] + files.map { ($0.name, $0.data) }
        for (name, data) in all { try data.write(to: dir.appendingPathComponent(name)) }
        try script.write(to: dir.appendingPathComponent("main.js"), atomically: true, encoding: .utf8)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["node", dir.appendingPathComponent("main.js").path] + all.map { dir.appendingPathComponent($0.0).path }
        let out = Pipe()
        p.standardOutput = out; p.standardError = out
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        return (p.terminationStatus, text)
    }

    /// The registered providers' views (`/inbox/views.js`): their `messageIdentity` hooks.
    static var viewsScript: Data {
        Data((InboxPage.viewAssets(FakeRegistry.inboxViews).first { $0.path == "/inbox/views.js" }?.text ?? "").utf8)
    }

    func testGroupingRetryAfterAndRenderingUnderNode() throws {
        let (status, text) = try Self.runNode(Self.nodeTest, files: [("exchanges.json", try Self.fixturesJSON()), ("views.js", Self.viewsScript)])
        XCTAssertEqual(status, 0, text)
        XCTAssertTrue(text.contains("all ok"), text)
        // The script counts its checks: a run that skipped them would not reach this number.
        let count = text.split(separator: " ").compactMap { Int($0) }.last ?? 0
        XCTAssertGreaterThanOrEqual(count, 50, text)
    }

    func testAssetsAreServedPathsAndHoldNoExternalReference() {
        XCTAssertEqual(InboxAsset.timelineScript.path, "/inbox/timeline.js")
        XCTAssertEqual(InboxAsset.timelineStyle.path, "/inbox/timeline.css")
        for a in [InboxAsset.timelineScript, InboxAsset.timelineStyle] {
            XCTAssertFalse(a.text.contains("innerHTML ="), a.path)
            XCTAssertNil(a.text.range(of: #"(src|href)\s*=|url\(|@import"#, options: .regularExpression), a.path)
        }
    }

    /// The node side: assertions over the fixtures (argv: timeline.js exchanges.json).
    static let nodeTest = #"""
'use strict';
// Unit test of timeline.js under node. argv: timeline.js exchanges.json views.js
// exchanges.json: {"name": [exchange, …], …} encoded by the Swift history encoder; views.js:
// the providers' views (their messageIdentity hooks), loaded first as on the inbox page.
const fs = require('fs');
const path = process.argv[2], fixtures = JSON.parse(fs.readFileSync(process.argv[3], 'utf8'));
let passed = 0;
function check(cond, what) {
  if (!cond) { console.log('FAIL ' + what); process.exitCode = 1; } else passed++;
}
function eq(a, b, what) { check(JSON.stringify(a) === JSON.stringify(b), what + ': got ' + JSON.stringify(a) + ', want ' + JSON.stringify(b)); }

// A minimal DOM: elements with attributes, children, text and listeners. No HTML parser at
// all, so a string reaching markup would show up as a missing element, never as a new one.
const created = [];
class Node_ {
  constructor(name, ns) { this.nodeName = name; this.ns = ns; this.attributes = {}; this.childNodes = []; this.listeners = {}; this._text = null;
    const self = this; this.classList = { add(c) { const s = new Set((self.attributes['class'] || '').split(' ').filter(Boolean)); s.add(c); self.attributes['class'] = [...s].join(' '); } }; }
  setAttribute(k, v) { this.attributes[k] = String(v); }
  getAttribute(k) { return k in this.attributes ? this.attributes[k] : null; }
  appendChild(c) { this.childNodes.push(c); c.parentNode = this; return c; }
  removeChild(c) { this.childNodes = this.childNodes.filter(x => x !== c); return c; }
  get firstChild() { return this.childNodes[0] || null; }
  set textContent(t) { this.childNodes = [new Text_(String(t))]; }
  get textContent() { return this.childNodes.map(c => c.textContent).join(''); }
  addEventListener(type, f) { (this.listeners[type] = this.listeners[type] || []).push(f); }
  dispatch(type, ev) { (this.listeners[type] || []).forEach(f => f(ev || {})); }
  set innerHTML(_) { throw new Error('innerHTML used'); }
  all(pred, out = []) { if (pred(this)) out.push(this); this.childNodes.forEach(c => c.all ? c.all(pred, out) : pred(c) && out.push(c)); return out; }
  byTestID(id) { return this.all(n => n.attributes['data-testid'] === id); }
}
class Text_ { constructor(t) { this.text = t; this.nodeName = '#text'; this.attributes = {}; } get textContent() { return this.text; } }
global.document = {
  createElementNS(ns, n) { const e = new Node_(n, ns); created.push(n); return e; },
  createElement(n) { const e = new Node_(n, 'html'); created.push(n); return e; },
  createTextNode(t) { return new Text_(t); },
};

global.window = global;
require(require('path').resolve(process.argv[4]));
const T = require(require('path').resolve(path));
check(typeof T.render === 'function' && typeof T.group === 'function', 'API');
const byName = n => { const x = fixtures[n]; if (!x) throw new Error('no fixture ' + n); return x; };

// --- Retry-After: delta-seconds ---
{
  const [a, early, late] = byName('secondsWindow');
  const w = T.retryAfterWindow(a);
  eq(w.form, 'seconds', 'seconds form'); eq(w.seconds, 2, 'seconds value');
  eq(w.end - w.start, 2000, 'window length');
  eq(w.start, Date.parse(a.respondedAt), 'window starts at respondedAt');
  check(T.isEarly(a, early), 'retry 0.5 s into a 2 s window is early');
  check(!T.isEarly(a, late), 'retry after 2.1 s is not early');
  const g = T.group([late, a, early]);
  eq(g.length, 1, 'one notification'); eq(g[0].attempts.map(x => x.seq), [a.seq, early.seq, late.seq], 'attempt order');
  eq(g[0].attempts.map(x => x.early), [false, true, false], 'early flags (each against its previous attempt)');
}
// --- Retry-After: HTTP-date, all three forms ---
for (const name of ['dateIMF', 'dateRFC850', 'dateAsctime']) {
  const [a, early, late] = byName(name);
  const w = T.retryAfterWindow(a);
  eq(w && w.form, 'date', name + ' form');
  check(Math.abs(w.seconds - 5) < 1.001, name + ' seconds ~5, got ' + (w && w.seconds));
  check(T.isEarly(a, early), name + ': retry after 3 s of a 5 s date window is early');
  check(!T.isEarly(a, late), name + ': retry after 6 s is not early');
}
// --- tolerance, 2xx, unreadable, absent ---
{
  const [a, b] = byName('withinTolerance');
  check(!T.isEarly(a, b), 'a retry 30 ms short of the window is within the 50 ms tolerance');
  const [ok, next] = byName('okWithRetryAfter');
  eq(T.retryAfterWindow(ok), null, 'a 2xx answer has no window'); check(!T.isEarly(ok, next), '2xx never makes the next early');
  const [bad, after] = byName('unreadable');
  const w = T.retryAfterWindow(bad);
  check(w && w.invalid === true, 'unreadable value is flagged'); check(!T.isEarly(bad, after), 'unreadable never makes early');
  const [none, n2] = byName('noRetryAfter');
  eq(T.retryAfterWindow(none), null, 'no header: no window'); check(!T.isEarly(none, n2), 'no header: not early');
  eq(T.parseHTTPDate('Tue, 01 Dec 2026 16:12:29 GMT'), Date.UTC(2026, 11, 1, 16, 12, 29), 'IMF-fixdate');
  eq(T.parseHTTPDate('Tue, 01 Dec 2026 16:12:29 +0000'), null, 'not an HTTP-date');
  eq(T.parseHTTPDate('Tuesday, 01-Dec-26 16:12:29 GMT', Date.UTC(2026, 0, 1)), Date.UTC(2026, 11, 1, 16, 12, 29), 'RFC 850');
  eq(T.parseHTTPDate('Sunday, 06-Nov-94 08:49:37 GMT', Date.UTC(2026, 0, 1)), Date.UTC(1994, 10, 6, 8, 49, 37), 'RFC 850 past century');
  eq(T.parseHTTPDate('Sun Nov  6 08:49:37 1994'), Date.UTC(1994, 10, 6, 8, 49, 37), 'asctime');
}
// --- grouping ---
{
  eq(T.group(byName('apnsSameIdDifferentBodies')).length, 1, 'APNs: same token + same apns-id = one notification');
  eq(T.group(byName('apnsNoIdDifferentBodies')).length, 2, 'APNs: no apns-id, different bodies = two');
  eq(T.group(byName('apnsNoIdSameBody')).length, 1, 'APNs: no apns-id, same body = one');
  eq(T.group(byName('apnsDifferentTokens')).length, 2, 'APNs: different tokens = two');
  eq(T.group(byName('fcmSameBody')).length, 1, 'FCM: same body = one');
  eq(T.group(byName('fcmDifferentBodies')).length, 2, 'FCM: different bodies = two');
  eq(T.group(byName('webpushReencrypted')).length, 1, 'Web Push: same endpoint, same size and topic = one');
  eq(T.group(byName('webpushOtherTopic')).length, 2, 'Web Push: another topic = two');
  eq(T.group(byName('expoBatchRetry')).length, 1, 'Expo: same recipients + body = one');
  // The identity each provider's hook gives; the request body without one.
  const req = (headers, body, bodySize) => ({ headers, body, bodySize });
  eq(T.messageIdentity('apns', req([['apns-id', 'ID-1']], '{"a":1}', 7)), 'ID-1', 'APNs hook: the apns-id');
  eq(T.messageIdentity('apns', req([], '{"a":1}', 7)), '{"a":1}', 'APNs hook: no apns-id, the body');
  eq(T.messageIdentity('webpush', req([['Topic', 'news']], 'AAAA', 4)), 'news|4', 'Web Push hook: topic + body size');
  eq(T.messageIdentity('webpush', req([], 'AAAA', 4)), '|4', 'Web Push hook: no topic');
  eq(T.messageIdentity('fcm', req([['apns-id', 'x']], '{"m":1}', 7)), '{"m":1}', 'FCM registers none: the body');
  eq(T.messageIdentity('expo', req([], '[1]', 3)), '[1]', 'Expo registers none: the body');
  eq(T.messageIdentity('zz', { headers: [], body: null, bodyBase64: 'AAE=' }), 'AAE=', 'no view: the base64 body');
  // Without the views (timeline.js alone), every provider falls back to the body.
  const views = window.PushDoubleInboxViews;
  delete window.PushDoubleInboxViews;
  eq(T.messageIdentity('apns', req([['apns-id', 'ID-1']], '{"a":1}', 7)), '{"a":1}', 'no views loaded: the body');
  eq(T.group(byName('apnsSameIdDifferentBodies')).length, 2, 'no views loaded: APNs attempts with other bodies split');
  window.PushDoubleInboxViews = views;
  const mixed = T.group(byName('mixed'));
  eq(mixed.map(g => g.provider), ['apns', 'fcm'], 'groups in first-attempt order, per provider');
  const seqs = byName('apnsNoIdDifferentBodies').map(e => e.seq);
  eq(T.groupOf(byName('apnsNoIdDifferentBodies'), seqs[1]).attempts.map(a => a.seq), [seqs[1]], 'groupOf');
}
// --- rendering (DOM shim) ---
{
  const xs = byName('secondsWindow').concat(byName('hostile'));
  const root = new Node_('div', 'html'); const selected = [];
  const r = T.render(root, xs, { width: 600, onSelect: s => selected.push(s) });
  eq(r.groups.length, 2, 'render returns the groups');
  const attempts = root.byTestID('attempt');
  eq(attempts.map(a => a.attributes['data-seq']).sort(), xs.map(e => String(e.seq)).sort(), 'one attempt element per exchange');
  const early = attempts.filter(a => (a.attributes['class'] || '').split(' ').includes('pd-early'));
  eq(early.map(a => a.attributes['data-seq']), [String(byName('secondsWindow')[1].seq)], 'the early attempt has class pd-early');
  eq(early[0].byTestID('attempt-early').length, 1, 'the early attempt holds an attempt-early mark');
  eq(root.byTestID('attempt-early').length, 1, 'only one attempt-early mark');
  eq(root.byTestID('retry-after-window').length, 1, 'one Retry-After window drawn');
  eq(root.byTestID('gap').length, 2, 'gaps labelled between attempts');
  check(root.byTestID('gap').some(g => /ms|s$/.test(g.textContent)), 'gap labels carry units');
  eq(root.byTestID('timeline-notification').length, 2, 'one section per notification');
  attempts[0].dispatch('click'); attempts[1].dispatch('keydown', { key: 'Enter', preventDefault() {} });
  attempts[1].dispatch('keydown', { key: 'a' });
  eq(selected, [Number(attempts[0].attributes['data-seq']), Number(attempts[1].attributes['data-seq'])], 'onSelect on click and Enter only');
  check(attempts.every(a => a.attributes.tabindex === '0'), 'attempts are focusable');
  const hostileText = byName('hostile')[0].response.reason;
  check(root.all(n => n.nodeName === '#text' && n.text.includes(hostileText)).length > 0, 'hostile reason shown as text');
  const allowed = new Set(['svg', 'g', 'rect', 'line', 'text', 'tspan', 'title', 'section', 'div', 'span', 'strong', 'details', 'summary', 'ol', 'li', 'ul', 'p']);
  eq(created.filter(n => !allowed.has(n)), [], 'no element but the renderer\'s own');
  // Attempts a millisecond apart: every label on a row of its own where they would touch, none
  // overlapping another on its row (estimated as the layout estimates), the drawing taller to
  // hold the rows, and no two visible gap labels overlapping.
  {
    const burst = new Node_('div', 'html');
    T.render(burst, byName('burst'), { width: 600 });
    const labels = burst.byTestID('attempt-label');
    eq(labels.length, 6, 'one label per attempt in the burst');
    const spans = labels.map(l => { const w = l.textContent.length * 6.4, x = Number(l.attributes.x);
      return { y: l.attributes.y, x0: l.attributes['text-anchor'] === 'end' ? x - w : x, x1: l.attributes['text-anchor'] === 'end' ? x : x + w }; });
    const overlapping = spans.filter((a, i) => spans.some((b, j) => j !== i && a.y === b.y && a.x0 < b.x1 && b.x0 < a.x1));
    eq(overlapping.length, 0, 'no two attempt labels overlap on a row');
    check(new Set(spans.map(s => s.y)).size > 2, 'the burst needs more than two label rows');
    const svgEl = burst.all(n => n.nodeName === 'svg')[0];
    check(Number(svgEl.attributes.height) > 104, 'the drawing grows to hold the extra rows');
    const gaps = burst.byTestID('gap').filter(g => g.textContent && !g.attributes['data-hidden-overlap']);
    const gspans = gaps.map(g => { const w = g.textContent.length * 6.4, x = Number(g.attributes.x); return [x - w / 2, x + w / 2]; });
    eq(gspans.filter((a, i) => gspans.some((b, j) => j !== i && a[0] < b[1] && b[0] < a[1])).length, 0, 'visible gap labels do not overlap');
    eq(burst.byTestID('gap').length, 5, 'every gap still has its element (a hidden one keeps its duration as a tooltip)');
  }
  // re-render replaces, empty input draws a note
  T.render(root, [], {});
  eq(root.byTestID('attempt').length, 0, 're-render clears'); check(root.textContent.includes('No attempts'), 'empty note');
}
console.log((process.exitCode ? 'FAILED ' : 'all ok ') + passed + ' checks');
"""#
}
