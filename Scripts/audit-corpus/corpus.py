#!/usr/bin/env python3
"""The real-world corpus for `securenet audit` (issue 39, items 1 and 6).

Subcommands (Python 3, standard library only):

  fetch --dest DIR
      Extracts every app of corpus.json at its recorded commit into DIR/<name>. Uses the git
      directory under /work/.mirror/<owner>+<name> when present, else a bare clone of
      https://github.com/<owner>/<name> kept in DIR/.repos. Idempotent: an app already extracted at
      its commit (DIR/.extracted/<name>) is left alone.

  run --securenet BIN --dest DIR --out FILE.json [--include-tests] [--repeat N] [--apps a,b]
      Runs `BIN audit DIR/<name> --format json` for every app under `/usr/bin/time -v`, records the
      wall seconds (measured around it, to the millisecond; time -v's own hundredths are kept too)
      and peak RSS (the fastest of N runs, the largest RSS), counts the lines of .swift,
      .m, .mm and .h files outside the folders the auditor skips, and saves every finding.
      `--include-tests` is passed to the CLI only when its `audit --help` lists it.

  score --results FILE.json --labels labels.json [--sample-size 60]
      Markdown: the per-rule precision table on shipping code, the same over all findings (test
      context included), the timing table, and the findings still to label (every unlabeled finding
      of every rule but SN005; for SN005 the unlabeled ones in the seeded sample of shipping-context
      findings).

  show --results FILE.json --dest DIR [--labels labels.json] [--rule SNxxx] [--around N] [--unlabeled]
      Prints each finding with the source lines around it, to read while labeling.

A label is {app, rule, path, line, verdict, reason}; verdict is true-shipping, true-test or false. A
finding takes the label with the same app, rule, path and line.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "corpus.json"
MIRROR = Path("/work/.mirror")
SOURCE_SUFFIXES = {".swift": "swift", ".m": "objc", ".mm": "objc", ".h": "objc"}
# The folders SecurityAuditor skips (FileWalker): hidden ones (.build, .swiftpm, .git, ...) and these.
SKIPPED_DIRECTORIES = {"Pods", "Carthage", "DerivedData", "node_modules", ".build"}
VERDICTS = ("true-shipping", "true-test", "false")
SAMPLED_RULE = "SN005"


def load_corpus() -> list[dict]:
    with open(CORPUS) as handle:
        return json.load(handle)["apps"]


def selected(apps: list[dict], names: str | None) -> list[dict]:
    if not names:
        return apps
    wanted = set(names.split(","))
    unknown = wanted - {app["name"] for app in apps}
    if unknown:
        sys.exit(f"unknown app(s): {', '.join(sorted(unknown))}")
    return [app for app in apps if app["name"] in wanted]


def git(git_dir: Path, *arguments: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "--git-dir", str(git_dir), *arguments], check=True, **kwargs)


def has_commit(git_dir: Path, commit: str) -> bool:
    probe = subprocess.run(
        ["git", "--git-dir", str(git_dir), "cat-file", "-e", commit + "^{commit}"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return probe.returncode == 0


def git_dir_for(app: dict, dest: Path) -> Path:
    owner, name = app["repository"].split("/")
    mirror = MIRROR / f"{owner}+{name}"
    for candidate in (mirror / "repo", mirror):
        if candidate.is_dir() and has_commit(candidate, app["commit"]):
            return candidate
    bare = dest / ".repos" / f"{owner}+{name}.git"
    if not bare.is_dir():
        bare.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            ["git", "clone", "--bare", f"https://github.com/{app['repository']}", str(bare)], check=True
        )
    if not has_commit(bare, app["commit"]):
        git(bare, "fetch", "origin", app["commit"])
    return bare


def command_fetch(arguments: argparse.Namespace) -> None:
    dest = Path(arguments.dest).resolve()
    dest.mkdir(parents=True, exist_ok=True)
    markers = dest / ".extracted"
    markers.mkdir(exist_ok=True)
    for app in selected(load_corpus(), arguments.apps):
        target = dest / app["name"]
        marker = markers / app["name"]
        if target.is_dir() and marker.is_file() and marker.read_text().split("\n", 1)[0] == app["commit"]:
            print(f"{app['name']}: already at {app['commit'][:12]}")
            continue
        git_dir = git_dir_for(app, dest)
        partial = dest / (".partial-" + app["name"])
        shutil.rmtree(partial, ignore_errors=True)
        partial.mkdir()
        archive = subprocess.Popen(
            ["git", "--git-dir", str(git_dir), "archive", "--format=tar", app["commit"]],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        untar = subprocess.run(["tar", "-x", "-C", str(partial)], stdin=archive.stdout)
        archive.stdout.close()
        archive_error = archive.stderr.read().decode(errors="replace")
        missing: list[str] = []
        if archive.wait() != 0 or untar.returncode != 0:
            # A snapshot may leave out its largest blobs (binaries under Pods/ and the like): extract
            # the tree blob by blob and list what is absent.
            print(f"{app['name']}: git archive failed ({archive_error.strip().splitlines()[0]}); "
                  "extracting blob by blob", file=sys.stderr)
            shutil.rmtree(partial)
            partial.mkdir()
            missing = extract_blob_by_blob(git_dir, app["commit"], partial)
        shutil.rmtree(target, ignore_errors=True)
        partial.rename(target)
        marker.write_text(app["commit"] + "\n" + "".join(f"missing {path}\n" for path in missing))
        note = f" ({len(missing)} blobs absent from the snapshot: {', '.join(missing[:3])}...)" if missing else ""
        print(f"{app['name']}: extracted {app['commit'][:12]} from {git_dir}{note}")


def extract_blob_by_blob(git_dir: Path, commit: str, target: Path) -> list[str]:
    """Writes every blob of `commit` below `target`; returns the paths whose blob is absent."""
    listing = git(git_dir, "ls-tree", "-r", "-z", "--full-tree", commit, stdout=subprocess.PIPE).stdout
    entries = []
    for record in listing.split(b"\0"):
        if not record:
            continue
        meta, path = record.split(b"\t", 1)
        mode, kind, sha = meta.split(b" ")
        if kind == b"blob":
            entries.append((mode.decode(), sha.decode(), os.fsdecode(path)))
    batch = subprocess.Popen(
        ["git", "--git-dir", str(git_dir), "cat-file", "--batch"], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    missing = []
    for mode, sha, path in entries:
        batch.stdin.write(sha.encode() + b"\n")
        batch.stdin.flush()
        header = batch.stdout.readline().split()
        if len(header) < 3 or header[1] != b"blob":
            missing.append(path)
            continue
        size = int(header[2])
        data = batch.stdout.read(size)
        batch.stdout.read(1)  # the newline after the contents
        destination = target / path
        destination.parent.mkdir(parents=True, exist_ok=True)
        if mode == "120000":
            os.symlink(os.fsdecode(data), destination)
        else:
            destination.write_bytes(data)
            if mode == "100755":
                destination.chmod(0o755)
    batch.stdin.close()
    batch.wait()
    return missing


def count_lines(root: Path) -> dict[str, int]:
    counts = {"swift": 0, "objc": 0, "swift_files": 0, "objc_files": 0}
    for directory, subdirectories, files in os.walk(root):
        subdirectories[:] = [
            name for name in subdirectories if not name.startswith(".") and name not in SKIPPED_DIRECTORIES
        ]
        for name in files:
            language = SOURCE_SUFFIXES.get(os.path.splitext(name)[1])
            if language is None:
                continue
            path = os.path.join(directory, name)
            if not os.path.isfile(path):  # a dangling symbolic link
                continue
            with open(path, "rb") as handle:
                data = handle.read()
            lines = data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
            counts[language] += lines
            counts[language + "_files"] += 1
    return counts


def parse_time_report(text: str) -> tuple[float, int, float]:
    """The wall seconds, the peak RSS in KiB and the CPU seconds (user + system) from `/usr/bin/time -v`."""
    elapsed = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): ([0-9:.]+)", text)
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", text)
    user = re.search(r"User time \(seconds\): ([0-9.]+)", text)
    system = re.search(r"System time \(seconds\): ([0-9.]+)", text)
    if not elapsed or not rss or not user or not system:
        raise ValueError("no /usr/bin/time -v report")
    seconds = 0.0
    for part in elapsed.group(1).split(":"):
        seconds = seconds * 60 + float(part)
    return seconds, int(rss.group(1)), float(user.group(1)) + float(system.group(1))


def binary_commit(binary: Path) -> str | None:
    for parent in binary.resolve().parents:
        if (parent / ".git").exists():
            probe = subprocess.run(
                ["git", "-C", str(parent), "rev-parse", "HEAD"], capture_output=True, text=True
            )
            return probe.stdout.strip() or None
    return None


def ensure_time() -> None:
    if not Path("/usr/bin/time").exists():
        sys.exit("/usr/bin/time is missing: apt-get install -y time")


def command_run(arguments: argparse.Namespace) -> None:
    ensure_time()
    binary = Path(arguments.securenet).resolve()
    dest = Path(arguments.dest).resolve()
    help_text = subprocess.run([str(binary), "audit", "--help"], capture_output=True, text=True)
    supports_tests = "--include-tests" in help_text.stdout + help_text.stderr
    if arguments.include_tests and not supports_tests:
        print("note: this securenet has no --include-tests; running without it", file=sys.stderr)
    extra = ["--include-tests"] if arguments.include_tests and supports_tests else []
    results = {
        "securenet": str(binary),
        "securenet_commit": arguments.securenet_commit or binary_commit(binary),
        "arguments": ["audit", "<app>", "--format", "json", *extra],
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "repeat": arguments.repeat,
        "apps": [],
        "findings": [],
    }
    for app in selected(load_corpus(), arguments.apps):
        root = dest / app["name"]
        if not root.is_dir():
            sys.exit(f"{root} is missing: run `corpus.py fetch --dest {dest}` first")
        lines = count_lines(root)
        runs = []
        report = None
        for _ in range(arguments.repeat):
            with tempfile.TemporaryDirectory() as scratch:
                out_path, time_path = Path(scratch, "out.json"), Path(scratch, "time.txt")
                with open(out_path, "wb") as out, open(time_path, "wb") as err:
                    started = time.perf_counter()
                    status = subprocess.run(
                        ["/usr/bin/time", "-v", str(binary), "audit", str(root), "--format", "json", *extra],
                        stdout=out,
                        stderr=err,
                    ).returncode
                    elapsed = time.perf_counter() - started
                diagnostics = time_path.read_text(errors="replace")
                if status not in (0, 1, 2):
                    sys.exit(f"{app['name']}: securenet exited {status}:\n{diagnostics[-2000:]}")
                seconds, rss, cpu = parse_time_report(diagnostics)
                report = json.loads(out_path.read_bytes())
                # /usr/bin/time -v reports wall time in hundredths; the same interval measured here
                # (which includes starting /usr/bin/time itself, about a millisecond) has more digits.
                runs.append((elapsed, rss, status, seconds, cpu))
        findings = report["findings"]
        results["apps"].append(
            {
                "name": app["name"],
                "commit": app["commit"],
                "lines": lines["swift"] + lines["objc"],
                "lines_swift": lines["swift"],
                "lines_objc": lines["objc"],
                "files_swift": lines["swift_files"],
                "files_objc": lines["objc_files"],
                "seconds": min(run[0] for run in runs),
                "seconds_all": [round(run[0], 4) for run in runs],
                "seconds_time_v": [run[3] for run in runs],
                "cpu_seconds": min(run[4] for run in runs),
                "peak_rss_kib": max(run[1] for run in runs),
                "exit_status": runs[-1][2],
                "files_scanned": report.get("filesScanned"),
                "unreadable_files": report.get("unreadableFiles", []),
                "findings": len(findings),
                "suppressed": len(report.get("suppressed", [])),
            }
        )
        for finding in findings:
            entry = {
                "app": app["name"],
                "ruleID": finding["ruleID"],
                "severity": finding.get("severity"),
                "path": finding["path"],
                "line": finding["line"],
                "column": finding["column"],
                "message": finding["message"],
            }
            if "context" in finding:
                entry["context"] = finding["context"]
            results["findings"].append(entry)
        entry = results["apps"][-1]
        print(
            f"{app['name']}: {entry['lines']} lines, {entry['seconds']:.2f} s, "
            f"{entry['peak_rss_kib'] / 1024:.0f} MiB, {len(findings)} findings, exit {entry['exit_status']}",
            file=sys.stderr,
        )
    with open(arguments.out, "w") as handle:
        json.dump(results, handle, indent=1, sort_keys=True)
        handle.write("\n")


def load_labels(path: str) -> tuple[dict, dict]:
    """The labels by (app, rule, path, line), and the file's metadata (seed and notes)."""
    with open(path) as handle:
        document = json.load(handle)
    entries = document["labels"] if isinstance(document, dict) else document
    metadata = {key: value for key, value in document.items() if key != "labels"} if isinstance(document, dict) else {}
    labels = {}
    for entry in entries:
        if entry["verdict"] not in VERDICTS:
            sys.exit(f"bad verdict {entry['verdict']!r} in {entry}")
        key = (entry["app"], entry["rule"], entry["path"], int(entry["line"]))
        if key in labels and labels[key]["verdict"] != entry["verdict"]:
            sys.exit(f"conflicting labels for {key}")
        labels[key] = entry
    return labels, metadata


def key_of(finding: dict) -> tuple:
    return (finding["app"], finding["ruleID"], finding["path"], int(finding["line"]))


def context_of(finding: dict) -> str:
    return finding.get("context", "shipping")


def sampled_keys(findings: list[dict], seed: int, size: int, context: str = "shipping") -> list[tuple]:
    """A seeded sample of the distinct places of SN005 findings in `context`.

    Shipping context: `random.Random(seed).sample` of the sorted places. Test context: the `size`
    places with the smallest SHA-256 of seed and place (a bottom-k sample), which stays mostly the
    same when the population changes between runs, so its labels carry over.
    """
    population = sorted({key_of(f) for f in findings if f["ruleID"] == SAMPLED_RULE and context_of(f) == context})
    if len(population) <= size:
        return population
    if context == "shipping":
        return sorted(random.Random(seed).sample(population, size))

    def rank(key: tuple) -> str:
        return hashlib.sha256(f"{seed}|{'|'.join(map(str, key))}".encode()).hexdigest()

    return sorted(sorted(population, key=rank)[:size])


def percent(numerator: int, denominator: int) -> str:
    return f"{100 * numerator / denominator:.1f} %" if denominator else "–"


def load_results(path: str) -> dict:
    with open(path) as handle:
        return json.load(handle)


def rule_names() -> dict[str, str]:
    return {
        "SN000": "invalid-suppression", "SN001": "ats-arbitrary-loads", "SN002": "ats-insecure-http-exception",
        "SN003": "ats-weak-tls-version", "SN004": "ats-forward-secrecy-disabled", "SN005": "cleartext-http-url",
        "SN006": "secret-in-user-defaults", "SN007": "secret-in-logs", "SN008": "trust-evaluation-disabled",
        "SN009": "keychain-accessible-always", "SN010": "weak-password-hash",
        "SN011": "cached-authenticated-response", "SN012": "hardcoded-credential",
        "SN013": "insecure-random-for-secret", "SN014": "pin-without-backup", "SN015": "debuggable-entitlement",
        "SN016": "isolated-completion-handler",
    }


def command_score(arguments: argparse.Namespace) -> None:
    results = load_results(arguments.results)
    labels, metadata = load_labels(arguments.labels)
    seed = int(arguments.seed if arguments.seed is not None else metadata.get("seed", 39))
    findings = results["findings"]
    names = rule_names()
    out = []
    out.append(f"Results: `{arguments.results}` — securenet {results.get('securenet_commit') or '?'} "
               f"({' '.join(results.get('arguments', []))}), {len(findings)} findings.\n")

    def table(title: str, rows: list[dict], shipping_only: bool) -> None:
        by_rule = defaultdict(list)
        for finding in rows:
            by_rule[finding["ruleID"]].append(finding)
        # SN005 is judged on its seeded sample only: labels carried over from other runs' samples
        # would not be a random sample of this run's findings.
        in_sample = set(sampled_keys(findings, seed, arguments.sample_size))
        if not shipping_only:
            in_sample |= set(sampled_keys(findings, seed, arguments.sample_size, "test"))
        out.append(f"### {title}\n")
        if shipping_only:
            out.append("| rule | name | reported shipping | true-shipping | true-test | false | unlabeled or not sampled | precision (shipping) |")
        else:
            out.append("| rule | name | findings | of which test context | true-shipping | true-test | false | unlabeled or not sampled | precision (any true) |")
        out.append("|" + "---|" * (8 if shipping_only else 9))
        totals = Counter()
        for rule in sorted(by_rule):
            count = Counter()
            for finding in by_rule[rule]:
                label = labels.get(key_of(finding))
                if rule == SAMPLED_RULE and key_of(finding) not in in_sample:
                    label = None
                count[label["verdict"] if label else "unlabeled"] += 1
                count["test-context"] += context_of(finding) == "test"
            labeled = count["true-shipping"] + count["true-test"] + count["false"]
            totals.update(count)
            if shipping_only:
                precision = percent(count["true-shipping"], labeled)
                out.append(f"| {rule} | {names.get(rule, '')} | {len(by_rule[rule])} | {count['true-shipping']} | "
                           f"{count['true-test']} | {count['false']} | {count['unlabeled']} | {precision} |")
            else:
                if rule == SAMPLED_RULE:
                    precision = stratified_precision(by_rule[rule], in_sample)
                else:
                    precision = percent(count["true-shipping"] + count["true-test"], labeled)
                out.append(f"| {rule} | {names.get(rule, '')} | {len(by_rule[rule])} | {count['test-context']} | "
                           f"{count['true-shipping']} | {count['true-test']} | {count['false']} | "
                           f"{count['unlabeled']} | {precision} |")
        labeled = totals["true-shipping"] + totals["true-test"] + totals["false"]
        if shipping_only:
            out.append(f"| all | | {len(rows)} | {totals['true-shipping']} | {totals['true-test']} | {totals['false']} | "
                       f"{totals['unlabeled']} | {percent(totals['true-shipping'], labeled)} |")
        else:
            out.append(f"| all | | {len(rows)} | {totals['test-context']} | {totals['true-shipping']} | "
                       f"{totals['true-test']} | {totals['false']} | {totals['unlabeled']} | "
                       f"{percent(totals['true-shipping'] + totals['true-test'], labeled)} |")
        out.append("")

    def stratified_precision(rows: list[dict], in_sample: set) -> str:
        """Precision (any true) over both contexts, each context's sample weighted by its findings."""
        estimate, weight = 0.0, 0
        for context in ("shipping", "test"):
            stratum = [f for f in rows if context_of(f) == context]
            verdicts = [labels[key_of(f)]["verdict"] for f in stratum if key_of(f) in in_sample and key_of(f) in labels]
            if not verdicts:
                continue
            estimate += len(stratum) * sum(v != "false" for v in verdicts) / len(verdicts)
            weight += len(stratum)
        return f"{100 * estimate / weight:.1f} % (stratified)" if weight else "–"

    shipping = [f for f in findings if context_of(f) == "shipping"]
    table("Findings reported as shipping code", shipping, True)
    out.append("Precision (shipping) = true-shipping / labeled shipping-context findings. "
               f"{SAMPLED_RULE} is counted on a seeded sample (seed {seed}) of {arguments.sample_size} of its "
               "distinct shipping-context places (all of them when there are fewer), so its precision is an "
               "estimate; its other findings are in the last-but-one column. The `all` row mixes that sample "
               "with the fully labeled rules.\n")
    table("All findings (test context included)", findings, False)
    out.append(f"Here {SAMPLED_RULE} is counted on the shipping-context sample plus a seeded sample of "
               f"{arguments.sample_size} of its distinct test-context places (the places with the smallest "
               f"SHA-256 of seed and place); its precision weights each context's sample by that context's "
               "number of findings.\n")

    apps = results.get("apps", [])
    if apps:
        out.append("### Timing\n")
        out.append("| app | lines (Swift + ObjC) | Swift | ObjC | seconds | lines/s | CPU s | peak RSS MiB | findings |")
        out.append("|---|---|---|---|---|---|---|---|---|")

        def cpu(app: dict) -> str:
            return f"{app['cpu_seconds']:.2f}" if "cpu_seconds" in app else "–"

        for app in apps:
            rate = app["lines"] / app["seconds"] if app["seconds"] else float("inf")
            out.append(f"| {app['name']} | {app['lines']:,} | {app['lines_swift']:,} | {app['lines_objc']:,} | "
                       f"{app['seconds']:.2f} | {rate:,.0f} | {cpu(app)} | {app['peak_rss_kib'] / 1024:.0f} | "
                       f"{app['findings']} |")
        lines = sum(app["lines"] for app in apps)
        seconds = sum(app["seconds"] for app in apps)
        cpu_total = f"{sum(a['cpu_seconds'] for a in apps):.2f}" if all("cpu_seconds" in a for a in apps) else "–"
        out.append(f"| **total** | {lines:,} | {sum(a['lines_swift'] for a in apps):,} | "
                   f"{sum(a['lines_objc'] for a in apps):,} | {seconds:.2f} | "
                   f"{lines / seconds if seconds else 0:,.0f} | {cpu_total} | "
                   f"max {max(a['peak_rss_kib'] for a in apps) / 1024:.0f} | {sum(a['findings'] for a in apps)} |")
        out.append(f"\nSeconds are wall-clock around `/usr/bin/time -v BIN audit ...`, the fastest of {results.get('repeat', 1)} run(s); "
                   "CPU s (user + system, the smallest) is less sensitive to other load on the machine; "
                   "peak RSS the largest. Overall lines/s = total lines / total seconds.\n")
        unreadable = [(app["name"], item) for app in apps for item in app.get("unreadable_files", [])]
        if unreadable:
            out.append("Unreadable files reported by the audit:\n")
            for name, item in unreadable:
                out.append(f"- {name}: `{json.dumps(item, sort_keys=True)}`")
            out.append("")

    sample = set(sampled_keys(findings, seed, arguments.sample_size)) | set(
        sampled_keys(findings, seed, arguments.sample_size, "test")
    )
    todo = []
    seen = set()
    for finding in sorted(findings, key=lambda f: (f["ruleID"], f["app"], f["path"], f["line"], f["column"])):
        key = key_of(finding)
        if key in labels or key in seen:
            continue
        if finding["ruleID"] == SAMPLED_RULE and key not in sample:
            continue
        seen.add(key)
        todo.append(finding)
    out.append(f"### Unlabeled findings to label ({len(todo)})\n")
    out.append(f"Every rule but {SAMPLED_RULE}; for {SAMPLED_RULE} the unlabeled places among the seeded samples "
               f"of {arguments.sample_size} shipping-context places and of {arguments.sample_size} test-context "
               f"places (seed {seed}).\n")
    for finding in todo:
        out.append(f"- {finding['ruleID']} {finding['app']} `{finding['path']}:{finding['line']}` "
                   f"[{context_of(finding)}] {finding['message']}")
    text = "\n".join(out) + "\n"
    if arguments.output:
        Path(arguments.output).write_text(text)
    sys.stdout.write(text)


def command_show(arguments: argparse.Namespace) -> None:
    results = load_results(arguments.results)
    labels = load_labels(arguments.labels)[0] if arguments.labels else {}
    dest = Path(arguments.dest)
    seen = set()
    for finding in sorted(results["findings"], key=lambda f: (f["app"], f["ruleID"], f["path"], f["line"])):
        key = key_of(finding)
        if arguments.rule and finding["ruleID"] not in arguments.rule.split(","):
            continue
        if arguments.app and finding["app"] != arguments.app:
            continue
        if arguments.context and context_of(finding) != arguments.context:
            continue
        if key in seen or (arguments.unlabeled and key in labels):
            continue
        seen.add(key)
        label = labels.get(key)
        print(f"===== {finding['ruleID']} {finding['app']} {finding['path']}:{finding['line']}:{finding['column']} "
              f"[{context_of(finding)}] {label['verdict'] + ': ' + label['reason'] if label else ''}")
        print(f"      {finding['message']}")
        try:
            source = (dest / finding["app"] / finding["path"]).read_text(errors="replace").split("\n")
        except OSError as error:
            print(f"      ({error})")
            continue
        low = max(0, finding["line"] - 1 - arguments.around)
        high = min(len(source), finding["line"] + arguments.around)
        for number in range(low, high):
            marker = ">>" if number + 1 == finding["line"] else "  "
            print(f"{marker}{number + 1:6d} {source[number][:220]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)

    fetch = commands.add_parser("fetch", help="extract every app at its recorded commit")
    fetch.add_argument("--dest", required=True)
    fetch.add_argument("--apps", help="comma-separated app names (default: all)")
    fetch.set_defaults(handler=command_fetch)

    run = commands.add_parser("run", help="audit every app, with lines, seconds and peak RSS")
    run.add_argument("--securenet", required=True, help="the securenet binary")
    run.add_argument("--dest", required=True)
    run.add_argument("--out", required=True)
    run.add_argument("--include-tests", action="store_true", help="pass --include-tests when the CLI has it")
    run.add_argument("--securenet-commit", help="the commit BIN was built from (default: HEAD of the git work tree holding BIN)")
    run.add_argument("--repeat", type=int, default=1, help="runs per app; the fastest is kept")
    run.add_argument("--apps", help="comma-separated app names (default: all)")
    run.set_defaults(handler=command_run)

    score = commands.add_parser("score", help="per-rule precision, timing, and what is left to label")
    score.add_argument("--results", required=True)
    score.add_argument("--labels", required=True)
    score.add_argument("--seed", type=int, help="the SN005 sampling seed (default: the labels file's)")
    score.add_argument("--sample-size", type=int, default=60)
    score.add_argument("--output", help="also write the markdown here")
    score.set_defaults(handler=command_score)

    show = commands.add_parser("show", help="print findings with the code around them")
    show.add_argument("--results", required=True)
    show.add_argument("--dest", required=True)
    show.add_argument("--labels")
    show.add_argument("--rule", help="comma-separated rule IDs")
    show.add_argument("--app")
    show.add_argument("--context", choices=["shipping", "test"], help="only findings in this context")
    show.add_argument("--around", type=int, default=6)
    show.add_argument("--unlabeled", action="store_true")
    show.set_defaults(handler=command_show)

    arguments = parser.parse_args()
    arguments.handler(arguments)


if __name__ == "__main__":
    main()
