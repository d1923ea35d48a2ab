#!/bin/sh
# Regenerates the TEST-ONLY credentials in Certificates/ and the matching
# Sources/PushDoubleCrypto/TestCredentials/EmbeddedTestCredentials.swift with
# PushDoubleCrypto's own code (not the openssl CLI): it compiles the module's sources
# together with a tiny main.swift. Users who just want fresh files run
# `pushdouble certs --out DIR` instead; this script is for maintainers changing the
# shipped set (after which the embedded-equals-files test must pass again).
#   Certificates/regenerate.sh                       # a whole new set (new CA, new keys)
#   Certificates/regenerate.sh --server-certificate  # only a new server certificate for
#       TestCredentials.serverDNSNames, from the shipped CA and server key (everything else kept)
set -eu
mode=${1:---all}
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/main.swift" <<'SWIFT'
import Foundation
let args = CommandLine.arguments
let dir = URL(fileURLWithPath: args[1])
let embedded = URL(fileURLWithPath: args[2])
do {
    let set: GeneratedCredentialSet
    if args.count > 3 && args[3] == "--server-certificate" {
        set = try TestCredentials.reissuingServerCertificate(of: .embedded)
        try set.write(to: dir)
    } else {
        set = try TestCredentials.generate(into: dir)
    }
    try Data(TestCredentials.embeddedSwiftSource(for: set).utf8).write(to: embedded)
    print("wrote \(TestCredentials.FileName.all.count) files to \(dir.path) and \(embedded.path)")
} catch {
    FileHandle.standardError.write(Data("regenerate failed: \(error)\n".utf8))
    exit(1)
}
SWIFT
# PushDoubleCrypto imports PushDoubleJSON: build that as its own module first.
swiftc -swift-version 6 -parse-as-library -module-name PushDoubleJSON -emit-module -emit-module-path "$work/PushDoubleJSON.swiftmodule" \
    -emit-library -static -o "$work/libPushDoubleJSON.a" $(find "$repo/Sources/PushDoubleJSON" -name '*.swift')
swiftc -swift-version 6 -module-name PushDoubleCryptoGen -I "$repo/Sources/COpenSSL" -I "$work" \
    $(find "$repo/Sources/PushDoubleCrypto" -name '*.swift') "$work/main.swift" \
    -L "$work" -lPushDoubleJSON -lssl -lcrypto -o "$work/gen"
"$work/gen" "$repo/Certificates" "$repo/Sources/PushDoubleCrypto/TestCredentials/EmbeddedTestCredentials.swift" "$mode"
