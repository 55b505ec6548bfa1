#!/usr/bin/env python3
"""Builds Tests/ServerTrustTests/Fixtures/RealChains: real certificate chains served by public sites.

Every chain comes from a public repository that recorded what a real server sent (a test fixture
or a dataset); the repository, path and commit of each are written to manifest.json next to the
PEM files, with the host the chain was served for and a time at which every certificate of it was
valid. RealChainCorpusTests evaluates each chain for its host at that time against the system roots.

The sources are bare git directories as the workplace's `fetch` tool leaves them
(<mirror-root>/<owner>+<name>/repo); pass another root with --mirror-root. Needs Python 3 and
`cryptography` (pip install cryptography); the tests do not.

    python3 Scripts/build-real-chain-corpus.py [--mirror-root /work/.mirror] [--out DIR]

Sources (SOURCES below):

- C2SP/x509-limbo, limbo/_assets/online/*.limbo.json, every version in the repository's history:
  limbo's `online` harness connects to a fixed list of top sites and records the peer certificate
  and the intermediates of the chain OpenSSL verified (the root is dropped; limbo keeps it apart).
- rustls/rustls-platform-verifier, src/tests/verification_real_world/<host>_valid_<n>.crt, every
  version in the history: the certificates one server presented, as served, in order.
- wbond/certvalidator, tests/fixtures: www.mozilla.org and the DigiCert intermediate it was served with.

Aliases: a chain whose leaf has a wildcard directly under a public suffix of the Public Suffix
List's private section (*.s3.amazonaws.com, *.appspot.com) is served for every name under it (an
S3 bucket, an App Engine app); such a chain gets a second manifest entry for one such name.
"""

import argparse
import datetime as dt
import hashlib
import html
import ipaddress
import json
import re
import subprocess
import sys
from pathlib import Path

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.x509.oid import ExtendedKeyUsageOID, ExtensionOID, NameOID

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "Tests/ServerTrustTests/Fixtures/RealChains"
PSL = Path("/usr/share/publicsuffix/public_suffix_list.dat")

SOURCES = [
    {"kind": "limbo-online", "repository": "C2SP/x509-limbo", "dir": "limbo/_assets/online/"},
    {
        "kind": "rustls-real-world",
        "repository": "rustls/rustls-platform-verifier",
        "dirs": ["rustls-platform-verifier/src/tests/verification_real_world/", "src/tests/verification_real_world/"],
        # The host each file prefix was served for (the test's reference identity).
        "hosts": {
            "aws_amazon_com": "aws.amazon.com",
            "letsencrypt_org": "letsencrypt.org",
            "1password_com": "my.1password.com",
            "agilebits_com": "agilebits.com",
        },
    },
    # OpenJDK's CA interoperability tests embedded the chains of each CA's public test sites (the
    # "active"/"valid" site: leaf and intermediates as served) until they switched to live URLs.
    # openjdk/jdk itself is too large to mirror here; these repositories carry the files.
    {
        "kind": "jdk-ca-interop",
        "repository": "GeoStudios/Centurion",
        "commit": "b32e05c5d097d22864e8bfb55405b47b62dc2513",
        "dir": "test/jdk/security/infra/java/security/cert/CertPathValidator/certification/",
    },
    {
        "kind": "jdk-ca-interop",
        "repository": "desiyonan/OpenJDK8",
        "commit": None,
        "dir": "test/jdk/security/infra/java/security/cert/CertPathValidator/certification/",
    },
    # Go's crypto/x509 verify tests (here in certificate-transparency-go's fork of the package)
    # embed a few chains real sites served in 2011-2014; most of their roots have left the bundle.
    {
        "kind": "go-verify-test",
        "repository": "google/certificate-transparency-go",
        "commit": None,
        "path": "x509/verify_test.go",
        "cases": [
            (["googleLeaf", "giag2Intermediate"], "www.google.com"),
            (["dnssecExpLeaf", "startComIntermediate"], None),
            (["megaLeaf", "comodoIntermediate1"], None),
            (["nameConstraintsLeaf", "nameConstraintsIntermediate1", "nameConstraintsIntermediate2"], "secure.iddl.vt.edu"),
            (["moipLeafCert", "comodoIntermediateSHA384", "comodoRSAAuthority"], "api.moip.com.br"),
        ],
    },
    # An `openssl s_client` transcript in a blog post: the *.github.io leaf GitHub Pages served to
    # 0xttfx.github.io (January 2024) and, in the transcript's chain listing, the intermediate
    # "DigiCert TLS RSA SHA256 2020 CA1" (Apr 14 2021 - Apr 13 2031) it was served with. The
    # transcript prints only the leaf's PEM, so the intermediate comes from certvalidator's
    # fixtures (the same certificate: it verifies the leaf's signature).
    {
        "kind": "transcript",
        "repository": "0xttfx/0xttfx.github.io",
        "commit": None,
        "path": "posts/rtfmaleatoriedades-ocspstapling/index.md",
        "host": "0xttfx.github.io",
        "intermediates": [("wbond/certvalidator", "tests/fixtures/digicert-tls-rsa-sha256-2020-ca1.crt")],
    },
    # webpki's integration tests: chains real public servers presented (leaf and intermediate; not
    # tests/sanofi, a private PKI), and
    # Amazon Trust Services' demo sites, whose leaves are chained here to the issuing intermediate
    # among the test's intermediates (found by signature).
    {
        "kind": "issued-files",
        "repository": "rustls/webpki",
        "commit": None,
        "chains": [
            {"leaf": "tests/netflix/ee.der", "pool": ["tests/netflix/inter.der"]},
            {
                "leaf": "tests/cloudflare_dns/ee.der",
                "pool": ["tests/cloudflare_dns/inter.der"],
                "hosts": ["cloudflare-dns.com", "one.one.one.one", "1.1.1.1", "2606:4700:4700::1111"],
            },
        ]
        + [
            {"leaf": f"tests/amazon/valid.rootca{n}.demo.amazontrust.com.cer", "pool": "tests/amazon/"}
            for n in range(1, 5)
        ],
    },
    {
        "kind": "files",
        "repository": "wbond/certvalidator",
        "host": "www.mozilla.org",
        "paths": ["tests/fixtures/mozilla.org.crt", "tests/fixtures/digicert-sha2-secure-server-ca.crt"],
        "note": "certvalidator's TLS validation test: www.mozilla.org with the intermediate it was served with",
    },
]


class Repo:
    def __init__(self, mirror_root: Path, repository: str):
        self.repository = repository
        self.git_dir = mirror_root / repository.replace("/", "+") / "repo"
        if (self.git_dir / ".git").is_dir():
            self.git_dir = self.git_dir / ".git"
        if not self.git_dir.is_dir():
            sys.exit(f"no mirror of {repository} at {self.git_dir}")

    def git(self, *args: str, partial: bool = False) -> bytes:
        """The command's output; with partial, what it wrote before failing (a history with an
        unreadable object still lists the commits before it)."""
        result = subprocess.run(["git", "--git-dir", str(self.git_dir), *args], capture_output=True)
        return result.stdout if result.returncode == 0 or partial else b""

    def head(self) -> str:
        return self.git("rev-parse", "HEAD").decode().strip()

    def commits(self, *paths: str) -> list[str]:
        """Commits touching the paths, newest first, all refs."""
        return self.git("log", "--all", "--format=%H", "--", *paths, partial=True).decode().split()

    def names(self, prefix: str) -> list[str]:
        out = self.git("log", "--all", "--name-only", "--format=", partial=True)
        return sorted({line for line in out.decode().splitlines() if line.startswith(prefix)})

    def show(self, commit: str, path: str) -> bytes:
        return self.git("show", f"{commit}:{path}")


def load(data: bytes) -> list[x509.Certificate]:
    """DER, or every PEM block in a text (a transcript or a web page: HTML entities undone)."""
    if b"-----BEGIN CERTIFICATE-----" not in data:
        return [x509.load_der_x509_certificate(data)]
    text = html.unescape(data.decode("utf-8", "replace"))
    blocks = re.findall(r"-----BEGIN CERTIFICATE-----.*?-----END CERTIFICATE-----", text, re.S)
    return [x509.load_pem_x509_certificate(block.encode()) for block in blocks]


def dns_names(cert: x509.Certificate) -> list[str]:
    try:
        ext = cert.extensions.get_extension_for_oid(ExtensionOID.SUBJECT_ALTERNATIVE_NAME)
    except x509.ExtensionNotFound:
        return []
    return [name.lower() for name in ext.value.get_values_for_type(x509.DNSName)]


def ip_named(cert: x509.Certificate, host: str) -> bool:
    try:
        address = ipaddress.ip_address(host)
        ext = cert.extensions.get_extension_for_oid(ExtensionOID.SUBJECT_ALTERNATIVE_NAME)
    except (ValueError, x509.ExtensionNotFound):
        return False
    return address in ext.value.get_values_for_type(x509.IPAddress)


def covers(pattern: str, host: str) -> bool:
    if pattern.startswith("*."):
        head, _, rest = host.partition(".")
        return bool(head) and rest == pattern[2:]
    return pattern == host


def validity(cert: x509.Certificate) -> tuple[dt.datetime, dt.datetime]:
    return cert.not_valid_before_utc, cert.not_valid_after_utc


def validation_time(chain: list[x509.Certificate]) -> tuple[dt.datetime, str]:
    """The leaf's notBefore + 1 day, kept inside every certificate's validity; else the leaf and
    the certificates that issue it in turn (an expired extra certificate that path building skips)."""
    leaf_start, leaf_end = validity(chain[0])
    wanted = leaf_start + dt.timedelta(days=1)

    def clamp(certs: list[x509.Certificate]) -> dt.datetime | None:
        low = max(validity(c)[0] for c in certs) + dt.timedelta(seconds=1)
        high = min(validity(c)[1] for c in certs) - dt.timedelta(seconds=1)
        if low > high:
            return None
        return min(max(wanted, low), high)

    if (time := clamp(chain)) is not None:
        return time, ""
    path = [chain[0]]
    while True:
        issuer = next((c for c in chain if c.subject == path[-1].issuer and c not in path), None)
        if issuer is None:
            break
        path.append(issuer)
    if (time := clamp(path)) is not None:
        return time, "; the served chain has a certificate not valid with the others: time from the leaf's issuing path"
    return wanted, "; no time at which every certificate was valid"


def load_private_suffixes() -> set[str]:
    if not PSL.exists():
        return set()
    suffixes, private = set(), False
    for line in PSL.read_text(encoding="utf-8").splitlines():
        if "===BEGIN PRIVATE DOMAINS===" in line:
            private = True
        line = line.strip()
        if private and line and not line.startswith("//") and not line.startswith(("*", "!")):
            suffixes.add(line.encode("idna").decode() if not line.isascii() else line)
    return suffixes


def issues(issuer: x509.Certificate, cert: x509.Certificate) -> bool:
    try:
        cert.verify_directly_issued_by(issuer)
        return True
    except InvalidSignature:
        return False
    except (ValueError, TypeError):
        # A signature cryptography does not verify (SHA-1): the names decide.
        return issuer.subject == cert.issuer


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9.-]+", "-", text.lower()).strip("-")


class Corpus:
    def __init__(self, out: Path):
        self.out = out
        self.entries: list[dict] = []
        self.seen: set[str] = set()
        self.first_host: dict[str, str] = {}
        self.private_suffixes = load_private_suffixes()

    def add(self, chain: list[x509.Certificate], host: str, source: dict, note: str, again: bool = False) -> None:
        """Adds a chain for a host; with again, one more host for a chain just added (the same file)."""
        if len(chain) < 2:
            print(f"skipped {host} from {source['repository']}@{source['commit'][:12]}: a leaf without intermediates")
            return
        if not any(issues(c, chain[0]) for c in chain[1:]):
            # A history snapshot whose files were updated one at a time: not what a server sent.
            print(f"skipped {host} from {source['repository']}@{source['commit'][:12]}: leaf not issued by the chain")
            return
        der = [c.public_bytes(serialization.Encoding.DER) for c in chain]
        digest = hashlib.sha256(b"".join(der)).hexdigest()
        if digest in self.seen and not again:
            return
        self.seen.add(digest)
        leaf = chain[0]
        time, time_note = validation_time(chain)
        file = f"{slug(self.first_host.get(digest, host))}-{leaf.not_valid_before_utc:%Y%m%d}-{digest[:8]}.pem"
        self.first_host.setdefault(digest, host)
        ident = f"{slug(host)}-{leaf.not_valid_before_utc:%Y%m%d}-{digest[:8]}"
        pem = "".join(c.public_bytes(serialization.Encoding.PEM).decode() for c in chain)
        (self.out / file).write_text(pem)
        names = dns_names(leaf)
        base = {
            "file": file,
            "validationTime": time.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "validationTimeUnix": int(time.timestamp()),
            "certificates": len(chain),
            "leafSHA256": hashlib.sha256(der[0]).hexdigest(),
            "leafIssuer": leaf.issuer.rfc4514_string(),
            "source": source,
        }
        if not any(covers(n, host) for n in names) and not ip_named(leaf, host):
            note += f"; the leaf's SANs do not name {host}"
        self.entries.append({"id": ident, "host": host, **base, "note": note + time_note})
        for name in names:
            suffix = name[2:] if name.startswith("*.") else None
            if suffix and suffix in self.private_suffixes and not host.endswith("." + suffix):
                alias = f"example-{slug(suffix.split('.')[0])}-tenant.{suffix}"
                self.entries.append(
                    {
                        "id": f"{ident}-alias",
                        "host": alias,
                        "aliasOf": ident,
                        **base,
                        "note": f"alias: the same chain serves every name under {name}, directly under the"
                        f" private-section public suffix {suffix}" + time_note,
                    }
                )
                break


def limbo_online(corpus: Corpus, repo: Repo, spec: dict) -> None:
    for path in repo.names(spec["dir"]):
        if not path.endswith(".limbo.json"):
            continue
        for commit in repo.commits(path):
            blob = repo.show(commit, path)
            if not blob:
                continue
            case = json.loads(blob)
            chain = load(case["peer_certificate"].encode())
            for pem in case.get("untrusted_intermediates", []):
                chain += load(pem.encode())
            host = case["expected_peer_name"]["value"]
            corpus.add(
                chain,
                host,
                {"repository": repo.repository, "path": path, "commit": commit},
                f"limbo online testcase {case['id']}: the peer certificate and the intermediates of the"
                " chain OpenSSL verified for it (root kept apart by limbo)",
            )


def rustls_real_world(corpus: Corpus, repo: Repo, spec: dict) -> None:
    pattern = re.compile(r"(.*/)?([a-z0-9_]+)_valid_(\d+)\.crt$")
    for directory in spec["dirs"]:
        files = [p for p in repo.names(directory) if pattern.match(p)]
        prefixes = sorted({pattern.match(p).group(2) for p in files})
        for prefix in prefixes:
            members = sorted((p for p in files if pattern.match(p).group(2) == prefix),
                             key=lambda p: int(pattern.match(p).group(3)))
            host = spec["hosts"].get(prefix, prefix.replace("_", "."))
            for commit in repo.commits(*members):
                chain = []
                for path in members:
                    blob = repo.show(commit, path)
                    if blob:
                        chain += load(blob)
                if not chain:
                    continue
                corpus.add(
                    chain,
                    host,
                    {"repository": repo.repository, "path": f"{directory}{prefix}_valid_*.crt", "commit": commit},
                    f"rustls-platform-verifier real-world test: the chain one server presented for {host}, in order",
                )


def host_for(leaf: x509.Certificate) -> str:
    """The name a CA's test site is reached by: the common name when it is a SAN, else the first
    SAN that is not a wildcard."""
    names = dns_names(leaf)
    common = [a.value.lower() for a in leaf.subject.get_attributes_for_oid(NameOID.COMMON_NAME)]
    if common and common[0] in names:
        return common[0]
    plain = [n for n in names if not n.startswith("*.")]
    if plain:
        return plain[0]
    return "www." + names[0][2:] if names else common[0]


def is_tls_server_leaf(cert: x509.Certificate) -> bool:
    """Not a CA, names a DNS host, and (if it has an EKU) may authenticate TLS servers."""
    try:
        if cert.extensions.get_extension_for_class(x509.BasicConstraints).value.ca:
            return False
    except x509.ExtensionNotFound:
        pass
    try:
        usages = cert.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value
        if ExtendedKeyUsageOID.SERVER_AUTH not in usages and ExtendedKeyUsageOID.ANY_EXTENDED_KEY_USAGE not in usages:
            return False
    except x509.ExtensionNotFound:
        pass
    return bool(dns_names(cert))


def jdk_ca_interop(corpus: Corpus, repo: Repo, spec: dict) -> None:
    """Chains a test validates with Status.GOOD whose first certificate is not a CA: the VALID
    site's leaf and the intermediates it was served with. Constants are scoped by class."""
    commit = spec["commit"] or repo.head()
    listing = repo.git("ls-tree", "--name-only", commit, spec["dir"]).decode().split()
    constant = re.compile(r'static\s+final\s+String\s+(\w+)\s*=\s*((?:"(?:[^"\\]|\\.)*"\s*\+?\s*)+);')
    call = re.compile(r"validate\(\s*new\s+String\[\]\s*\{([^}]*)\}\s*,\s*ValidatePathWithParams\.Status\.GOOD")
    for path in sorted(listing):
        if not path.endswith(".java"):
            continue
        text = repo.show(commit, path).decode("utf-8", "replace")
        bounds = [m.start() for m in re.finditer(r"\bclass\s+\w+", text)] + [len(text)]
        for start, end in zip(bounds, bounds[1:]):
            block = text[start:end]
            values = {}
            for m in constant.finditer(block):
                literal = "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', m.group(2)))
                values[m.group(1)] = literal.replace("\\n", "\n")
            for m in call.finditer(block):
                names = [n.strip() for n in m.group(1).split(",") if n.strip()]
                if len(names) < 2 or not all(n in values for n in names):
                    continue
                chain = []
                for name in names:
                    chain += load(values[name].encode())
                if not is_tls_server_leaf(chain[0]):
                    continue  # an intermediate alone, or a code-signing or personal certificate
                corpus.add(
                    chain,
                    host_for(chain[0]),
                    {"repository": repo.repository, "path": path, "commit": commit},
                    f"OpenJDK CA interoperability test ({Path(path).stem}, {'+'.join(names)}): a CA's public"
                    " test site with a valid certificate, leaf and intermediates as served",
                )


def go_verify_test(corpus: Corpus, repo: Repo, spec: dict) -> None:
    commit = spec["commit"] or repo.head()
    text = repo.show(commit, spec["path"]).decode()
    values = dict(re.findall(r"(\w+)\s*=\s*`\s*(-----BEGIN CERTIFICATE-----[^`]*)`", text))
    for names, host in spec["cases"]:
        chain = []
        for name in names:
            chain += load(values[name].encode())
        corpus.add(
            chain,
            host or host_for(chain[0]),
            {"repository": repo.repository, "path": spec["path"], "commit": commit},
            f"Go crypto/x509 verify test chain ({'+'.join(names)}), as the site served it",
        )


def transcript(corpus: Corpus, repo: Repo, spec: dict) -> None:
    commit = spec["commit"] or repo.head()
    chain = load(repo.show(commit, spec["path"]))
    also = []
    for repository, path in spec["intermediates"]:
        other = Repo(corpus.mirror_root, repository)
        other_commit = other.head()
        chain += load(other.show(other_commit, path))
        also.append({"repository": repository, "path": path, "commit": other_commit})
    corpus.add(
        chain,
        spec["host"],
        {"repository": repo.repository, "path": spec["path"], "commit": commit, "intermediatesFrom": also},
        f"openssl s_client transcript for {spec['host']}: the leaf as served; the intermediate the chain"
        " listing names, from the source in intermediatesFrom",
    )


def issued_files(corpus: Corpus, repo: Repo, spec: dict) -> None:
    commit = spec["commit"] or repo.head()
    for item in spec["chains"]:
        pool_paths = item["pool"]
        if isinstance(pool_paths, str):
            listing = repo.git("ls-tree", "--name-only", commit, pool_paths).decode().split()
            pool_paths = [p for p in listing if p.endswith((".cer", ".der", ".crt")) and p != item["leaf"]]
        pool = []
        for path in pool_paths:
            try:
                pool += load(repo.show(commit, path))
            except ValueError:
                continue
        chain = load(repo.show(commit, item["leaf"]))
        while True:
            issuer = next((c for c in pool if c not in chain and issues(c, chain[-1])), None)
            if issuer is None or issuer.subject == issuer.issuer:
                break  # no issuer among the files, or a root: the server does not send it
            chain.append(issuer)
        hosts = item.get("hosts") or [host_for(chain[0])]
        for index, host in enumerate(hosts):
            corpus.add(
                chain,
                host,
                {"repository": repo.repository, "path": item["leaf"], "commit": commit},
                f"webpki integration test: {item['leaf']} and its issuing intermediates from the test's files",
                again=index > 0,
            )


def files(corpus: Corpus, repo: Repo, spec: dict) -> None:
    commit = spec.get("commit") or repo.head()
    chain = []
    for path in spec["paths"]:
        chain += load(repo.show(commit, path))
    corpus.add(
        chain,
        spec["host"],
        {"repository": repo.repository, "path": ", ".join(spec["paths"]), "commit": commit},
        spec["note"],
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirror-root", type=Path, default=Path("/work/.mirror"))
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for old in args.out.glob("*.pem"):
        old.unlink()
    corpus = Corpus(args.out)
    corpus.mirror_root = args.mirror_root
    kinds = {
        "limbo-online": limbo_online,
        "rustls-real-world": rustls_real_world,
        "jdk-ca-interop": jdk_ca_interop,
        "go-verify-test": go_verify_test,
        "transcript": transcript,
        "issued-files": issued_files,
        "files": files,
    }
    for spec in SOURCES:
        kinds[spec["kind"]](corpus, Repo(args.mirror_root, spec["repository"]), spec)
    corpus.entries.sort(key=lambda e: e["id"])
    manifest = {
        "description": "Real certificate chains served by public sites; see Scripts/build-real-chain-corpus.py.",
        "chains": len({e["file"] for e in corpus.entries}),
        "entries": corpus.entries,
    }
    (args.out / "manifest.json").write_text(json.dumps(manifest, indent=1, sort_keys=False) + "\n")
    print(f"{manifest['chains']} chains, {len(corpus.entries)} entries in {args.out}")


if __name__ == "__main__":
    main()
