"""``gradlint verify FILE ...``: run a file as written and as fixed, and judge each finding.

For each file: lint it, fix a copy in memory (the user's file is never
written), plan what to watch in both versions, run both in the sandbox, then
judge every finding against its catalog claims (``claims``) and every fix by
what it removed and whether the results stayed the same (``compare``).
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Set, Tuple

from gradlint import catalog
from gradlint.config import Settings
from gradlint.checking import check_document, fix_document
from gradlint.catalog import ASYNC_ARGUMENT
from gradlint.engine import PARSE_ERROR, fix_allowed
from gradlint.files import ReadError, read_source
from gradlint.results import Diagnostic, Finding
from gradlint.runner import Mode, to_diagnostics
from gradlint.session import Session
from gradlint.verify import claims as claims_mod
from gradlint.verify import compare, reach, sandbox
from gradlint.verify.plan import LineMap, SitePlan, SourceIndex, Watches, plan_site, receiver_of
from gradlint.verify.runs import RunStatus, RunView, exception_text

# Finding verdicts
CONFIRMED = "CONFIRMED"
NOT_REPRODUCED = "NOT REPRODUCED"
NOT_REACHED = "NOT REACHED"
NOT_CHECKED = "NOT CHECKED"  # the catalog states no runtime claim for the rule
# Fix verdicts
SAME_RESULT = "SAME RESULT"
ERROR_GONE = "ERROR GONE"
# The results differ, as the rule's claims say they may: the fix made the
# flagged statement do what it was written to do (``results = "may-change"``).
INTENDED_CHANGE = "INTENDED CHANGE"
CHANGED = "CHANGED"
NOT_FIXED = "NOT FIXED"
# The flagged line did not run in both runs: nothing was seen that could vouch for the fix.
NOT_EXERCISED = "NOT EXERCISED"
# Either, when a run ended before it could say anything
TIMEOUT = "TIMEOUT"
CRASHED = "CRASHED"

GOOD_FINDING = frozenset({CONFIRMED, NOT_CHECKED})
GOOD_FIX = frozenset({SAME_RESULT, ERROR_GONE, INTENDED_CHANGE})


@dataclass
class FixReport:
    applicability: str
    title: str
    applied: bool
    verdict: Optional[str] = None
    details: List[str] = field(default_factory=list)
    # Memory before -> after, for claims about memory.
    memory: List[Tuple[str, Optional[int], Optional[int]]] = field(default_factory=list)
    note: str = ""


@dataclass
class FindingReport:
    diagnostic: Diagnostic  # the finding as `gradlint check` reports it
    verdict: str
    observed: List[str] = field(default_factory=list)
    memory: Dict[str, Optional[int]] = field(default_factory=dict)
    fix: Optional[FixReport] = None
    # For a line that never ran: why, and what would make it run.
    why_not_run: Optional[str] = None
    next_step: Optional[str] = None

    @property
    def code(self) -> str:
        return self.diagnostic.code

    @property
    def ok(self) -> bool:
        fix_ok = self.fix is None or not self.fix.applied or self.fix.verdict in GOOD_FIX
        return self.verdict in GOOD_FINDING and fix_ok


@dataclass
class FileVerification:
    path: str
    error: Optional[str] = None
    findings: List[FindingReport] = field(default_factory=list)
    original: Optional[RunStatus] = None
    fixed: Optional[RunStatus] = None
    fixes_applied: int = 0
    torch: Optional[str] = None
    # How the file was run, when not as written (a GL005 file runs renamed).
    note: Optional[str] = None
    # Of the file's bytes as read: pins what ran, as benchmarks/recall pins its sites.
    sha256: Optional[str] = None

    @property
    def ok(self) -> bool:
        return self.error is None and all(f.ok for f in self.findings)


@dataclass(frozen=True)
class Options:
    limits: sandbox.Limits = sandbox.Limits()
    seed: Optional[int] = None
    unsafe_fixes: bool = False
    workers: int = 1
    # Code that nothing calls at import: a function to call after import, or a driver script.
    entry: Optional[reach.Entry] = None
    driver: Optional[str] = None


class SetupError(Exception):
    """The sandbox could not run anything (torch fails to import there)."""


@dataclass
class _Prepared:
    path: str
    source: str
    encoding: str
    fixed_source: str
    findings: List[Finding]
    diagnostics: List[Diagnostic]
    applied: List[bool]
    plans: List[SitePlan]
    fixed_plans: List[Optional[SitePlan]]
    watches: Watches
    fixed_watches: Optional[Watches]
    # Findings whose fix was applied yet that are reported again in the fixed source.
    reapplied: Set[int] = field(default_factory=set)
    # sys.path entries, the file's module names and the --entry to call (see ``reach``).
    paths: List[str] = field(default_factory=list)
    module_names: List[str] = field(default_factory=list)
    entry: Optional[Dict[str, object]] = None
    note: Optional[str] = None
    # The file as read, when what runs as written differs from it (GL005's rename).
    written: str = ""
    driver: Optional[str] = None
    sha256: Optional[str] = None
    line_map: Optional[LineMap] = None


def _claims(code: str) -> Tuple[catalog.Claim, ...]:
    doc = catalog.load().get(code)
    return doc.verify if doc else ()


def _needs(claims: Sequence[catalog.Claim]) -> Tuple[List[str], bool, bool]:
    regions = sorted({c.region for c in claims if c.kind in claims_mod.REGION_KINDS})
    receiver = any(c.kind in claims_mod.NEEDS_RECEIVER for c in claims)
    function = any(c.kind in claims_mod.NEEDS_FUNCTION for c in claims)
    return regions, receiver, function


def prepare(path: Path, settings: "Settings | Session", options: Options) -> "_Prepared | FileVerification":
    shown = os.path.normpath(str(path))
    if path.suffix.lower() == ".ipynb":
        return FileVerification(shown, error="verify runs Python files: export the notebook first (jupyter nbconvert --to script)")
    try:
        read = read_source(path)
    except ReadError as exc:
        return FileVerification(shown, error=str(exc))
    written = read.text
    session = Session.of(settings)
    if session.index is None:
        session = session.indexed([path])
    codes, _ = session.settings.codes_for(path)
    # GL005 comes along whatever is selected: a file with `async=` arguments is analysed renamed.
    lint = check_document(shown, written, session, extra_codes=frozenset({PARSE_ERROR, ASYNC_ARGUMENT}))
    findings = lint.findings
    broken = [f for f in findings if f.code == PARSE_ERROR]
    if broken:
        return FileVerification(shown, error=f"cannot run it: {broken[0].message} (line {broken[0].start[0]})")
    renamed = [f for f in findings if f.code == ASYNC_ARGUMENT]
    findings = [f for f in findings if f.code in codes]
    if not findings:
        return FileVerification(shown)
    # As `gradlint check --output-format json` reports them, fix edits included.
    diagnostics = to_diagnostics(findings, written, lint.context, Mode(edits=True))
    fix_codes = codes | {ASYNC_ARGUMENT} if renamed else codes
    fixed = fix_document(shown, written, session, unsafe=options.unsafe_fixes, extra_codes=fix_codes - codes)
    note = None
    source = written
    if renamed and lint.context is not None:
        # As written it does not compile on Python 3.7+: what runs "as written" is the
        # file with only its `async=` arguments renamed (same lines, same statements).
        source = lint.context.source
        note = (
            f"as written it does not compile (`async` is a keyword since Python 3.7): run with its "
            f"{len(renamed)} `async=` argument{'s' if len(renamed) != 1 else ''} renamed `non_blocking=` (GL005's fix)"
        )
    # The tree the findings were found in: their nodes are its nodes.
    assert lint.context is not None  # a file with findings other than GL000 was parsed
    index = SourceIndex(source, lint.context.module)
    watches = Watches()
    plans = []
    for f in findings:
        regions, wants_receiver, wants_function = _needs(_claims(f.code))
        receiver = receiver_of(f.node if f.node is not None else index.node_at(f.start, f.end)) if wants_receiver else None
        plans.append(plan_site(index, watches, index.unit_at(f.start[0]), regions, receiver, wants_function))
    applied = [False] * len(findings)
    reapplied: Set[int] = set()
    fixed_plans: List[Optional[SitePlan]] = [None] * len(findings)
    fixed_watches = None
    line_map = None
    if fixed.source != source:
        line_map = LineMap(source, fixed.source)
        final = fixed.final.context if fixed.final is not None else None
        findex = SourceIndex(fixed.source, final.module if final is not None else None)
        fixed_watches = Watches()
        for i, (f, plan) in enumerate(zip(findings, plans)):
            regions, _, wants_function = _needs(_claims(f.code))
            unit = findex.unit_at(line_map.line(plan.span[0])) if plan.site is not None else None
            fixed_plans[i] = plan_site(findex, fixed_watches, unit, regions, plan.receiver, wants_function)
            moved = line_map.line(f.start[0])
            still_there = any(r.code == f.code and r.start[0] == moved for r in fixed.remaining)
            allowed = fix_allowed(f.fix, options.unsafe_fixes)
            # Reported again where the engine applied this rule's fixes at least once per
            # allowed finding: the fix was applied and did not settle the finding (a fix that
            # never converges, or whose file no longer runs), which the runs must show.
            rounds = fixed.fixed.get(f.code, 0)
            wanted = sum(1 for g in findings if g.code == f.code and fix_allowed(g.fix, options.unsafe_fixes))
            applied[i] = allowed and (not still_there or rounds >= wanted)
            if allowed and still_there and applied[i]:
                reapplied.add(i)
    names = reach.module_names(path)
    return _Prepared(
        shown, source, read.encoding, fixed.source, findings, diagnostics, applied, plans, fixed_plans, watches, fixed_watches,
        reapplied, paths=reach.import_paths(path), module_names=names,
        entry=reach.entry_config(options.entry, path, names), note=note, written=written, driver=options.driver,
        sha256=hashlib.sha256(path.read_bytes()).hexdigest(), line_map=line_map,
    )


# Code torch refuses to run under saved-tensor hooks (torch.func's grad/vjp/
# jacrev/hessian raise) or would trace them (torch.compile): such files run
# without them, and bytes saved for backward are not measured.
_REFUSES_SAVED_HOOKS = re.compile(r"\btorch\.func\b|\bfunctorch\b|from\s+torch\s+import\s+[^\n]*\b(func|compile)\b|\btorch\.(compile|_dynamo|export)\b")


def _job(item: "_Prepared", source: str, watches: Watches, options: Options) -> Callable[[], sandbox.RunOutcome]:
    name = os.path.basename(item.path)
    config = {
        "mode": "script",
        "script": name,
        "seed": options.seed,
        "saved_hooks": not _REFUSES_SAVED_HOOKS.search(source),
        "paths": item.paths,
        "module_names": item.module_names,
        "entry": item.entry,
        "driver": os.path.abspath(options.driver) if options.driver else None,
        **watches.to_config(),
    }
    encoding = item.encoding
    return lambda: sandbox.run(config, {name: source}, options.limits, encoding)


def verify_files(
    paths: Sequence[Path],
    settings: Settings,
    options: Options,
    on_result: Optional[Callable[[FileVerification], None]] = None,
) -> List[FileVerification]:
    """Each file's verification, in order; ``on_result`` gets each one as soon as
    its runs (and those of the files before it) have finished."""
    session = Session(settings).indexed(paths)  # the files' findings are those `gradlint check` reports
    prepared: List["_Prepared | FileVerification"] = [prepare(p, session, options) for p in paths]
    jobs = []
    last_job: List[int] = []  # per file: the index of its last run (-1: none, or before any)
    for item in prepared:
        if isinstance(item, _Prepared):
            jobs.append(_job(item, item.source, item.watches, options))
            if item.fixed_watches is not None:
                jobs.append(_job(item, item.fixed_source, item.fixed_watches, options))
        last_job.append(len(jobs) - 1)
    outcomes: List[sandbox.RunOutcome] = []
    results: List[FileVerification] = []

    def judge_ready() -> None:
        while len(results) < len(prepared) and last_job[len(results)] < len(outcomes):
            item = prepared[len(results)]
            if isinstance(item, FileVerification):
                results.append(item)
            else:
                last = last_job[len(results)]
                has_fixed = item.fixed_watches is not None
                original = RunView(outcomes[last - 1 if has_fixed else last])
                fixed = RunView(outcomes[last]) if has_fixed else None
                for view in (original, fixed):
                    if view is not None and view.status().kind == "setup-error":
                        raise SetupError(view.status().text)
                results.append(judge_file(item, original, fixed, options))
            if on_result is not None:
                on_result(results[-1])

    def done(index: int, outcome: sandbox.RunOutcome) -> None:
        outcomes.append(outcome)
        judge_ready()

    judge_ready()  # files with nothing to run before the first run
    sandbox.run_all(jobs, options.workers, done)
    judge_ready()
    return results


def _hard_failure(status: RunStatus, view: RunView) -> Optional[str]:
    """TIMEOUT / CRASHED when the run gave no measurements to judge."""
    if view.measured:
        return None
    return TIMEOUT if status.kind == "timeout" else CRASHED


def judge_file(item: _Prepared, original: RunView, fixed: Optional[RunView], options: Options) -> FileVerification:
    if fixed is not None and item.line_map is not None:
        # What the fixed copy did, numbered as in the file as written.
        fixed = RunView(fixed.outcome, item.line_map.old_line)
    report = FileVerification(
        item.path,
        original=original.status(),
        fixed=fixed.status() if fixed is not None else None,
        fixes_applied=sum(item.applied),
        torch=original.payload.get("torch"),
        note=item.note,
        sha256=item.sha256,
    )
    # An exception that a finding claims and whose fix is applied stops the
    # original run early: the fixed run can only be compared up to there.
    claimed_stop = False
    for f, plan, applied in zip(item.findings, item.plans, item.applied):
        for claim in _claims(f.code):
            if claim.kind == "raises" and applied and original.end.get("kind") == "exception":
                obs = claims_mod.judge(claim, original, plan)
                claimed_stop = claimed_stop or obs.shown
    for i, f in enumerate(item.findings):
        report.findings.append(
            _judge_finding(item, i, original, fixed, claimed_stop, options)
        )
    return report


def _judge_finding(
    item: _Prepared, i: int, original: RunView, fixed: Optional[RunView], claimed_stop: bool, options: Options
) -> FindingReport:
    f = item.findings[i]
    plan = item.plans[i]
    rep = FindingReport(item.diagnostics[i], verdict=NOT_REACHED)
    status = original.status()
    hard = _hard_failure(status, original)
    claims = _claims(f.code)
    observations: List[Tuple[catalog.Claim, claims_mod.Observation]] = []
    if f.code == ASYNC_ARGUMENT:
        return _judge_rename(item, rep)
    if hard:
        rep.verdict = hard
        rep.observed.append(status.text)
    else:
        site = original.statement(plan.site)
        if not site.get("entered"):
            rep.verdict = NOT_REACHED
            rep.why_not_run, rep.next_step = _why_not_run(item, plan, f.start[0], original)
            rep.observed.append(f"line {f.start[0]} never ran: {rep.why_not_run}")
            rep.observed.append(f"to run it: {rep.next_step}")
        else:
            observations = [(c, claims_mod.judge(c, original, plan)) for c in claims]
            for claim, obs in observations:
                rep.observed.append(obs.text)
                if obs.nbytes is not None:
                    rep.memory[claim.kind] = obs.nbytes
            if not claims:
                rep.verdict = NOT_CHECKED
                first = site.get("first") or {}
                rep.observed.extend(claims_mod.tensor_text(n, s) for n, s in list(first.items())[:2] if s.get("type") == "tensor")
            elif all(obs.shown for _, obs in observations):
                rep.verdict = CONFIRMED
            else:
                rep.verdict = NOT_REPRODUCED
            if status.kind == "timeout":
                rep.observed.append(f"(measured until the run's {status.text})")
    if f.fix is not None:
        rep.fix = _judge_fix(item, i, original, fixed, claims, observations, claimed_stop, options)
    return rep


def _why_not_run(item: _Prepared, plan: SitePlan, line: int, view: RunView) -> Tuple[str, str]:
    info = plan.caller_info
    caller = None
    if info is not None:
        calls = int(view.function(plan.caller).get("calls", 0))
        caller = reach.Caller(info.qualname, info.is_method, info.needs_arguments, calls)
    imported = item.entry is not None or item.driver
    return reach.explain(line, view.end, view.status().text, caller, Path(item.path), item.module_names, bool(imported))


def _judge_rename(item: _Prepared, rep: FindingReport) -> FindingReport:
    """GL005: ``async=`` is a syntax error, seen by compiling the file as written
    (nothing runs); the rename is what lets the runs happen at all."""
    f = rep.diagnostic
    # Compiling stops at the first error: each argument is seen on its own, in the
    # renamed file with only its own line as written.
    lines = item.source.splitlines(keepends=True)
    written = item.written.splitlines(keepends=True)
    if len(lines) == len(written) and f.row <= len(lines):
        lines[f.row - 1] = written[f.row - 1]
    try:
        compile("".join(lines), item.path, "exec", dont_inherit=True)
        error = None
    except SyntaxError as exc:
        error = exc
    except (ValueError, RecursionError, MemoryError) as exc:  # null bytes, nesting too deep
        rep.verdict = NOT_REPRODUCED
        rep.observed.append(f"as written it cannot be compiled: {type(exc).__name__}")
        return rep
    if error is not None and error.lineno == f.row:
        rep.verdict = CONFIRMED
        rep.observed.append(f"as written: SyntaxError at line {error.lineno} on Python {sys.version_info[0]}.{sys.version_info[1]}")
    else:
        rep.verdict = NOT_REPRODUCED
        rep.observed.append("as written it compiles" if error is None else f"as written: SyntaxError at line {error.lineno}")
    fix = item.findings[item.diagnostics.index(f)].fix
    if fix is not None:
        rep.fix = FixReport(fix.applicability, fix.title, True)
        rep.fix.verdict = ERROR_GONE if error is not None else SAME_RESULT
        rep.fix.details.append("renamed, it compiles: both runs are of the renamed file")
    return rep


def _judge_fix(
    item: _Prepared,
    i: int,
    original: RunView,
    fixed: Optional[RunView],
    claims: Sequence[catalog.Claim],
    observations: Sequence[Tuple[catalog.Claim, claims_mod.Observation]],
    claimed_stop: bool,
    options: Options,
) -> FixReport:
    f = item.findings[i]
    assert f.fix is not None
    fix = FixReport(f.fix.applicability, f.fix.title, item.applied[i])
    if not fix.applied:
        fix.note = (
            "unsafe fix, not applied: add --unsafe-fixes to verify it"
            if f.fix.applicability == "unsafe" and not options.unsafe_fixes
            else "not applied (another fix took its place)"
        )
        return fix
    assert fixed is not None
    if i in item.reapplied:
        fix.details.append("as fixed, the finding is still reported: the fix did not settle it")
    plan = item.fixed_plans[i]
    # Two complete runs are needed to compare anything.
    for label, view in (("as written", original), ("as fixed", fixed)):
        status = view.status()
        if status.kind in ("timeout", "crashed", "output-limit"):
            fix.verdict = TIMEOUT if status.kind == "timeout" else CRASHED
            fix.details.append(f"{label}: {status.text}")
            return fix
    status = fixed.status()
    # Only a line that ran in both runs can vouch for the fix. A fixed run that ended
    # differently before reaching it is a change, judged below.
    line = f.start[0]
    if not original.statement(item.plans[i].site).get("entered"):
        fix.verdict = NOT_EXERCISED
        fix.details.append(f"line {line} never ran as written: nothing to compare")
        return fix
    if plan is not None and plan.site is not None and not fixed.statement(plan.site).get("entered"):
        if status.kind in ("completed", "exit") and compare.end_state(original.end) == compare.end_state(fixed.end):
            fix.verdict = NOT_EXERCISED
            fix.details.append(f"line {line} never ran as fixed: nothing to compare")
        else:  # it ran as written, and the fixed run ended otherwise without it
            fix.verdict = CHANGED
            fix.details.append(f"line {line} never ran as fixed (as fixed it {status.text})")
        return fix
    # 1. What the claims said must go away has gone; what they said the fix keeps is still there.
    for claim, before in observations:
        after = claims_mod.judge(claim, fixed, plan) if plan is not None and plan.site is not None else None
        if claim.kind in ("records-graph", "retains-memory"):
            label = "saved for backward" if claim.kind == "records-graph" else "kept alive after the loop"
            fix.memory.append((label, before.nbytes, after.nbytes if after else 0))
        if not before.shown:
            continue
        if claim.after_fix == "kept":
            if after is not None and not after.shown:
                fix.verdict = CHANGED
                fix.details.append(f"as fixed, no longer: {after.text}")
                return fix
            continue
        if claim.kind == "raises":
            still = claims_mod.matching(claim, fixed, plan)
            before_raised = {(tuple(e.get("types", [])), e.get("message", "")) for e in original.exceptions}
            if still and all((tuple(e.get("types", [])), e.get("message", "")) not in before_raised for e in still):
                # not the error the finding is about: the fix brought a new one
                fix.verdict = CHANGED
                fix.details.append(f"as fixed, raises a new error: {exception_text(still[0])} (line {fixed.line(still[0].get('line'))})")
                return fix
            if still:
                fix.verdict = NOT_FIXED
                fix.details.append(f"still raises {exception_text(still[0])} (line {fixed.line(still[0].get('line'))})")
                return fix
            continue
        if after is not None and after.shown:
            fix.verdict = NOT_FIXED
            fix.details.append(f"as fixed, still: {after.text}")
            return fix
        if claim.kind == "warns":
            fix.details.append("warning gone")
        elif after is not None and claim.kind not in ("records-graph", "retains-memory"):
            fix.details.append(f"as fixed: {after.text}")
    # 2. Did the results stay the same?
    raised_claim = any(c.kind == "raises" and c.after_fix == "gone" and obs.shown for c, obs in observations)
    if raised_claim:
        if status.kind in ("completed", "exit"):
            fix.verdict = ERROR_GONE
            fix.details.insert(0, f"as fixed: {status.text}")
        else:
            fix.verdict = CHANGED
            fix.details.insert(0, f"as fixed: {status.text}")
        return fix
    ending = _ending_difference(original, fixed, claimed_stop)
    diff = ending or _difference(item, i, original, fixed, claimed_stop)
    if not diff:
        fix.verdict = SAME_RESULT
        return fix
    # A difference the claims announce: the behaviour they say decides the
    # results showed as written and is gone as fixed (step 1), and both runs
    # ended the same way. A fix that makes the run fail is never intended.
    intended = (
        not ending
        and any(c.results == "may-change" and obs.shown for c, obs in observations)
        and not _reads_back_target(item, i)
    )
    fix.verdict = INTENDED_CHANGE if intended else CHANGED
    if intended:  # after what the fix did (step 1), the difference it made
        fix.details.append(diff)
    else:
        fix.details.insert(0, diff)
    if not intended and options.seed is None and "seed" not in item.source:
        fix.details.append("the file sets no random seed: rerun with --seed N to compare like with like")
    return fix


def _reads_back_target(item: _Prepared, i: int) -> bool:
    """Whether the file reads back the attribute the finding's fix rewrites
    (``model.requires_grad`` after GL302 turned the assignment into a call): then a
    difference may come from that read, not from the rule's documented effect."""
    f = item.findings[i]
    if f.start[0] != f.end[0]:
        return False
    line = item.source.splitlines()[f.start[0] - 1]
    target = line[f.start[1] : f.end[1]].strip()
    if not re.fullmatch(r"[\w.]+\.\w+", target):
        return False
    receiver, _, attr = target.rpartition(".")
    read = re.compile(
        re.escape(target) + r"\b(?!\s*=(?!=))"
        + r"|\b(?:getattr|hasattr)\(\s*" + re.escape(receiver) + r"\s*,\s*['\"]" + re.escape(attr) + r"['\"]"
    )
    return any(read.search(text) for n, text in enumerate(item.source.splitlines(), 1) if n != f.start[0])


def _ending_difference(original: RunView, fixed: RunView, claimed_stop: bool) -> Optional[str]:
    o_end, f_end = compare.end_state(original.end), compare.end_state(fixed.end)
    if not claimed_stop and o_end != f_end:
        return f"as written it {original.status().text}; as fixed it {fixed.status().text}"
    return None


def _difference(item: _Prepared, i: int, original: RunView, fixed: RunView, claimed_stop: bool) -> Optional[str]:
    """The first difference in what the two runs printed, assigned at the site, or left at the end."""
    o_end = compare.end_state(original.end)
    o_out, f_out = original.outcome, fixed.outcome
    truncated = o_out.stdout_bytes > len(o_out.stdout.encode()) or f_out.stdout_bytes > len(f_out.stdout.encode())
    diff = compare.compare_output(o_out.stdout, f_out.stdout, prefix=claimed_stop or truncated)
    if diff:
        return diff
    plan, fplan = item.plans[i], item.fixed_plans[i]
    if fplan is not None and fplan.site is not None:
        o_site, f_site = original.statement(plan.site), fixed.statement(fplan.site)
        for key in ("first",) if claimed_stop else ("first", "last"):
            diff = compare.compare_namespaces(o_site.get(key) or {}, f_site.get(key) or {}, "")
            if diff:
                # Numbered as in the file the user has, not as in the fixed copy.
                return f"at line {plan.site}: {diff}"
    if not claimed_stop and o_end == ("completed", None):
        diff = compare.compare_namespaces(original.globals, fixed.globals, "")
        if diff:
            return f"at the end: {diff}"
    return None


def summary(files: Sequence[FileVerification]) -> Dict[str, int]:
    counts: Dict[str, int] = {}
    for fv in files:
        for f in fv.findings:
            counts[f.verdict] = counts.get(f.verdict, 0) + 1
            if f.fix is not None and f.fix.applied and f.fix.verdict:
                key = "fix " + f.fix.verdict
                counts[key] = counts.get(key, 0) + 1
    return counts

