#!/usr/bin/env python3
"""Precision of gradlint's rules on judged findings in real code.

    .venv/bin/python benchmarks/judged/score.py                  # build, run, score
    .venv/bin/python benchmarks/judged/score.py --emit-unjudged  # also add label stubs

1. Builds the code bases of the benchmark corpus (``benchmarks/run.py``:
   pinned, hash-checked PyPI releases) that it needs, in
   ``benchmarks/.work/corpus``.
2. Runs ``gradlint check --select ALL --no-cache --output-format json`` on them.
3. Matches the findings against the labels in ``benchmarks/judged/labels/``
   (one file per rule; a finding is keyed by package, version, path inside
   the package, line and code: the corpus files are pinned, so lines are
   stable) and prints, per rule, per code base and overall (modern against
   legacy code bases, default rules against all), the precision on the
   judged findings, with debatable counted as false; the findings per 50
   files of each default rule on modern library code (tests and examples
   left out); the findings not judged yet; and the findings judged true that
   are no longer reported (recall lost).

``--emit-unjudged`` appends a stub line (verdict ``?``) for each unjudged
finding to its rule's label file, sampling with the rule's recorded seed when
the rule has more findings than its sample size, so that the next person only
fills in verdicts and reasons. Stubs count as not judged.

Only the standard library is used.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

HERE = Path(__file__).resolve().parent
BENCH = HERE.parent
ROOT = BENCH.parent
LABELS = HERE / "labels"
SAMPLE_SIZE = 30
DEFAULT_SEED = 15
VERDICTS = ("TP", "FP", "debatable")
COLUMNS = ("package", "version", "path", "line", "code", "verdict", "reason")

# (package, version, path, line, code)
Key = Tuple[str, str, str, int, str]


@dataclass
class Label:
    key: Key
    verdict: str  # TP, FP, debatable, or ? for a stub
    reason: str


@dataclass
class LabelFile:
    code: str
    seed: int = DEFAULT_SEED
    sample: int = SAMPLE_SIZE
    header: List[str] = field(default_factory=list)
    labels: List[Label] = field(default_factory=list)


@dataclass
class Finding:
    key: Key
    message: str


# -- labels ----------------------------------------------------------------------


def read_labels(path: Path) -> LabelFile:
    """A label file: ``#`` comment lines (``# seed: N``, ``# sample: N`` are read),
    then one tab-separated line per finding in the order of COLUMNS."""
    out = LabelFile(code=path.stem)
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        if line.startswith("#"):
            out.header.append(line)
            body = line[1:].strip()
            for name in ("seed", "sample"):
                if body.startswith(name + ":"):
                    setattr(out, name, int(body.split(":", 1)[1]))
            continue
        cells = line.split("\t")
        if len(cells) != len(COLUMNS) or cells[0] == "package":
            if cells[0] == "package":
                continue
            raise ValueError(f"{path}:{n}: expected {len(COLUMNS)} tab-separated columns, got {len(cells)}")
        package, version, rel, row, code, verdict, reason = cells
        if verdict not in VERDICTS and verdict != "?":
            raise ValueError(f"{path}:{n}: verdict {verdict!r} is not one of {', '.join(VERDICTS)} or ?")
        out.labels.append(Label((package, version, rel, int(row), code), verdict, reason))
    return out


def write_labels(path: Path, lf: LabelFile) -> None:
    lines = list(lf.header) or [f"# {lf.code}", f"# seed: {lf.seed}", f"# sample: {lf.sample}"]
    lines.append("\t".join(COLUMNS))
    for lab in sorted(lf.labels, key=lambda lab: lab.key):
        package, version, rel, row, code = lab.key
        lines.append("\t".join([package, version, rel, str(row), code, lab.verdict, lab.reason]))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def load_all_labels(directory: Path) -> Dict[str, LabelFile]:
    return {p.stem: read_labels(p) for p in sorted(directory.glob("GL*.tsv"))}


# -- findings --------------------------------------------------------------------


def parse_findings(items: Iterable[Mapping], codebases: Mapping[str, Tuple[str, str]]) -> List[Finding]:
    """Findings of ``gradlint check --output-format json`` run in the corpus
    directory; ``codebases`` maps a top-level directory ("timm-1.0.11") to
    (package, version)."""
    out = []
    for item in items:
        parts = Path(item["filename"]).parts
        if parts and parts[0] == ".":
            parts = parts[1:]
        package, version = codebases[parts[0]]
        rel = "/".join(parts[1:])
        out.append(Finding((package, version, rel, int(item["location"]["row"]), item["code"]), item["message"]))
    return out


def sample_keys(keys: Sequence[Key], size: int, seed: int) -> List[Key]:
    """The judged sample of one rule's findings: all when there are at most
    ``size``, else a seeded random ``size`` of them (sorted first, so the
    sample depends only on the set of findings and the seed)."""
    ordered = sorted(set(keys))
    if len(ordered) <= size:
        return ordered
    return sorted(random.Random(seed).sample(ordered, size))


# -- scoring ---------------------------------------------------------------------


@dataclass
class Tally:
    tp: int = 0
    fp: int = 0
    debatable: int = 0
    findings: int = 0  # all current findings in the group, judged or not

    @property
    def judged(self) -> int:
        return self.tp + self.fp + self.debatable

    @property
    def precision(self) -> Optional[float]:
        return self.tp / self.judged if self.judged else None

    def add(self, verdict: Optional[str]) -> None:
        self.findings += 1
        if verdict == "TP":
            self.tp += 1
        elif verdict == "FP":
            self.fp += 1
        elif verdict == "debatable":
            self.debatable += 1


@dataclass
class Report:
    per_rule: Dict[str, Tally]
    per_codebase: Dict[str, Tally]
    per_codebase_default: Dict[str, Tally]
    per_rule_era: Dict[Tuple[str, str], Tally]
    groups: Dict[str, Tally]  # "modern, default rules" ... "all, all rules"
    estimated: Dict[str, Optional[float]]  # the same groups, weighted by each rule's findings
    rate_per_50: Dict[str, float]  # default rules, modern library code
    library_files: int
    unjudged: List[Finding]
    recall_lost: List[Label]
    fixed: List[Label]  # judged false, no longer reported


def is_library_path(rel: str) -> bool:
    """Library code: not a test, example, benchmark or script directory of the code base."""
    parts = rel.split("/")
    name = parts[-1]
    if name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py":
        return False
    return not any(p in ("tests", "test", "testing", "examples", "benchmarks", "scripts") for p in parts[:-1])


def score(
    findings: Sequence[Finding],
    labels: Mapping[str, LabelFile],
    era: Mapping[Tuple[str, str], str],
    default_codes: Iterable[str],
    library_files: int,
) -> Report:
    """``era`` maps (package, version) to "modern" or "legacy"; ``library_files``
    is the number of library ``.py`` files in the modern code bases."""
    defaults = set(default_codes)
    verdicts: Dict[Key, Label] = {}
    for lf in labels.values():
        for lab in lf.labels:
            verdicts[lab.key] = lab
    reported = {f.key for f in findings}
    per_rule: Dict[str, Tally] = defaultdict(Tally)
    per_codebase: Dict[str, Tally] = defaultdict(Tally)
    per_codebase_default: Dict[str, Tally] = defaultdict(Tally)
    per_rule_era: Dict[Tuple[str, str], Tally] = defaultdict(Tally)
    groups: Dict[str, Tally] = defaultdict(Tally)
    rate: Counter = Counter()
    unjudged = []
    for f in findings:
        package, version, rel, _, code = f.key
        lab = verdicts.get(f.key)
        verdict = lab.verdict if lab and lab.verdict in VERDICTS else None
        if verdict is None:
            unjudged.append(f)
        kind = era[(package, version)]
        per_rule[code].add(verdict)
        per_codebase[f"{package} {version}"].add(verdict)
        if code in defaults:
            per_codebase_default[f"{package} {version}"].add(verdict)
        per_rule_era[(code, kind)].add(verdict)
        for e in (kind, "all"):
            for r in (["default rules"] if code in defaults else []) + ["all rules"]:
                groups[f"{e}, {r}"].add(verdict)
        if kind == "modern" and code in defaults and is_library_path(rel):
            rate[code] += 1
    estimated: Dict[str, Optional[float]] = {}
    for group in groups:
        e, r = group.split(", ")
        tp_est = total = 0.0
        for (code, kind), t in per_rule_era.items():
            if (e != "all" and kind != e) or (r == "default rules" and code not in defaults):
                continue
            p = t.precision if t.precision is not None else per_rule[code].precision
            if p is None:
                continue
            tp_est += p * t.findings
            total += t.findings
        estimated[group] = tp_est / total if total else None
    recall_lost = [lab for key, lab in sorted(verdicts.items()) if lab.verdict == "TP" and key not in reported]
    fixed = [lab for key, lab in sorted(verdicts.items()) if lab.verdict in ("FP", "debatable") and key not in reported]
    per_50 = {code: 50 * rate[code] / library_files if library_files else 0.0 for code in sorted(defaults)}
    return Report(dict(per_rule), dict(per_codebase), dict(per_codebase_default), dict(per_rule_era), dict(groups), estimated, per_50, library_files, unjudged, recall_lost, fixed)


def emit_stubs(findings: Sequence[Finding], labels: Dict[str, LabelFile], directory: Path) -> Dict[str, int]:
    """Append a ``?`` stub for every finding of the rule's seeded sample that has
    no label yet; returns how many stubs each rule got."""
    by_code: Dict[str, List[Key]] = defaultdict(list)
    for f in findings:
        by_code[f.key[4]].append(f.key)
    added: Dict[str, int] = {}
    for code, keys in sorted(by_code.items()):
        lf = labels.get(code) or LabelFile(code=code)
        have = {lab.key for lab in lf.labels}
        # A label that is no longer reported does not count towards the sample.
        current = set(keys)
        judged_now = [k for k in have if k in current]
        room = max(lf.sample - len(judged_now), 0)
        pool = [k for k in keys if k not in have]
        new = sample_keys(pool, room, lf.seed) if room else []
        if not new:
            continue
        lf.labels.extend(Label(k, "?", "") for k in new)
        labels[code] = lf
        write_labels(directory / f"{code}.tsv", lf)
        added[code] = len(new)
    return added


# -- output ----------------------------------------------------------------------


def wilson(tp: int, n: int, z: float = 1.96) -> Tuple[float, float]:
    """95% Wilson score interval of a proportion: a sample of 30 pins a
    precision down to about +-15 points, and the reader should see that."""
    if n == 0:
        return (0.0, 1.0)
    p = tp / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * ((p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def pct(t: Tally) -> str:
    return f"{100 * t.precision:.0f}%" if t.precision is not None else "–"


def render(report: Report, defaults: Iterable[str], sample_size: Optional[Mapping[str, int]] = None) -> str:
    defaults = set(defaults)
    sample_size = sample_size or {}
    out = ["precision on the judged findings (debatable counts as false)", ""]
    out.append(f"{'rule':<8}{'default':>8}{'findings':>10}{'judged':>8}{'TP':>5}{'FP':>5}{'deb':>5}{'precision':>11}{'95% CI':>12}  modern / legacy")
    for code in sorted(report.per_rule):
        t = report.per_rule[code]
        m = report.per_rule_era.get((code, "modern"), Tally())
        lg = report.per_rule_era.get((code, "legacy"), Tally())
        lo, hi = wilson(t.tp, t.judged)
        ci = f"{100 * lo:.0f}-{100 * hi:.0f}%" if t.judged else "–"
        out.append(
            f"{code:<8}{'yes' if code in defaults else 'no':>8}{t.findings:>10}{t.judged:>8}{t.tp:>5}{t.fp:>5}{t.debatable:>5}{pct(t):>11}{ci:>12}"
            f"  {pct(m)} of {m.judged} / {pct(lg)} of {lg.judged}"
        )
    out += ["", f"{'code base':<32}{'findings':>10}{'judged':>8}{'TP':>5}{'precision':>11}   default rules: findings, judged, TP, precision"]
    for name in sorted(report.per_codebase):
        t = report.per_codebase[name]
        d = report.per_codebase_default.get(name, Tally())
        out.append(f"{name:<32}{t.findings:>10}{t.judged:>8}{t.tp:>5}{pct(t):>11}   {d.findings}, {d.judged}, {d.tp}, {pct(d)}")
    out += ["", f"{'group':<28}{'findings':>10}{'judged':>8}{'TP':>5}{'precision':>11}{'weighted':>10}"]
    for group in sorted(report.groups):
        t = report.groups[group]
        w = report.estimated.get(group)
        out.append(f"{group:<28}{t.findings:>10}{t.judged:>8}{t.tp:>5}{pct(t):>11}{'–' if w is None else f'{100 * w:.0f}%':>10}")
    out += [
        "(weighted: each rule's judged precision weighted by its number of findings in the group)",
        "",
        f"default rules on modern library code ({report.library_files} files): findings per 50 files",
    ]
    for code, r in sorted(report.rate_per_50.items()):
        if r:
            t = report.per_rule.get(code, Tally())
            ok = r <= 1.0 or (t.precision is not None and t.precision >= 0.9)
            out.append(f"  {code}: {r:.2f}{'' if ok else '  (above 1 per 50 files and below 90% precision)'}")
    out += ["", f"not judged: {len(report.unjudged)} findings"]
    unjudged: Dict[str, List[Finding]] = defaultdict(list)
    for f in report.unjudged:
        unjudged[f.key[4]].append(f)
    for code, items in sorted(unjudged.items()):
        t = report.per_rule[code]
        # A rule with more findings than its sample is complete once the sample is judged.
        short = min(sample_size.get(code, SAMPLE_SIZE), t.findings) - t.judged
        out.append(f"  {code}: {len(items)} not judged" + (f"; its sample needs {short} more:" if short > 0 else " (sample complete)"))
        if short > 0:
            for f in items:
                package, version, rel, row, _ = f.key
                out.append(f"    {code} {package} {version} {rel}:{row}")
    out += ["", f"judged TP no longer reported (recall lost): {len(report.recall_lost)}"]
    for lab in report.recall_lost:
        package, version, rel, row, code = lab.key
        out.append(f"  {code} {package} {version} {rel}:{row}  ({lab.reason})")
    out += ["", f"judged FP/debatable no longer reported: {len(report.fixed)}"]
    return "\n".join(out)


def render_markdown(report: Report, defaults: Iterable[str], era: Mapping[str, str], names: Mapping[str, str]) -> str:
    """The tables of docs/precision.md: per rule, per code base (``era`` maps
    "package version" to its era) and overall."""
    defaults = set(defaults)
    out = [
        "| rule | default | findings | judged | TP | FP | debatable | precision | 95% interval | modern | legacy | per 50 modern library files |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for code in sorted(report.per_rule):
        t = report.per_rule[code]
        m = report.per_rule_era.get((code, "modern"), Tally())
        lg = report.per_rule_era.get((code, "legacy"), Tally())
        lo, hi = wilson(t.tp, t.judged)
        low_precision = t.precision is not None and t.precision < 0.9
        precision = f"**{pct(t)}**" if low_precision and code in defaults else pct(t)
        rate = report.rate_per_50.get(code)
        if rate is None:
            rate_cell = "–"
        else:
            rate_cell = f"{rate:.2f}".rstrip("0").rstrip(".") if rate else "0"
            if rate > 1.0 and low_precision:
                rate_cell = f"**{rate:.2f}**"
        out.append(
            f"| {(code + ' ' + names.get(code, '')).strip()} | {'yes' if code in defaults else 'no'} | {t.findings:,} | {t.judged} | {t.tp} | {t.fp} | {t.debatable} "
            f"| {precision} | {f'{100 * lo:.0f}–{100 * hi:.0f}%' if t.judged else '–'} "
            f"| {f'{m.tp} of {m.judged}' if m.judged else '–'} | {f'{lg.tp} of {lg.judged}' if lg.judged else '–'} | {rate_cell} |"
        )
    out += [
        "",
        "| code base | era | findings | judged | TP | precision | default rules: findings | judged | TP | precision |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name in sorted(report.per_codebase, key=lambda n: (era.get(n) != "modern", n)):
        t = report.per_codebase[name]
        d = report.per_codebase_default.get(name, Tally())
        out.append(f"| {name} | {era.get(name, '?')} | {t.findings} | {t.judged} | {t.tp} | {pct(t)} | {d.findings} | {d.judged} | {d.tp} | {pct(d)} |")
    out += [
        "",
        "| group | findings | judged | TP | precision on the judged | weighted by findings |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for group in ("modern, default rules", "legacy, default rules", "all, default rules", "modern, all rules", "legacy, all rules", "all, all rules"):
        t = report.groups.get(group, Tally())
        w = report.estimated.get(group)
        out.append(f"| {group} | {t.findings:,} | {t.judged} | {t.tp} | {pct(t)} | {'–' if w is None else f'{100 * w:.0f}%'} |")
    return "\n".join(out)


# -- running ---------------------------------------------------------------------


def corpus_entries():
    sys.path.insert(0, str(BENCH))
    import run as benchmark  # noqa: E402  (benchmarks/ is not a package)

    return benchmark


def catalog() -> Dict[str, dict]:
    import tomllib

    return {p.stem: tomllib.loads(p.read_text(encoding="utf-8")) for p in sorted((ROOT / "rules").glob("GL*.toml"))}


def default_codes() -> List[str]:
    return sorted(code for code, entry in catalog().items() if entry.get("default"))


def run_gradlint(corpus: Path, dirs: Sequence[str], jobs: Optional[int], preview: bool = False) -> List[Mapping]:
    script = Path(sys.executable).parent / "gradlint"
    cmd = [str(script)] if script.exists() else [sys.executable, "-m", "gradlint"]
    tier = ["--preview"] if preview else []
    cmd += ["check", "--select", "ALL", *tier, "--no-cache", "--output-format", "json", *(["--jobs", str(jobs)] if jobs else []), *dirs]
    proc = subprocess.run(cmd, cwd=corpus, capture_output=True, text=True)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"gradlint exited {proc.returncode}: {proc.stderr[-2000:]}")
    return json.loads(proc.stdout or "[]")


def count_library_files(corpus: Path, dirs: Sequence[str]) -> int:
    n = 0
    for d in dirs:
        for p in (corpus / d).rglob("*.py"):
            if is_library_path(p.relative_to(corpus / d).as_posix()):
                n += 1
    return n


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--emit-unjudged", action="store_true", help="append label stubs (verdict ?) for unjudged findings of each rule's sample")
    parser.add_argument("--findings", type=Path, help="read gradlint's JSON output from this file instead of running it")
    parser.add_argument("--save-findings", type=Path, help="write gradlint's JSON output to this file")
    parser.add_argument("--codebase", action="append", help="only this code base (name-version, e.g. timm-1.0.11); repeatable")
    parser.add_argument("--jobs", type=int, help="passed to gradlint check")
    parser.add_argument("--preview", action="store_true", help="also run the preview tier (its rules, GL101 and GL301 among them, and the guesses from names)")
    parser.add_argument("--markdown", action="store_true", help="print the tables of docs/precision.md instead of the text report")
    args = parser.parse_args(argv)

    benchmark = corpus_entries()
    entries = {f"{n}-{v}": (n, v) for n, v, _, _ in benchmark.CORPUS}
    wanted = args.codebase or list(entries)
    unknown = [w for w in wanted if w not in entries]
    if unknown:
        parser.error(f"not in the corpus: {', '.join(unknown)}")
    corpus = benchmark.build_corpus(only=wanted)
    raw = json.loads(args.findings.read_text()) if args.findings else run_gradlint(corpus, wanted, args.jobs, args.preview)
    if args.save_findings:
        args.save_findings.write_text(json.dumps(raw, indent=1) + "\n")
    findings = parse_findings(raw, entries)
    labels = load_all_labels(LABELS)
    if args.codebase:
        # Labels of code bases not run here would all look like lost recall.
        for lf in labels.values():
            lf.labels = [lab for lab in lf.labels if f"{lab.key[0]}-{lab.key[1]}" in wanted]
    era = {entries[k]: benchmark.ERA[k] for k in entries}
    modern = [w for w in wanted if benchmark.ERA[w] == "modern"]
    defaults = default_codes()
    if args.emit_unjudged:
        added = emit_stubs(findings, labels, LABELS)
        for code, n in added.items():
            print(f"{code}: {n} stubs added to {LABELS / (code + '.tsv')}")
    report = score(findings, labels, era, defaults, count_library_files(corpus, modern))
    if args.markdown:
        names = {code: entry.get("name", "") for code, entry in catalog().items()}
        print(render_markdown(report, defaults, {f"{n} {v}": benchmark.ERA[f"{n}-{v}"] for n, v in entries.values()}, names))
    else:
        print(render(report, defaults, {code: lf.sample for code, lf in labels.items()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
