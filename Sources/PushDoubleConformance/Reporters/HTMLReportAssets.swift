/// The styles and the script of the HTML report (``HTMLReporter``), inlined in the page next to
/// the inbox's timeline (``InboxAsset/timelineScript``, ``InboxAsset/timelineStyle``). They are
/// the plain files `Reporters/Assets/report.css` and `report.js`, compiled into the binary by
/// SwiftPM (`.embedInCode` in Package.swift generates `PackageResources`).
enum HTMLReportAssets {
    /// The page's CSS (layout, badges, narrow widths).
    static let style = String(decoding: PackageResources.report_css, as: UTF8.self)

    /// The page's script: draws every case's timeline from the JSON block, shows an exchange
    /// on a click (timeline or evidence), filters cases by verdict and text, keyboard moves.
    static let script = String(decoding: PackageResources.report_js, as: UTF8.self)
}
