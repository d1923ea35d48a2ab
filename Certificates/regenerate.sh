#!/bin/sh
# Regenerates the TEST-ONLY credentials in Certificates/ and the matching
# Sources/PushDoubleCrypto/TestCredentials/EmbeddedTestCredentials.swift with PushDouble's own
# code (not the openssl CLI), through `pushdouble certs`: the shared test CA and server
# certificate, and every registered provider's files (each provider's TestCredentialSource).
# Users who just want fresh files run `pushdouble certs --out DIR` instead; this script is for
# maintainers changing the shipped set (after which the embedded-equals-files test must pass
# again).
#   Certificates/regenerate.sh                       # a whole new set (new CA, new keys)
#   Certificates/regenerate.sh --server-certificate  # a new server certificate for today's host
#       names (each provider's certificateHostNames), from the shipped CA and server key, plus
#       the files of a newly registered provider (every existing file kept)
set -eu
mode=${1:---all}
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
swift build --product pushdouble
bin=$(swift build --show-bin-path)/pushdouble
embedded="$repo/Sources/PushDoubleCrypto/TestCredentials/EmbeddedTestCredentials.swift"
case "$mode" in
  --all) "$bin" certs --out "$repo/Certificates" --swift "$embedded" ;;
  --server-certificate) "$bin" certs --out "$repo/Certificates" --swift "$embedded" --server-certificate ;;
  *) echo "usage: Certificates/regenerate.sh [--server-certificate]" >&2; exit 2 ;;
esac
