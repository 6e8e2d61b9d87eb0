"""What a rule sees: the :class:`Rule` base class and the per-file :class:`FileContext`.

A rule is a class with LibCST-style ``visit_<Node>`` / ``leave_<Node>`` methods.
All enabled rules run in one traversal of the tree (see ``engine``). The
context holds the parsed file and its tree facts (parents, order, spans: see
``gradlint.semantic.tree``); everything else a rule asks goes to
``ctx.semantic`` (``gradlint.semantic.SemanticModel``), whose concepts are
each computed the first time a rule asks, so a file whose rules need no name
resolution or flow analysis never pays for it.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Dict, List, Optional, Sequence, Tuple, Type, Union

import libcst as cst
# libcst.metadata (its __init__) imports every metadata provider; the position classes are defined here.
from libcst._position import CodePosition, CodeRange

from gradlint import catalog
from gradlint.fixes import Edit, Fix, ImportSpec, NewNode
from gradlint.options import RuleOptions  # re-exported: rules and tests import it from here
# Re-exported: rules build their gates from here; the prefilter reads them without LibCST.
from gradlint.prefilter import AnyOf, Gate, LowercaseGate, ProjectGate
from gradlint.semantic import SemanticModel
from gradlint.semantic.project import Project
from gradlint.semantic.tree import Tree
from gradlint.traversal import TRIVIA
from gradlint.results import Finding  # re-exported: rules and tests import it from here


class FileContext:
    """One parsed file: its path, source, tree and options, and the lazily built
    semantic model rules share."""

    def __init__(
        self,
        path: str,
        source: str,
        module: cst.Module,
        options: RuleOptions = RuleOptions(),
        defer_fixes: bool = False,
        project: Optional[Project] = None,
        safe_fixes_only: bool = False,
        fixable_only: bool = False,
    ) -> None:
        self.path = path
        self.source = source
        self.module = module
        self.options = options
        # Fixes given to ``Rule.report`` as callables are built only when asked for.
        self.defer_fixes = defer_fixes
        # ``LintSettings.safe_fixes_only``: a fix built as unsafe would be thrown away.
        self.safe_fixes_only = safe_fixes_only
        # ``LintSettings.fixable_only``: a finding without a fix the caller applies is not made.
        self.fixable_only = fixable_only
        # The run's project index (``gradlint.semantic.project``), handed to the semantic model.
        self.project = project
        self.tree = Tree(module)
        self._semantic: Optional[SemanticModel] = None

    @property
    def semantic(self) -> SemanticModel:
        if self._semantic is None:
            self._semantic = SemanticModel(
                self.module, self.source, self.tree, os.path.normpath(self.path) if self.path else "", self.project
            )
            self._semantic.preview = bool(getattr(self.options, "preview", False))
            self._semantic.legacy_code = bool(getattr(self.options, "legacy_code", False))
        return self._semantic

    @property
    def parents(self) -> Dict[int, Optional[cst.CSTNode]]:
        """``id(node) -> parent`` as far as the walk has gone (what ``apply_fixes`` reuses)."""
        return self.tree.parents

    # Tree facts every rule uses, kept at hand.

    def parent(self, node: cst.CSTNode) -> Optional[cst.CSTNode]:
        return self.tree.parent(node)

    def span(self, node: cst.CSTNode) -> Tuple[Tuple[int, int], Tuple[int, int]]:
        return self.tree.span(node)

    def position(self, node: cst.CSTNode) -> CodeRange:
        (line, column), (end_line, end_column) = self.tree.span(node)
        return CodeRange(CodePosition(line, column), CodePosition(end_line, end_column))

    def code_for(self, node: cst.CSTNode) -> str:
        return self.module.code_for_node(node)


Position = Tuple[int, int]


class Later:
    """A message field made only when its finding is (``Rule.report``): one that names
    a line needs the module rendered for positions, which a lint that keeps no
    finding without a fix it applies (``FileContext.fixable_only``) never does."""

    __slots__ = ("make",)

    def __init__(self, make: Callable[[], str]) -> None:
        self.make = make


@dataclass(frozen=True)
class Repaired:
    """Source text a :class:`SourceRepair` made parseable."""

    text: str
    # Where each repair was made, in the source as written: one finding each.
    spans: Tuple[Tuple[Position, Position], ...]
    # A position in ``text`` -> the same place in the source as written.
    position: Callable[[Position], Position]


class SourceRepair:
    """A rewrite of source that no parser accepts into source that one does, for a
    spelling that stopped being Python (a rule registers it as ``source_repair``).

    When a file does not parse, the engine asks each rule's repair in turn,
    whether or not the rule is enabled (how a file is read does not depend on
    the selection): the first that makes it parse decides. The rule's findings
    (where it is enabled) are then the repairs themselves, each with a safe fix
    of no edit of its own (what it changes shows as the difference from the
    source as written), and every other rule checks the repaired text, its
    findings moved back to their places in the source as written (without
    fixes where the rule is not enabled: none could apply without the repair).
    ``--fix`` and ``migrate`` apply all the repairs of a file at once, before
    any other fix.
    """

    # A regular expression that matches wherever ``needed`` is True (the LibCST-free
    # prefilter's test, ``gradlint.prefilter``); None: the rule's triggers are.
    pattern: ClassVar[Optional[str]] = None

    def needed(self, source: str) -> bool:
        """Whether ``source`` holds something to repair: the engine parses a file
        for it (to report it, or why the file does not parse) even where no
        rule's trigger appears."""
        raise NotImplementedError

    def repair(self, source: str) -> Optional[Repaired]:
        """``source`` repaired, or None when there is nothing to repair."""
        raise NotImplementedError

    def hint(self, source: str, line: int) -> str:
        """What the syntax-error finding at ``line`` adds about this repair (``""``: nothing)."""
        return ""


class Rule:
    """Base class of every rule; subclasses live one per module in ``gradlint/rules``.

    ``code`` ties the class to its catalog entry. Two prefilters, both necessary
    conditions for the rule to fire, decide whether it runs on a file at all;
    the engine does not parse a file on which no enabled rule passes both:

    - ``triggers``: substrings of which the file must contain at least one
      (``in``, a fraction of a microsecond per kilobyte);
    - ``gates`` (optional): compiled regular expressions that must each match
      somewhere in the file, tried only when a trigger is present. They say
      what the trigger cannot: ``.data`` *followed by an in-place edit*, a loop
      *and* an accumulation (building blocks in ``gradlint.rules._gates``);
      a ``LowercaseGate`` matches the text in lower case, an ``AnyOf`` where
      any of its patterns does.

    ``tests/test_prefilter.py`` runs every rule with and without them on every
    fixture and catalog example, and requires the same findings.

    ``project_gate`` (optional) passes a file the gates do not, on what the
    other files of the run say about it: called with the source and the run's
    project index (``gradlint.semantic.project``; None when there is none).

    ``source_repair`` (optional): a :class:`SourceRepair`, for a rule whose
    findings are in files that do not parse as written.
    """

    code: ClassVar[str]
    triggers: ClassVar[Tuple[str, ...]]
    gates: ClassVar[Tuple[Gate, ...]] = ()
    project_gate: ClassVar[Optional[ProjectGate]] = None
    source_repair: ClassVar[Optional[SourceRepair]] = None
    _registry: ClassVar[Dict[str, Type["Rule"]]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        code = cls.__dict__.get("code")
        if code is None:
            return
        if code in Rule._registry and Rule._registry[code] is not cls:
            raise TypeError(f"rule code {code} is defined twice")
        if not cls.__dict__.get("triggers"):
            raise TypeError(f"rule {code} must declare its trigger substrings")
        if not (isinstance(cls.gates, tuple) and all(isinstance(g, (re.Pattern, LowercaseGate, AnyOf)) for g in cls.gates)):
            raise TypeError(f"rule {code}: gates must be a tuple of compiled regular expressions")
        for kind in sorted(TRIVIA, key=lambda k: k.__name__):
            for method in (f"visit_{kind.__name__}", f"leave_{kind.__name__}"):
                if hasattr(cls, method):
                    raise TypeError(f"rule {code}: {method}: the engine does not walk whitespace, comments and line ends")
        Rule._registry[code] = cls

    def __init__(self, ctx: FileContext) -> None:
        self.ctx = ctx
        self.doc = catalog.entry(self.code)
        self.findings: List[Finding] = []
        # The preview tier: report also what rests on a guess from names (see ``RuleOptions``).
        self.preview = bool(getattr(ctx.options, "preview", False))

    # -- reporting --------------------------------------------------------

    def report(self, node: cst.CSTNode, *, fix: Union[Fix, None, Callable[[], Optional[Fix]]] = None, **fields: Any) -> None:
        """Report ``node``. ``fix`` may be a callable that builds the fix (or None):
        a rule whose fixes take analysis of their own passes one, so that a lint
        that only shows findings (the language server's) does not build them."""
        deferred = None
        if callable(fix):
            if self.ctx.defer_fixes:
                deferred, fix = fix, None
            else:
                fix = fix()
        if self.ctx.fixable_only and deferred is None and (fix is None or (self.ctx.safe_fixes_only and fix.applicability != "safe")):
            return
        fields = {k: v.make() if type(v) is Later else v for k, v in fields.items()}
        start, end = self.ctx.span(node)
        self.findings.append(
            Finding(
                code=self.code,
                message=self.doc.format_message(**fields),
                start=start,
                end=end,
                fix=fix,
                node=node,
                deferred_fix=deferred,
            )
        )

    # -- building fixes ---------------------------------------------------

    def fix(
        self,
        *edits: Edit,
        title: Optional[str] = None,
        applicability: Optional[str] = None,
        add_imports: Sequence[ImportSpec] = (),
        remove_imports: Sequence[ImportSpec] = (),
        kind: str = "",
        **title_fields: Any,
    ) -> Fix:
        """A fix whose safety and title default to the catalog entry's (``kind``: see ``Fix.kind``)."""
        safety = applicability or self.doc.fix
        # The catalog's word is a promise the fix loop relies on (``engine.fixing_codes``
        # leaves rules out of ``--diff``'s later lints by it): a rule whose entry says
        # "none" builds no fix, one that says "unsafe" no safe fix.
        if safety not in ("safe", "unsafe") or self.doc.fix == "none" or (self.doc.fix == "unsafe" and safety == "safe"):
            raise ValueError(f"{self.code}: catalog says fix = {self.doc.fix!r}, yet the rule builds a {safety} fix")
        return Fix(
            applicability=safety,
            title=title or self.doc.fix_title.format(**title_fields),
            edits=tuple(edits),
            add_imports=tuple(add_imports),
            remove_imports=tuple(remove_imports),
            kind=kind,
        )

    def replace(self, node: cst.CSTNode, new: NewNode, key: Any = None) -> Edit:
        return Edit("replace", node, lambda: self.ctx.span(node), new=new, key=key)

    def transform(self, node: cst.CSTNode, fn: Any, key: Any = None) -> Edit:
        return Edit("transform", node, lambda: self.ctx.span(node), fn=fn, key=key)

    def wrap(self, first: cst.BaseStatement, last: cst.BaseStatement, fn: Any, key: Any = None) -> Edit:
        return Edit("wrap", first, lambda: (self.ctx.span(first)[0], self.ctx.span(last)[1]), fn=fn, last=last, key=key)
