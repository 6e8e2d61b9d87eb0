"""Lint and fix one source text. No file I/O and no printing happen here.

``lint_source`` parses once, runs every enabled rule in a single traversal and
returns findings; ``fix_source`` applies fixes, re-lints and repeats until
nothing is left to fix (bounded), never returning code that does not parse.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Dict, FrozenSet, List, Mapping, Optional, Sequence, Tuple, Type

import libcst as cst

from gradlint import catalog, noqa, parsing
from gradlint import prefilter
from gradlint.prefilter import not_python as _not_python
from gradlint.fixes import Fix, applied, parse_fixed, select_compatible
from gradlint.reparse import spliced_parse
from gradlint.options import LintSettings  # re-exported: callers and tests import it from here
from gradlint.results import Finding
from gradlint.rule import FileContext, Rule, SourceRepair
from gradlint.rules import rule_classes
from gradlint.semantic import project
from gradlint.semantic.tree import Tree

PARSE_ERROR = catalog.PARSE_ERROR
MAX_FIX_ROUNDS = 10

_FILE_NOQA_RE = re.compile(
    r"#\s*gradlint:\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*))?", re.IGNORECASE
)
_CODE_SPLIT = re.compile(r"[,\s]+")


@dataclass
class LintResult:
    findings: List[Finding]
    # The parsed file, when it was parsed (files no enabled rule could match are not).
    # For a file that parses only once a rule's source repair (``rule.SourceRepair``)
    # made it parseable, the repaired text: ``context.source`` differs from the
    # source linted, and the findings' positions are those of the source as written.
    context: Optional[FileContext] = None
    # Then also: (the code of the rule whose repair it was, how many repairs it made).
    repaired_by: Optional[Tuple[str, int]] = None
    # And, where it can be told from this lint, the lint of the repaired text itself
    # (``lint_source(context.source, module=context.module)``: positions of the
    # repaired text): the fix loop's first round after the repair.
    repaired_lint: Optional["LintResult"] = None


@dataclass
class FixResult:
    source: str
    fixed: Counter = field(default_factory=Counter)
    remaining: List[Finding] = field(default_factory=list)
    # Fixes that were dropped because their result did not parse (a gradlint bug).
    problems: List[str] = field(default_factory=list)
    # The lint of the original source and of ``source``, kept so that callers
    # need not lint either again.
    original: Optional[LintResult] = None
    final: Optional[LintResult] = None


class SourceSyntaxError(Exception):
    def __init__(self, line: int, column: int, message: str) -> None:
        super().__init__(message)
        self.line = line
        self.column = column
        self.message = message

    @property
    def detail(self) -> str:
        """What the parse-error finding says."""
        return f"syntax error: {self.message}"


class SourceNotParsed(SourceSyntaxError):
    """Valid Python that LibCST cannot parse (mixed tabs and spaces that CPython
    reads, syntax newer than the installed LibCST): not checked, and no syntax error."""

    @property
    def detail(self) -> str:
        return f"not checked: Python accepts this file, but LibCST, gradlint's parser, does not ({self.message})"


class SourceTooComplex(SourceSyntaxError):
    """Not parsed, valid or not: too large or too deeply nested (see gradlint.parsing)."""

    @property
    def detail(self) -> str:
        return self.message


# A parse made before it was asked for (``parse_ahead``), by its exact text.
_AHEAD: Dict[str, cst.Module] = {}


def parse_ahead(source: str) -> None:
    """Parse ``source`` now, for the next ``parse`` of that text to take (the scheduler
    parses a long file while a worker makes the project index); nothing is kept if
    it does not parse, and only the last text given is kept."""
    _AHEAD.clear()
    try:
        _AHEAD[source] = parsing.parse_module(source)
    except Exception:  # parsed again when asked for, which reports why
        pass


def forget_parsed_ahead() -> None:
    _AHEAD.clear()


def parse(source: str) -> cst.Module:
    """Parse ``source`` with LibCST, raising :class:`SourceSyntaxError` with a one-line message."""
    ahead = _AHEAD.pop(source, None) if _AHEAD else None
    if ahead is not None:
        return ahead
    try:
        return parsing.parse_module(source)
    except parsing.TooComplex as exc:
        raise SourceTooComplex(exc.line, exc.column, exc.message) from None
    except parsing.NotParsed as exc:
        line, column, message = exc.line, exc.column, exc.message
    except cst.ParserSyntaxError as exc:
        line, column, message = exc.raw_line, exc.raw_column, " ".join(exc.message.split())
    except RecursionError:
        raise SourceSyntaxError(1, 0, "too deeply nested to parse") from None
    # CPython's own message is the one users know ("Missing parentheses in call to
    # 'print'"); LibCST's lists every token it expected.
    try:
        compile(source, "<source>", "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    except SyntaxError as err:
        if err.lineno:
            line, column, message = err.lineno, max((err.offset or 1) - 1, 0), err.msg
    except (RecursionError, MemoryError, ValueError):
        pass
    else:
        raise SourceNotParsed(line, column, message)
    raise SourceSyntaxError(line, column, message)


def file_noqa(source: str) -> Optional[FrozenSet[str]]:
    """Codes a ``# gradlint: noqa[: codes]`` comment switches off for the file;
    an empty set means all of them; None means there is no such comment."""
    if "gradlint" not in source:
        return None
    for m in _FILE_NOQA_RE.finditer(source):
        if _is_comment_at(source, m.start()):
            codes = m.group("codes")
            return frozenset(_CODE_SPLIT.split(codes.upper().strip())) if codes else frozenset()
    return None


def _is_comment_at(source: str, offset: int) -> bool:
    # Lines end with "\n", "\r\n" or a lone "\r" (old Mac files).
    line_start = max(source.rfind("\n", 0, offset), source.rfind("\r", 0, offset)) + 1
    ends = [i for i in (source.find("\n", offset), source.find("\r", offset)) if i != -1]
    line = source[line_start : min(ends) if ends else len(source)]
    try:
        for tok in tokenize.generate_tokens(io.StringIO(line).readline):
            if tok.type == tokenize.COMMENT and tok.start[1] == offset - line_start:
                return True
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    return False


def _unsuppressed(source: str, codes: FrozenSet[str]) -> FrozenSet[str]:
    """``codes`` less those a ``# gradlint: noqa`` comment switches off for the file."""
    suppressed = file_noqa(source)
    if suppressed is None:
        return codes
    return codes - suppressed if suppressed else frozenset()


def _repairs(source: Optional[str] = None) -> List[Tuple[str, SourceRepair]]:
    """Every rule's source repair (``rule.SourceRepair``), by code, whatever rules
    are enabled: what a file parses as cannot depend on the selection (a run that
    selects one rule on a file with `async=` sees the file another rule's repair
    makes parse, as Ruff parses a file whatever rules it runs). With ``source``,
    only those the prefilter's table finds a trace of in it: the others' rules
    are not imported."""
    rules = rule_classes(prefilter.repairs(source))
    return [(c, r.source_repair) for c, r in rules.items() if r.source_repair is not None]


def _repairable(source: str) -> bool:
    """Whether ``source`` holds something a rule repairs before it can be parsed:
    worth parsing for (to report it, or why the file does not parse), even where
    no rule's trigger appears."""
    return any(repair.needed(source) for _, repair in _repairs(source))


def needs_parse(source: str, codes: FrozenSet[str], index: Optional[project.Project] = None) -> bool:
    """Whether ``lint_source`` would parse ``source`` (with the project index
    ``index``): when it would not, it finds nothing."""
    codes = _unsuppressed(source, codes)
    return bool(triggered_rules(source, codes, index)) or _repairable(source) or _not_python(source)


# The last answers of the prefilter's table (``prefilter.firing``): the scheduler
# asks first (to decide where a file is checked), then the engine when it checks
# it, in this process or in a worker forked after the scheduler asked. Keyed by
# the source itself (an exact comparison); forgotten when the project index the
# project gates read changes. The rules it names are judged by their own
# triggers and gates each time (a test may change a rule's).
_TRIGGERED: Dict[Tuple[str, FrozenSet[str]], List[str]] = {}
_TRIGGERED_FOR: List[Any] = [None]
_TRIGGERED_MAX = 4096


def triggered_rules(source: str, codes: FrozenSet[str], index: Optional[project.Project] = None) -> List[Type[Rule]]:
    """The enabled rules that could fire on ``source``, judged by their trigger
    substrings and then their gates (see ``Rule``; project gates ask ``index``).
    Only the rules the prefilter's table lets through are imported and asked:
    the table is generated from the rules' own triggers and gates."""
    if _TRIGGERED_FOR[0] is not index:
        _TRIGGERED.clear()
        _TRIGGERED_FOR[0] = index
    key = (source, codes)
    may = _TRIGGERED.get(key)
    if may is None:
        may = prefilter.firing(source, codes, index)
        if len(_TRIGGERED) >= _TRIGGERED_MAX:
            _TRIGGERED.clear()
        _TRIGGERED[key] = may
    return [
        rule
        for rule in rule_classes(may).values()
        if any(t in source for t in rule.triggers)
        and (all(g.search(source) for g in rule.gates) or (rule.project_gate is not None and rule.project_gate(source, index)))
    ]


class _Dispatcher:
    """Runs many rules in one pass over the tree: each node goes to the rules that
    visit its type, its ``leave_`` methods once everything under it is visited.

    The pass is a loop over the file's nodes in walk order, which ``Tree`` records
    (with every parent and each node's place in that order) in one plain walk
    before any rule runs, so a rule may ask about any node of the file, before or
    after its own, without another walk: LibCST's ``ParentNodeProvider`` would
    rebuild the tree three times for the parents alone."""

    def __init__(self, rules: Sequence[Rule], tree: Tree) -> None:
        self._tree = tree
        self._rules = rules
        self._visit: Dict[type, List[Callable[[cst.CSTNode], object]]] = {}
        self._leave: Dict[type, List[Callable[[cst.CSTNode], object]]] = {}

    def _methods(self, node_type: type) -> None:
        name = node_type.__name__
        self._visit[node_type] = [getattr(r, f"visit_{name}") for r in self._rules if hasattr(r, f"visit_{name}")]
        self._leave[node_type] = [getattr(r, f"leave_{name}") for r in self._rules if hasattr(r, f"leave_{name}")]

    def run(self, module: cst.Module) -> None:
        nodes = self._tree.nodes()
        ends = self._tree.ends
        visit, leave = self._visit, self._leave
        # Nodes entered whose ``leave_`` methods are still to run, innermost last;
        # a node is left once the pass goes past the last node under it.
        pending: List[Tuple[int, cst.CSTNode]] = []
        for index, node in enumerate(nodes):
            while pending and pending[-1][0] < index:
                node_left = pending.pop()[1]
                for fn in leave[type(node_left)]:
                    fn(node_left)
            kind = type(node)
            fns = visit.get(kind)
            if fns is None:
                self._methods(kind)
                fns = visit[kind]
            for fn in fns:
                fn(node)
            if leave[kind]:
                pending.append((ends[id(node)], node))
        while pending:
            node_left = pending.pop()[1]
            for fn in leave[type(node_left)]:
                fn(node_left)


def syntax_finding(err: SourceSyntaxError, source: str = "") -> Finding:
    doc = catalog.entry(PARSE_ERROR)
    hint = ""
    if source and not isinstance(err, SourceTooComplex):
        hint = "".join(repair.hint(source, err.line) for _, repair in _repairs())
    return Finding(
        code=PARSE_ERROR,
        message=doc.format_message(detail=f"{err.detail}{hint}"),
        start=(err.line, err.column),
        end=(err.line, err.column),
    )


def lint_source(
    source: str,
    path: str,
    settings: LintSettings,
    *,
    module: Optional[cst.Module] = None,
    prefilter: bool = True,
) -> LintResult:
    """Findings of the enabled rules on ``source``.

    ``module``, when given, is ``source`` already parsed (the fix loop parses
    each result to check it, and need not parse it twice). ``prefilter=False``
    runs every enabled rule even on files that contain none of its triggers
    (tests use it to prove the triggers are adequate).
    """
    codes = _unsuppressed(source, settings.codes)
    rule_classes = _rules_for(source, codes, prefilter, settings.index)
    if not rule_classes and not _repairable(source) and not _not_python(source):
        return _directives_only(source, path, settings, codes, module)
    if module is None:
        try:
            module = parse(source)
        except SourceSyntaxError as err:
            for code, repair in _repairs():
                repaired = _lint_repaired(source, path, settings, codes, prefilter, code, repair)
                if repaired is not None:
                    return repaired
            if isinstance(err, SourceNotParsed):
                reread = _lint_reindented(source, path, settings, codes, prefilter)
                if reread is not None:
                    return reread
            # Reported whatever the selection, per-file ignores and noqa say (Ruff's
            # invalid-syntax): a file that does not parse is a file nothing checked.
            return LintResult([syntax_finding(err, source)])
    if not rule_classes:
        return _directives_only(source, path, settings, codes, module)
    ctx = FileContext(path, source, module, settings.options, settings.defer_fixes, settings.index, settings.safe_fixes_only, settings.fixable_only)
    findings = _run_rules(ctx, rule_classes)
    return LintResult(_without_noqa(findings, source, settings, codes, ctx.module), ctx)


def _rules_for(source: str, codes: FrozenSet[str], prefilter: bool, index: Optional[project.Project]) -> List[Type[Rule]]:
    if prefilter:
        return triggered_rules(source, codes, index)
    return list(rule_classes(codes).values())


def _run_rules(ctx: FileContext, rule_classes: Sequence[Type[Rule]]) -> List[Finding]:
    rules = [cls(ctx) for cls in rule_classes]
    _Dispatcher(rules, ctx.tree).run(ctx.module)
    return [f for r in rules for f in r.findings]


def _lint_repaired(
    source: str, path: str, settings: LintSettings, codes: FrozenSet[str], prefilter: bool, code: str, repair: SourceRepair
) -> Optional[LintResult]:
    """A file that parses once the rule ``code`` repaired it: that rule's finding
    for each repair (where ``code`` is enabled), and every other rule's findings on
    the repaired text, moved back to their places in ``source``. None when there is
    nothing to repair or the file still does not parse."""
    repaired = repair.repair(source)
    if repaired is None:
        return None
    try:
        module = parse(repaired.text)
    except SourceSyntaxError:
        return None
    ctx = FileContext(path, repaired.text, module, settings.options, settings.defer_fixes, settings.index, settings.safe_fixes_only, settings.fixable_only)
    shift = repaired.position
    rule_classes = _rules_for(repaired.text, codes, prefilter, settings.index)
    found = _run_rules(ctx, rule_classes)
    if code not in codes:
        # The repair is not selected, so nothing may apply it, and every other fix
        # here is an edit of the repaired text: offered, none could be applied.
        findings = [Finding(f.code, f.message, shift(f.start), shift(f.end)) for f in found]
        return LintResult(_without_noqa(findings, source, settings, codes, ctx.module), ctx, (code, len(repaired.spans)))
    findings = [Finding(f.code, f.message, shift(f.start), shift(f.end), f.fix, deferred_fix=f.deferred_fix) for f in found]
    doc = catalog.entry(code)
    # The repaired module already holds the repair: the fix has no edit of its
    # own, and what it changes shows as the difference from the source as written.
    fix = Fix("safe", doc.fix_title, ())
    findings += [Finding(code, doc.format_message(), start, end, fix) for start, end in repaired.spans]
    # What lint_source would make of the repaired text, parsed as ``module``: the same
    # rules (the prefilter's, on the same text, for the same codes) on the same tree,
    # less what that text's own ``# noqa`` comments silence. Not told where the repair
    # changed the codes a file-level directive leaves, or where no rule runs (then
    # lint_source reports the directives alone, without a tree).
    own = None
    if prefilter and rule_classes and _unsuppressed(repaired.text, settings.codes) == codes:
        own = LintResult(_without_noqa(list(found), repaired.text, settings, codes, ctx.module), ctx)
    return LintResult(_without_noqa(findings, source, settings, codes, ctx.module), ctx, (code, len(repaired.spans)), own)


def _lint_reindented(source: str, path: str, settings: LintSettings, codes: FrozenSet[str], prefilter: bool) -> Optional[LintResult]:
    """A file CPython accepts and LibCST parses only once the tabs of its indentation
    are expanded (``parsing.reindented``): every rule's findings on that text, moved
    back to their places in ``source``. Without fixes: each is an edit of the
    reindented text, and applying one would rewrite the file's indentation."""
    found = parsing.reindented(source)
    if found is None:
        return None
    text, shift = found
    try:
        module = parse(text)
    except SourceSyntaxError:
        return None
    ctx = FileContext(path, text, module, settings.options, settings.defer_fixes, settings.index, settings.safe_fixes_only, settings.fixable_only)
    findings = [Finding(f.code, f.message, shift(f.start), shift(f.end)) for f in _run_rules(ctx, _rules_for(text, codes, prefilter, settings.index))]
    return LintResult(_without_noqa(findings, source, settings, codes))


def _without_noqa(
    findings: List[Finding],
    source: str,
    settings: LintSettings,
    codes: FrozenSet[str],
    module: Optional[cst.Module] = None,
) -> List[Finding]:
    """``findings`` less those a ``# noqa`` silences, plus the findings about
    the directives themselves where their codes are enabled. ``codes`` are the
    codes checked in the file; ``module`` is the parsed file, for their fixes."""
    if settings.line_noqa and "noqa" in source.lower():
        directives = noqa.NoqaMap(source)
        findings = noqa.filter_findings(findings, directives)
        report = codes & catalog.DIRECTIVE_CODES
        if report and directives.directives:
            build = _CommentFixer(source, module)
            extra = noqa.directive_findings(directives, codes, report, build)
            findings += noqa.filter_findings(extra, directives, explicit=True)
    findings.sort(key=lambda f: (f.start, f.code, f.end))
    return findings


class _CommentFixer:
    """Builds the directive findings' fixes on the parsed file, parsing the
    source the first time one is asked for when no rule needed it parsed."""

    def __init__(self, source: str, module: Optional[cst.Module]) -> None:
        self.source = source
        self.module = module

    def __call__(self, directive: noqa.Directive, text: Optional[str], applicability: str, title: str) -> Optional[Fix]:
        if self.module is None:
            try:
                self.module = parse(self.source)
            except SourceSyntaxError:
                return None
        fix = noqa.comment_fix(self.module, directive, text, applicability, title)
        return fix if isinstance(fix, Fix) else None


def _directives_only(
    source: str, path: str, settings: LintSettings, codes: FrozenSet[str], module: Optional[cst.Module]
) -> LintResult:
    """The result of a file no enabled rule needs to look at: nothing, unless
    its ``# noqa`` directives are to be judged (a directive there silences nothing)."""
    if not (codes & catalog.DIRECTIVE_CODES) or not settings.line_noqa or "noqa" not in source.lower():
        return LintResult([])
    directives = noqa.NoqaMap(source)
    if not directives.directives:
        return LintResult([])
    build = _CommentFixer(source, module)
    findings = noqa.directive_findings(directives, codes, codes & catalog.DIRECTIVE_CODES, build)
    findings = noqa.filter_findings(findings, directives, explicit=True)
    findings.sort(key=lambda f: (f.start, f.code, f.end))
    # Their fixes are applied to the parsed file, as every rule's are.
    ctx = FileContext(path, source, build.module, settings.options, settings.defer_fixes, settings.index, settings.safe_fixes_only, settings.fixable_only) if findings and build.module is not None else None
    return LintResult(findings, ctx)


def fix_allowed(fix: Optional[Fix], unsafe: bool) -> bool:
    return fix is not None and (fix.applicability == "safe" or unsafe)


# (old text, fixed text) -> None when the fixed text can be written, else why not.
FixGate = Callable[[str, str], Optional[str]]


def fix_source(
    source: str,
    path: str,
    settings: LintSettings,
    unsafe: bool = False,
    trusted: FrozenSet[str] = frozenset(),
    gate: Optional[FixGate] = None,
    first: Optional[LintResult] = None,
    remaining: bool = True,
) -> FixResult:
    """Apply every allowed fix, re-linting after each round until nothing changes.

    ``trusted`` names codes whose unsafe fixes are applied as if they were safe
    (``gradlint migrate`` knows that some rewrites keep behaviour in its setting).
    ``gate`` lets the caller refuse results it cannot write (a notebook refuses
    fixes that change IPython lines or move code across cells); a refused fix
    is left unapplied and its finding remains.
    ``first``: the lint of ``source`` with ``settings`` already made (an editor's
    check), which the first round starts from instead of linting it again.
    ``remaining=False``: the caller reads the fixed text and how many fixes it
    holds, not the findings (``--diff``): every lint, the first too, runs only the
    rules that can build a fix allowed here (``_fixing_settings``), so ``original``,
    ``final`` and ``remaining`` hold those rules' findings alone (``first``, where
    given, is taken as it is).
    """
    result = FixResult(source)
    # What every lint of the loop runs: without ``remaining`` no finding is read, only fixes.
    rules = settings if remaining else _fixing_settings(settings, unsafe, trusted)
    if not remaining and not unsafe and not trusted:
        # Only safe fixes are applied and no finding's fix is read otherwise: a rule
        # may skip what only an unsafe fix needs (``LintSettings.safe_fixes_only``).
        rules = replace(rules, safe_fixes_only=True)
    if not remaining and not rules.codes & catalog.DIRECTIVE_CODES:
        # No finding is read but for its fix (where the directive codes are reported,
        # whether a `# noqa` is used depends on every finding).
        rules = replace(rules, fixable_only=True)
    broken: set = set()
    parsed: Optional[cst.Module] = None
    start = first if first is not None else lint_source(source, path, rules)
    lint: Optional[LintResult] = start
    if start.repaired_by is not None and start.context is not None:
        # Analysed as a rule's source repair made it: the repair (safe) comes
        # first, for all of the file at once, or no fix can apply.
        code, made = start.repaired_by
        repaired = start.context.source
        n = sum(f.code == code for f in start.findings)
        if n != made or (gate is not None and gate(source, repaired) is not None):
            result.original = result.final = start  # some are silenced with `# noqa`, or refused
            result.remaining = start.findings
            return result
        result.original = start
        # The repaired text's own lint, where the first lint made it (its rules ran on
        # that text): not linted again.
        result.source, parsed, lint = repaired, start.context.module, start.repaired_lint
        result.fixed[code] += n
    for _ in range(MAX_FIX_ROUNDS):
        if lint is None:
            lint = lint_source(result.source, path, rules, module=parsed)
        if result.original is None:
            result.original = lint
        candidates = [
            f
            for f in lint.findings
            if fix_allowed(f.fix, unsafe or f.code in trusted) and (f.code, f.start, f.end) not in broken
        ]
        if not candidates or lint.context is None:
            break
        by_fix = {id(f.fix): f for f in candidates}
        chosen = select_compatible(f.fix for f in candidates if f.fix is not None)
        module = lint.context.module
        parents = lint.context.parents
        known = lint.context.tree.top_level_code()
        checked, refused = _apply_checked(module, chosen, result.source, gate, parents, known)
        if checked is None:
            # Find the culprit(s): apply one at a time, keep the first that works.
            applied = []
            for fix in chosen:
                attempt, refused = _apply_checked(module, [fix], result.source, gate, parents, known)
                if attempt is None:
                    bad = by_fix[id(fix)]
                    broken.add((bad.code, bad.start, bad.end))
                    if not refused:
                        result.problems.append(
                            f"{bad.code} fix at {bad.start[0]}:{bad.start[1] + 1} produced code that does not parse; not applied"
                        )
                    continue
                checked, applied = attempt, [fix]
                break
            if checked is None:
                continue  # the same findings again, less the broken fixes
            chosen = applied
        new_source, parsed = checked
        if new_source == result.source:
            break
        for fix in chosen:
            result.fixed[by_fix[id(fix)].code] += 1
        result.source = new_source
        lint = None
    else:
        result.problems.append(f"fixes did not converge after {MAX_FIX_ROUNDS} rounds")
    if lint is None:
        lint = lint_source(result.source, path, rules, module=parsed)
    result.final = lint
    result.remaining = lint.findings
    return result


def fixing_codes(codes: FrozenSet[str], unsafe: bool, trusted: FrozenSet[str] = frozenset()) -> FrozenSet[str]:
    """The codes of ``codes`` whose findings can carry a fix that ``fix_source`` applies:
    not those whose catalog entry says ``fix = "none"``, nor, without ``unsafe`` (or the
    code in ``trusted``), those that say ``"unsafe"``. ``Rule.fix`` refuses to build
    any other fix, so a rule left out could only have added findings the fix loop
    passes over."""
    out = set()
    for code in codes:
        try:
            kind = catalog.entry(code).fix
        except KeyError:
            out.add(code)  # not a catalogued rule (a test's): kept
            continue
        if kind == "none" or (kind == "unsafe" and not (unsafe or code in trusted)):
            continue
        out.add(code)
    return frozenset(out)


def _fixing_settings(settings: LintSettings, unsafe: bool, trusted: FrozenSet[str]) -> LintSettings:
    """``settings`` with only the rules that can build a fix the loop applies, where
    leaving the others out changes no finding of theirs: not where the directive
    codes are reported (an unused-noqa finding, which has a fix, depends on what
    every rule finds)."""
    if settings.codes & catalog.DIRECTIVE_CODES:
        return settings
    codes = fixing_codes(settings.codes, unsafe, trusted)
    return settings if codes == settings.codes else replace(settings, codes=codes)


def _apply_checked(
    module: cst.Module,
    fixes: Sequence[Fix],
    old: str,
    gate: Optional[FixGate],
    parents: Optional[Mapping[int, Optional[cst.CSTNode]]] = None,
    known: Optional[Dict[int, Tuple[cst.CSTNode, str]]] = None,
) -> Tuple[Optional[Tuple[str, cst.Module]], bool]:
    """(the fixed source and its parse, or None; whether ``gate`` refused it).
    ``parents``: of ``module``'s nodes, so that only the nodes above the edits are rebuilt;
    ``known``: the code of its top-level nodes (``fixes.apply_fixes``)."""
    try:
        new_source, new_module, new_code = applied(module, fixes, parents, known)
    except Exception:  # a fix that crashes while applying is a bug: never let it write anything
        return None, False
    # The one check that also decides which fixes are offered (FixRenderer.parses).
    parsed = parse_fixed(new_source, lambda: spliced_parse(module, new_module, new_source, known, new_code))
    if parsed is None:
        return None, False
    if gate is not None and new_source != old and gate(old, new_source) is not None:
        return None, True
    return (new_source, parsed), False
