#!/usr/bin/env python3
"""Type-checks the Apple-only sources on Linux against the interface stubs.

1. Builds the stub modules under AppleInterfaceStubs/ (`Security`, `LocalAuthentication`,
   `AuthenticationServices`, `CryptoKit`, and the part of `SwiftUI` the session example uses) into
   AppleInterfaceStubs/.build/modules, so that `#if canImport(Security)` and
   `#if canImport(LocalAuthentication)` turn on for this check only.
2. For every package module that holds Apple-only code, reruns the exact compiler invocation
   SwiftPM used for it (read from .build/debug.yaml: the same language mode, upcoming features,
   module search paths and C module maps), as `-typecheck`, with the stub modules first on the
   import path and the files under AppleInterfaceStubs/Checks/<Module>/ added to the module.
   Each is then emitted as a module under the stubs (built for testing, as SwiftPM's debug build
   is, so `@testable import` works), so that the modules after it (SecureNetworking, whose
   `Engine.urlSession` names URLSessionTransport) are checked against its Apple-platform interface.
3. Then the same for every test target with Apple-only code (a file under Tests/<Target>/ that
   uses `canImport(Security)` and the like): its SwiftPM invocation as `-typecheck`, importing
   the library modules emitted in step 2. A module is skipped when a module it imports failed.

Needs a prior `swift build --build-tests` (it type-checks against the dependencies' built
modules). Exits non-zero on any compiler error.
"""
import json
import os
import re
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
STUBS = os.path.join(ROOT, "AppleInterfaceStubs")
OUT = os.path.join(STUBS, ".build", "modules")
# The stub modules, in dependency order.
STUB_MODULES = ["Security", "LocalAuthentication", "AuthenticationServices", "CryptoKit", "SwiftUI"]
# The package modules whose sources hold Apple-only code, checked in full, in dependency order.
# Each is also emitted under the stubs (OUT/checked) so that the modules after it, and the test
# targets, are checked against its Apple-platform interface (URLSessionTransport exists only there).
CHECKED_MODULES = ["SecureHTTP", "SecureStorage", "TokenAuth", "SecureNetworking", "SecureSession"]
EMITTED_MODULES = set(CHECKED_MODULES)
CHECKED_OUT = os.path.join(OUT, "checked")
# What marks a file as holding Apple-only code.
APPLE_ONLY = re.compile(r"canImport\((Security|LocalAuthentication|AuthenticationServices|CryptoKit|SwiftUI)\)")
TESTS = os.path.join(ROOT, "Tests")
# Flags of SwiftPM's invocation that produce outputs; a type-check produces none.
DROP_WITH_VALUE = {
    "-emit-module-path", "-output-file-map", "-index-store-path", "-emit-objc-header-path",
    "-module-cache-path",
}
# `-enable-testing` stays: the test targets `@testable import` the emitted modules.
DROP = {
    "-emit-dependencies", "-emit-module", "-incremental", "-c", "-enable-batch-mode",
    "-serialize-diagnostics", "-parseable-output", "-emit-objc-header",
}



def run(command):
    """Runs `command`; returns whether it succeeded."""
    print("+ " + " ".join(command[:6]) + (" …" if len(command) > 6 else ""), flush=True)
    return subprocess.run(command).returncode == 0


def build_stubs():
    os.makedirs(OUT, exist_ok=True)
    for module in STUB_MODULES:
        folder = os.path.join(STUBS, module)
        sources = sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".swift"))
        if not run([
            "swiftc", "-emit-module", "-parse-as-library", "-module-name", module,
            "-swift-version", "6", "-I", OUT,
            "-emit-module-path", os.path.join(OUT, module + ".swiftmodule"),
        ] + sources):
            sys.exit(f"apple-typecheck: the {module} stub module does not build")


def swiftpm_invocation(manifest, module):
    """The arguments SwiftPM compiled `module` with (debug configuration), and the package
    modules it imports (its inputs' `Modules/<Name>.swiftmodule`)."""
    pattern = re.compile(r'^  "C\.' + re.escape(module) + r'-[^"]*-debug\.module":\n(.*?)(?=^  ")', re.S | re.M)
    match = pattern.search(manifest)
    if not match:
        sys.exit(f"apple-typecheck: {module} is not in .build/debug.yaml; run `swift build --build-tests` first")
    args = re.search(r"^    args: (\[.*\])$", match.group(1), re.M)
    inputs = re.search(r"^    inputs: (\[.*\])$", match.group(1), re.M)
    imported = set()
    for path in json.loads(inputs.group(1)) if inputs else []:
        name = re.search(r"/Modules/([^/]+)\.swiftmodule$", path)
        if name:
            imported.add(name.group(1))
    return json.loads(args.group(1)), imported


def apple_test_targets():
    """The test targets with a file that holds Apple-only code, by name."""
    targets = []
    for target in sorted(os.listdir(TESTS)):
        for folder, _, files in os.walk(os.path.join(TESTS, target)):
            if any(f.endswith(".swift") and APPLE_ONLY.search(open(os.path.join(folder, f)).read()) for f in files):
                targets.append(target)
                break
    return targets

def split_invocation(original):
    """SwiftPM's arguments without its outputs, and the module's source files."""
    flags, sources, skip = [], [], False
    for arg in original[1:]:
        if skip:
            skip = False
            continue
        if arg in DROP_WITH_VALUE:
            skip = True
            continue
        if arg in DROP or arg.startswith("-j"):
            continue
        if arg.startswith("@") and arg.endswith("/sources"):
            with open(arg[1:]) as listing:
                sources = [line.strip() for line in listing if line.strip()]
            continue
        flags.append(arg)
    return flags, sources


def typecheck(module, original):
    """Type-checks `module` (SwiftPM's arguments `original`) under the stubs, and emits it for
    the modules that depend on it. Returns whether it succeeded."""
    # The stubs, then the modules already checked under them, then SwiftPM's own paths.
    own_flags, sources = split_invocation(original)
    flags = ["-I", OUT, "-I", CHECKED_OUT] + own_flags
    checks = os.path.join(STUBS, "Checks", module)
    if os.path.isdir(checks):
        sources += sorted(os.path.join(checks, f) for f in os.listdir(checks) if f.endswith(".swift"))
    apple = [s for s in sources if APPLE_ONLY.search(open(s).read())]
    print(f"apple-typecheck: {module}: {len(sources)} files, with Apple-only code: "
          + ", ".join(os.path.relpath(s, ROOT) for s in apple), flush=True)
    if not run(["swiftc", "-typecheck"] + flags + sources):
        return False
    if module in EMITTED_MODULES:
        return run(["swiftc", "-emit-module", "-emit-module-path", os.path.join(CHECKED_OUT, module + ".swiftmodule")]
                   + flags + sources)
    return True


def main():
    os.chdir(ROOT)
    build_stubs()
    os.makedirs(CHECKED_OUT, exist_ok=True)
    for stale in os.listdir(CHECKED_OUT):
        os.remove(os.path.join(CHECKED_OUT, stale))
    manifest_path = os.path.join(ROOT, ".build", "debug.yaml")
    if not os.path.exists(manifest_path):
        sys.exit("apple-typecheck: .build/debug.yaml is missing; run `swift build --build-tests` first")
    with open(manifest_path) as handle:
        manifest = handle.read() + "\n  \"\n"
    failed = []
    for module in CHECKED_MODULES + apple_test_targets():
        original, imported = swiftpm_invocation(manifest, module)
        if imported & set(failed):
            print(f"apple-typecheck: {module}: skipped, a module it imports failed", flush=True)
            failed.append(module)
        elif not typecheck(module, original):
            failed.append(module)
    if failed:
        sys.exit("apple-typecheck: type errors against the Apple SDK stubs in " + ", ".join(failed))
    print("apple-typecheck: every Apple-only file type-checks against the stubs")


if __name__ == "__main__":
    main()
