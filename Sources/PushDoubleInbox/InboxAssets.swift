import Foundation

// The inbox's files are plain `.html`, `.js` and `.css` files under `Assets/`, compiled into the
// binary by SwiftPM (`.embedInCode` in Package.swift generates `PackageResources`): no resource
// bundle to lose next to the executable, no CDN, and `node --check Assets/inbox.js` reads the
// very file that is served.
extension InboxAsset {
    /// `Assets/inbox.html`: the page's static markup; every view is filled by `/inbox/inbox.js`
    /// from the admin JSON API. Its `data-testid`s are the DOM contract of docs/inbox.md.
    static let page = InboxAsset(path: "/inbox", contentType: "text/html; charset=utf-8",
                                 bytes: PackageResources.inbox_html)

    /// `Assets/inbox.js` at `/inbox/inbox.js`: live timeline (`/history` then
    /// `/history/stream`), filters, per-device inbox rendered per platform, exchange detail with
    /// decoded credentials, controls. Vanilla JS; data reaches the DOM only as text.
    static let inboxScript = InboxAsset(path: "/inbox/inbox.js", contentType: "text/javascript; charset=utf-8",
                                        bytes: PackageResources.inbox_js)

    /// `Assets/inbox.css` at `/inbox/inbox.css`: the page's layout and colours.
    static let inboxStyle = InboxAsset(path: "/inbox/inbox.css", contentType: "text/css; charset=utf-8",
                                       bytes: PackageResources.inbox_css)

    /// `Assets/timeline.js` at `/inbox/timeline.js`: the retry/attempt timeline renderer
    /// (`window.PushDoubleTimeline.render(container, exchanges, options)` and its pure helpers),
    /// shared by the inbox page and the HTML conformance report (inlined). Its header comment
    /// documents the API, the grouping rule, the Retry-After rule and the DOM it produces.
    public static let timelineScript = InboxAsset(path: "/inbox/timeline.js", contentType: "text/javascript; charset=utf-8",
                                                  bytes: PackageResources.timeline_js)

    /// `Assets/timeline.css` at `/inbox/timeline.css`: the timeline's styles (inbox and report).
    public static let timelineStyle = InboxAsset(path: "/inbox/timeline.css", contentType: "text/css; charset=utf-8",
                                                 bytes: PackageResources.timeline_css)

    /// `Assets/console.css` at `/inbox/console.css`: the console's styles (rule builder, device
    /// actions and forms, scenario library).
    static let consoleStyle = InboxAsset(path: "/inbox/console.css", contentType: "text/css; charset=utf-8",
                                         bytes: PackageResources.console_css)

    /// `Assets/rules.js` at `/inbox/rules.js`: the rule builder (GET /catalogue → POST /faults,
    /// PUT and PATCH /faults/{id}) and the console's shared hooks (`window.PushDoubleConsole`).
    static let rulesScript = InboxAsset(path: "/inbox/rules.js", contentType: "text/javascript; charset=utf-8",
                                        bytes: PackageResources.rules_js)

    /// `Assets/actions.js` at `/inbox/actions.js`: each provider's device actions on the device
    /// rows and in the device's detail (PUT /devices/{id}, POST and DELETE /faults), the armed
    /// badge, and the create-device form (the provider's ``DeviceForm``).
    static let actionsScript = InboxAsset(path: "/inbox/actions.js", contentType: "text/javascript; charset=utf-8",
                                          bytes: PackageResources.actions_js)

    /// `Assets/library.js` at `/inbox/library.js`: the scenario library (GET /scenarios; load with
    /// POST /scenarios?merge=true, unload with DELETE of its devices and rules, import a file).
    static let libraryScript = InboxAsset(path: "/inbox/library.js", contentType: "text/javascript; charset=utf-8",
                                          bytes: PackageResources.library_js)
}

extension InboxAsset {
    /// `Assets/preview.js` at `/inbox/preview.js`: draws a notification as its platform shows it
    /// (`window.PushDoublePreview`) from the surfaces a provider's view describes; knows no provider.
    static let previewScript = script("preview.js", PackageResources.preview_js)
    /// `Assets/preview.css` at `/inbox/preview.css`: the previews' shared layout and line clamps.
    static let previewStyle = style("preview.css", PackageResources.preview_css)
    /// `Assets/story.js` at `/inbox/story.js`: a device's story (`window.PushDoubleStory`), every
    /// attempt of each notification to it, with "Copy as curl".
    static let storyScript = script("story.js", PackageResources.story_js)
    /// `Assets/story.css` at `/inbox/story.css`: the story's styles.
    static let storyStyle = style("story.css", PackageResources.story_css)

    /// A script under `/inbox/`.
    static func script(_ name: String, _ bytes: [UInt8]) -> InboxAsset {
        InboxAsset(path: "/inbox/" + name, contentType: "text/javascript; charset=utf-8", bytes: bytes)
    }

    /// A style sheet under `/inbox/`.
    static func style(_ name: String, _ bytes: [UInt8]) -> InboxAsset {
        InboxAsset(path: "/inbox/" + name, contentType: "text/css; charset=utf-8", bytes: bytes)
    }
}
