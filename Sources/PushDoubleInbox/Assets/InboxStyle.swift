/// The inbox page's style sheet (`/inbox/inbox.css`): a three-pane layout at desktop widths
/// (devices, timeline, fault rules; the exchange detail slides over the right side), one
/// column at 900 px and below, full-screen detail at 420 px and below; light and dark.
enum InboxStyle {
    static let asset = InboxAsset(path: "/inbox/inbox.css", contentType: "text/css; charset=utf-8", text: #"""
:root {
  --bg: #f6f7f9; --fg: #1d2126; --muted: #5b6470; --pane: #ffffff; --line: #d9dde3;
  --accent: #1f5fbf; --ok: #1d7a3a; --warn: #9a6200; --bad: #b3261e; --focus: #ffb000;
  --ios: #f2f2f7; --android: #eef3fd; --browser: #f4f4f4; --expo: #f1eefc;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; font-size: 14px;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #15181c; --fg: #e6e8eb; --muted: #9aa3ad; --pane: #1e2227; --line: #343a42;
    --accent: #7fb0ff; --ok: #6fcf8f; --warn: #f0b451; --bad: #ff8a80;
    --ios: #2a2a2e; --android: #1f2a3d; --browser: #2a2a2a; --expo: #2a2540;
  }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg); }
h1 { font-size: 1.15rem; margin: 0; }
h2 { font-size: 1rem; margin: 0 0 .5rem; }
h3 { font-size: .9rem; margin: .75rem 0 .25rem; }
pre { white-space: pre-wrap; word-break: break-word; font: 12px/1.4 ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; margin: 0;
      background: var(--bg); border: 1px solid var(--line); border-radius: 4px; padding: .5rem; max-height: 28rem; overflow: auto; }
code { font-family: ui-monospace, Menlo, Consolas, monospace; }
button, .button, select, input, textarea { font: inherit; color: inherit; }
button, .button { background: var(--pane); border: 1px solid var(--line); border-radius: 4px; padding: .3rem .7rem; cursor: pointer;
                  text-decoration: none; display: inline-block; }
button:hover, .button:hover { border-color: var(--accent); }
button.danger { color: var(--bad); }
input, select, textarea { background: var(--pane); border: 1px solid var(--line); border-radius: 4px; padding: .25rem .4rem; }
textarea { width: 100%; font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12px; }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 1px; }
.skip { position: absolute; left: -999px; }
.skip:focus { left: .5rem; top: .5rem; background: var(--pane); padding: .25rem .5rem; z-index: 10; }
[hidden] { display: none !important; }

.bar { display: flex; align-items: center; gap: 1rem; padding: .6rem 1rem; background: var(--pane); border-bottom: 1px solid var(--line);
       flex-wrap: wrap; }
.bar .actions { margin-left: auto; display: flex; gap: .5rem; }
.conn { font-size: .8rem; padding: .1rem .5rem; border-radius: 1rem; border: 1px solid var(--line); color: var(--warn); }
.conn.live { color: var(--ok); }
.counts { color: var(--muted); font-size: .85rem; }
.banner { background: #fff3cd; color: #5c4400; padding: .5rem 1rem; border-bottom: 1px solid #e0c36a; }
.message { padding: 0 1rem; min-height: 1.2rem; font-size: .85rem; color: var(--muted); }
.message.error { color: var(--bad); }
.note { color: var(--muted); font-size: .85rem; margin: .25rem 0; }

.layout { display: grid; grid-template-columns: minmax(220px, 1fr) minmax(420px, 2.2fr) minmax(240px, 1fr); gap: .75rem; padding: .75rem; }
.pane { background: var(--pane); border: 1px solid var(--line); border-radius: 6px; padding: .75rem; min-width: 0; }

.filters { display: flex; flex-wrap: wrap; gap: .5rem; margin-bottom: .25rem; }
.filters label { display: flex; flex-direction: column; font-size: .75rem; color: var(--muted); gap: .1rem; flex: 1 1 7rem; }
.filters input, .filters select { width: 100%; }

.timeline { list-style: none; margin: 0; padding: 0; max-height: calc(100vh - 13rem); overflow: auto; border-top: 1px solid var(--line); }
.row { display: grid; grid-template-columns: 4.5rem 5.5rem 4.5rem 3.2rem minmax(0, 1fr); gap: .4rem; padding: .3rem .4rem;
       border-bottom: 1px solid var(--line); cursor: pointer; align-items: baseline; }
.row:hover { background: var(--bg); }
.row.selected { background: color-mix(in srgb, var(--accent) 14%, transparent); }
.row .seq { color: var(--muted); font-variant-numeric: tabular-nums; }
.row .time { color: var(--muted); font-variant-numeric: tabular-nums; font-size: .8rem; }
.row .status { font-weight: 600; font-variant-numeric: tabular-nums; }
.row .what { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.row .reason { color: var(--bad); margin-left: .4rem; }
.row .who { color: var(--muted); margin-left: .4rem; }
.s2 { color: var(--ok); } .s4 { color: var(--warn); } .s5, .sx { color: var(--bad); }
.provider { font-size: .75rem; padding: 0 .35rem; border-radius: 3px; border: 1px solid var(--line); }

.device-list { list-style: none; margin: 0 0 .5rem; padding: 0; max-height: 16rem; overflow: auto; }
.device-item { padding: .3rem .4rem; border-bottom: 1px solid var(--line); cursor: pointer; display: flex; gap: .4rem; align-items: baseline; }
.device-item.selected { background: color-mix(in srgb, var(--accent) 14%, transparent); }
.device-item .id { font-weight: 600; overflow: hidden; text-overflow: ellipsis; }
.device-item .state { margin-left: auto; font-size: .75rem; color: var(--muted); }
.device-item .state.dead { color: var(--bad); }
.state-control { display: flex; gap: .4rem; align-items: center; flex-wrap: wrap; }
.facts { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: .1rem .6rem; margin: .25rem 0; font-size: .85rem; }
.facts dt { color: var(--muted); }
.facts dd { margin: 0; overflow-wrap: anywhere; }

.notifications { list-style: none; margin: .5rem 0 0; padding: 0; display: flex; flex-direction: column; gap: .5rem; }
.notification { border-radius: 12px; padding: .55rem .7rem; border: 1px solid var(--line); }
.notification[data-platform="ios"] { background: var(--ios); border-radius: 14px; }
.notification[data-platform="android"] { background: var(--android); border-radius: 6px; }
.notification[data-platform="browser"] { background: var(--browser); border-radius: 4px; box-shadow: 0 1px 3px rgba(0,0,0,.2); }
.notification[data-platform="expo"] { background: var(--expo); }
.notification[data-silent="true"] { border-style: dashed; opacity: .85; }
.n-head { display: flex; gap: .4rem; font-size: .75rem; color: var(--muted); align-items: baseline; }
.n-head .app { font-weight: 600; text-transform: uppercase; letter-spacing: .02em; overflow: hidden; text-overflow: ellipsis; }
.n-head .when { margin-left: auto; }
.n-title { font-weight: 600; margin-top: .15rem; }
.n-subtitle { font-weight: 500; }
.n-body { white-space: pre-wrap; overflow-wrap: anywhere; }
.n-silent { font-style: italic; color: var(--muted); }
.n-badge { display: inline-block; min-width: 1.3rem; text-align: center; border-radius: 1rem; background: var(--bad); color: #fff;
           font-size: .75rem; padding: 0 .3rem; }
.n-meta { display: flex; flex-wrap: wrap; gap: .25rem .6rem; font-size: .75rem; color: var(--muted); margin-top: .25rem; }
.n-meta span { overflow-wrap: anywhere; }
.decrypt-error { color: var(--bad); }
.n-open { font-size: .75rem; margin-top: .3rem; }

.fault-form { display: flex; flex-direction: column; gap: .4rem; }
.fault-form label { font-size: .8rem; color: var(--muted); }
.fault-list { list-style: none; padding: 0; margin: .75rem 0 0; display: flex; flex-direction: column; gap: .4rem; }
.fault-item { border: 1px solid var(--line); border-radius: 4px; padding: .4rem; }
.fault-item .f-head { display: flex; gap: .5rem; align-items: baseline; }
.fault-item .f-head .f-id { font-weight: 600; overflow-wrap: anywhere; }
.fault-item .f-head button { margin-left: auto; }
.fault-item pre { margin-top: .3rem; max-height: 8rem; }

.detail { position: fixed; top: 0; right: 0; bottom: 0; width: min(46rem, 60vw); background: var(--pane); border-left: 1px solid var(--line);
          box-shadow: -4px 0 16px rgba(0,0,0,.15); overflow: auto; padding: .75rem 1rem 2rem; z-index: 5; }
.detail-head { display: flex; align-items: center; gap: .5rem; position: sticky; top: -.75rem; background: var(--pane); padding: .25rem 0; }
.detail-head button { margin-left: auto; }
.verdict { font-weight: 600; }
.verdict.valid { color: var(--ok); }
.verdict.invalid { color: var(--bad); }
.verdict.unknown { color: var(--muted); }
.auth-part { margin-top: .35rem; }
.attempts { list-style: none; padding: 0; margin: 0; }
.attempts li { padding: .2rem 0; border-bottom: 1px solid var(--line); cursor: pointer; }
.attempts li.current { font-weight: 600; }

@media (max-width: 900px) {
  .layout { grid-template-columns: 1fr; }
  .timeline { max-height: none; }
  .detail { width: auto; left: 0; }
}
@media (max-width: 420px) {
  :root { font-size: 13px; }
  .bar { padding: .5rem; gap: .5rem; }
  .bar .actions { margin-left: 0; width: 100%; }
  .layout { padding: .4rem; gap: .4rem; }
  .row { grid-template-columns: 3rem 4.5rem 3rem minmax(0, 1fr); }
  .row .time { display: none; }
  .detail { padding: .5rem; }
}
"""#)
}
