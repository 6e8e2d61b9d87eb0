#!/usr/bin/env python3
"""Recall of ``gradlint check`` on gradient-mode bugs that maintainers fixed by hand.

    .venv/bin/python benchmarks/recall/score.py --mirror DIR     # before-files from local clones
    .venv/bin/python benchmarks/recall/score.py --clone          # git clone what is missing
    .venv/bin/python benchmarks/recall/score.py --json           # the report as JSON
    .venv/bin/python benchmarks/recall/score.py --preview        # with the preview tier too
    .venv/bin/python benchmarks/recall/score.py --mirror DIR --write-docs   # and update docs/recall.md

Each site in ``sites.toml`` names a file as it was before a fix (a PyPI
archive pinned by its sha256, or a git commit), the lines of the buggy code and
the rule expected there. The script gets every before-file, checks its sha256,
runs ``gradlint check --select ALL --output-format json`` on all of them at
once, and counts a site *caught* when a finding of the expected code (or of
the expected family, ``GL1xx``) covers one of the site's lines. It prints
recall overall, per family, per rule and per cause, then every miss.

Sources, in order: ``pypi`` (``pip download --no-deps --require-hashes``), a
git repository found under a ``--mirror`` directory (``DIR/owner+name/repo``,
``DIR/owner/name``, ``DIR/name``, bare or not), then, with ``--clone``, a
``git clone`` of the site's repository into the work directory. A site whose
file cannot be had, or whose sha256 differs, is reported as unavailable and
left out of the figures (exit status 2 when any is, unless
``--allow-unavailable``).

``--in-repo`` checks each site as a pre-commit hook would in the project:
the ``.py`` files of the whole repository (or of the release archive) at the
site's source are written out, and ``gradlint check`` is run on the site's
file alone from the repository's root, once per site, so that what the run's
project index takes from the files around it (its directory and the
packages above it) is what a user's hook would see. Without it the
before-file is checked with its ``context`` files and packages only, all
sites in one run.

Only the standard library is used; gradlint is the one installed for the
Python running this script (``--gradlint`` names another command).
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import shlex
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

try:
    import tomllib
except ModuleNotFoundError:  # Python < 3.11: gradlint itself depends on tomli there
    import tomli as tomllib  # type: ignore[no-redef]

HERE = Path(__file__).resolve().parent
SITES = HERE / "sites.toml"
WORK = HERE.parent / ".work" / "recall"
DOCS = HERE.parent.parent / "docs" / "recall.md"

FAMILIES = ("GL0xx", "GL1xx", "GL2xx/GL3xx")


# -- the data ----------------------------------------------------------------------


@dataclass(frozen=True)
class Site:
    id: str
    project: str
    repository: str
    path: str
    lines: Tuple[int, ...]
    expect: str  # "GL101", "GL1xx", or alternatives joined by "|"
    cause: str
    sha256: str
    description: str = ""
    before: str = ""
    fix: str = ""
    pypi: Optional[Dict[str, str]] = None  # name, version, archive_sha256, member
    # Other files of the project at the same source, checked with the site's file
    # (their findings do not count): what a cross-file cause needs to be seen.
    context: Tuple[str, ...] = ()

    @property
    def alternatives(self) -> Tuple[str, ...]:
        return tuple(a.strip() for a in self.expect.split("|") if a.strip())

    @property
    def family(self) -> str:
        return family_of(self.alternatives[0])

    def accepts(self, code: str) -> bool:
        for alt in self.alternatives:
            if alt.endswith("xx") and code.startswith(alt[:-2]):
                return True
            if code == alt:
                return True
        return False


def family_of(code: str) -> str:
    """GL0xx, GL1xx, or GL2xx/GL3xx (the in-place and graph-lifetime rules count as one family)."""
    digit = code[2:3] if code.startswith("GL") else ""
    if digit == "0":
        return "GL0xx"
    if digit == "1":
        return "GL1xx"
    if digit in ("2", "3"):
        return "GL2xx/GL3xx"
    raise ValueError(f"no family for {code!r}")


REQUIRED = ("id", "project", "repository", "path", "lines", "expect", "cause", "sha256")


def load_sites(path: Path) -> List[Site]:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    sites: List[Site] = []
    seen = set()
    for raw in data.get("site", []):
        missing = [k for k in REQUIRED if k not in raw]
        if missing:
            raise ValueError(f"site {raw.get('id', '?')}: missing {', '.join(missing)}")
        if raw["id"] in seen:
            raise ValueError(f"site {raw['id']}: duplicate id")
        seen.add(raw["id"])
        # A site the guard found (guard_sites.py) has no fix yet: its commit pins it.
        found_by_guard = raw.get("found_by") == "guard" and raw.get("before")
        if "pypi" not in raw and not (raw.get("before") and raw.get("fix")) and not found_by_guard:
            raise ValueError(f"site {raw['id']}: needs a pypi source or before and fix commits")
        site = Site(
            id=raw["id"],
            project=raw["project"],
            repository=raw["repository"],
            path=raw["path"],
            lines=tuple(int(n) for n in raw["lines"]),
            expect=raw["expect"],
            cause=raw["cause"],
            sha256=raw["sha256"].lower(),
            description=raw.get("description", ""),
            before=raw.get("before", ""),
            fix=raw.get("fix", ""),
            pypi=dict(raw["pypi"]) if "pypi" in raw else None,
            context=tuple(raw.get("context", ())),
        )
        if not site.lines:
            raise ValueError(f"site {site.id}: no lines")
        family_of(site.alternatives[0])  # raises on an unknown code
        sites.append(site)
    return sites


# -- accounting (pure: unit-tested on synthetic data) ------------------------------


@dataclass
class Tally:
    caught: int = 0
    total: int = 0

    @property
    def recall(self) -> float:
        return self.caught / self.total if self.total else 0.0

    def as_dict(self) -> Dict[str, object]:
        return {"caught": self.caught, "total": self.total, "recall": round(self.recall, 3)}


@dataclass
class Report:
    overall: Tally = field(default_factory=Tally)
    families: Dict[str, Tally] = field(default_factory=OrderedDict)
    rules: Dict[str, Tally] = field(default_factory=dict)
    causes: Dict[str, Tally] = field(default_factory=dict)
    projects: set = field(default_factory=set)
    caught: List[Tuple[Site, List[dict]]] = field(default_factory=list)
    misses: List[Tuple[Site, List[dict]]] = field(default_factory=list)
    unavailable: List[Tuple[Site, str]] = field(default_factory=list)
    unparsable: set = field(default_factory=set)  # site ids whose before-file got GL000


def covers(finding: dict, lines: Iterable[int]) -> bool:
    start = finding["location"]["row"]
    end = (finding.get("end_location") or finding["location"])["row"]
    return any(start <= n <= end for n in lines)


def score(sites: Sequence[Site], findings: Dict[str, List[dict]], unavailable: Optional[Dict[str, str]] = None) -> Report:
    """``findings`` maps a site id to the JSON findings gradlint reported on its before-file.

    A site is caught when one finding of an accepted code covers one of its
    lines; a finding of another code on those lines is listed with the miss
    (it shows what gradlint saw there) but does not count.
    """
    unavailable = unavailable or {}
    report = Report()
    for fam in FAMILIES:
        report.families[fam] = Tally()
    for site in sites:
        if site.id in unavailable:
            report.unavailable.append((site, unavailable[site.id]))
            continue
        on_lines = [f for f in findings.get(site.id, []) if covers(f, site.lines)]
        hit = any(site.accepts(f["code"]) for f in on_lines)
        report.projects.add(site.project)
        if any(f["code"] == "GL000" for f in findings.get(site.id, [])):
            report.unparsable.add(site.id)
        for tally in (
            report.overall,
            report.families.setdefault(site.family, Tally()),
            report.rules.setdefault(site.expect, Tally()),
            report.causes.setdefault(site.cause, Tally()),
        ):
            tally.total += 1
            tally.caught += hit
        (report.caught if hit else report.misses).append((site, on_lines))
    return report


def format_report(report: Report) -> str:
    def row(name: str, t: Tally) -> str:
        return f"  {name:<38} {t.caught:>3} / {t.total:<3} {t.recall:6.1%}"

    out = [
        f"Recall on {report.overall.total} sites from {len(report.projects)} projects: "
        f"{report.overall.caught} caught, {report.overall.recall:.1%}",
        "",
        "Per family:",
    ]
    out += [row(name, t) for name, t in report.families.items() if t.total]
    out += ["", "Per rule:"]
    out += [row(name, t) for name, t in sorted(report.rules.items())]
    out += ["", "Per cause:"]
    out += [row(name, t) for name, t in sorted(report.causes.items(), key=lambda kv: (kv[1].recall, kv[0]))]
    if report.misses:
        out += ["", f"Misses ({len(report.misses)}):"]
        for site, on_lines in sorted(report.misses, key=lambda m: (m[0].cause, m[0].id)):
            seen = ", ".join(sorted({f["code"] for f in on_lines})) or "nothing"
            if site.id in report.unparsable:
                seen += " (the file does not parse: GL000)"
            lines = ",".join(str(n) for n in site.lines)
            out.append(f"  [{site.cause}] {site.id}: {site.path}:{lines} expected {site.expect}, reported {seen}")
    if report.unavailable:
        out += ["", f"Unavailable ({len(report.unavailable)}), left out of the figures:"]
        out += [f"  {site.id}: {why}" for site, why in report.unavailable]
    return "\n".join(out)


def format_markdown(report: Report) -> str:
    """The figures as Markdown tables, for the generated block of docs/recall.md."""

    def table(title: str, rows: Iterable[Tuple[str, Tally]]) -> List[str]:
        out = [f"| {title} | caught | sites | recall |", "| --- | ---: | ---: | ---: |"]
        out += [f"| {name} | {t.caught} | {t.total} | {t.recall:.0%} |" for name, t in rows]
        return out + [""]

    out = [
        f"**{report.overall.caught} of {report.overall.total} sites caught ({report.overall.recall:.0%})**, "
        f"from {len(report.projects)} projects.",
        "",
    ]
    out += table("Family", [(k, t) for k, t in report.families.items() if t.total])
    out += table("Expected rule", sorted(report.rules.items()))
    out += table("Cause", sorted(report.causes.items(), key=lambda kv: (kv[1].recall, kv[0])))
    if report.misses:
        out += ["Misses by cause:", ""]
        by_cause: Dict[str, List[Tuple[Site, List[dict]]]] = {}
        for miss in report.misses:
            by_cause.setdefault(miss[0].cause, []).append(miss)
        for cause in sorted(by_cause, key=lambda c: (-len(by_cause[c]), c)):
            out.append(f"- `{cause}` ({len(by_cause[cause])}):")
            for site, on_lines in sorted(by_cause[cause], key=lambda m: m[0].id):
                seen = ", ".join(sorted({f["code"] for f in on_lines})) or "nothing"
                if site.id in report.unparsable:
                    seen += "; the file does not parse"
                lines = ",".join(str(n) for n in site.lines)
                out.append(f"    - `{site.id}`: {site.project} `{site.path}:{lines}`, expected {site.expect}, reported {seen}")
        out.append("")
    if report.unavailable:
        out += [f"{len(report.unavailable)} sites could not be had and are left out: "
                + ", ".join(f"`{s.id}`" for s, _ in report.unavailable) + ".", ""]
    return "\n".join(out)


START, END = "<!-- recall:start -->", "<!-- recall:end -->"


def write_docs(path: Path, report: Report) -> None:
    """Replace the generated block of ``path`` (between START and END) with the figures."""
    text = path.read_text(encoding="utf-8")
    head, sep, rest = text.partition(START)
    _, sep2, tail = rest.partition(END)
    if not (sep and sep2):
        raise SystemExit(f"{path}: no {START} ... {END} block to replace")
    path.write_text(f"{head}{START}\n{format_markdown(report)}\n{END}{tail}", encoding="utf-8")


def report_json(report: Report) -> Dict[str, object]:
    def entry(site: Site, on_lines: List[dict]) -> Dict[str, object]:
        return {
            "id": site.id,
            "project": site.project,
            "path": site.path,
            "lines": list(site.lines),
            "expect": site.expect,
            "cause": site.cause,
            "reported": sorted({f["code"] for f in on_lines}),
            "unparsable": site.id in report.unparsable,
        }

    return {
        "overall": report.overall.as_dict(),
        "projects": len(report.projects),
        "families": {k: v.as_dict() for k, v in report.families.items() if v.total},
        "rules": {k: v.as_dict() for k, v in sorted(report.rules.items())},
        "causes": {k: v.as_dict() for k, v in sorted(report.causes.items())},
        "misses": [entry(s, f) for s, f in report.misses],
        "unavailable": [{"id": s.id, "why": why} for s, why in report.unavailable],
    }


# -- getting the before-files ------------------------------------------------------


class Unavailable(Exception):
    pass


def _owner_name(url: str) -> Tuple[str, str]:
    parts = url.rstrip("/").removesuffix(".git").split("/")
    return parts[-2], parts[-1]


def _git_dirs(root: Path, owner: str, name: str) -> Iterable[Path]:
    for base in (root / f"{owner}+{name}" / "repo", root / owner / name, root / name, root / f"{name}.git", root / f"{owner}+{name}"):
        if (base / ".git").is_dir():
            yield base / ".git"
        elif (base / "HEAD").is_file():
            yield base


def _git_show(git_dir: Path, commit: str, path: str) -> Optional[bytes]:
    proc = subprocess.run(["git", "--git-dir", str(git_dir), "show", f"{commit}:{path}"], capture_output=True)
    return proc.stdout if proc.returncode == 0 else None


class Sources:
    def __init__(self, mirrors: Sequence[Path], clone: bool, work: Path) -> None:
        self.mirrors = list(mirrors)
        self.clone = clone
        self.work = work
        self._archives: Dict[Tuple[str, str], Path] = {}

    def get(self, site: Site) -> bytes:
        data = self._fetch(site)
        digest = hashlib.sha256(data).hexdigest()
        if digest != site.sha256:
            raise Unavailable(f"sha256 {digest[:12]}... differs from the recorded {site.sha256[:12]}...")
        return data

    def context(self, site: Site, path: str) -> bytes:
        """The file ``path`` of the site's project, from the same release or commit
        (pinned by the archive's hash or the commit, not by a hash of its own)."""
        if site.pypi:
            member = site.pypi["member"]
            if not member.endswith(site.path):
                raise Unavailable(f"cannot place {path} in {site.pypi['name']} {site.pypi['version']}")
            return self._from_pypi(dict(site.pypi, member=member[: len(member) - len(site.path)] + path))
        return self._fetch(Site(**{**site.__dict__, "path": path, "pypi": None, "context": ()}))

    def tree(self, site: Site, dest: Path) -> int:
        """Write the ``.py`` files of the site's project, at its source, under
        ``dest`` (the repository's root, or the archive's directory that holds
        the site's path); how many were written."""
        if site.pypi:
            member = site.pypi["member"]
            if not member.endswith(site.path):
                raise Unavailable(f"cannot place {site.path} in {site.pypi['name']} {site.pypi['version']}")
            self._from_pypi(site.pypi)  # fetched and checked
            prefix = member[: len(member) - len(site.path)]
            return _extract_archive(self._archives[(site.pypi["name"], site.pypi["version"])], prefix, dest)
        owner, name = _owner_name(site.repository)
        dirs = [d for root in self.mirrors for d in _git_dirs(root, owner, name)]
        if self.clone and not dirs:
            self._fetch(site)
            dirs = [self.work / "clones" / f"{owner}+{name}"]
        for git_dir in dirs:
            if _git_show(git_dir, site.before, site.path) is None:
                continue
            listing = subprocess.run(
                ["git", "--git-dir", str(git_dir), "ls-tree", "-r", "-z", site.before],
                capture_output=True, check=True,
            ).stdout.decode("utf-8", "surrogateescape").split("\0")
            # Regular files only: a link may point out of the tree, a submodule is not there.
            entries = [line.partition("\t") for line in listing if line]
            paths = [path for meta, _, path in entries if meta.split()[0] in ("100644", "100755") and path.endswith(".py") and _safe(path)]
            archive = subprocess.run(
                ["git", "--git-dir", str(git_dir), "archive", "--format=tar", site.before, "--", *paths],
                capture_output=True, check=True,
            ).stdout
            with tarfile.open(fileobj=io.BytesIO(archive)) as tf:
                # Python < 3.11.4 has no extraction filters; the paths were checked above.
                tf.extractall(dest, **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
            return len(paths)
        raise Unavailable(f"no local copy of {owner}/{name} at {site.before[:12]} (give --mirror DIR, or --clone)")

    def _fetch(self, site: Site) -> bytes:
        if site.pypi:
            return self._from_pypi(site.pypi)
        owner, name = _owner_name(site.repository)
        for root in self.mirrors:
            for git_dir in _git_dirs(root, owner, name):
                data = _git_show(git_dir, site.before, site.path)
                if data is not None:
                    return data
        if self.clone:
            target = self.work / "clones" / f"{owner}+{name}"
            if not target.exists():
                target.parent.mkdir(parents=True, exist_ok=True)
                proc = subprocess.run(["git", "clone", "--quiet", "--bare", site.repository, str(target)], capture_output=True, text=True)
                if proc.returncode != 0:
                    raise Unavailable(f"git clone {site.repository} failed: {proc.stderr.strip()[:200]}")
            data = _git_show(target, site.before, site.path)
            if data is not None:
                return data
            raise Unavailable(f"{site.before[:12]}:{site.path} is not in the clone of {site.repository}")
        raise Unavailable(f"no local copy of {owner}/{name} (give --mirror DIR, or --clone)")

    def _from_pypi(self, pypi: Dict[str, str]) -> bytes:
        key = (pypi["name"], pypi["version"])
        archive = self._archives.get(key)
        if archive is None:
            downloads = self.work / "downloads"
            downloads.mkdir(parents=True, exist_ok=True)
            archive = _find_archive(downloads, *key)
            if archive is None or hashlib.sha256(archive.read_bytes()).hexdigest() != pypi["archive_sha256"]:
                with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as req:
                    req.write(f"{pypi['name']}=={pypi['version']} --hash=sha256:{pypi['archive_sha256']}\n")
                kind = ["--no-binary=:all:"] if pypi.get("kind", "sdist") == "sdist" else ["--only-binary=:all:"]
                try:
                    proc = subprocess.run(
                        [sys.executable, "-m", "pip", "--disable-pip-version-check", "download", "--no-deps", "--require-hashes",
                         *kind, "-d", str(downloads), "-r", req.name],
                        capture_output=True, text=True,
                    )
                finally:
                    os.unlink(req.name)
                archive = _find_archive(downloads, *key)
                if proc.returncode != 0 or archive is None:
                    raise Unavailable(f"pip download {pypi['name']}=={pypi['version']} failed: {proc.stderr.strip()[-200:]}")
            self._archives[key] = archive
        return _read_member(archive, pypi["member"])


def _find_archive(downloads: Path, name: str, version: str) -> Optional[Path]:
    stem = name.replace("-", "_").lower()
    for p in sorted(downloads.iterdir()):
        if p.name.replace("-", "_").lower().startswith(f"{stem}_{version}") and p.name.endswith((".whl", ".tar.gz", ".zip")):
            return p
    return None


def _read_member(archive: Path, member: str) -> bytes:
    try:
        if archive.name.endswith((".whl", ".zip")):
            with zipfile.ZipFile(archive) as zf:
                return zf.read(member)
        with tarfile.open(archive) as tf:
            fh = tf.extractfile(member)
            if fh is None:
                raise KeyError(member)
            return fh.read()
    except KeyError:
        raise Unavailable(f"{member} is not in {archive.name}") from None


def _safe(path: str) -> bool:
    rel = PurePosixPath(path)
    return bool(path) and not rel.is_absolute() and ".." not in rel.parts


def _extract_archive(archive: Path, prefix: str, dest: Path) -> int:
    """The ``.py`` members of ``archive`` under ``prefix``, written below ``dest`` without it."""
    written = 0

    def put(name: str, data: bytes) -> None:
        nonlocal written
        rest = name[len(prefix):]
        if not name.startswith(prefix) or not name.endswith(".py") or not _safe(rest):
            return
        target = dest.joinpath(*PurePosixPath(rest).parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        written += 1

    if archive.name.endswith((".whl", ".zip")):
        with zipfile.ZipFile(archive) as zf:
            for info in zf.infolist():
                if not info.is_dir():
                    put(info.filename, zf.read(info))
    else:
        with tarfile.open(archive) as tf:
            for member in tf.getmembers():
                fh = tf.extractfile(member) if member.isfile() else None
                if fh is not None:
                    put(member.name, fh.read())
    return written


def package_inits(paths: Iterable[str]) -> List[str]:
    """The ``__init__.py`` of every directory on the way to each of ``paths``
    (repository-relative, POSIX), outermost first, each once, none of ``paths``.

    A file written alone loses what its packages say: which directory is the
    project's root (the index keeps facts within one), the names a package
    re-exports and what a relative import reaches. Which of them the repository
    really holds is for the caller to find out."""
    paths = list(paths)
    given = set(paths)
    out: List[str] = []
    for path in paths:
        parts = PurePosixPath(path).parts[:-1]
        for k in range(len(parts) + 1):
            init = str(PurePosixPath(*parts[:k], "__init__.py"))
            if init not in given and init not in out:
                out.append(init)
    return out


# -- running gradlint --------------------------------------------------------------


def run_gradlint(
    command: Sequence[str], files: Dict[str, Path], context: Sequence[Path] = (), preview: bool = False
) -> Dict[str, List[dict]]:
    """Findings per site id; one gradlint run over all the before-files (and the
    sites' context files, whose findings are dropped). ``preview`` adds the
    preview tier, whose rules ``--select ALL`` alone leaves out."""
    if not files:
        return {}
    tier = ["--preview"] if preview else []
    proc = subprocess.run(
        [*command, "check", "--select", "ALL", *tier, "--output-format", "json", "--no-cache", "--quiet",
         *map(str, files.values()), *map(str, context)],
        capture_output=True, text=True,
    )
    if proc.returncode not in (0, 1):
        raise SystemExit(f"gradlint exited {proc.returncode}:\n{proc.stderr[-2000:]}")
    by_file: Dict[str, List[dict]] = {}
    for finding in json.loads(proc.stdout or "[]"):
        by_file.setdefault(os.path.realpath(finding["filename"]), []).append(finding)
    return {sid: by_file.get(os.path.realpath(p), []) for sid, p in files.items()}


def run_gradlint_in_repo(
    command: Sequence[str], files: Dict[str, Tuple[Path, Path]], preview: bool = False
) -> Dict[str, List[dict]]:
    """Findings per site id: ``files`` maps it to (the repository's root, the site's
    file); one run per site, of that file alone, from that root (a hook's run)."""
    tier = ["--preview"] if preview else []
    out: Dict[str, List[dict]] = {}
    for sid, (root, path) in files.items():
        proc = subprocess.run(
            [*command, "check", "--select", "ALL", *tier, "--output-format", "json", "--no-cache", "--quiet",
             str(path.relative_to(root))],
            capture_output=True, text=True, cwd=root,
        )
        if proc.returncode not in (0, 1):
            raise SystemExit(f"gradlint exited {proc.returncode} on {sid}:\n{proc.stderr[-2000:]}")
        out[sid] = json.loads(proc.stdout or "[]")
    return out


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sites", type=Path, default=SITES, help="the sites file (default: %(default)s)")
    parser.add_argument("--mirror", type=Path, action="append", default=[], help="a directory holding git clones (repeatable)")
    parser.add_argument("--clone", action="store_true", help="git clone the repositories that no --mirror holds")
    parser.add_argument("--work", type=Path, default=WORK, help="downloads and clones go here (default: %(default)s)")
    parser.add_argument("--gradlint", default=f"{shlex.quote(sys.executable)} -m gradlint", help="the command that runs gradlint")
    parser.add_argument("--only", action="append", default=[], help="score only these site ids (repeatable)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--preview", action="store_true", help="also run the preview tier (gradlint check --preview)")
    parser.add_argument("--write-docs", type=Path, nargs="?", const=DOCS, default=None,
                        help="also write the figures into the generated block of this page (default: %(const)s)")
    parser.add_argument("--in-repo", action="store_true",
                        help="check each site's file alone from its repository's root, the other files on disk (a hook's run)")
    parser.add_argument("--allow-unavailable", action="store_true", help="exit 0 even when some before-file could not be had")
    args = parser.parse_args(argv)

    sites = load_sites(args.sites)
    if args.only:
        sites = [s for s in sites if s.id in set(args.only)]
    sources = Sources(args.mirror, args.clone, args.work)
    unavailable: Dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="gradlint-recall-") as tmp:
        files: Dict[str, Path] = {}
        context: List[Path] = []
        roots: Dict[str, Tuple[Path, Path]] = {}
        for site in sites:
            if args.in_repo:
                root = Path(tmp, site.id)
                if not _safe(site.path):
                    unavailable[site.id] = f"unsafe path {site.path!r}"
                    continue
                try:
                    data = sources.get(site)
                    sources.tree(site, root)
                except Unavailable as exc:
                    unavailable[site.id] = str(exc)
                    continue
                target = root.joinpath(*PurePosixPath(site.path).parts)
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)  # the checked bytes, whatever the archive held
                roots[site.id] = (root, target)
                continue
            try:
                data = sources.get(site)
            except Unavailable as exc:
                unavailable[site.id] = str(exc)
                continue
            rel = PurePosixPath(site.path)
            if rel.is_absolute() or ".." in rel.parts:
                unavailable[site.id] = f"unsafe path {site.path!r}"
                continue
            # One directory per site keeps the original file name (rules read it) and
            # keeps two versions of the same path apart.
            target = Path(tmp, site.id, *rel.parts)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            files[site.id] = target
            written = [site.path]
            for other in site.context:
                extra = PurePosixPath(other)
                if extra.is_absolute() or ".." in extra.parts:
                    continue
                try:
                    data = sources.context(site, other)
                except Unavailable:
                    continue  # scored without it: the cross-file cause goes unseen
                path = Path(tmp, site.id, *extra.parts)
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(data)
                context.append(path)
                written.append(other)
            # The packages of the files written, as the repository has them at the
            # same commit: without them a class imported through a package or a
            # relative import is lost, and each directory is a project of its own.
            for init in package_inits(written):
                try:
                    data = sources.context(site, init)
                except Unavailable:
                    continue  # not a package there
                path = Path(tmp, site.id, *PurePosixPath(init).parts)
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(data)
                context.append(path)
        if args.in_repo:
            findings = run_gradlint_in_repo(shlex.split(args.gradlint), roots, preview=args.preview)
        else:
            findings = run_gradlint(shlex.split(args.gradlint), files, context, preview=args.preview)
    report = score(sites, findings, unavailable)
    print(json.dumps(report_json(report), indent=2) if args.json else format_report(report))
    if args.write_docs is not None:
        write_docs(args.write_docs, report)
    return 2 if unavailable and not args.allow_unavailable else 0


if __name__ == "__main__":
    sys.exit(main())
