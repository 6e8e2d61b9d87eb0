"""Fixes as data, and the one place that applies them.

A rule never mutates the tree. It attaches a :class:`Fix` to its finding: a
list of edits on nodes of the *original* tree plus the imports the result
needs. :func:`apply_fixes` applies a non-conflicting set of fixes in one
transformation, so independent fixes compose, and fixes that wrap code
(adding ``with torch.no_grad():`` around a loop, a decorator on a function)
compose with the fixes inside what they wrap. The imports a fix changes are
changed by ``gradlint.import_changes``; ``gradlint.fix_renderer`` renders each
fix on its own, and ``gradlint.text_diff`` turns texts into edits and diffs.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Generic, Hashable, Iterable, List, Mapping, Optional, Sequence, Set, Tuple, TypeVar, Union

import libcst as cst

from gradlint import parsing
from gradlint.fix import Edit, Fix, ImportSpec, NewNode, Span  # noqa: F401  (re-exported: rules build fixes from here)
from gradlint.import_changes import _imp_key, _update_imports, known_code, module_code


def _contains(outer: Span, inner: Span) -> bool:
    return outer[0] <= inner[0] and inner[1] <= outer[1]


def _conflict(a: Edit, b: Edit) -> bool:
    if a.key is not None and a.key == b.key:
        return False
    (sa, ea), (sb, eb) = a.span, b.span
    if ea <= sb or eb <= sa:
        return False
    if a.kind == "wrap" and b.kind == "wrap":
        return True
    if _contains(a.span, b.span):
        return a.kind == "replace"
    if _contains(b.span, a.span):
        return b.kind == "replace"
    return True


def select_compatible(fixes: Iterable[Fix]) -> List[Fix]:
    """Greedily keep, in the given order, the fixes that conflict with none kept so far.

    The ones left out are retried by the caller on the re-linted result.
    """
    kept: List[Fix] = []
    edits: _SpanIndex[Edit] = _SpanIndex()
    for fix in fixes:
        if any(_conflict(e, k) for e in fix.edits for k in edits.meeting(e.span)):
            continue
        kept.append(fix)
        for e in fix.edits:
            # An edit several fixes share (a decorator on their function) is entered once:
            # entered per fix, a long function's lines would each hold one per fix.
            edits.add(e.span, e, None if e.key is None else (e.key, e.span, e.kind))
    return kept


_T = TypeVar("_T")


class _SpanIndex(Generic[_T]):
    """Items by the lines their spans cover: what may overlap a span is looked up
    among those on its lines, not among all (a file's fixes, checked against one
    another, cost their number squared)."""

    def __init__(self) -> None:
        self._by_line: Dict[int, List[Tuple[Span, _T]]] = {}
        self._entered: Set[Hashable] = set()

    def add(self, span: Span, item: _T, same: Optional[Hashable] = None) -> None:
        """Enter ``item``; not if an item entered before was given the same ``same``."""
        if same is not None:
            if same in self._entered:
                return
            self._entered.add(same)
        entry = (span, item)
        for line in range(span[0][0], span[1][0] + 1):
            self._by_line.setdefault(line, []).append(entry)

    def meeting(self, span: Span) -> List[_T]:
        """The items whose spans overlap ``span`` (neither ends where the other starts
        or before), in no particular order, each once."""
        seen: Set[int] = set()
        out: List[_T] = []
        for line in range(span[0][0], span[1][0] + 1):
            for other, item in self._by_line.get(line, ()):
                if span[0] < other[1] and other[0] < span[1] and id(item) not in seen:
                    seen.add(id(item))
                    out.append(item)
        return out


class _Applier(cst.CSTTransformer):
    def __init__(self, edits: Sequence[Edit], parents: Optional[Mapping[int, Optional[cst.CSTNode]]] = None) -> None:
        super().__init__()
        # With the tree's parents, only the nodes above an edit are entered: a
        # transformer that enters every node rebuilds the whole tree per fix.
        self._enter = _above(edits, parents) if parents is not None else None
        self._replace: Dict[int, NewNode] = {}
        self._transforms: Dict[int, List[Callable[..., Any]]] = {}
        self._wraps: Dict[int, Edit] = {}
        self._stmt_results: Dict[int, NewNode] = {}
        seen = set()
        for edit in edits:
            if edit.key is not None:
                if edit.key in seen:
                    continue
                seen.add(edit.key)
            nid = id(edit.target)
            if edit.kind == "replace":
                assert edit.new is not None
                self._replace[nid] = edit.new
            elif edit.kind == "transform":
                assert edit.fn is not None
                self._transforms.setdefault(nid, []).append(edit.fn)
            elif edit.kind == "wrap":
                self._wraps[nid] = edit
            else:  # pragma: no cover - programming error
                raise ValueError(f"unknown edit kind {edit.kind!r}")
        # Keep the targets alive so that their id()s cannot be reused mid-run.
        self._targets = [e.target for e in edits]

    def on_visit(self, node: cst.CSTNode) -> bool:
        return self._enter is None or id(node) in self._enter

    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode) -> Any:
        result: Any = super().on_leave(original_node, updated_node)
        nid = id(original_node)
        if nid in self._replace:
            result = self._replace[nid]
        else:
            for fn in self._transforms.get(nid, ()):
                result = fn(result)
        if self._wraps and isinstance(original_node, (cst.Module, cst.IndentedBlock)):
            result = self._apply_wraps(original_node, result)
        if isinstance(original_node, cst.BaseStatement):
            self._stmt_results[nid] = result
        return result

    def _apply_wraps(self, original: Union[cst.Module, cst.IndentedBlock], updated: Any) -> Any:
        if not any(id(s) in self._wraps for s in original.body):
            return updated
        body: List[cst.BaseStatement] = []
        pending: Optional[Tuple[Edit, List[NewNode]]] = None
        for stmt in original.body:
            res = self._stmt_results.get(id(stmt), stmt)
            if pending is None and id(stmt) in self._wraps:
                pending = (self._wraps[id(stmt)], [])
            if pending is not None:
                pending[1].append(res)
                if stmt is pending[0].last:
                    edit, collected = pending
                    assert edit.fn is not None
                    body.append(edit.fn(_flatten(collected)))
                    pending = None
                continue
            body.extend(_flatten([res]))
        if pending is not None:  # pragma: no cover - a wrap whose last statement is not in this block
            raise ValueError("wrap range does not end in its block")
        return updated.with_changes(body=body)


def _above(edits: Sequence[Edit], parents: Mapping[int, Optional[cst.CSTNode]]) -> Optional[Set[int]]:
    """id() of every node an edit targets and of every node above them, or None
    (enter every node) if some target's line of parents is not known."""
    found: Set[int] = set()
    for edit in edits:
        for node in (edit.target, edit.last):
            cur: Optional[cst.CSTNode] = node
            while cur is not None and id(cur) not in found:
                if id(cur) not in parents:
                    return None
                found.add(id(cur))
                cur = parents[id(cur)]
    return found


def _flatten(results: Iterable[Any]) -> List[cst.BaseStatement]:
    out: List[cst.BaseStatement] = []
    for res in results:
        if isinstance(res, cst.RemovalSentinel):
            continue
        if isinstance(res, cst.FlattenSentinel):
            out.extend(res.nodes)
        else:
            out.append(res)
    return out


def apply_fixes(
    module: cst.Module,
    fixes: Sequence[Fix],
    parents: Optional[Mapping[int, Optional[cst.CSTNode]]] = None,
    known: Optional[Dict[int, Tuple[cst.CSTNode, str]]] = None,
) -> str:
    """The source of ``module`` with ``fixes`` applied (they must not conflict).

    ``parents`` (``id(node)`` -> its parent, for every node of ``module``) makes it
    faster: only the nodes above the edits are rebuilt. So does ``known``, the code
    of the nodes of ``module``'s header, body and footer (``Tree.top_level_code``):
    the module with the fixes is rendered (for the import changes, and at the end)
    from the code of the top-level statements the fixes leave alone and that of the
    others alone."""
    return applied(module, fixes, parents, known)[0]


def applied(
    module: cst.Module,
    fixes: Sequence[Fix],
    parents: Optional[Mapping[int, Optional[cst.CSTNode]]] = None,
    known: Optional[Dict[int, Tuple[cst.CSTNode, str]]] = None,
) -> Tuple[str, cst.Module, Optional[Dict[int, Tuple[cst.CSTNode, str]]]]:
    """``apply_fixes``, with the fixed module (its unchanged top-level nodes are
    ``module``'s) and, with ``known``, the code of each of its top-level nodes."""
    edits = [e for f in fixes for e in f.edits]
    with known_code(module, known) as codes:
        new_module = module.visit(_Applier(edits, parents)) if edits else module
        adds = _union(f.add_imports for f in fixes)
        removes = _union(f.remove_imports for f in fixes)
        if adds or removes:
            new_module = _update_imports(new_module, sorted(adds, key=_imp_key), sorted(removes, key=_imp_key))
        return module_code(new_module), new_module, codes


def _union(groups: Iterable[Tuple[ImportSpec, ...]]) -> Set[ImportSpec]:
    """Every import of ``groups``, each group object read once: the fixes of one rule
    in a file share one (``Names.imports_of``: every import of the name), and hashing
    an ``ImportSpec`` is a Python call."""
    seen: Set[int] = set()
    out: Set[ImportSpec] = set()
    for group in groups:
        if id(group) not in seen:
            seen.add(id(group))
            out.update(group)
    return out


def parse_fixed(text: str, spliced: Optional[Callable[[], Optional[cst.Module]]] = None) -> Optional[cst.Module]:
    """The check every fix passes before it is written (``--fix``, ``--diff``) or
    offered (``[*]``, the fixable counts, JSON and SARIF edits, an editor's quick
    fix): its result parses, with the bounds gradlint parses any file within. The
    parsed module, or None. ``spliced``: the same parse made from the rebuilt
    top-level statements alone (``reparse.spliced_parse``), or None where it cannot
    tell; the whole text is parsed then."""
    if spliced is not None:
        found = spliced()
        if found is not None:
            return found
    try:
        return parsing.parse_module(text)
    except (parsing.NotParsed, cst.ParserSyntaxError, RecursionError, MemoryError):
        return None
