// swift-tools-version:6.0
// PushDouble: an offline test double of the push-notification providers plus a
// conformance runner for push senders. No package dependencies: Foundation,
// Glibc/Dispatch and the system OpenSSL 3 only.
import PackageDescription

let package = Package(
    name: "PushDouble",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "pushdouble", targets: ["pushdouble"]),
        .executable(name: "pushdouble-reference-sender", targets: ["ReferenceSender"]),
        .library(name: "PushDouble", targets: ["PushDouble"]),
        .library(name: "PushDoubleInflate", targets: ["PushDoubleInflate"]),
        // For a dependent package's tests (docs/swift.md): the client that trusts the test CA,
        // and the XCTest / Swift Testing helpers.
        .library(name: "PushDoubleClient", targets: ["PushDoubleClient"]),
        .library(name: "PushDoubleTesting", targets: ["PushDoubleTesting"]),
    ],
    targets: [
        // System OpenSSL 3 (libssl-dev) plus static-inline wrappers for its macros.
        .systemLibrary(name: "COpenSSL", path: "Sources/COpenSSL", pkgConfig: "openssl"),
        // The one JSON value type, parser and compact writer shared by every module.
        .target(name: "PushDoubleJSON"),
        // base64url, keys, JWT (ES256/RS256), Web Push content coding, X.509 test CA.
        .target(name: "PushDoubleCrypto", dependencies: ["COpenSSL", "PushDoubleJSON"]),
        // HPACK (RFC 7541): pure codec, no I/O.
        .target(name: "PushDoubleHPACK"),
        // Bounded inflate: DEFLATE (RFC 1951), zlib (RFC 1950), gzip (RFC 1952). Pure Swift.
        .target(name: "PushDoubleInflate"),
        // Event loops, TLS, HTTP/1.1, HTTP/2 servers, router, CONNECT proxy; the one lock type.
        .target(name: "PushDoubleTransport", dependencies: ["COpenSSL", "PushDoubleHPACK"]),
        // The HTTP/1.1 + HTTP/2 client over TLS (used by the reference sender and the tests).
        .target(name: "PushDoubleClient", dependencies: ["COpenSSL", "PushDoubleHPACK", "PushDoubleTransport"]),
        // Provider-agnostic double: devices, faults, history, scenarios, admin API.
        .target(name: "PushDoubleCore", dependencies: ["PushDoubleTransport", "PushDoubleJSON"]),
        // Apple APNs provider API fake.
        .target(name: "PushDoubleAPNs", dependencies: ["PushDoubleCore", "PushDoubleCrypto", "PushDoubleTransport"],
                resources: [.embedInCode("Inbox/apns-view.js"), .embedInCode("Inbox/apns-view.css")]),  // its inbox view
        // FCM HTTP v1 fake with its Google OAuth2 token endpoint: send-request validation, Google
        // error envelope, JWT-bearer token endpoint, access-token store, FCMModule / FCMFake.
        .target(name: "PushDoubleFCM", dependencies: ["PushDoubleJSON", "PushDoubleCrypto", "PushDoubleCore", "PushDoubleTransport"],
                resources: [.embedInCode("Inbox/fcm-view.js"), .embedInCode("Inbox/fcm-view.css")]),  // its inbox view
        // Web Push service fake and browser: browser-made subscriptions, RFC 8030/8292 request
        // validation, per-service answers, the browser's decryption; module, fake, admin routes.
        .target(name: "PushDoubleWebPush", dependencies: ["PushDoubleJSON", "PushDoubleCrypto", "PushDoubleCore", "PushDoubleTransport"],
                resources: [.embedInCode("Inbox/webpush-view.js"), .embedInCode("Inbox/webpush-view.css")]),  // its inbox view
        // Expo push service protocol core (pure): send-request decoding (plain or gzip), tickets,
        // request-level errors, access-token check, receipt store, getReceipts; the Expo fake
        // (send + getReceipts routes on one listener) and its provider module.
        .target(name: "PushDoubleExpo", dependencies: ["PushDoubleJSON", "PushDoubleInflate", "PushDoubleCore", "PushDoubleTransport", "PushDoubleCrypto"],
                resources: [.embedInCode("Inbox/expo-view.js"), .embedInCode("Inbox/expo-view.css")]),  // its inbox view
        // The inbox: the admin listener's web UI (live timeline, per-device inbox, exchange
        // detail, retry timeline, controls) and the assets the HTML conformance report embeds.
        // Its .html/.js/.css are real files compiled into the binary (`PackageResources`).
        .target(name: "PushDoubleInbox", dependencies: ["PushDoubleCore", "PushDoubleTransport", "PushDoubleJSON"],
                resources: [.embedInCode("Assets/inbox.html"), .embedInCode("Assets/inbox.js"), .embedInCode("Assets/inbox.css"),
                            .embedInCode("Assets/timeline.js"), .embedInCode("Assets/timeline.css"),
                            .embedInCode("Assets/preview.js"), .embedInCode("Assets/preview.css"),
                            .embedInCode("Assets/story.js"), .embedInCode("Assets/story.css"),
                            .embedInCode("Assets/console.css"), .embedInCode("Assets/rules.js"), .embedInCode("Assets/actions.js"),
                            .embedInCode("Assets/library.js")]),
        // In-process server assembling every fake: the Swift library API.
        .target(name: "PushDouble", dependencies: ["PushDoubleInbox", "PushDoubleCore", "PushDoubleAPNs", "PushDoubleFCM", "PushDoubleExpo", "PushDoubleWebPush", "PushDoubleCrypto", "PushDoubleTransport", "PushDoubleJSON"]),
        // Test helpers for a dependent package: a fresh double per XCTest test or per scoped
        // `withPushDouble { … }` (Swift Testing or any async code). Re-exports PushDouble.
        .target(name: "PushDoubleTesting", dependencies: ["PushDouble"]),
        // Conformance runner: driver protocol, scenarios runner, checks, reporters.
        .target(name: "PushDoubleConformance", dependencies: ["PushDoubleInbox", "PushDouble", "PushDoubleCore", "PushDoubleAPNs", "PushDoubleFCM", "PushDoubleWebPush", "PushDoubleCrypto", "PushDoubleTransport"],
                // The HTML report's own style and script, compiled in (`PackageResources`).
                resources: [.embedInCode("Reporters/Assets/report.css"), .embedInCode("Reporters/Assets/report.js")]),
        // A correct push sender speaking the driver protocol, with planted bugs (--mutant).
        .executableTarget(name: "ReferenceSender", dependencies: ["PushDoubleClient", "PushDoubleTransport", "PushDoubleCrypto", "PushDoubleJSON", "PushDoubleInflate"]),
        // The CLI: serve, replay, conform, certs; one option parser; console and exchange log.
        .executableTarget(name: "pushdouble", dependencies: ["PushDouble", "PushDoubleConformance", "PushDoubleCrypto", "PushDoubleCore"]),

        // Helpers shared by the test targets (hex, seeded RNG, running a process, curl, sender
        // scripts, the shipped scenario path). Foundation only.
        .target(name: "PushDoubleTestSupport", path: "Tests/PushDoubleTestSupport"),
        .testTarget(name: "PushDoubleJSONTests", dependencies: ["PushDoubleJSON"]),
        // TestCredentialsTests reads the shipped set, which the registered providers make up.
        .testTarget(name: "PushDoubleCryptoTests", dependencies: ["PushDoubleCrypto", "PushDoubleTestSupport", "PushDouble", "PushDoubleCore",
                                                             "PushDoubleAPNs", "PushDoubleFCM", "PushDoubleExpo", "PushDoubleWebPush"]),
        .testTarget(name: "PushDoubleHPACKTests", dependencies: ["PushDoubleHPACK", "PushDoubleTestSupport"]),
        .testTarget(name: "PushDoubleInflateTests", dependencies: ["PushDoubleInflate", "PushDoubleTestSupport"],
                    exclude: ["Fixtures"]),  // vectors read via #filePath
        // The transport's servers and the client (Client*Tests), which share the runtime's test helpers.
        .testTarget(name: "PushDoubleTransportTests", dependencies: ["PushDoubleTransport", "PushDoubleClient", "PushDoubleCrypto", "PushDoubleTestSupport"]),
        // The provider fake and exchange builder shared by the core's and the CLI's tests.
        .target(name: "PushDoubleCoreTestSupport", dependencies: ["PushDoubleCore", "PushDoubleTransport"], path: "Tests/PushDoubleCoreTestSupport"),
        .testTarget(name: "PushDoubleCoreTests", dependencies: ["PushDoubleCore", "PushDoubleTransport", "PushDouble", "PushDoubleCrypto", "PushDoubleTestSupport", "PushDoubleCoreTestSupport"]),
        .testTarget(name: "PushDoubleAPNsTests", dependencies: ["PushDoubleAPNs", "PushDouble", "PushDoubleCrypto", "PushDoubleTransport", "PushDoubleCore", "PushDoubleTestSupport"]),
        .testTarget(name: "PushDoubleFCMTests", dependencies: ["PushDoubleFCM", "PushDoubleCrypto", "PushDoubleJSON", "PushDoubleCore", "PushDoubleTransport", "PushDouble", "PushDoubleTestSupport"]),
        .testTarget(name: "PushDoubleWebPushTests", dependencies: ["PushDoubleWebPush", "PushDoubleCrypto", "PushDoubleJSON", "PushDoubleTestSupport",
                                                             "PushDoubleCore", "PushDouble", "PushDoubleTransport"]),
        .testTarget(name: "PushDoubleExpoTests", dependencies: ["PushDoubleExpo", "PushDoubleJSON", "PushDoubleTestSupport", "PushDoubleCore",
                                                            "PushDoubleTransport", "PushDouble"],
                    exclude: ["Fixtures"]),  // gzip bodies read via #filePath
        // The abuse tier: attack classes over real sockets against the built `pushdouble serve`.
        .testTarget(name: "PushDoubleAbuseTests", dependencies: ["PushDoubleTestSupport"]),
        // The inbox page and the HTML report in headless Chromium (Tests/Browser/*.py, selenium).
        .testTarget(name: "PushDoubleBrowserTests", dependencies: ["PushDouble", "PushDoubleCore", "PushDoubleTestSupport"]),
        .testTarget(name: "PushDoubleConformanceTests", dependencies: ["PushDoubleConformance", "ReferenceSender", "PushDouble", "PushDoubleAPNs", "PushDoubleFCM", "PushDoubleExpo", "PushDoubleWebPush", "PushDoubleCrypto", "PushDoubleTransport", "PushDoubleTestSupport"],
                    exclude: ["Fixtures"]),  // junit.xsd, read by JUnitSchemaTests via #filePath; ReferenceSender: its mutant table
        // The reference sender through its built executable (driver protocol, scripted APNs, mutants,
        // variants, the real fakes), apart from the runner's tests; subfolders mirror Sources/ReferenceSender.
        .testTarget(name: "ReferenceSenderTests", dependencies: ["ReferenceSender", "PushDouble", "PushDoubleAPNs", "PushDoubleExpo", "PushDoubleCore", "PushDoubleCrypto",
                                                                "PushDoubleTestSupport"]),
        // The inbox page: its routes over a real socket, the scenario export, static and node checks of its assets.
        .testTarget(name: "PushDoubleInboxTests", dependencies: ["PushDoubleInbox", "PushDouble", "PushDoubleCore", "PushDoubleTransport", "PushDoubleClient",
                                                                "PushDoubleTestSupport"]),
        // The library as a dependent package meets it: `import PushDouble` alone, the testing
        // helpers, typed history views, plaintext mode (URLSession, curl) and credentials.
        .testTarget(name: "PushDoubleLibraryTests", dependencies: ["PushDouble", "PushDoubleTesting", "PushDoubleClient", "PushDoubleTestSupport"]),
        // The commands in-process: option parser, serve/replay, conform, certs, exchange log.
        .testTarget(name: "PushDoubleCLITests", dependencies: ["pushdouble", "PushDouble", "PushDoubleCore", "PushDoubleTransport", "PushDoubleConformance",
                                                              "PushDoubleCrypto", "PushDoubleTestSupport", "PushDoubleCoreTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)

// Fuzz targets (docs/fuzzing.md), only when PUSHDOUBLE_FUZZ=1: plain `swift build` and
// `swift test` never see them. bench/fuzz.sh builds them with `--sanitize fuzzer
// --sanitize address` in their own scratch path, so every module gets coverage
// instrumentation and libFuzzer supplies `main`; `fuzz-seeds` writes Tests/Fuzz/corpus.
if Context.environment["PUSHDOUBLE_FUZZ"] == "1" {
    let fuzzers: [(name: String, dependencies: [Target.Dependency])] = [
        ("FuzzHPACK", ["PushDoubleHPACK"]),
        ("FuzzHTTP2Frame", ["PushDoubleTransport"]),
        ("FuzzHTTP1", ["PushDoubleTransport"]),
        ("FuzzJSON", ["PushDoubleJSON"]),
        ("FuzzScenario", ["PushDoubleCore"]),
        ("FuzzJWT", ["PushDoubleCrypto", "PushDoubleJSON"]),
        ("FuzzWebPush", ["PushDoubleCrypto"]),
    ]
    // Input splitting and invariant checks shared by the fuzz targets.
    package.targets.append(.target(name: "FuzzSupport", path: "Tests/Fuzz/Support"))
    for f in fuzzers {
        package.targets.append(.executableTarget(
            name: f.name, dependencies: f.dependencies + ["FuzzSupport"], path: "Tests/Fuzz/Targets/\(f.name)",
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]))
        package.products.append(.executable(name: f.name, targets: [f.name]))
    }
    package.targets.append(.executableTarget(
        name: "fuzz-seeds", dependencies: ["FuzzSupport", "PushDoubleHPACK", "PushDoubleTransport", "PushDoubleCrypto", "PushDoubleJSON"],
        path: "Tests/Fuzz/Seeds"))
    package.products.append(.executable(name: "fuzz-seeds", targets: ["fuzz-seeds"]))
}
