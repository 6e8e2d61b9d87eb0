"""Whether a file needs the engine at all, answered without LibCST or any rule module.

Importing LibCST and the rules costs more CPU than checking most files: a
pre-commit hook or an editor that checks one file that mentions nothing a
rule looks for would spend nearly all its time on imports. This module
answers from ``gradlint.triggers``, a table of each rule's ``triggers``,
``gates``, ``project_gate`` and source repair as data (generated from the rule
classes by ``tests/update_trigger_table.py``; ``tests/test_prefilter_table.py``
fails when it is out of date), so that only a file that passes it loads the
engine.

Its answer is a necessary condition: ``needs_engine`` is True wherever
``engine.lint_source`` could find anything, and may be True where the engine
then finds nothing (a source repair's pattern is looser than its
``needed``; a ``# gradlint: noqa`` comment is not read here). Which rules run
on a file is still decided by the engine, so findings do not depend on it.
"""

from __future__ import annotations

import re
import symtable
import warnings
from typing import TYPE_CHECKING, Any, Dict, FrozenSet, List, Optional, Protocol, Tuple, Union

from gradlint import catalog

if TYPE_CHECKING:
    from gradlint.semantic.project import Project

# Sources beyond what gradlint parses at all (``gradlint.parsing``): generated data, mostly.
MAX_SOURCE_CHARS = 4 << 20


class LowercaseGate:
    """A gate (see ``Rule``) matched against the file's text in lower case, for
    words of any case (``Model(``, ``netG(``): many times faster than
    ``re.IGNORECASE``, which folds the case of every character it tries. Its
    pattern is written in lower case."""

    # The last text lowered, shared by every such gate: one file at a time.
    _last: List[str] = ["", ""]

    def __init__(self, pattern: str) -> None:
        bare = re.sub(r"\\.", "", pattern)  # escapes (\A, \S) aside
        if bare != bare.lower():
            raise ValueError(f"a lowercase gate's pattern must be in lower case: {pattern!r}")
        self.pattern = pattern
        self._regex = re.compile(pattern)

    def search(self, text: str) -> Optional["re.Match[str]"]:
        last = LowercaseGate._last
        if last[0] is not text:
            last[0], last[1] = text, text.lower()
        return self._regex.search(last[1])


class AnyOf:
    """A gate (see ``Rule``) that matches where any of its patterns does, tried in
    order: the same files as their alternation in one pattern, often many times
    faster. Python's ``re`` scans quickly for a pattern that starts with a
    literal, but tries an alternation whose branches do not all start so at
    every position; apart, each branch keeps its own fast start, and the first
    that matches ends the search. The cheapest and likeliest go first."""

    def __init__(self, *patterns: Union["re.Pattern[str]", LowercaseGate]) -> None:
        if not patterns:
            raise ValueError("AnyOf needs at least one pattern")
        self.patterns = patterns
        self.pattern = "|".join(p.pattern for p in patterns)

    def search(self, text: str) -> Optional["re.Match[str]"]:
        for part in self.patterns:
            found = part.search(text)
            if found is not None:
                return found
        return None


Gate = Union["re.Pattern[str]", LowercaseGate, AnyOf]


class ProjectGate(Protocol):
    """A rule's ``project_gate``: whether ``source`` needs the rule on what the run's
    project index (None: none) says about it."""

    def __call__(self, source: str, index: Optional["Project"]) -> bool: ...


class InferenceCalledGate:
    """A project gate (see ``Rule``): whether ``source`` defines a method that
    other files of the run call from inference code (``semantic.project``):
    such a method is checked as inference code though nothing in its own file
    says so; or calls a function that another file's summary shows returns a
    model in eval mode (``model = load_model(cfg)``; ``calls_eval_returning``), or
    a method that a class of the index leaves ``self.<attr>`` in eval mode with
    (``super().prepare_validation()``, ``semantic.ast_eval_methods``)."""

    def __init__(self) -> None:
        self._for: Optional["Project"] = None
        self._defs: Optional["re.Pattern[str]"] = None
        self._calls: Optional["re.Pattern[str]"] = None
        self._bases: Optional["re.Pattern[str]"] = None
        self._inherited: Optional["re.Pattern[str]"] = None

    def __call__(self, source: str, index: Optional["Project"]) -> bool:
        if index is None:
            return False
        self._compile(index)
        return (self._defs is not None and self._defs.search(source) is not None) or self.calls_eval_returning(source, index)

    def calls_eval_returning(self, source: str, index: Optional["Project"]) -> bool:
        """Whether ``source`` may call a function of the index that returns an eval-mode model."""
        if index is None:
            return False
        self._compile(index)
        if self._calls is not None and self._calls.search(source) is not None:
            return True
        # a subclass of a class whose method leaves ``self.<attr>`` in eval mode, calling
        # it (``super().__init__(model)``, ``self.prepare()``): the class named, then the call
        return (
            self._bases is not None and self._inherited is not None
            and self._bases.search(source) is not None and self._inherited.search(source) is not None
        )

    def _compile(self, index: "Project") -> None:
        if self._for is not index:
            names, returning = index.inference_called(), index.eval_returning
            self._for = index
            self._defs = re.compile(r"\bdef\s+(?:" + "|".join(map(re.escape, sorted(names))) + r")\s*\(") if names else None
            self._calls = re.compile(r"\b(?:" + "|".join(map(re.escape, sorted(returning))) + r")\s*\(") if returning else None
            facts = {cls: methods for s in index.summaries.values() for cls, methods in s.get("eval_methods", {}).items()}
            methods_named = {m for methods in facts.values() for m in methods}
            self._bases = re.compile(r"\b(?:" + "|".join(map(re.escape, sorted(facts))) + r")\b") if facts else None
            self._inherited = re.compile(r"\b(?:self|super\(\))\.(?:" + "|".join(map(re.escape, sorted(methods_named))) + r")\s*\(") if methods_named else None


# The project gates the table can name, by the name it gives them.
PROJECT_GATES = {"inference-called": InferenceCalledGate}

# A gate as the table writes it: ("re", pattern, flags), ("lower", pattern) or ("any", (gate, ...)).
GateSpec = Tuple[Any, ...]


def gate_spec(gate: Gate) -> GateSpec:
    """``gate`` as data, for the table."""
    if isinstance(gate, AnyOf):
        return ("any", tuple(gate_spec(p) for p in gate.patterns))
    if isinstance(gate, LowercaseGate):
        return ("lower", gate.pattern)
    if isinstance(gate, re.Pattern):
        return ("re", gate.pattern, gate.flags)
    raise TypeError(f"not a gate: {gate!r}")


def gate_of(spec: GateSpec) -> Gate:
    """The gate ``spec`` writes."""
    kind = spec[0]
    if kind == "any":
        return AnyOf(*(gate_of(s) for s in spec[1]))  # type: ignore[arg-type]
    if kind == "lower":
        return LowercaseGate(spec[1])
    if kind == "re":
        return re.compile(spec[1], spec[2])
    raise ValueError(f"unknown gate kind {kind!r}")


def project_gate_name(gate: Any) -> Optional[str]:
    """The table's name of a rule's ``project_gate`` (ValueError: one it cannot name)."""
    if gate is None:
        return None
    for name, kind in PROJECT_GATES.items():
        if type(gate) is kind:
            return name
    raise ValueError(f"project gate {gate!r} is not one of prefilter.PROJECT_GATES")


class _Rule:
    """One rule of the table, its gates compiled the first time a trigger is seen."""

    def __init__(self, triggers: Tuple[str, ...], gates: Tuple[GateSpec, ...], project_gate: Optional[str], repair: Optional[str]) -> None:
        self.triggers = triggers
        self._gate_specs = gates
        self._gates: Optional[Tuple[Gate, ...]] = None
        self.project_gate = PROJECT_GATES[project_gate]() if project_gate is not None else None
        self.repair: Optional["re.Pattern[str]"] = re.compile(repair) if repair is not None else None

    def fires(self, source: str, index: Optional["Project"]) -> bool:
        """``engine.triggered_rules``' test of this rule."""
        if not any(t in source for t in self.triggers):
            return False
        if self._gates is None:
            self._gates = tuple(gate_of(g) for g in self._gate_specs)
        return all(g.search(source) for g in self._gates) or (self.project_gate is not None and self.project_gate(source, index))


_TABLE: List[Dict[str, _Rule]] = []


def _table() -> Dict[str, _Rule]:
    if not _TABLE:
        from gradlint.triggers import RULES

        _TABLE.append({code: _Rule(*entry) for code, entry in RULES.items()})
    return _TABLE[0]


def firing(source: str, codes: FrozenSet[str], index: Optional["Project"] = None) -> List[str]:
    """The codes of ``codes`` whose rule may fire on ``source`` by the table, in
    code order: the rules the engine imports for it (it then asks each rule's
    own triggers and gates). A code the table lacks (a rule not in the table,
    as in a test) is kept, for the engine to judge."""
    table = _table()
    return sorted(c for c in codes if c not in table or table[c].fires(source, index))


def repairs(source: Optional[str] = None) -> List[str]:
    """The codes of the rules with a source repair, which ``engine`` tries on every
    file that does not parse, whatever rules are enabled, in code order; with
    ``source``, only those whose repair pattern is in it."""
    table = _table()
    return [c for c, rule in sorted(table.items()) if rule.repair is not None and (source is None or rule.repair.search(source))]


def may_parse(source: str, codes: FrozenSet[str], index: Optional["Project"] = None) -> bool:
    """False only where ``engine.needs_parse`` is False: no enabled rule's
    triggers and gates pass, no source repair could be needed, and CPython
    parses ``source`` (a syntax error is reported whatever rules are enabled)."""
    table = _table()
    for code, rule in table.items():
        if code in codes and rule.fires(source, index):
            return True
        if rule.repair is not None and rule.repair.search(source):
            return True
    return not_python(source)


def needs_engine(source: str, codes: FrozenSet[str], index: Optional["Project"] = None, line_noqa: bool = True) -> bool:
    """False only where ``engine.lint_source`` finds nothing in ``source``:
    ``may_parse`` is False and no ``# noqa`` directive is to be judged."""
    if line_noqa and codes & catalog.DIRECTIVE_CODES and "noqa" in source.lower():
        return True
    return may_parse(source, codes, index)


# The last answer of ``not_python``: the scheduler asks of a file, then the
# engine when it checks it in the same process, which asks again.
_NOT_PYTHON_LAST: List[Any] = [None, False]


def not_python(source: str) -> bool:
    """Whether CPython's own parser rejects ``source``, so that it must be parsed
    for the parse-error finding although no rule's trigger word is in it, whatever
    rules are enabled (Ruff too reports every syntax error). CPython's parser with
    its symbol table, and no Python objects for the tree, costs a fifteenth of
    LibCST's parse and a third of ``ast.parse``;
    what it rejects is parsed by LibCST, whose verdict the report is, as it is
    for files with trigger words. Sources beyond what gradlint parses at all
    (``MAX_SOURCE_CHARS``) are not asked about: generated data, mostly."""
    if len(source) > MAX_SOURCE_CHARS:
        return False
    last, answer = _NOT_PYTHON_LAST
    if last is source or last == source:
        return answer
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # SyntaxWarnings (an invalid escape) are not gradlint's to print
            symtable.symtable(source, "<source>", "exec")
        answer = False
    except (SyntaxError, ValueError):  # ValueError: a NUL character
        answer = True
    except (RecursionError, MemoryError):
        answer = False  # unknown: silent, as for any file that is not parsed
    _NOT_PYTHON_LAST[:] = [source, answer]
    return answer
