#!/usr/bin/env python3
"""Checks the package's Apple availability on Linux, one pass per Apple platform.

Swift enforces `@available(iOS 17, *)` only when it compiles for iOS, and on Linux it cannot: the
toolchain has no standard library or Foundation for Apple targets. Swift 6.3's custom availability
domains (`-enable-experimental-feature CustomAvailability`) are enforced on every target, though. So,
for each Apple platform P that Package.swift's `platforms:` declares (`swift package dump-package`;
F, P's floor there), this script

1. copies every Swift file it compiles (each package module's, from SwiftPM's own lists in
   .build/debug.yaml; the interface stubs, AppleInterfaceStubs/<Framework>/; AppleInterfaceStubs/Checks/)
   into .build/availability/<run>/<P>/src, rewriting Apple availability into domains, line for line:
   - each version V of P above F that an attribute or condition anywhere names is a domain (`iOS17`,
     `iOS17_4`, dynamic: neither available nor unavailable unless a context says so);
     `@available(… P V …)` becomes one attribute per domain up to V (`@available(iOS 18, *)` →
     `@available(iOS17) @available(iOS18)`), so that iOS 18 code may use iOS 17 code and iOS 17 code
     may not use iOS 18 code; a version at or below F is dropped;
   - `if #available(… P V …)` / `guard #available` likewise (`#available(iOS17), #available(iOS18)`:
     Swift takes one custom domain per condition); `#unavailable(… P V …)` becomes
     `#unavailable(<V's domain>)`; a condition that always holds on P (P at or below F, or P left to
     `*`) names the floor domain (`iOS16`, always enabled);
   - `@available(P, unavailable)` (and `obsoleted:` at or below F) becomes `@available(<floor domain>,
     unavailable)`: unavailable, and usable from code that is itself unavailable on P (Swift refuses
     an `@available(*, unavailable)` declaration even there); attributes of the other platforms
     (the other Apple ones, visionOS unless Package.swift declares it, macCatalyst, the
     app-extension variants) and P's `deprecated:` / `renamed:` (which only warn) are dropped;
     `*` and `swift` attributes stay as they are;
   - in `#if` / `#elseif` lines `os(X)` becomes `AVAILABILITY_OS_X`, and only `AVAILABILITY_OS_P`
     is defined: P's branches are compiled, Linux's and the other platforms' are not.
     `canImport(…)` is left alone: the stubs turn on Security, LocalAuthentication,
     AuthenticationServices, CryptoKit and SwiftUI; Glibc stays on and Darwin off, as the pass still
     compiles against Linux's Foundation and C library (a branch that picks a C library's spelling
     must test `canImport(Glibc)`, not `os(Linux)`);
2. declares the pass's domains in a generated C header, as a Clang module every compile imports
   (`-import-module AppleAvailabilityDomains`; a domain defined with `-define-…-availability-domain`
   belongs to the module being compiled and cannot be read back from its binary module, a Clang
   one can), and builds the rewritten stubs;
3. type-checks the planted misuse (AppleInterfaceStubs/Fixtures/PlantedMisuse/PlantedMisuse.swift),
   which must give exactly the errors its `// EXPECT <pass>: <message>` comments name (a macOS 15
   declaration used from macOS 13 code, a tvOS-unavailable API where the tvOS pass compiles, a stub
   declaration newer than the floor used without `#available`) and no other;
4. compiles every package module in dependency order (the order of the imports in .build/debug.yaml)
   with SwiftPM's own flags (language mode, upcoming features, `-D` conditions such as the traits',
   `-enable-testing`), whole-module: a module another one imports as `swiftc -emit-module` into the
   pass's modules folder, first on the import path, so that the modules after it see its rewritten
   availability; the others (test targets, executables) as `swiftc -typecheck`. The other packages'
   modules (NIO, swift-certificates, …) and the toolchain's (the standard library, Foundation) are the
   real build's, their availability not rewritten.

Errors are printed with the original file and line (the rewrite keeps lines; columns may differ),
prefixed by the pass. A module whose imports failed in a pass is skipped there. The passes run in
parallel (`--jobs N`, the number of cores by default). Exits non-zero on any error.

Needs a prior `swift build --build-tests` (with the same traits: the check reads its plan).
`--self-test`: steps 1–3 only. `--platform P` (repeatable): those passes only. `--keep`: keeps the
run's folder. `--rewrite P FILE`: prints FILE as the P pass compiles it.
"""
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
STUBS = os.path.join(ROOT, "AppleInterfaceStubs")
WORK = os.path.join(STUBS, ".build", "availability")
FIXTURE = os.path.join(STUBS, "Fixtures", "PlantedMisuse", "PlantedMisuse.swift")
# The stub modules, in dependency order (as typecheck.py builds them).
from typecheck import STUB_MODULES  # noqa: E402  (the stub modules, in dependency order)
# Apple platforms a pass can be for, by SwiftPM's dump-package name.
APPLE = {"macos": "macOS", "ios": "iOS", "tvos": "tvOS", "watchos": "watchOS", "visionos": "visionOS"}
# Every platform name `@available` knows; an attribute naming one of these other than the pass's is
# dropped in that pass.
PLATFORM_NAMES = {
    "macOS", "OSX", "iOS", "tvOS", "watchOS", "visionOS", "xrOS", "macCatalyst", "DriverKit",
    "driverkit", "iOSApplicationExtension", "macOSApplicationExtension", "OSXApplicationExtension",
    "tvOSApplicationExtension", "watchOSApplicationExtension", "visionOSApplicationExtension",
    "macCatalystApplicationExtension", "xrOSApplicationExtension", "FreeBSD", "OpenBSD", "Windows",
    "Android", "Linux", "WASI",
}
ALIASES = {"OSX": "macOS", "xrOS": "visionOS"}
OS_PREFIX = "AVAILABILITY_OS_"
# SwiftPM's invocation without its outputs: the one rule typecheck.py applies too.
from typecheck import DROP, DROP_WITH_VALUE, split_invocation  # noqa: E402


# ---------------------------------------------------------------------------------------------
# Lexing: just enough of Swift to tell code from comments and string literals.

def skip_string(text, i):
    """`text[i]` starts a string literal (one quote, three, or a raw string's `#` first); returns
    the index after it."""
    hashes = 0
    while text[i] == "#":
        hashes += 1
        i += 1
    multiline = text.startswith('"""', i)
    i += 3 if multiline else 1
    close = ('"""' if multiline else '"') + "#" * hashes
    escape = "\\" + "#" * hashes
    n = len(text)
    while i < n:
        if text.startswith(escape, i):
            j = i + len(escape)
            if j < n and text[j] == "(":
                i = skip_code(text, j + 1, ")")
            else:
                i = j + 1
            continue
        if text.startswith(close, i):
            return i + len(close)
        if text[i] == "\n" and not multiline:
            return i  # unterminated; let the compiler say so
        i += 1
    return n


def skip_comment(text, i):
    """`text[i:]` starts `//` or `/*`; returns the index after the comment (nested block comments)."""
    if text.startswith("//", i):
        end = text.find("\n", i)
        return len(text) if end < 0 else end
    depth = 0
    n = len(text)
    while i < n:
        if text.startswith("/*", i):
            depth += 1
            i += 2
        elif text.startswith("*/", i):
            depth -= 1
            i += 2
            if depth == 0:
                return i
        else:
            i += 1
    return n


def string_start(text, i):
    """Whether a string literal starts at `text[i]`."""
    if text[i] == '"':
        return True
    if text[i] == "#":
        j = i
        while j < len(text) and text[j] == "#":
            j += 1
        return j < len(text) and text[j] == '"'
    return False


def skip_code(text, i, closer):
    """Skips balanced code from `i` up to and including the `closer` that ends it."""
    pairs = {"(": ")", "[": "]", "{": "}"}
    stack = [closer]
    n = len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i) or text.startswith("/*", i):
            i = skip_comment(text, i)
            continue
        if string_start(text, i):
            i = skip_string(text, i)
            continue
        if c in pairs:
            stack.append(pairs[c])
        elif c == stack[-1]:
            stack.pop()
            if not stack:
                return i + 1
        i += 1
    return n


def split_arguments(inside):
    """Splits an attribute's argument text at its top-level commas."""
    parts, start, i, depth = [], 0, 0, 0
    while i < len(inside):
        c = inside[i]
        if string_start(inside, i):
            i = skip_string(inside, i)
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(inside[start:i].strip())
            start = i + 1
        i += 1
    parts.append(inside[start:].strip())
    return [p for p in parts if p]


# ---------------------------------------------------------------------------------------------
# Versions and domains.

def version(text):
    """`"17.0"` → `(17,)`; trailing zeros do not count."""
    parts = [int(p) for p in text.split(".")]
    while len(parts) > 1 and parts[-1] == 0:
        parts.pop()
    return tuple(parts)


def domain(platform, v):
    return platform + "_".join(str(p) for p in v)


VERSIONED = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\s+(\d+(?:\.\d+)*)$")
ATTRIBUTE = re.compile(r"@available\s*\(")
CONDITION = re.compile(r"#(available|unavailable)\s*\(")
DIRECTIVE = re.compile(r"#(if|elseif)\b")
OS_CONDITION = re.compile(r"\bos\s*\(\s*([A-Za-z_][A-Za-z0-9_]*)\s*\)")


class Pass:
    """One Apple platform's rewrite."""

    def __init__(self, platform, floor, tiers):
        self.platform = platform
        self.floor = floor
        self.tiers = sorted(tiers)  # the versions above the floor, each a domain
        # The floor itself, an always-enabled domain: what `#available` at or below the floor
        # becomes, and what unavailable declarations are unavailable in (`@available(*, unavailable)`
        # would not do: Swift refuses a universally unavailable declaration even inside another).
        self.floor_domain = domain(platform, floor)

    def stacked(self, v):
        return [domain(self.platform, t) for t in self.tiers if t <= v]

    def header(self):
        """The C header that declares this pass's domains (see `Runner.domains`)."""
        lines = ["// Generated by AppleInterfaceStubs/availability.py: the " + self.platform + " pass's domains.",
                 "#include <availability_domain.h>",
                 "int apple_availability_pass_query(void);",
                 "CLANG_ALWAYS_ENABLED_AVAILABILITY_DOMAIN(%s);" % self.floor_domain]
        for t in self.tiers:
            lines.append("CLANG_DYNAMIC_AVAILABILITY_DOMAIN(%s, apple_availability_pass_query);" % domain(self.platform, t))
        return "\n".join(lines) + "\n"

    def attribute(self, items):
        """The replacement of `@available(<items>)` in this pass."""
        if not items:
            return ""
        first = items[0]
        head = VERSIONED.match(first)
        if first == "*" or (head is None and first not in PLATFORM_NAMES):
            return "@available(" + ", ".join(items) + ")"  # `*`, `swift`, …: the same on every platform
        if head is not None:  # shorthand: `@available(macOS 14, iOS 17, *)`
            if head.group(1) == "swift" or head.group(1) == "_PackageDescription":
                return "@available(" + ", ".join(items) + ")"
            for item in items:
                m = VERSIONED.match(item)
                if m and ALIASES.get(m.group(1), m.group(1)) == self.platform:
                    v = version(m.group(2))
                    if v > self.floor:
                        return " ".join("@available(%s)" % d for d in self.stacked(v))
            return ""
        # Long form: `@available(tvOS, unavailable)`, `@available(macOS, introduced: 10.15, deprecated: 15)`.
        if ALIASES.get(first, first) != self.platform:
            return ""
        out = []
        message = None
        for item in items[1:]:
            key, _, value = item.partition(":")
            key, value = key.strip(), value.strip()
            if key == "unavailable":
                out.append("unavailable")
            elif key == "obsoleted" and version(value) <= self.floor:
                out.append("unavailable")
            elif key == "introduced" and version(value) > self.floor:
                out += ["@available(%s)" % d for d in self.stacked(version(value))]
            elif key == "message":
                message = value
        result = [a for a in out if a != "unavailable"]
        if "unavailable" in out:
            result.insert(0, "@available(%s, unavailable%s)" % (self.floor_domain, ", message: " + message if message else ""))
        return " ".join(result)

    def condition(self, kind, items):
        """The replacement of `#available(<items>)` / `#unavailable(<items>)` in this pass."""
        for item in items:
            m = VERSIONED.match(item)
            if m and ALIASES.get(m.group(1), m.group(1)) == self.platform:
                v = version(m.group(2))
                if v > self.floor:
                    if kind == "available":
                        return ", ".join("#available(%s)" % d for d in self.stacked(v))
                    return "#unavailable(%s)" % domain(self.platform, v)
        return "#%s(%s)" % (kind, self.floor_domain)

    def directive(self, line):
        return OS_CONDITION.sub(lambda m: OS_PREFIX + m.group(1), line)


def versions_named(text, platform):
    """Every version of `platform` that an availability attribute or condition in `text` names."""
    found = set()
    for span in availability_spans(text):
        _, inside, _ = span
        items = split_arguments(inside)
        if items and items[0] in PLATFORM_NAMES and ALIASES.get(items[0], items[0]) == platform:
            for item in items[1:]:
                key, _, value = item.partition(":")
                if key.strip() == "introduced":
                    found.add(version(value.strip()))
        for item in items:
            m = VERSIONED.match(item)
            if m and ALIASES.get(m.group(1), m.group(1)) == platform:
                found.add(version(m.group(2)))
    return found


def availability_spans(text):
    """(kind, inside, (start, end)) for every `@available(…)`, `#available(…)`, `#unavailable(…)` in
    code; kind is "attribute", "available" or "unavailable"."""
    spans = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "/" and (text.startswith("//", i) or text.startswith("/*", i)):
            i = skip_comment(text, i)
            continue
        if string_start(text, i):
            i = skip_string(text, i)
            continue
        if c == "@":
            m = ATTRIBUTE.match(text, i)
            if m:
                end = skip_code(text, m.end(), ")")
                spans.append(("attribute", text[m.end():end - 1], (i, end)))
                i = end
                continue
        if c == "#":
            m = CONDITION.match(text, i)
            if m:
                end = skip_code(text, m.end(), ")")
                spans.append((m.group(1), text[m.end():end - 1], (i, end)))
                i = end
                continue
        i += 1
    return spans


def directive_spans(text):
    """(start, end) of every `#if` / `#elseif` condition in code, up to its line's end or comment."""
    spans = []
    i, n = 0, len(text)
    at_line_start = True
    while i < n:
        c = text[i]
        if c == "\n":
            at_line_start = True
            i += 1
            continue
        if c in " \t":
            i += 1
            continue
        if c == "/" and (text.startswith("//", i) or text.startswith("/*", i)):
            i = skip_comment(text, i)
            continue
        if string_start(text, i):
            i = skip_string(text, i)
            at_line_start = False
            continue
        if at_line_start and DIRECTIVE.match(text, i):
            end = i
            while end < n and text[end] != "\n" and not text.startswith("//", end) and not text.startswith("/*", end):
                end += 1
            spans.append((i, end))
            i = end
            at_line_start = False
            continue
        at_line_start = False
        i += 1
    return spans


def rewrite(text, p):
    """`text` with its Apple availability and `os()` conditions rewritten for pass `p`; every line
    stays where it was."""
    edits = []
    for kind, inside, (start, end) in availability_spans(text):
        items = split_arguments(inside)
        new = p.attribute(items) if kind == "attribute" else p.condition(kind, items)
        edits.append((start, end, new + "\n" * text.count("\n", start, end)))
    for start, end in directive_spans(text):
        edits.append((start, end, p.directive(text[start:end])))
    edits.sort()
    out, last = [], 0
    for start, end, new in edits:
        out.append(text[last:start])
        out.append(new)
        last = end
    out.append(text[last:])
    return "".join(out)


# ---------------------------------------------------------------------------------------------
# The package: floors, modules, SwiftPM's invocations.

def floors():
    """Package.swift's Apple platforms and their minimum versions, from `swift package dump-package`."""
    # A scratch path of its own: the default, .build, is locked while a build runs there.
    dump = subprocess.run(["swift", "package", "--scratch-path", os.path.join(WORK, "dump-package"), "dump-package"],
                          cwd=ROOT, capture_output=True, text=True)
    if dump.returncode != 0:
        sys.exit("availability: `swift package dump-package` failed:\n" + dump.stderr)
    manifest = json.loads(dump.stdout)
    result = {}
    for entry in manifest.get("platforms") or []:
        name = APPLE.get(entry["platformName"])
        if name:
            result[name] = version(entry["version"])
    if not result:
        sys.exit("availability: Package.swift declares no Apple platform")
    return result


def package_modules(manifest):
    """SwiftPM's debug compile commands of this package's modules, in dependency order: a list of
    (name, args, imported package modules)."""
    entries = {}
    for m in re.finditer(r'^  "C\.[^"]+-debug\.module":\n(.*?)(?=^  "|\Z)', manifest, re.S | re.M):
        body = m.group(1)
        args = re.search(r"^    args: (\[.*\])$", body, re.M)
        inputs = re.search(r"^    inputs: (\[.*\])$", body, re.M)
        if not args:
            continue
        inputs = json.loads(inputs.group(1)) if inputs else []
        sources = [s for s in inputs if s.endswith(".swift")]
        mine = [s for s in sources if s.startswith(os.path.join(ROOT, "Sources") + "/")
                or s.startswith(os.path.join(ROOT, "Tests") + "/")]
        if not mine:
            continue  # another package's module, or SwiftPM's generated test runner
        imported = set()
        for path in inputs:
            n = re.search(r"/Modules/([^/]+)\.swiftmodule$", path)
            if n:
                imported.add(n.group(1))
        args = json.loads(args.group(1))
        name = args[args.index("-module-name") + 1]
        entries[name] = (args, imported)
    order, done = [], set()

    def visit(name, trail):
        if name in done:
            return
        if name in trail:
            sys.exit("availability: an import cycle through " + name)
        for dep in sorted(entries[name][1] & set(entries)):
            visit(dep, trail | {name})
        done.add(name)
        order.append((name, entries[name][0], entries[name][1] & set(entries)))

    for name in sorted(entries):
        visit(name, set())
    return order



def read(path):
    with open(path, encoding="utf-8") as handle:
        return handle.read()


# ---------------------------------------------------------------------------------------------
# Running a pass.

class Runner:
    """One pass: its rewritten copies, its domains, its emitted modules and its report."""

    def __init__(self, p, folder):
        self.p = p
        self.src = os.path.join(folder, "src")
        self.modules = os.path.join(folder, "modules")
        shutil.rmtree(folder, ignore_errors=True)
        os.makedirs(self.modules)
        self.errors = []  # (file:line:col, message) of the last compile
        self.failed = []  # the modules that failed
        self.report = []  # what the pass printed
        # The domains are declared in C, as a Clang module every compile imports implicitly: a domain
        # defined on the command line (`-define-dynamic-availability-domain`) belongs to the module
        # being compiled, and Swift 6.3 cannot read it back from that module's binary
        # ("DESERIALIZATION FAILURE … Invalid availability domain"); one declared in a Clang module
        # is serialized as a reference to that module's declaration and binds every later module.
        domains = os.path.join(folder, "domains")
        os.makedirs(domains)
        with open(os.path.join(domains, "AppleAvailabilityDomains.h"), "w") as handle:
            handle.write(p.header())
        with open(os.path.join(domains, "module.modulemap"), "w") as handle:
            handle.write('module AppleAvailabilityDomains {\n  header "AppleAvailabilityDomains.h"\n  export *\n}\n')
        self.flags = [
            "-enable-experimental-feature", "CustomAvailability",
            "-Xcc", "-fmodule-map-file=" + os.path.join(domains, "module.modulemap"),
            "-Xfrontend", "-import-module", "-Xfrontend", "AppleAvailabilityDomains",
            "-module-cache-path", os.path.join(folder, "ModuleCache"),
            "-D", OS_PREFIX + p.platform,
            "-diagnostic-style", "llvm",
        ]

    def say(self, line):
        self.report.append(line)
        print(line, flush=True)

    def copy(self, path):
        """The rewritten copy of `path` in this pass (the same path under src/)."""
        relative = os.path.relpath(os.path.abspath(path), ROOT)
        target = os.path.join(self.src, relative)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "w", encoding="utf-8") as handle:
            handle.write(rewrite(read(path), self.p))
        return target

    def compile(self, label, command, quiet=False):
        """Runs the compiler; prints its errors (and their notes) with the original paths; returns
        success. `quiet`: prints nothing (the caller reports)."""
        started = time.monotonic()
        result = subprocess.run(command, capture_output=True, text=True)
        output = (result.stdout + result.stderr).replace(self.src + "/", "")
        self.errors, lines, in_error = [], [], False
        for line in output.splitlines():
            m = re.match(r"^(\S+?:\d+:\d+): (error|warning|note|remark): (.*)$", line)
            if m:
                in_error = m.group(2) == "error" or (m.group(2) == "note" and in_error)
                if m.group(2) == "error":
                    self.errors.append((m.group(1), m.group(3)))
                if in_error:
                    lines.append(line)
            elif line.startswith("error:") or (result.returncode != 0 and " error: " in line):
                lines.append(line)
        if quiet:
            return result.returncode == 0
        status = "ok" if result.returncode == 0 else "FAILED"
        block = [f"availability [{self.p.platform}] {label}: {status} ({time.monotonic() - started:.1f} s)"]
        block += [f"  [{self.p.platform}] {line}" for line in dict.fromkeys(lines)]
        with PRINTING:
            for line in block:
                self.say(line)
        return result.returncode == 0

    def stubs(self):
        for module in STUB_MODULES:
            folder = os.path.join(STUBS, module)
            sources = [self.copy(os.path.join(folder, f)) for f in sorted(os.listdir(folder)) if f.endswith(".swift")]
            if not self.compile("stub " + module, [
                "swiftc", "-emit-module", "-parse-as-library", "-module-name", module, "-swift-version", "6",
                "-I", self.modules, "-emit-module-path", os.path.join(self.modules, module + ".swiftmodule"),
            ] + self.flags + sources):
                self.failed.append("the " + module + " stub")
                return False
        return True

    def fixture(self, expected):
        """Type-checks the planted misuse; returns what differs from `expected`, the (line, message)
        pairs this pass must report."""
        relative = os.path.relpath(FIXTURE, ROOT)
        self.compile("the planted misuse", [
            "swiftc", "-typecheck", "-parse-as-library", "-module-name", "PlantedMisuse", "-swift-version", "6",
            "-I", self.modules,
        ] + self.flags + [self.copy(FIXTURE)], quiet=True)
        got = [(int(loc.split(":")[1]), msg) for loc, msg in self.errors if loc.startswith(relative + ":")]
        problems = [f"[{self.p.platform}] unexpected error {loc}: {msg}" for loc, msg in self.errors
                    if not loc.startswith(relative + ":")]
        for line, msg in expected:
            if not any(l == line and msg in m for l, m in got):
                problems.append(f"[{self.p.platform}] not reported: {relative}:{line}: {msg}")
        for line, msg in got:
            if not any(l == line and w in msg for l, w in expected):
                problems.append(f"[{self.p.platform}] unexpected error {relative}:{line}: {msg}")
        with PRINTING:
            verdict = "as planted" if not problems else "NOT as planted"
            self.say(f"availability [{self.p.platform}] the planted misuse: {len(got)} error(s), {verdict}")
            for line, msg in got:
                self.say(f"  [{self.p.platform}] planted: {relative}:{line}: error: {msg}")
        return problems

    def module(self, name, original, emit):
        """Type-checks a package module in this pass; `emit`: also writes its module for the
        modules that import it (a leaf is only type-checked, which is cheaper)."""
        flags, sources = split_invocation(original)
        checks = os.path.join(STUBS, "Checks", name)
        if os.path.isdir(checks):
            sources += sorted(os.path.join(checks, f) for f in os.listdir(checks) if f.endswith(".swift"))
        copies = [self.copy(s) for s in sources]
        action = (["-emit-module", "-emit-module-path", os.path.join(self.modules, name + ".swiftmodule")]
                  if emit else ["-typecheck"])
        return self.compile(name, ["swiftc"] + action + ["-wmo", "-I", self.modules] + flags + self.flags + copies)


PRINTING = threading.Lock()


def expected_misuse():
    """The fixture's `// EXPECT <pass>: <message>` lines, by pass."""
    expected = {}
    for number, line in enumerate(read(FIXTURE).splitlines(), 1):
        m = re.search(r"// EXPECT (\w+): (.*)$", line)
        if m:
            expected.setdefault(m.group(1), []).append((number, m.group(2).strip()))
    count = sum(len(v) for v in expected.values())
    if count != 3:
        sys.exit(f"availability self-test: the fixture names {count} expected errors, not 3")
    return expected


def passes(selected, self_test_only=False):
    """The passes, one per Apple platform Package.swift declares, with their tiers taken from every
    source the check reads (the package's modules unless `self_test_only`, the stubs, Checks/ and
    the fixture)."""
    sources = all_sources(with_package=not self_test_only)
    missing = [path for path in sources if not os.path.exists(path)]
    if missing:
        sys.exit("availability: .build/debug.yaml lists files that are gone (" + ", ".join(
            os.path.relpath(path, ROOT) for path in missing[:3]) + "); run `swift build --build-tests` first")
    texts = [read(path) for path in sources] + [read(FIXTURE)]
    result = []
    for platform, floor in sorted(floors().items()):
        if selected and platform not in selected:
            continue
        tiers = set()
        for text in texts:
            tiers |= {v for v in versions_named(text, platform) if v > floor}
        result.append(Pass(platform, floor, tiers))
    if not result:
        sys.exit("availability: no pass for " + ", ".join(sorted(selected)))
    return result


_MANIFEST = None


def manifest():
    global _MANIFEST
    if _MANIFEST is None:
        path = os.path.join(ROOT, ".build", "debug.yaml")
        if not os.path.exists(path):
            sys.exit("availability: .build/debug.yaml is missing; run `swift build --build-tests` first")
        _MANIFEST = read(path) + "\n"
    return _MANIFEST


def all_sources(with_package=True):
    files = []
    for module in STUB_MODULES:
        folder = os.path.join(STUBS, module)
        files += [os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".swift")]
    for folder, _, names in os.walk(os.path.join(STUBS, "Checks")):
        files += [os.path.join(folder, f) for f in names if f.endswith(".swift")]
    if with_package:
        for _, original, _ in package_modules(manifest()):
            files += split_invocation(original)[1]
    return files


def run_folder():
    """This run's folder, .build/availability/<pid> (runs at the same time do not share one);
    the folders of runs that ended without removing theirs are removed."""
    os.makedirs(WORK, exist_ok=True)
    for name in os.listdir(WORK):
        if name.isdigit() and int(name) != os.getpid():
            try:
                os.kill(int(name), 0)
            except ProcessLookupError:
                shutil.rmtree(os.path.join(WORK, name), ignore_errors=True)
            except PermissionError:
                pass
    return os.path.join(WORK, str(os.getpid()))


def run_pass(p, modules, expected, self_test_only, folder):
    """One pass: the stubs, the planted misuse, then (unless `self_test_only`) every module."""
    runner = Runner(p, os.path.join(folder, p.platform))
    with PRINTING:
        tiers = ", ".join(domain(p.platform, t) for t in p.tiers) or "none"
        runner.say(f"availability [{p.platform}] floor {'.'.join(map(str, p.floor))}; tiers: {tiers}")
    if not runner.stubs():
        return runner, ["[" + p.platform + "] the stubs do not build"]
    problems = runner.fixture(expected.get(p.platform, []))
    if self_test_only:
        return runner, problems
    imported = set()
    for _, _, deps in modules:
        imported |= deps
    for name, original, deps in modules:
        if deps & set(runner.failed):
            with PRINTING:
                runner.say(f"availability [{p.platform}] {name}: skipped, a module it imports failed")
            runner.failed.append(name)
        elif not runner.module(name, original, emit=name in imported):
            runner.failed.append(name)
    return runner, problems


def main():
    os.chdir(ROOT)
    args = sys.argv[1:]
    selected = set()
    while "--platform" in args:
        i = args.index("--platform")
        selected.add(args[i + 1])
        del args[i:i + 2]
    jobs = os.cpu_count() or 1
    if "--jobs" in args:
        i = args.index("--jobs")
        jobs = int(args[i + 1])
        del args[i:i + 2]
    if "--rewrite" in args:  # a debugging aid: a file as a pass sees it
        i = args.index("--rewrite")
        platform, path = args[i + 1], args[i + 2]
        sys.stdout.write(rewrite(read(path), passes({platform})[0]))
        return
    self_test_only = "--self-test" in args
    started = time.monotonic()
    expected = expected_misuse()
    modules = [] if self_test_only else package_modules(manifest())
    chosen = passes(selected, self_test_only)
    folder = run_folder()
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, min(jobs, len(chosen)))) as pool:
        results = list(pool.map(lambda p: run_pass(p, modules, expected, self_test_only, folder), chosen))
    problems = [problem for _, found in results for problem in found]
    failed = {runner.p.platform: runner.failed for runner, _ in results if runner.failed}
    print(f"availability: {time.monotonic() - started:.0f} s", flush=True)
    if "--keep" not in args:
        shutil.rmtree(folder, ignore_errors=True)
    else:
        print("availability: kept " + os.path.relpath(folder, ROOT), flush=True)
    if problems:
        sys.exit("availability self-test FAILED (the planted misuse, AppleInterfaceStubs/Fixtures/PlantedMisuse):\n  "
                 + "\n  ".join(problems))
    print(f"availability self-test: the {sum(len(v) for v in expected.values())} planted misuses are reported, "
          "nothing else", flush=True)
    if failed:
        sys.exit("availability: errors in " + "; ".join(f"{k}: {', '.join(v)}" for k, v in failed.items()))
    if not self_test_only:
        print("availability: every module type-checks in every Apple pass")


if __name__ == "__main__":
    main()
