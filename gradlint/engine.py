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
from dataclasses import dataclass, field
from typing import Callable, Dict, FrozenSet, List, Optional, Sequence, Tuple, Type

import libcst as cst

from gradlint import catalog, legacy_syntax, parsing
from gradlint.fixes import Fix, apply_fixes, select_compatible
from gradlint.rule import FileContext, Finding, Rule, RuleOptions
from gradlint.rules import all_rules

PARSE_ERROR = "GL000"
MAX_FIX_ROUNDS = 10

_NOQA_RE = re.compile(
    r"#\s*noqa(?::[\s]?(?P<codes>[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*))?", re.IGNORECASE
)
_FILE_NOQA_RE = re.compile(
    r"#\s*gradlint:\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*))?", re.IGNORECASE
)
_CODE_SPLIT = re.compile(r"[,\s]+")


@dataclass(frozen=True)
class LintSettings:
    codes: FrozenSet[str]
    options: RuleOptions = RuleOptions()
    # False leaves line `# noqa` comments to the caller (flake8 applies its own,
    # and flake8-noqa/yesqa must see the findings they silence).
    line_noqa: bool = True


@dataclass
class LintResult:
    findings: List[Finding]
    # The parsed file, when it was parsed (files no enabled rule could match are not).
    context: Optional[FileContext] = None


@dataclass
class FixResult:
    source: str
    fixed: Counter = field(default_factory=Counter)
    remaining: List[Finding] = field(default_factory=list)
    # Fixes that were dropped because their result did not parse (a gradlint bug).
    problems: List[str] = field(default_factory=list)


class SourceSyntaxError(Exception):
    def __init__(self, line: int, column: int, message: str) -> None:
        super().__init__(message)
        self.line = line
        self.column = column
        self.message = message

    @property
    def detail(self) -> str:
        """What GL000 says."""
        return f"syntax error: {self.message}"


class SourceTooComplex(SourceSyntaxError):
    """Not parsed, valid or not: too large or too deeply nested (see gradlint.parsing)."""

    @property
    def detail(self) -> str:
        return self.message


def parse(source: str) -> cst.Module:
    """Parse ``source`` with LibCST, raising :class:`SourceSyntaxError` with a one-line message."""
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


def _noqa_lines(source: str) -> Dict[int, Optional[FrozenSet[str]]]:
    """``# noqa`` comments by line: None suppresses every code, else the codes listed."""
    out: Dict[int, Optional[FrozenSet[str]]] = {}
    try:
        # newline=None: a lone "\r" ends a line too (rows stay those of the source).
        tokens = list(tokenize.generate_tokens(io.StringIO(source, newline=None).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return out
    for tok in tokens:
        if tok.type != tokenize.COMMENT:
            continue
        m = _NOQA_RE.search(tok.string)
        if m is None:
            continue
        codes = m.group("codes")
        out[tok.start[0]] = frozenset(_CODE_SPLIT.split(codes.upper().strip())) if codes else None
    return out


def _suppressed(finding: Finding, noqa: Dict[int, Optional[FrozenSet[str]]]) -> bool:
    if finding.start[0] not in noqa:
        return False
    codes = noqa[finding.start[0]]
    return codes is None or finding.code in codes


def triggered_rules(source: str, codes: FrozenSet[str]) -> List[Type[Rule]]:
    """The enabled rules that could fire on ``source``, judged by their trigger substrings."""
    rules = all_rules()
    return [rules[c] for c in sorted(codes) if c in rules and any(t in source for t in rules[c].triggers)]


class _Dispatcher(cst.CSTVisitor):
    """Runs many rules in one traversal: each node goes to the rules that visit its type."""

    def __init__(self, rules: Sequence[Rule]) -> None:
        super().__init__()
        self._visit: Dict[str, List[Callable[[cst.CSTNode], object]]] = {}
        self._leave: Dict[str, List[Callable[[cst.CSTNode], object]]] = {}
        for rule in rules:
            for attr in dir(type(rule)):
                if attr.startswith("visit_"):
                    self._visit.setdefault(attr[6:], []).append(getattr(rule, attr))
                elif attr.startswith("leave_"):
                    self._leave.setdefault(attr[6:], []).append(getattr(rule, attr))

    def on_visit(self, node: cst.CSTNode) -> bool:
        for fn in self._visit.get(type(node).__name__, ()):
            fn(node)
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        for fn in self._leave.get(type(original_node).__name__, ()):
            fn(original_node)


def syntax_finding(err: SourceSyntaxError, source: str = "") -> Finding:
    doc = catalog.load()[PARSE_ERROR]
    hint = legacy_syntax.repair_hint(source, err.line) if "async" in source and not isinstance(err, SourceTooComplex) else ""
    return Finding(
        code=PARSE_ERROR,
        message=doc.format_message(detail=f"{err.detail}{hint}"),
        start=(err.line, err.column),
        end=(err.line, err.column),
    )


def lint_source(source: str, path: str, settings: LintSettings) -> LintResult:
    codes = settings.codes
    suppressed = file_noqa(source)
    if suppressed is not None:
        if not suppressed:
            return LintResult([])
        codes = codes - suppressed
    rule_classes = triggered_rules(source, codes)
    # A 0.3-era `x.cuda(async=True)` is a syntax error that ``gradlint migrate`` repairs:
    # worth parsing for, even where no rule's trigger word appears.
    legacy_async = not rule_classes and PARSE_ERROR in codes and bool(legacy_syntax.async_arguments(source))
    if not rule_classes and not legacy_async:
        return LintResult([])
    try:
        module = parse(source)
    except SourceSyntaxError as err:
        return LintResult([syntax_finding(err, source)] if PARSE_ERROR in codes else [])
    if not rule_classes:
        return LintResult([])
    ctx = FileContext(path, source, module, settings.options)
    rules = [cls(ctx) for cls in rule_classes]
    module.visit(_Dispatcher(rules))
    findings = [f for r in rules for f in r.findings]
    if findings and settings.line_noqa and "noqa" in source.lower():
        noqa = _noqa_lines(source)
        findings = [f for f in findings if not _suppressed(f, noqa)]
    findings.sort(key=lambda f: (f.start, f.code, f.end))
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
) -> FixResult:
    """Apply every allowed fix, re-linting after each round until nothing changes.

    ``trusted`` names codes whose unsafe fixes are applied as if they were safe
    (``gradlint migrate`` knows that some rewrites keep behaviour in its setting).
    ``gate`` lets the caller refuse results it cannot write (a notebook refuses
    fixes that change IPython lines or move code across cells); a refused fix
    is left unapplied and its finding remains.
    """
    result = FixResult(source)
    broken: set = set()
    for _ in range(MAX_FIX_ROUNDS):
        lint = lint_source(result.source, path, settings)
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
        new_source, _ = _apply_checked(module, chosen, result.source, gate)
        if new_source is None:
            # Find the culprit(s): apply one at a time, keep the first that works.
            new_source, applied = None, []
            for fix in chosen:
                attempt, refused = _apply_checked(module, [fix], result.source, gate)
                if attempt is None:
                    bad = by_fix[id(fix)]
                    broken.add((bad.code, bad.start, bad.end))
                    if not refused:
                        result.problems.append(
                            f"{bad.code} fix at {bad.start[0]}:{bad.start[1] + 1} produced code that does not parse; not applied"
                        )
                    continue
                new_source, applied = attempt, [fix]
                break
            if new_source is None:
                continue
            chosen = applied
        if new_source == result.source:
            break
        for fix in chosen:
            result.fixed[by_fix[id(fix)].code] += 1
        result.source = new_source
    else:
        result.problems.append(f"fixes did not converge after {MAX_FIX_ROUNDS} rounds")
    result.remaining = lint_source(result.source, path, settings).findings
    return result


def _apply_checked(
    module: cst.Module, fixes: Sequence[Fix], old: str, gate: Optional[FixGate]
) -> Tuple[Optional[str], bool]:
    """(the fixed source or None, whether ``gate`` refused it)."""
    try:
        new_source = apply_fixes(module, fixes)
        parse(new_source)
    except SourceSyntaxError:
        return None, False
    except Exception:  # a fix that crashes while applying is a bug: never let it write anything
        return None, False
    if gate is not None and new_source != old and gate(old, new_source) is not None:
        return None, True
    return new_source, False
