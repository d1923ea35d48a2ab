import Foundation
import XCTest
import PushDoubleTestSupport
@testable import PushDoubleInbox

/// The scripts under node (interop tier: needs `node`): each parses (`node --check`), and
/// the real inbox.js renders notifications whose every field is `<script>`/markup text into
/// a recording DOM whose HTML sinks throw: the markup arrives as text, no element is made
/// from it.
final class InboxScriptNodeTests: XCTestCase {
    private func write(_ text: String, _ name: String) throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pd-inbox-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let url = dir.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url
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

    func testMarkupInTheHistoryIsRenderedAsText() throws {
        try requireTool("node")
        let script = try write(try XCTUnwrap(InboxPage.asset(at: "/inbox/inbox.js")).text, "inbox.js")
        let harness = script.deletingLastPathComponent().appendingPathComponent("harness.js")
        defer { try? FileManager.default.removeItem(at: script.deletingLastPathComponent()) }
        try Data(Self.harness.utf8).write(to: harness)
        let r = try runCommand(["node", harness.path, script.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        let doc = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], r.stdout)
        XCTAssertEqual(doc["sinks"] as? [String], [])
        let out = try XCTUnwrap(doc["out"] as? [[String: Any]])
        XCTAssertEqual(out.map { $0["platform"] as? String }, ["ios", "android", "browser", "browser", "browser", "expo"])
        let markup = "<script>alert(1)</script><img src=x onerror=alert(2)>"
        for item in out {
            let seq = item["seq"] as? Int ?? 0
            let tags = Set(item["tags"] as? [String] ?? [])
            XCTAssertTrue(tags.isSubset(of: ["li", "div", "span", "button", "#text"]), "seq \(seq) made \(tags)")
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
