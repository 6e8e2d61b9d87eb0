"""What scopes and bindings are: the data the scope analysis (``semantic.scopes``)
builds and the reaching-definitions pass (``semantic.reaching``) follows."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, FrozenSet, Iterable, List, Optional, Protocol, Set, Tuple, Union

import libcst as cst

from gradlint.semantic.tree import Tree
from gradlint.traversal import target_names

ScopeNode = Union[cst.Module, cst.ClassDef, cst.FunctionDef, cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp]
COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)
COMPREHENSION_TYPES = frozenset(COMPREHENSIONS)
SCOPE_TYPES = frozenset({cst.FunctionDef, cst.Lambda, cst.ClassDef}) | COMPREHENSION_TYPES
MATCH_BINDERS = tuple(getattr(cst, n) for n in ("MatchAs", "MatchStar", "MatchMapping") if hasattr(cst, n))
_LEAVES: Dict[type, bool] = {}
LEAF_BASES = (
    cst.BaseParenthesizableWhitespace, cst.TrailingWhitespace, cst.EmptyLine, cst.Newline, cst.Comment,
    cst.BaseBinaryOp, cst.BaseBooleanOp, cst.BaseUnaryOp, cst.BaseCompOp, cst.BaseAugOp,
    cst.Comma, cst.Dot, cst.Colon, cst.Semicolon, cst.AssignEqual, cst.LeftParen, cst.RightParen,
    cst.LeftSquareBracket, cst.RightSquareBracket, cst.LeftCurlyBrace, cst.RightCurlyBrace,
)


def is_leaf(kind: type) -> bool:
    """Whitespace, punctuation and operators: nothing under them binds or opens a scope."""
    found = _LEAVES.get(kind)
    if found is None:
        found = _LEAVES[kind] = issubclass(kind, LEAF_BASES)
    return found


BINDING_TYPES = frozenset(
    {cst.Assign, cst.AnnAssign, cst.AugAssign, cst.For, cst.WithItem, cst.ExceptHandler, cst.Import, cst.ImportFrom, cst.Del, cst.NamedExpr}
    | {getattr(cst, "ExceptStarHandler", cst.ExceptHandler)}
    | set(MATCH_BINDERS)
)


@dataclass(frozen=True, eq=False)
class Binding:
    """One way a name gets a value (or loses it) in a scope.

    ``kind`` says what is known of the value: "assign" (``value`` is what the name
    holds), "unpack" (a part of ``value``), "for" (an item of ``value``), "param",
    or "other". ``form`` says which syntax binds: "assign", "unpack", "aug",
    "annotation" (declares the name local, binds nothing), "for", "with",
    "except", "import", "def", "class", "walrus", "match", "param", "del".
    """

    kind: str
    value: Optional[cst.BaseExpression] = None
    node: Optional[cst.CSTNode] = None
    form: str = "other"
    name: Optional[cst.CSTNode] = None  # the Name bound, where there is one

    @property
    def unbinds(self) -> bool:
        return self.form == "del"


# A name unbound on some path (or bound only in an enclosing scope so far).
UNBOUND = Binding("other", form="unbound")

State = Dict[str, FrozenSet[Binding]]
ONLY_UNBOUND: FrozenSet[Binding] = frozenset({UNBOUND})


@dataclass(eq=False)
class Scope:
    node: ScopeNode
    kind: str  # "module" | "class" | "function" | "lambda" | "comprehension"
    parent: Optional["Scope"]
    bindings: Dict[str, List[Binding]] = field(default_factory=dict)
    globals: Set[str] = field(default_factory=set)
    nonlocals: Set[str] = field(default_factory=set)
    children: List["Scope"] = field(default_factory=list)
    # A function body not read yet (see ``Scopes._ensure``).
    pending: Optional[cst.BaseSuite] = None

    def is_local(self, name: str) -> bool:
        return name in self.bindings and name not in self.globals and name not in self.nonlocals

    @property
    def runs_later(self) -> bool:
        """Its body runs when called, not where it is defined."""
        return self.kind in ("function", "lambda")


@dataclass(frozen=True)
class Reaching:
    """What may and what certainly reaches a use of a name in its scope."""

    bindings: Tuple[Binding, ...]  # the bindings of this scope that may hold there
    unbound: bool  # some path reaches the use with no binding of this scope (or after ``del``)

    @property
    def certain(self) -> Optional[Binding]:
        """The one binding that holds on every path, if there is one."""
        if self.unbound or len(self.bindings) != 1:
            return None
        return self.bindings[0]


@dataclass(frozen=True)
class Visible:
    """What a name denotes at run time at some point: the bindings of whichever
    scope it resolves to, and whether it may be unbound there (a ``NameError``,
    or a builtin)."""

    bindings: Tuple[Binding, ...]
    unbound: bool


def all_params(params: cst.Parameters) -> Iterable[cst.Param]:
    yield from params.posonly_params
    yield from params.params
    if isinstance(params.star_arg, cst.Param):
        yield params.star_arg
    yield from params.kwonly_params
    if params.star_kwarg is not None:
        yield params.star_kwarg


def assignment_bindings(
    target: cst.BaseExpression, value: cst.BaseExpression, node: cst.CSTNode
) -> Iterable[Tuple[str, Binding]]:
    """(name, binding) for each name ``target = value`` binds; ``a, b = x, y`` pairs
    the elements up when the lengths match (and nothing is starred)."""
    if isinstance(target, cst.Name):
        yield target.value, Binding("assign", value, node, "assign", target)
        return
    if isinstance(target, (cst.Tuple, cst.List)):
        values = value.elements if isinstance(value, (cst.Tuple, cst.List)) else None
        if values is not None and len(values) == len(target.elements) and not any(
            isinstance(e, cst.StarredElement) for e in (*values, *target.elements)
        ):
            for el, val in zip(target.elements, values):
                if isinstance(el.value, cst.Name):
                    yield el.value.value, Binding("assign", val.value, node, "assign", el.value)
                else:
                    for n in target_names(el.value):
                        yield n.value, Binding("unpack", val.value, node, "unpack", n)
            return
        for n in target_names(target):
            yield n.value, Binding("unpack", value, node, "unpack", n)


class ScopeIndex(Protocol):
    """What the reaching-definitions pass asks of the scope analysis that runs it."""

    tree: Tree
    root: Scope

    def scope(self, node: cst.CSTNode) -> Optional[Scope]: ...

    def enclosing_function(self, scope: Scope) -> Optional[Scope]: ...
