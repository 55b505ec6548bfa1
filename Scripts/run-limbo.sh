#!/usr/bin/env bash
# Measures ServerTrust against C2SP x509-limbo (Tests/ServerTrustTests/LimboConformanceTests.swift).
# This script fetches, regenerates and builds nothing: it runs the opt-in test, already built by
# `swift build --build-tests`, against a limbo.json you have:
#   SECURENET_LIMBO_JSON=/path/to/limbo.json swift test --skip-build --filter LimboConformance
#
#   Scripts/run-limbo.sh /path/to/limbo.json [report.txt]
#
# Environment:
#   SECURENET_LIMBO_PROFILE=private   anchors as TrustAnchors.only(roots, profile: .privatePKI)
#                                     (default: TrustAnchors.only(roots), the Web PKI profile)
#   SECURENET_LIMBO_INCLUDE=PREFIX    only the cases whose id starts with PREFIX (e.g. bettertls::)
#
# Getting limbo.json: x509-limbo's repository ships limbo.json (and limbo/_assets/bettertls.json)
# as generated files; where they are absent, regenerate them in a checkout of x509-limbo:
#   - bettertls.json: Netflix/bettertls `bettertls export-tests` (the Go tool in test-suites/cmd),
#     written to limbo/_assets/bettertls.json; without it the 9,572 bettertls cases are missing;
#   - limbo.json: `python -m limbo compile -o limbo.json` (dependencies from its pyproject.toml:
#     pydantic, cryptography, pyyaml, …).
#
# The test prints a table per suite (agree / accepted bad / rejected good / skipped) and every
# accepted-bad and rejected-good case with ServerTrust's error code and message; with a second
# argument it also writes that report to the file. CRL, client-validation, non-serverAuth EKU,
# RFC 822 peer and max_chain_depth cases are skipped and counted.
set -euo pipefail

if [[ $# -lt 1 ]]; then
    sed -n '2,25p' "$0"
    exit 2
fi
json="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
[[ -f "$json" ]] || { echo "no such file: $json" >&2; exit 2; }
export SECURENET_LIMBO_JSON="$json"
if [[ $# -ge 2 ]]; then
    export SECURENET_LIMBO_REPORT="$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"
fi

cd "$(dirname "$0")/.."
exec swift test --skip-build --filter LimboConformance
