// swift-tools-version:6.0
// A separate package so the benchmark server does not touch the main Package.swift:
// it depends on the main package by local path.
import PackageDescription

let package = Package(
    name: "TransportBench",
    platforms: [.macOS(.v14)],
    dependencies: [.package(name: "PushDouble", path: "../..")],
    targets: [
        .executableTarget(name: "TransportBench", dependencies: [.product(name: "PushDouble", package: "PushDouble")]),
    ],
    swiftLanguageModes: [.v6]
)
