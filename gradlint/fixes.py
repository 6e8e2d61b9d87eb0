"""Fixes as data, and the one place that applies them.

A rule never mutates the tree. It attaches a :class:`Fix` to its finding: a
list of edits on nodes of the *original* tree plus the imports the result
needs. :func:`apply_fixes` applies a non-conflicting set of fixes in one
transformation, so independent fixes compose, and fixes that wrap code
(adding ``with torch.no_grad():`` around a loop, a decorator on a function)
compose with the fixes inside what they wrap.
"""

from __future__ import annotations

import difflib
import functools
import re
from dataclasses import dataclass
from typing import Any, Callable, Dict, Hashable, Iterable, List, Mapping, Optional, Sequence, Set, Tuple, Union

import libcst as cst

from gradlint.results import TextEdit  # re-exported: the type of text_edits' results

# (line, column) pairs as LibCST reports them: 1-based lines, 0-based columns.
Span = Tuple[Tuple[int, int], Tuple[int, int]]
NewNode = Union[cst.CSTNode, cst.RemovalSentinel, cst.FlattenSentinel]


@dataclass(frozen=True)
class ImportSpec:
    """``import module`` (obj None) or ``from module import obj [as asname]``."""

    module: str
    obj: Optional[str] = None
    asname: Optional[str] = None


@dataclass(frozen=True, eq=False)
class Edit:
    """One change to the original tree.

    ``replace`` swaps ``target`` for ``new`` (edits inside ``target`` are lost,
    so they conflict with it); ``transform`` calls ``fn`` on the already
    updated ``target`` (edits inside compose with it); ``wrap`` replaces the
    statements ``target`` .. ``last`` of one block with ``fn(updated_statements)``.
    Two edits with the same non-None ``key`` are the same edit and applied once.
    """

    kind: str
    target: cst.CSTNode
    span: Span
    new: Optional[NewNode] = None
    fn: Optional[Callable[..., Any]] = None
    last: Optional[cst.CSTNode] = None
    key: Optional[Hashable] = None


@dataclass(frozen=True, eq=False)
class Fix:
    applicability: str  # "safe" | "unsafe"
    title: str
    edits: Tuple[Edit, ...]
    add_imports: Tuple[ImportSpec, ...] = ()
    # Removed only if nothing uses the name any more once the edits are applied.
    remove_imports: Tuple[ImportSpec, ...] = ()


# Python source lines end with \r\n, \r or \n only; str.splitlines() would also
# split at form feeds and other separators that LibCST counts as part of a line.
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


def split_lines(text: str) -> List[str]:
    """The lines of ``text`` with their line endings, as Python's tokenizer counts lines."""
    return _LINE.findall(text)


def unified_diff(label: str, old: str, new: str) -> str:
    """A patch turning ``old`` into ``new`` that ``git apply`` takes."""
    return "".join(difflib.unified_diff(split_lines(old), split_lines(new), fromfile=label, tofile=label))


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
    edits: List[Edit] = []
    for fix in fixes:
        if any(_conflict(e, k) for e in fix.edits for k in edits):
            continue
        kept.append(fix)
        edits.extend(fix.edits)
    return kept


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

    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode) -> Any:  # type: ignore[override]
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
    module: cst.Module, fixes: Sequence[Fix], parents: Optional[Mapping[int, Optional[cst.CSTNode]]] = None
) -> str:
    """The source of ``module`` with ``fixes`` applied (they must not conflict).

    ``parents`` (``id(node)`` -> its parent, for every node of ``module``) makes it
    faster: only the nodes above the edits are rebuilt."""
    edits = [e for f in fixes for e in f.edits]
    new_module = module.visit(_Applier(edits, parents)) if edits else module
    adds = {imp for f in fixes for imp in f.add_imports}
    removes = {imp for f in fixes for imp in f.remove_imports}
    if adds or removes:
        new_module = _update_imports(new_module, sorted(adds, key=_imp_key), sorted(removes, key=_imp_key))
    return new_module.code


def _imp_key(imp: ImportSpec) -> Tuple[str, str, str]:
    return (imp.module, imp.obj or "", imp.asname or "")


@functools.lru_cache(maxsize=None)
def _remove_imports_visitor() -> type:
    """LibCST's import remover, extended; built on first use because importing
    ``libcst.codemod`` costs as much as the rest of LibCST."""
    from libcst.codemod import CodemodContext
    from libcst.codemod.visitors import RemoveImportsVisitor

    class _RemoveImports(RemoveImportsVisitor):
        """LibCST's remover, except that the comment lines above an import statement it
        deletes are kept (moved onto the next statement), as deleting only the import
        line would: a fix must not lose a comment that was not about its code."""

        def __init__(self, context: CodemodContext) -> None:
            super().__init__(context)
            self._orphans: List[cst.EmptyLine] = []
            self._adopted: Dict[int, List[cst.EmptyLine]] = {}

        def on_visit(self, node: cst.CSTNode) -> bool:
            if self._orphans and isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
                self._adopted[id(node)] = self._orphans
                self._orphans = []
            return super().on_visit(node)

        def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode) -> Any:  # type: ignore[override]
            result: Any = super().on_leave(original_node, updated_node)
            adopted = self._adopted.pop(id(original_node), [])
            if isinstance(original_node, cst.SimpleStatementLine) and isinstance(result, cst.SimpleStatementLine):
                if original_node.body and not result.body:  # its parent drops it
                    lines = [*adopted, *original_node.leading_lines]
                    if any(line.comment is not None for line in lines):
                        self._orphans.extend(lines)
                    return result
            if adopted and isinstance(result, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
                result = result.with_changes(leading_lines=[*adopted, *result.leading_lines])
            elif isinstance(result, cst.Module) and self._orphans:
                result = result.with_changes(footer=[*self._orphans, *result.footer])
            return result

    return _RemoveImports


def _update_imports(module: cst.Module, adds: Sequence[ImportSpec], removes: Sequence[ImportSpec]) -> cst.Module:
    # libcst.codemod pulls in libcst.matchers: as long to import as the rest of
    # LibCST, and needed only by fixes that change imports.
    from libcst.codemod import CodemodContext
    from libcst.codemod.visitors import AddImportsVisitor, RemoveImportsVisitor

    context = CodemodContext()
    if removes:
        for imp in removes:
            if imp.obj is None:
                RemoveImportsVisitor.remove_unused_import(context, imp.module, asname=imp.asname)
            else:
                RemoveImportsVisitor.remove_unused_import(context, imp.module, imp.obj, imp.asname)
        module = _remove_imports_visitor()(context).transform_module(module)
    if adds:
        for imp in adds:
            AddImportsVisitor.add_needed_import(context, imp.module, imp.obj, imp.asname)
        module = AddImportsVisitor(context).transform_module(module)
    return module


def text_edits(old: str, new: str) -> List[TextEdit]:
    """The smallest text edits turning ``old`` into ``new``, one per changed hunk."""
    old_lines = split_lines(old)
    new_lines = split_lines(new)
    line_starts = [0]
    for line in old_lines:
        line_starts.append(line_starts[-1] + len(line))
    if old_lines and not old_lines[-1].endswith(("\n", "\r")):
        # No line after the last one: its end is a position on it, not on a line past it.
        line_starts.pop()

    def position(offset: int) -> Tuple[int, int]:
        # bisect by hand: the line whose start is the last one <= offset
        lo, hi = 0, len(line_starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if line_starts[mid] <= offset:
                lo = mid
            else:
                hi = mid - 1
        return lo + 1, offset - line_starts[lo] + 1

    edits: List[TextEdit] = []
    matcher = difflib.SequenceMatcher(a=old_lines, b=new_lines, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        a = "".join(old_lines[i1:i2])
        b = "".join(new_lines[j1:j2])
        start = 0
        while start < min(len(a), len(b)) and a[start] == b[start]:
            start += 1
        end_a, end_b = len(a), len(b)
        while end_a > start and end_b > start and a[end_a - 1] == b[end_b - 1]:
            end_a -= 1
            end_b -= 1
        base = line_starts[i1]
        row, col = position(base + start)
        end_row, end_col = position(base + end_a)
        edits.append(TextEdit(b[start:end_b], row, col, end_row, end_col))
    return edits
