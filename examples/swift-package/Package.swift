// swift-tools-version:6.0
// A minimal push sender (APNs and FCM HTTP v1 behind URLSession) whose tests run PushDouble
// in-process. It depends on the PushDouble checkout by path; a project of yours would use
// `.package(url: "https://…/PushDouble.git", from: "…")` the same way.
import PackageDescription

let package = Package(
    name: "PushSender",
    platforms: [.macOS(.v14)],
    products: [.library(name: "PushSender", targets: ["PushSender"])],
    dependencies: [.package(name: "PushDouble", path: "../..")],
    targets: [
        // The code under test: no PushDouble in it.
        .target(name: "PushSender"),
        .testTarget(name: "PushSenderTests", dependencies: [
            "PushSender",
            .product(name: "PushDoubleTesting", package: "PushDouble"),   // import PushDouble + helpers
            .product(name: "PushDoubleClient", package: "PushDouble"),    // only for the TLS test
        ]),
    ],
    swiftLanguageModes: [.v6]
)
