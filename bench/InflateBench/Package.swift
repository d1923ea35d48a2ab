// swift-tools-version:6.0
// A separate package so the inflate benchmark does not touch the main Package.swift:
// it depends on the main package by local path.
import PackageDescription

let package = Package(
    name: "InflateBench",
    platforms: [.macOS(.v14)],
    dependencies: [.package(name: "PushDouble", path: "../..")],
    targets: [
        .executableTarget(name: "InflateBench", dependencies: [.product(name: "PushDoubleInflate", package: "PushDouble")]),
    ],
    swiftLanguageModes: [.v6]
)
