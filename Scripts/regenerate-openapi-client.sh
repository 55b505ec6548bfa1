#!/usr/bin/env bash
# Regenerates the Swift OpenAPI client code for the SecureNetworking reference server.
#
# Usage: regenerate.sh OUTPUT_DIR [OPENAPI_YAML]
#   OUTPUT_DIR    folder that receives the generated Swift files (created if missing)
#   OPENAPI_YAML  the OpenAPI document; default Tests/SecureNetworkingTests/OpenAPI/openapi.yaml
# The tests' client: Scripts/regenerate-openapi-client.sh Tests/SecureNetworkingTests/OpenAPI/Generated
#
# It makes a throwaway SwiftPM package that depends on apple/swift-openapi-generator
# 1.14.3 (exact), builds and runs the generator's command-line tool with the
# configuration below, and copies the generated files into OUTPUT_DIR:
#   Client.swift, Types.swift and, since generator 1.14 splits the types by
#   namespace (SOAR-0015), Types+Operations.swift, Types+Components.swift and
#   Types+Components+{Schemas,Parameters,RequestBodies,Responses,Headers}.swift.
# Set REGEN_SCRATCH=/some/dir to keep (and reuse) the generator's build folder.
set -euo pipefail

if [[ $# -lt 1 || $# -gt 2 ]]; then
    echo "usage: $0 OUTPUT_DIR [OPENAPI_YAML]" >&2
    exit 2
fi

script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
spec="${2:-$script_dir/../Tests/SecureNetworkingTests/OpenAPI/openapi.yaml}"
[[ -f "$spec" ]] || { echo "error: OpenAPI document not found: $spec" >&2; exit 1; }
spec="$(cd "$(dirname "$spec")" && pwd)/$(basename "$spec")"
mkdir -p "$1"
out="$(cd "$1" && pwd)"

if [[ -d /opt/swift/usr/bin ]]; then export PATH="/opt/swift/usr/bin:$PATH"; fi
command -v swift >/dev/null || { echo "error: swift not found on PATH" >&2; exit 1; }

work="$(mktemp -d "${TMPDIR:-/tmp}/openapi-regen.XXXXXX")"
trap 'rm -rf "$work"' EXIT

mkdir -p "$work/pkg" "$work/generated"
cat > "$work/pkg/Package.swift" <<'SWIFT'
// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "OpenAPIRegen",
    dependencies: [
        .package(url: "https://github.com/apple/swift-openapi-generator", exact: "1.14.3"),
    ],
    targets: []
)
SWIFT

cat > "$work/openapi-generator-config.yaml" <<'YAML'
generate:
  - types
  - client
accessModifier: internal
namingStrategy: idiomatic
YAML

scratch="${REGEN_SCRATCH:-$work/build}"
echo "Building swift-openapi-generator 1.14.3 (a cold build takes a few minutes)..." >&2
swift build --package-path "$work/pkg" --scratch-path "$scratch" \
    --product swift-openapi-generator >&2
bin="$(swift build --package-path "$work/pkg" --scratch-path "$scratch" --show-bin-path)"

"$bin/swift-openapi-generator" generate \
    --config "$work/openapi-generator-config.yaml" \
    --output-directory "$work/generated" \
    "$spec" >&2

shopt -s nullglob
copied=0
for f in "$work/generated"/*.swift; do
    if [[ -s "$f" ]]; then
        cp "$f" "$out/"
        echo "wrote $out/$(basename "$f")" >&2
        copied=$((copied + 1))
    fi
done
for required in Types.swift Client.swift; do
    [[ -s "$out/$required" ]] || { echo "error: $required was not generated" >&2; exit 1; }
done
echo "done: $copied files in $out" >&2
