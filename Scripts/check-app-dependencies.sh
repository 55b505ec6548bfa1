#!/usr/bin/env bash
# What an app resolves when it adds this package as usual (no trait) and uses one library product:
# for each of SecureNetworking, SecureSession and ServerTrust, an app package is made in a temporary
# folder, `swift package resolve` runs, and the packages it resolved are printed. Fails when one
# shape resolves more than LIMIT packages (15) or any package the tools alone need.
#
#   Scripts/check-app-dependencies.sh [PRODUCT …]
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
limit="${LIMIT:-15}"
forbidden=(swift-syntax hummingbird jwt-kit async-http-client swift-argument-parser swift-openapi-runtime
  swift-service-lifecycle swift-configuration swift-distributed-tracing swift-async-algorithms)
products=("$@")
[ ${#products[@]} -gt 0 ] || products=(SecureNetworking SecureSession ServerTrust)

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# The package's identity is its folder's name: the link gives it the usual one wherever the clone is.
ln -s "$repo" "$work/SecureNetworking"

failed=0
for product in "${products[@]}"; do
  app="$work/app-$product"
  mkdir -p "$app/Sources/App"
  cat >"$app/Package.swift" <<MANIFEST
// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "App",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    dependencies: [.package(path: "../SecureNetworking")],
    targets: [.target(name: "App", dependencies: [.product(name: "$product", package: "SecureNetworking")])]
)
MANIFEST
  echo "import $product" >"$app/Sources/App/App.swift"
  if ! (cd "$app" && swift package resolve >"$app/resolve.log" 2>&1); then
    echo "error: an app using $product did not resolve:" >&2
    cat "$app/resolve.log" >&2
    failed=1
    continue
  fi
  resolved=()
  if [ -f "$app/Package.resolved" ]; then
    while IFS= read -r name; do resolved+=("$name"); done < <(
      python3 -c 'import json,sys; print("\n".join(sorted(p["identity"] for p in json.load(open(sys.argv[1]))["pins"])))' \
        "$app/Package.resolved")
  fi
  echo "$product: ${#resolved[@]} packages: ${resolved[*]}"
  if [ "${#resolved[@]}" -gt "$limit" ]; then
    echo "error: an app using $product resolves ${#resolved[@]} packages, more than $limit" >&2
    failed=1
  fi
  for name in "${resolved[@]}"; do
    for bad in "${forbidden[@]}"; do
      if [ "$name" = "$bad" ]; then
        echo "error: an app using $product resolves $name, which only the tools need" >&2
        failed=1
      fi
    done
  done
done
exit "$failed"
