/// The styles of the retry/attempt timeline (``InboxAsset/timelineScript``): outcome colours,
/// Retry-After windows, early retries. Served at `/inbox/timeline.css`, inlined by the HTML report.
extension InboxAsset {
    /// `/inbox/timeline.css`.
    public static let timelineStyle = InboxAsset(path: "/inbox/timeline.css", contentType: "text/css; charset=utf-8", text: #"""
/* PushDouble retry timeline (timeline.js). Colours are custom properties so a page can theme them. */
.pd-timeline {
  --pd-ok: #2e7d32; --pd-client: #ef6c00; --pd-throttled: #6a1b9a; --pd-server: #c62828;
  --pd-connection: #616161; --pd-other: #1565c0; --pd-window: rgba(255, 193, 7, 0.28);
  --pd-window-edge: #b28704; --pd-early: #d50000; --pd-muted: #666; --pd-focus: #1a73e8;
  font: 13px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
}
.pd-timeline .pd-legend { list-style: none; display: flex; flex-wrap: wrap; gap: 4px 14px; margin: 0 0 8px; padding: 0; font-size: 12px; }
.pd-timeline .pd-legend li { display: inline-flex; align-items: center; gap: 5px; }
.pd-timeline .pd-swatch { display: inline-block; width: 12px; height: 12px; border-radius: 3px; background: var(--pd-other); }
.pd-timeline .pd-swatch.pd-outcome-ok { background: var(--pd-ok); }
.pd-timeline .pd-swatch.pd-outcome-client { background: var(--pd-client); }
.pd-timeline .pd-swatch.pd-outcome-throttled { background: var(--pd-throttled); }
.pd-timeline .pd-swatch.pd-outcome-server { background: var(--pd-server); }
.pd-timeline .pd-swatch.pd-outcome-connection { background: var(--pd-connection); }
.pd-timeline .pd-swatch-window { background: var(--pd-window); border: 1px dashed var(--pd-window-edge); }
.pd-timeline .pd-swatch-early { background: transparent; border: 2px dashed var(--pd-early); }
.pd-timeline .pd-notification { margin: 0 0 12px; padding: 6px 8px; border: 1px solid #ddd; border-radius: 6px; }
.pd-timeline .pd-notification.pd-has-early { border-color: var(--pd-early); }
.pd-timeline .pd-notification-head { display: flex; flex-wrap: wrap; gap: 4px 10px; align-items: baseline; margin-bottom: 4px; }
.pd-timeline .pd-provider { font-weight: 600; text-transform: uppercase; font-size: 11px; letter-spacing: .04em; }
.pd-timeline .pd-target { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12px; overflow-wrap: anywhere; }
.pd-timeline .pd-count { color: var(--pd-muted); }
.pd-timeline .pd-early-note, .pd-timeline .pd-early-mark { color: var(--pd-early); }
.pd-timeline .pd-scroll { overflow-x: auto; max-width: 100%; }
.pd-timeline .pd-svg { display: block; font-size: 11px; }
.pd-timeline .pd-svg text { fill: currentColor; }
.pd-timeline .pd-window { fill: var(--pd-window); stroke: var(--pd-window-edge); stroke-dasharray: 3 2; }
.pd-timeline .pd-window-clipped { stroke-dasharray: 1 3; }
.pd-timeline .pd-window-label { fill: var(--pd-window-edge); font-size: 10px; }
.pd-timeline .pd-gap-line { stroke: var(--pd-muted); stroke-dasharray: 2 2; }
.pd-timeline .pd-svg .pd-gap { fill: var(--pd-muted); font-size: 10px; }
.pd-timeline .pd-svg .pd-gap-early { fill: var(--pd-early); font-weight: 600; }
.pd-timeline .pd-axis, .pd-timeline .pd-tick { stroke: #999; }
.pd-timeline .pd-svg .pd-tick-label { fill: var(--pd-muted); font-size: 10px; }
.pd-timeline .pd-attempt { cursor: pointer; outline: none; }
.pd-timeline .pd-attempt .pd-hit { fill: transparent; stroke: none; }
.pd-timeline .pd-attempt:focus .pd-hit { stroke: var(--pd-focus); stroke-dasharray: 2 2; }
.pd-timeline .pd-attempt .pd-mark { fill: var(--pd-other); }
.pd-timeline .pd-outcome-ok .pd-mark { fill: var(--pd-ok); }
.pd-timeline .pd-outcome-client .pd-mark { fill: var(--pd-client); }
.pd-timeline .pd-outcome-throttled .pd-mark { fill: var(--pd-throttled); }
.pd-timeline .pd-outcome-server .pd-mark { fill: var(--pd-server); }
.pd-timeline .pd-outcome-connection .pd-mark { fill: var(--pd-connection); }
.pd-timeline .pd-attempt.pd-early .pd-mark { stroke: var(--pd-early); stroke-width: 3; stroke-dasharray: 4 2; }
.pd-timeline .pd-svg .pd-early-mark { fill: var(--pd-early); font-weight: 600; }
.pd-timeline .pd-attempt:hover .pd-mark { opacity: .8; }
.pd-timeline .pd-attempt:focus .pd-mark, .pd-timeline .pd-attempt.pd-selected .pd-mark { stroke: var(--pd-focus); stroke-width: 3; }
.pd-timeline .pd-attempt:focus-visible .pd-label { text-decoration: underline; }
.pd-timeline .pd-attempt-list summary { cursor: pointer; color: var(--pd-muted); font-size: 12px; }
.pd-timeline .pd-attempt-list ol { margin: 4px 0 0; padding-left: 22px; font-size: 12px; overflow-wrap: anywhere; }
.pd-timeline .pd-empty { color: var(--pd-muted); margin: 0; }
@media (prefers-color-scheme: dark) {
  .pd-timeline { --pd-muted: #aaa; --pd-window-edge: #e0b000; }
  .pd-timeline .pd-notification { border-color: #444; }
}
"""#)
}
