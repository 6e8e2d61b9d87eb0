"""Fix, migrate and run oracle programs; compare what each version did.

A program is run as written, after ``gradlint check --fix`` (safe fixes), after
``--fix --unsafe-fixes`` and after ``gradlint migrate``; the versions are run in
the verify sandbox, many programs per process (``driver.py``). Two runs behave
the same when they print the same (a tensor's ``grad_fn=``/``requires_grad=``
annotation aside: it describes the graph a fix may remove), return the same
values, raise the same exception (type and message) and leave every
parameter and leaf with the same gradient. When the original raised at a
flagged line and the fixed version ran, the fix made the error go (ERROR GONE).
"""

from __future__ import annotations

import contextlib
import json
import math
import re
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from gradlint import catalog, engine
from gradlint.engine import LintSettings, fix_source
from gradlint.migrate import migrate_source, migrations
from gradlint.rule import RuleOptions
from gradlint.verify import sandbox

DRIVER = Path(__file__).with_name("driver.py")
MARKER = "@@oracle@@ "
_ANNOTATION = re.compile(r",\s*(?:grad_fn=<\w+>|requires_grad=True)")
VERSIONS = ("fixed", "unsafe", "migrated")


@dataclass
class Program:
    name: str
    rule: str  # the rule whose finding the program was built for
    family: str  # the defect class or axis it exercises
    source: str
    # A notebook's code cells, when the program is one: fixed through the notebook
    # (whose cells run in one namespace: ``source`` is their concatenation).
    cells: Optional[Tuple[str, ...]] = None
    # Rule options the fixes run with (``fix-grad-guard``); None: the defaults.
    options: Optional[RuleOptions] = None


@dataclass
class Version:
    source: str
    fixed: Counter = field(default_factory=Counter)
    # Codes of the findings left in the original source that had a fix of each applicability.
    converged: bool = True
    # For a notebook: whether the fixed module text went back into its cells.
    written: bool = True


def notebook_json(cells: Sequence[str]) -> bytes:
    """An nbformat 4 notebook with ``cells`` as its code cells (sources as lists of lines)."""
    return json.dumps(
        {
            "cells": [
                {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": c.splitlines(True)}
                for c in cells
            ],
            "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}, "language_info": {"name": "python"}},
            "nbformat": 4,
            "nbformat_minor": 5,
        },
        indent=1,
    ).encode("utf-8")


def _notebook(program: Program):
    from gradlint.notebook import Notebook

    return Notebook(Path(f"{program.name}.ipynb"), notebook_json(program.cells or ()))


def _notebook_of(program: Program, source: str):
    """The program's notebook, or one whose cells read back as ``source`` (a fixed
    version: its cells as the first fix wrote them)."""
    doc = _notebook(program)
    if source == doc.text:
        return doc
    return _NOTEBOOKS[(program.name, source)]


# Notebooks written by a fix, by (program, module text), for the second --fix.
_NOTEBOOKS: Dict[Tuple[str, str], object] = {}


def _written_back(program: Program, doc, new: str) -> Optional[str]:
    """The module text of the notebook as written with the fixed module text ``new``
    (what a kernel runs, cell after cell); None when it cannot be written."""
    from gradlint.notebook import Notebook

    if new == doc.text:
        return new
    try:
        written = Notebook(Path(f"{program.name}.ipynb"), doc.render(new))
    except Exception:
        return None
    _NOTEBOOKS[(program.name, written.text)] = written
    return written.text


@dataclass
class Judged:
    program: Program
    version: str  # "fixed" | "unsafe" | "migrated"
    fixed: Counter
    verdict: str  # "same" | "error-gone" | "changed" | "no-fix" | "not-run"
    difference: Optional[str] = None
    cause: Optional[str] = None


def all_codes() -> frozenset:
    return frozenset(d.code for d in catalog.load().values() if d.code != "GL000")


def make_versions(program: Program) -> Dict[str, Version]:
    """The fixed, unsafe-fixed and migrated sources of ``program`` (no torch needed)."""
    notebook = program.cells is not None
    path = f"{program.name}.ipynb" if notebook else f"{program.name}.py"
    # Every fix gradlint can apply is judged, the preview tier's too: a fix is safe or
    # not whatever tier reports it, and a premise that moves a finding to preview
    # (a self-check on made-up inputs, like most programs here) must not take its fix
    # out of the oracle's sight.
    options = replace(program.options or RuleOptions(), preview=True)
    settings = LintSettings(all_codes(), options)

    def fixed(source: str, fix) -> Tuple[str, Counter, bool]:
        """(what runs after ``fix``, the fixes applied, whether it could be written)."""
        if not notebook:
            result = fix(source, None)
            return result.source, Counter(result.fixed), True
        # Through the notebook, as `check --fix` and `migrate` write it: the gate refuses
        # what cannot go back into the cells, and what runs is the cells read back.
        doc = _notebook_of(program, source)
        result = fix(doc.text, doc.check_fix)
        back = _written_back(program, doc, result.source)
        return (back if back is not None else result.source), Counter(result.fixed), back is not None

    assert not notebook or _notebook(program).text == program.source, "a notebook program's source is its cells"
    with _lints_shared():
        return _versions(program, path, settings, options, fixed)


@contextlib.contextmanager
def _lints_shared():
    """Each text linted once with each settings object, for every fix loop of one
    program: the safe and the unsafe loop start from the same lint, and a second
    ``--fix`` starts from the first one's last. A lint depends on the text, the
    path and the settings alone (the module a fix round hands on is a fresh parse
    of the text)."""
    lints: Dict[Tuple[str, str, int], tuple] = {}
    real = engine.lint_source

    def shared(text, path, settings, **kw):
        key = (text, path, id(settings))
        if set(kw) - {"module"}:
            return real(text, path, settings, **kw)
        if key not in lints:
            lints[key] = (settings, real(text, path, settings, **kw))  # settings kept: its id stays its own
        return lints[key][1]

    engine.lint_source = shared
    try:
        yield
    finally:
        engine.lint_source = real


def _versions(program: Program, path: str, settings: LintSettings, options: RuleOptions, fixed) -> Dict[str, Version]:
    out: Dict[str, Version] = {}
    for name, unsafe in (("fixed", False), ("unsafe", True)):
        run_fix = lambda src, gate, u=unsafe: fix_source(src, path, settings, unsafe=u, gate=gate)  # noqa: E731
        source, applied, written = fixed(program.source, run_fix)
        converged = True
        if source != program.source and written:  # a second --fix must change nothing
            converged = fixed(source, run_fix)[0] == source
        out[name] = Version(source, applied, converged=converged, written=written)
    codes = frozenset(migrations())
    source, applied, written = fixed(program.source, lambda src, gate: migrate_source(src, path, LintSettings(codes, options), gate=gate))
    out["migrated"] = Version(source, applied, written=written)
    return out


# Programs per sandbox process. Importing torch (about 2 s of CPU) is most of what a
# process costs, and each program takes milliseconds; a program that hangs or kills
# its process loses its batch's results, which then fail as driver errors.
BATCH = 250


def run_sources(sources: Sequence[Tuple[str, str]], batch: int = BATCH, workers: int = 2, timeout: float = 600.0) -> Dict[str, dict]:
    """Run (name, source) pairs under torch in the sandbox, ``batch`` per process."""
    driver = DRIVER.read_text(encoding="utf-8")
    chunks = [list(sources[i : i + batch]) for i in range(0, len(sources), batch)]

    def job(chunk):
        def go():
            return sandbox.run(
                {"mode": "probe", "code": driver, "name": "<oracle driver>"},
                {"programs.json": json.dumps(chunk)},
                sandbox.Limits(timeout=timeout),
            )

        return go

    results: Dict[str, dict] = {}
    outcomes = sandbox.run_all([job(c) for c in chunks], workers)
    for chunk, outcome in zip(chunks, outcomes):
        for line in outcome.stdout.splitlines():
            if line.startswith(MARKER):
                record = json.loads(line[len(MARKER) :])
                results[record["name"]] = record
        error = (outcome.payload or {}).get("error")
        for name, _ in chunk:
            if name not in results:
                reason = error or outcome.crash_reason()
                results[name] = {"name": name, "driver-error": f"{outcome.status}: {reason}"}
    return results


def _strip(text: str) -> str:
    return "\n".join(_ANNOTATION.sub("", line) for line in text.splitlines())


def _close(a, b) -> bool:
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, float):
        return a == b or math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-7)
    return a == b


def difference(before: dict, after: dict) -> Optional[Tuple[str, str]]:
    """(cause, what differs) between two runs, or None when they behaved the same."""
    if "driver-error" in before or "driver-error" in after:
        return "driver", f"{before.get('driver-error')} / {after.get('driver-error')}"
    ea, eb = before["exception"], after["exception"]
    if (ea and (ea["type"], ea["message"])) != (eb and (eb["type"], eb["message"])):
        show = lambda e: f"{e['type']}: {e['message'][:120]}" if e else "no exception"  # noqa: E731
        return "exception", f"{show(ea)} as written, {show(eb)} as fixed"
    sa, sb = _strip(before["stdout"]), _strip(after["stdout"])
    if sa != sb:
        la, lb = sa.splitlines(), sb.splitlines()
        for i in range(max(len(la), len(lb))):
            x = la[i] if i < len(la) else "<missing>"
            y = lb[i] if i < len(lb) else "<missing>"
            if x != y:
                return "stdout", f"printed line {i + 1}: {x[:80]!r} as written, {y[:80]!r} as fixed"
    if not _close(before["returned"], after["returned"]):
        return "returned", f"returned {json.dumps(before['returned'])[:160]} as written, {json.dumps(after['returned'])[:160]} as fixed"
    ga, gb = before["gradients"], after["gradients"]
    for name in sorted(set(ga) | set(gb)):
        a, b = ga.get(name), gb.get(name)
        if a is None or b is None:
            continue  # a leaf the fix stopped creating (a detached copy) has no gradient to compare
        if not _close(a["grad"], b["grad"]):
            show = lambda g: "None" if g is None else json.dumps(g["values"][:4] if "values" in g else g)[:80]  # noqa: E731
            return "gradient", f"{name}.grad: {show(a['grad'])} as written, {show(b['grad'])} as fixed"
        if not _close(a["value"], b["value"]):
            return "parameter", f"{name} after the run: differs (an optimizer step saw other gradients)"
    return None


def judge(program: Program, versions: Dict[str, Version], runs: Dict[str, dict]) -> List[Judged]:
    original = runs.get(f"{program.name}@original")
    out = []
    for vname in VERSIONS:
        version = versions[vname]
        if version.source == program.source:
            out.append(Judged(program, vname, version.fixed, "no-fix"))
            continue
        if not version.converged:
            out.append(Judged(program, vname, version.fixed, "changed", "a second --fix changed the file again", "not-converged"))
            continue
        if not version.written:
            out.append(Judged(program, vname, version.fixed, "changed", "the fixed code did not go back into the cells", "not-written"))
            continue
        after = runs[f"{program.name}@{vname}"]
        diff = difference(original, after)
        missing = _missing_library(after)
        if diff is not None and missing:
            # A catalog example or fixture written for a library the oracle lacks: what the
            # fixed program does past that import cannot be seen (fixes add only `import torch`).
            out.append(Judged(program, vname, version.fixed, "not-run", f"needs {missing}", "library"))
        elif diff is None:
            out.append(Judged(program, vname, version.fixed, "same"))
        elif diff[0] == "exception" and original["exception"] and after["exception"] is None and _raised_at_fix(program, original):
            out.append(Judged(program, vname, version.fixed, "error-gone"))
        else:
            out.append(Judged(program, vname, version.fixed, "changed", diff[1], diff[0]))
    return out


def _missing_library(run: dict) -> Optional[str]:
    """The library (not torch) whose import the run failed on, if it did."""
    exc = run.get("exception") or {}
    if exc.get("type") != "ModuleNotFoundError":
        return None
    m = re.match(r"No module named '([\w.]+)'", exc.get("message", ""))
    if m is None or m.group(1).partition(".")[0] == "torch":
        return None
    return m.group(1)


def _raised_at_fix(program: Program, original: dict) -> bool:
    """The original raised at a line the rules flagged (a fix site)."""
    line = original["exception"].get("line")
    if line is None:
        return False
    from gradlint.engine import lint_source

    findings = lint_source(program.source, f"{program.name}.py", LintSettings(all_codes())).findings
    return any(f.start[0] <= line <= f.end[0] for f in findings if f.fix is not None)


def _versions_of(programs: Sequence[Program]) -> List[Dict[str, Version]]:
    return [make_versions(p) for p in programs]


def oracle(programs: Iterable[Program], batch: int = BATCH, workers: int = 2) -> List[Judged]:
    programs = list(programs)
    if workers > 1 and len(programs) > 100:
        # fixing is pure Python and CPU-bound: one process per core
        import concurrent.futures
        import multiprocessing

        chunks = [programs[i::workers] for i in range(workers)]
        with concurrent.futures.ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
            done = list(pool.map(_versions_of, chunks))
        versions = {p.name: v for chunk, vs in zip(chunks, done) for p, v in zip(chunk, vs)}
    else:
        versions = {p.name: make_versions(p) for p in programs}
    sources: List[Tuple[str, str]] = []
    # Versions of a program whose texts are the same (the safe and the unsafe fixes
    # often are) run once: the driver resets grad mode, seeds and dtype before each
    # program, so a text's run is its twin's.
    twins: Dict[str, List[str]] = {}
    for p in programs:
        changed: Dict[str, List[str]] = {}
        for vname, v in versions[p.name].items():
            if v.source != p.source and v.converged and v.written:
                changed.setdefault(v.source, []).append(f"{p.name}@{vname}")
        if changed:  # nothing to compare the original with otherwise
            sources.append((f"{p.name}@original", p.source))
            for text, names in changed.items():
                sources.append((names[0], text))
                twins[names[0]] = names[1:]
    # Chunks of about equal size, as many as the workers can run at once where that is
    # enough: the last chunk does not leave a worker idle.
    rounds = -(-len(sources) // (batch * workers)) or 1
    runs = run_sources(sources, batch=-(-len(sources) // (rounds * workers)) or 1, workers=workers)
    for name, others in twins.items():
        for other in others:
            runs[other] = {**runs[name], "name": other}
    judged: List[Judged] = []
    for p in programs:
        judged.extend(judge(p, versions[p.name], runs))
    return judged


def trusted_change(j: Judged) -> bool:
    """A migrated program that changed where migrate applied a fix the catalog trusts
    for legacy code (which restores PyTorch 0.3's behaviour, not today's)."""
    from gradlint.migrate import trusted_codes

    return j.version == "migrated" and bool(set(j.fixed) & trusted_codes())


def unsafe_judgements(judged: Iterable[Judged]) -> List[Judged]:
    """Behaviour changes after fixes the contract calls safe: ``check --fix``, and
    ``migrate`` where it applied only safe fixes (and a second --fix must change nothing)."""
    return [
        j
        for j in judged
        if j.verdict == "changed" and (j.version == "fixed" or (j.version == "migrated" and not trusted_change(j)))
    ]


def describe(j: Judged) -> str:
    codes = ", ".join(f"{c}×{n}" for c, n in sorted(j.fixed.items())) or "no fix"
    return f"{j.program.name} [{j.program.rule} {j.program.family}] after {j.version} ({codes}): {j.cause}: {j.difference}"


def figures(judged: Sequence[Judged]) -> str:
    """The long mode's figures: programs, fixes applied, verdicts, and behaviour
    changes by rule and cause, per version."""
    programs = {j.program.name for j in judged}
    lines = [f"{len(programs)} programs"]
    for vname in VERSIONS:
        of = [j for j in judged if j.version == vname]
        fixes: Counter = Counter()
        for j in of:
            fixes.update(j.fixed)
        verdicts = Counter(j.verdict for j in of)
        lines.append(
            f"{vname}: {sum(fixes.values())} fixes in {sum(1 for j in of if j.verdict != 'no-fix')} programs "
            f"({', '.join(f'{c} {n}' for c, n in sorted(fixes.items()))}); "
            + ", ".join(f"{k} {verdicts[k]}" for k in ("same", "error-gone", "changed", "no-fix", "not-run"))
        )
        changed = Counter(
            (j.program.rule, j.cause, "trusted" if trusted_change(j) else "")
            for j in of
            if j.verdict == "changed"
        )
        for (rule, cause, mark), n in sorted(changed.items()):
            lines.append(f"  changed: {rule} {cause}{' (trusted migration)' if mark else ''}: {n}")
    return "\n".join(lines)
