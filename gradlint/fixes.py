"""Fixes as data, and the one place that applies them.

A rule never mutates the tree. It attaches a :class:`Fix` to its finding: a
list of edits on nodes of the *original* tree plus the imports the result
needs. :func:`apply_fixes` applies a non-conflicting set of fixes in one
transformation, so independent fixes compose, and fixes that wrap code
(adding ``with torch.no_grad():`` around a loop, a decorator on a function)
compose with the fixes inside what they wrap.
"""

from __future__ import annotations

import bisect
import contextlib
import difflib
import functools
import re
from typing import Any, Callable, Dict, Generic, Hashable, Iterable, Iterator, List, Mapping, Optional, Sequence, Set, Tuple, TypeVar, Union

import libcst as cst

from gradlint import parsing
from gradlint.parsing import split_lines  # re-exported: reporters, the server and notebooks split with it
from gradlint.results import TextEdit  # re-exported: the type of text_edits' results

from gradlint.fix import Edit, Fix, ImportSpec, NewNode, Span  # re-exported: rules build fixes from here


def unified_diff(label: str, old: str, new: str, context: int = 3) -> str:
    """A patch turning ``old`` into ``new`` that ``git apply`` takes: a hunk per
    change (with ``context`` lines around it; changes that close share one)."""
    a, b = split_lines(old), split_lines(new)
    groups = list(_Opcodes(a, b).get_grouped_opcodes(context))
    if not groups or groups == [[("equal", 0, len(a), 0, len(b))]] or not a and not b:
        return ""
    out = [f"--- {label}\n", f"+++ {label}\n"]
    for group in groups:
        i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        out.append(f"@@ -{_hunk_range(i1, i2)} +{_hunk_range(j1, j2)} @@\n")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out += [_diff_line(" ", line) for line in a[i1:i2]]
                continue
            out += [_diff_line("-", line) for line in a[i1:i2]]
            out += [_diff_line("+", line) for line in b[j1:j2]]
    return "".join(out)


def _hunk_range(start: int, stop: int) -> str:
    # As difflib writes it: 1-based start, the length if not 1 (an empty range
    # starts at the line before it).
    length = stop - start
    first = start + 1 if length else start
    return str(first) if length == 1 else f"{first},{length}"


def _diff_line(mark: str, line: str) -> str:
    return mark + line if line.endswith(("\n", "\r")) else f"{mark}{line}\n\\ No newline at end of file\n"


# Below this many line pairs, a stretch between anchors is matched by difflib itself.
_SMALL_GAP = 40_000


def line_opcodes(a: Sequence[str], b: Sequence[str]) -> List[Tuple[str, int, int, int, int]]:
    """difflib's opcodes turning lines ``a`` into ``b``, found as patience diff finds
    them: the common start and end, then the lines found once in each side, in
    order, as anchors, recursively between them; difflib (without its junk
    heuristic, which on a long file calls its blank lines junk and answers with one
    hunk for the whole file) only in the small stretches left. Linear in the
    length of the texts where changes are few, as fixes are."""
    ops: List[Tuple[str, int, int, int, int]] = []
    _match(a, b, 0, len(a), 0, len(b), ops)
    merged: List[Tuple[str, int, int, int, int]] = []
    for op in ops:
        if op[1] == op[2] and op[3] == op[4]:
            continue
        if merged and merged[-1][0] == op[0] or merged and merged[-1][0] != "equal" and op[0] != "equal":
            tag = op[0] if merged[-1][0] == op[0] else "replace"
            prev = merged[-1]
            merged[-1] = (tag, prev[1], op[2], prev[3], op[4])
        else:
            merged.append(op)
    return [_tagged(op) for op in merged]


def _tagged(op: Tuple[str, int, int, int, int]) -> Tuple[str, int, int, int, int]:
    tag, i1, i2, j1, j2 = op
    if tag == "equal":
        return op
    return ("delete" if j1 == j2 else "insert" if i1 == i2 else "replace", i1, i2, j1, j2)


def _match(a: Sequence[str], b: Sequence[str], alo: int, ahi: int, blo: int, bhi: int, ops: List[Tuple[str, int, int, int, int]]) -> None:
    start_a, start_b = alo, blo
    while alo < ahi and blo < bhi and a[alo] == b[blo]:
        alo += 1
        blo += 1
    tail = 0
    while ahi - tail > alo and bhi - tail > blo and a[ahi - tail - 1] == b[bhi - tail - 1]:
        tail += 1
    ops.append(("equal", start_a, alo, start_b, blo))
    end_a, end_b = ahi, bhi
    ahi, bhi = ahi - tail, bhi - tail
    if alo == ahi or blo == bhi:
        ops.append(("replace", alo, ahi, blo, bhi))
    else:
        anchors = _anchors(a, b, alo, ahi, blo, bhi)
        if anchors:
            i, j = alo, blo
            for ai, bj in anchors:
                _match(a, b, i, ai, j, bj, ops)
                ops.append(("equal", ai, ai + 1, bj, bj + 1))
                i, j = ai + 1, bj + 1
            _match(a, b, i, ahi, j, bhi, ops)
        elif (ahi - alo) * (bhi - blo) <= _SMALL_GAP:
            matcher = difflib.SequenceMatcher(None, a[alo:ahi], b[blo:bhi], autojunk=False)
            for tag, i1, i2, j1, j2 in matcher.get_opcodes():
                ops.append((tag, alo + i1, alo + i2, blo + j1, blo + j2))
        else:
            ops.append(("replace", alo, ahi, blo, bhi))
    ops.append(("equal", ahi, end_a, bhi, end_b))


def _anchors(a: Sequence[str], b: Sequence[str], alo: int, ahi: int, blo: int, bhi: int) -> List[Tuple[int, int]]:
    """The longest run, in order on both sides, of lines found exactly once on each;
    where there is none (a file of repeated blocks), of lines found as many times on
    each side, the k-th on one paired with the k-th on the other."""
    count_a: Dict[str, int] = {}
    for i in range(alo, ahi):
        count_a[a[i]] = count_a.get(a[i], 0) + 1
    where_b: Dict[str, List[int]] = {}
    for j in range(blo, bhi):
        where_b.setdefault(b[j], []).append(j)
    pairs = [(i, where_b[a[i]][0]) for i in range(alo, ahi) if count_a[a[i]] == 1 and len(where_b.get(a[i], ())) == 1]
    if not pairs:
        seen: Dict[str, int] = {}
        for i in range(alo, ahi):
            found = where_b.get(a[i])
            if found is not None and len(found) == count_a[a[i]]:
                k = seen.get(a[i], 0)
                seen[a[i]] = k + 1
                pairs.append((i, found[k]))
    if not pairs:
        return []
    # Longest increasing run of b positions (patience sorting).
    tops: List[int] = []
    top_index: List[int] = []
    back: List[int] = [-1] * len(pairs)
    for k, (_, j) in enumerate(pairs):
        at = bisect.bisect_left(tops, j)
        if at == len(tops):
            tops.append(j)
            top_index.append(k)
        else:
            tops[at] = j
            top_index[at] = k
        back[k] = top_index[at - 1] if at else -1
    out: List[Tuple[int, int]] = []
    k = top_index[-1]
    while k >= 0:
        out.append(pairs[k])
        k = back[k]
    out.reverse()
    return out


class _Opcodes(difflib.SequenceMatcher):
    """difflib's grouping of opcodes into hunks, over :func:`line_opcodes`."""

    def __init__(self, a: Sequence[str], b: Sequence[str]) -> None:
        self.a, self.b = a, b
        self._ops = line_opcodes(a, b)

    def get_opcodes(self) -> List[Tuple[str, int, int, int, int]]:  # type: ignore[override]
        return list(self._ops)


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
    return _code(new_module)


# The last module rendered, and its text: the import changes read the text of the
# module they change several times over (each a rendering of the whole module),
# and mostly return that module itself. A module never changes, and this keeps it
# alive, so its identity stands for its text.
_LAST_CODE: List[Optional[Tuple[cst.Module, str]]] = [None]


def _code(module: cst.Module) -> str:
    last = _LAST_CODE[0]  # one tuple, swapped whole: safe across threads
    if last is not None and last[0] is module:
        return last[1]
    code = module.code
    _LAST_CODE[0] = (module, code)
    return code


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

        def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode) -> Any:
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


# Visitor classes of LibCST's codemods found to have no matcher-decorated methods,
# per question LibCST asks of each new visitor (see _quick_matcher_visitors).
_UNDECORATED: Dict[str, Set[type]] = {}


@contextlib.contextmanager
def _quick_matcher_visitors() -> Iterator[None]:
    """LibCST's codemods, without most of their set-up cost.

    Each visitor a codemod creates looks for matcher-decorated methods on itself,
    three times over, with ``getattr`` on every name ``dir()`` lists: some 5 ms a
    visitor, most of the cost of changing the imports of a small module. What it
    finds depends on the class alone (its methods), so a class found to have none
    is not searched again. Off again on leaving; left alone if LibCST's matchers
    are not built the way this expects."""
    try:
        from libcst.matchers import _visitors as mv

        saved = {name: getattr(mv, name) for name in _GATHERERS}
    except (ImportError, AttributeError):
        yield
        return

    def quick(name: str) -> Callable[[object], Dict[Any, Any]]:
        gather = saved[name]
        known = _UNDECORATED.setdefault(name, set())

        def gathered(obj: object) -> Dict[Any, Any]:
            if type(obj) in known:
                return {}
            found = gather(obj)
            if not found:
                known.add(type(obj))
            return found

        return gathered

    for name in _GATHERERS:
        setattr(mv, name, quick(name))
    try:
        yield
    finally:
        for name, gather in saved.items():
            setattr(mv, name, gather)


_GATHERERS = ("_gather_matchers", "_gather_constructed_visit_funcs", "_gather_constructed_leave_funcs")


def preload_import_changes() -> None:
    """Import what changing a module's imports needs (``libcst.codemod``, a third of a
    second). For a parent process about to fork workers that render or apply fixes:
    imported once there, not once in each worker that meets a fix adding or removing
    an import."""
    import libcst.codemod.visitors  # noqa: F401


def _update_imports(module: cst.Module, adds: Sequence[ImportSpec], removes: Sequence[ImportSpec]) -> cst.Module:
    """LibCST's import codemods on ``module``: on its head alone where that gives the
    same module (see :func:`_import_head`), which spares them a walk of every node
    of the module, and a scope analysis of all of it, on every application. The
    changes fixes make most are made without the codemods (:func:`_update_imports_quick`)."""
    quick = _update_imports_quick(module, adds, removes)
    if quick is not None:
        return quick
    with _quick_matcher_visitors():
        found = _import_head(module, removes)
        if found is None:
            read = _read_as_globals(_code(module), removes)
            if read:
                removes = [imp for imp in removes if imp not in read]
                if not removes:
                    return _update_imports(module, adds, []) if adds else module
            sparse = _import_statements(module, removes)
            if sparse is None:
                return _update_imports_now(module, adds, removes)
            return _update_imports_sparse(module, sparse, adds, removes)
        k, removes = found
        if not adds and not removes:
            return module
        head = _update_imports_now(module.with_changes(body=module.body[:k], footer=()), adds, removes)
        return module.with_changes(header=head.header, body=[*head.body, *module.body[k:]])


def _import_head(module: cst.Module, removes: Sequence[ImportSpec]) -> Optional[Tuple[int, List[ImportSpec]]]:
    """(how many statements of ``module`` the import codemods need to see to change it
    as they would change all of it, the imports left to remove), or None if that is
    the whole module or not shown.

    The adder looks only at the imports at the top of the module and the statement
    after them. The remover takes out an import whose name nothing reads, moving its
    comments onto the next statement. An import whose name is read as a name
    elsewhere is left (kept, as the remover keeps it, unless a local of that name
    hides it: then an unused import stays, which changes nothing). The others, each
    in a top-level statement and spelled nowhere else but in comments, need the head
    up to the statement after the last of them. A name in a string (an annotation
    the remover counts as a read) or ``__all__`` (whose names it keeps): not shown."""
    body = module.body
    top = 0
    while top < len(body) and _is_top_import_or_docstring(body[top], top):
        top += 1
    k = top + 1
    left: List[ImportSpec] = []
    if removes:
        code = _code(module)
        if "__all__" in code:
            return None
        names = _name_reads(code)
        if names is None:
            return None
        reads, strings = names
        holders: Set[int] = set()
        for imp in removes:
            if imp.obj is None and imp.asname is None and "." in imp.module:
                return None
            name = imp.asname or imp.obj or imp.module
            if re.search(rf"(?<!\w){re.escape(name)}(?!\w)", strings):
                return None
            found = [i for i, stmt in enumerate(body) if _binds(stmt, name)]
            if not found:
                return None
            in_holders = 0
            for i in found:
                counted = _name_reads(module.code_for_node(body[i]))
                if counted is None:
                    return None
                in_holders += counted[0].get(name, 0)
            if reads.get(name, 0) > in_holders:
                continue  # read elsewhere: kept
            left.append(imp)
            holders.update(found)
        if holders:
            k = max(k, max(holders) + 2)
            while k - 1 in holders:
                k += 1
    return (k, left) if k < len(body) else None


def _read_as_globals(code: str, removes: Sequence[ImportSpec]) -> Set[ImportSpec]:
    """The imports of ``removes`` that the remover would keep because Python reads their
    name as the module's own (at module level, or in a function or class where it is not
    bound): Python's symbol table says so without LibCST's scope analysis of the module.
    Only for a name imported at module level and nowhere deeper (the remover looks at
    each import in its own scope), and not where ``del`` or postponed annotations are
    about (the two tell reads differently)."""
    import symtable

    names: Dict[str, List[ImportSpec]] = {}
    for imp in removes:
        if imp.obj is not None or imp.asname is not None:
            names.setdefault(imp.asname or imp.obj or "", []).append(imp)
    if not names or re.search(r"(?<!\w)del(?!\w)", code) or _postponed_annotations(code):
        return set()
    try:
        top = symtable.symtable(code, "<fixed>", "exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return set()
    imported = {name for name in names if name in top.get_identifiers() and top.lookup(name).is_imported()}
    read = {name for name in imported if top.lookup(name).is_referenced()}
    nested: Set[str] = set()
    tables = list(top.get_children())
    while tables:
        table = tables.pop()
        tables.extend(table.get_children())
        for name in imported:
            if name not in table.get_identifiers():
                continue
            symbol = table.lookup(name)
            if symbol.is_imported():
                nested.add(name)
            elif symbol.is_referenced() and symbol.is_global() and not symbol.is_declared_global():
                read.add(name)
    return {imp for name in read - nested for imp in names[name]}


def _postponed_annotations(code: str) -> bool:
    """Whether ``code`` may import ``annotations`` from ``__future__``. The other
    features (``print_function``, ``division``, ...) change no name's scope, and
    legacy code imports them often: a file made of many such modules would
    otherwise always pay the remover's scope analysis."""
    return "__future__" in code and re.search(r"(?<!\w)annotations(?!\w)", code) is not None


def _import_statements(module: cst.Module, removes: Sequence[ImportSpec]) -> Optional[List[int]]:
    """The top-level statements of ``module`` that LibCST's import codemods must see to
    change it as they would change all of it, by index; None if that is not shown or
    is every statement.

    The adder needs the head (see :func:`_import_head`). What the remover decides for
    an import depends only on the statements that spell its name: the scope analysis
    binds and resolves a name only where it is written (a star import binds nothing),
    and every scope is inside one top-level statement. A statement it empties hands its
    comments to the statement after it, which is kept too. Names in strings (string
    annotations, ``cast("T", x)``, which the remover reads through other imports) and
    ``__all__`` are not shown."""
    if not removes:
        return None
    body = module.body
    code = _code(module)
    if "__all__" in code:
        return None
    names = _name_reads(code)
    if names is None:
        return None
    words: Set[str] = set()
    for imp in removes:
        words.update(w for w in (imp.obj, imp.asname) if w)
        if imp.obj is None and imp.asname is None:
            words.add(imp.module.split(".")[0])
    spelled = _words(words)
    if spelled.search(names[1]) or "\\" in names[1]:
        # A string annotation, or an argument of ``TypeVar``, may count as a read: the
        # statements that say which names are ``typing``'s are needed too. A string with
        # escapes may say the name without spelling it: not shown.
        if any(spelled.search(_string_value(s)) and not spelled.search(s) for s in _strings(code)):
            return None
        spelled = _words(words | _TYPING_WORDS)
    top = 0
    while top < len(body) and _is_top_import_or_docstring(body[top], top):
        top += 1
    keep = set(range(min(top + 1, len(body))))
    for i, stmt in enumerate(body):
        if spelled.search(module.code_for_node(stmt)):
            keep.add(i)
            if i + 1 < len(body):
                keep.add(i + 1)
    if len(keep) == len(body):
        return None
    return sorted(keep)


# What LibCST's remover asks of names to find the strings it reads as annotations
# (``typing.TypeVar`` arguments, ``typing.Literal`` subscripts it skips).
_TYPING_WORDS = frozenset({"typing", "typing_extensions", "TypeVar", "Literal"})


def _words(words: Iterable[str]) -> "re.Pattern[str]":
    return re.compile(r"(?<!\w)(?:" + "|".join(re.escape(w) for w in sorted(words)) + r")(?!\w)")


def _strings(code: str) -> List[str]:
    import io
    import tokenize

    return [tok.string for tok in tokenize.generate_tokens(io.StringIO(code).readline) if tok.type == tokenize.STRING]


def _string_value(token: str) -> str:
    import ast

    try:
        value = ast.literal_eval(token)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return token
    return value if isinstance(value, str) else token


def _update_imports_sparse(
    module: cst.Module, keep: Sequence[int], adds: Sequence[ImportSpec], removes: Sequence[ImportSpec]
) -> cst.Module:
    """``_update_imports_now`` on the statements ``keep`` of ``module`` alone, each run
    of the others standing in as one marker statement (a name no import spells, in a
    statement no removal can empty), put back in place afterwards."""
    body = module.body
    runs: Dict[str, List[cst.BaseStatement]] = {}
    sparse: List[cst.BaseStatement] = []
    kept = set(keep)
    tag = f"__gradlint_statements_{id(module):x}_"
    for i, stmt in enumerate(body):
        if i in kept:
            sparse.append(stmt)
            continue
        if i == 0 or i - 1 in kept:
            name = f"{tag}{len(runs)}"
            runs[name] = []
            sparse.append(cst.SimpleStatementLine([cst.Expr(cst.Name(name))]))
        runs[name].append(stmt)
    changed = _update_imports_now(module.with_changes(body=sparse), adds, removes)
    out: List[cst.BaseStatement] = []
    for stmt in changed.body:
        marker = _marker(stmt)
        if marker is not None and marker in runs:
            out.extend(runs.pop(marker))
        else:
            out.append(stmt)
    if runs:  # a marker lost: not what the codemods do, but never write a module missing code
        return _update_imports_now(module, adds, removes)
    return module.with_changes(header=changed.header, body=out, footer=changed.footer)


def _marker(stmt: cst.BaseStatement) -> Optional[str]:
    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1:
        small = stmt.body[0]
        if isinstance(small, cst.Expr) and isinstance(small.value, cst.Name):
            return small.value.value
    return None


@functools.lru_cache(maxsize=8)
def _name_reads(code: str) -> Optional[Tuple[Dict[str, int], str]]:
    """(how many times each name is spelled as a name, not after a dot; the text of
    every string) in ``code``, or None if it does not tokenize."""
    import io
    import tokenize

    counts: Dict[str, int] = {}
    strings: List[str] = []
    prev = ""
    try:
        for tok in tokenize.generate_tokens(io.StringIO(code).readline):
            if tok.type == tokenize.NAME and prev != ".":
                counts[tok.string] = counts.get(tok.string, 0) + 1
            elif tok.type == tokenize.STRING or tok.type == getattr(tokenize, "FSTRING_MIDDLE", -1):
                strings.append(tok.string)
            if tok.type not in (tokenize.NL, tokenize.COMMENT):
                prev = tok.string
    except (tokenize.TokenError, SyntaxError):
        return None
    return counts, "\n".join(strings)


def _binds(stmt: cst.BaseStatement, name: str) -> bool:
    """Whether ``stmt`` is an import line binding ``name``."""
    if not isinstance(stmt, cst.SimpleStatementLine):
        return False
    for small in stmt.body:
        if isinstance(small, (cst.Import, cst.ImportFrom)) and not isinstance(small.names, cst.ImportStar):
            for alias in small.names:
                bound = alias.evaluated_alias or alias.evaluated_name
                if bound.split(".")[0] == name:
                    return True
    return False


def _update_imports_now(module: cst.Module, adds: Sequence[ImportSpec], removes: Sequence[ImportSpec]) -> cst.Module:
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


def _plain(imp: ImportSpec) -> bool:
    return imp.obj is None and imp.asname is None


def _update_imports_quick(module: cst.Module, adds: Sequence[ImportSpec], removes: Sequence[ImportSpec]) -> Optional[cst.Module]:
    """What :func:`_update_imports_now` makes of ``module``, for the import changes fixes
    make most (removing a one-name import line nothing else names, adding ``import X``),
    built without LibCST's codemods; None for any other change.

    Importing ``libcst.codemod`` (``libcst.matchers`` with it) costs more CPU than
    rendering every fix of a file: a process rendering edits (JSON, SARIF, ``full``)
    paid it on the first fix that changed an import. The removal and the addition here
    follow those codemods step by step (tests/test_fix_renderer.py compares the two)."""
    if any(not _plain(imp) for imp in adds):
        return None
    for imp in removes:
        module = _remove_import_quick(module, imp)  # type: ignore[assignment]
        if module is None:
            return None
    return _add_imports_quick(module, [imp.module for imp in adds]) if adds else module


def _remove_import_quick(module: cst.Module, imp: ImportSpec) -> Optional[cst.Module]:
    """``RemoveImportsVisitor`` (as ``_remove_imports_visitor`` extends it) removing ``imp``,
    where it provably removes a whole top-level line: the one statement of that line
    imports exactly ``imp``, and its name is spelled nowhere else in the module (so no
    reference, string annotation or ``__all__`` entry keeps it, and no other import
    statement matches). The line's comment lines above it, if any is a comment, stay
    (they go to the next statement, or the footer), as the extended remover keeps them."""
    if _plain(imp) and "." in imp.module:
        return None  # `import a.b` binds `a`: LibCST checks every dotted prefix
    name = imp.asname or imp.obj or imp.module
    code = _code(module)
    if "__all__" in code or _ESCAPE.search(code):
        return None  # an escape in a string annotation could spell the name unseen
    # After a dot, a name is an attribute or part of a module's name, never a read of
    # it (a string annotation's `a.name` counts as `a.name` and `a`, not `name`).
    spelled = re.compile(rf"(?<![\w.]){re.escape(name)}(?!\w)")
    body = list(module.body)
    at = [i for i, stmt in enumerate(body) if _imports_exactly(stmt, imp)]
    if len(at) != 1:
        return None
    i = at[0]
    stmt = body[i]
    if len(spelled.findall(code)) != len(spelled.findall(module.code_for_node(stmt))):
        return None
    del body[i]
    lines = list(stmt.leading_lines)
    if not any(line.comment is not None for line in lines):
        return module.with_changes(body=body)
    if i < len(body):
        body[i] = body[i].with_changes(leading_lines=[*lines, *body[i].leading_lines])
        return module.with_changes(body=body)
    return module.with_changes(body=body, footer=[*lines, *module.footer])


_ESCAPE = re.compile(r"\\[xuUN0-7]")


def _imports_exactly(stmt: cst.BaseStatement, imp: ImportSpec) -> bool:
    """Whether ``stmt`` is a line of one import statement, of one name, that is ``imp``."""
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return False
    small = stmt.body[0]
    if isinstance(small, cst.Import) and imp.obj is None:
        names = small.names
        module = imp.module
    elif isinstance(small, cst.ImportFrom) and imp.obj is not None:
        if small.relative or small.module is None or isinstance(small.names, cst.ImportStar):
            return False
        if _dotted(small.module) != imp.module or imp.module == "__future__":
            return False
        names = small.names
        module = imp.obj
    else:
        return False
    return len(names) == 1 and names[0].evaluated_name == module and names[0].evaluated_alias == imp.asname


def _dotted(node: cst.BaseExpression) -> Optional[str]:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        head = _dotted(node.value)
        return None if head is None else f"{head}.{node.attr.value}"
    return None


def _add_imports_quick(module: cst.Module, modules: Sequence[str]) -> cst.Module:
    """``AddImportsVisitor`` adding ``import M`` for each of ``modules``: those not among
    the imports at the top of the module go, sorted, after the last of those imports
    (after a docstring or ``__strict__`` line, if there is no import), and the statement
    after them starts with an empty line."""
    missing = sorted({m for m in modules if not _among_top_imports(module, ImportSpec(m))})
    if not missing:
        return module
    body = list(module.body)
    start = 1 if _skip_first(module) else 0
    at = start
    for stmt in body[start:]:
        if not (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], (cst.Import, cst.ImportFrom))):
            break
        at += 1
    after = body[at:]
    if after:
        first = after[0]
        if not first.leading_lines:
            after[0] = first.with_changes(leading_lines=(cst.EmptyLine(),))
        elif first.leading_lines[0].comment is not None:
            after[0] = first.with_changes(leading_lines=(cst.EmptyLine(), *first.leading_lines))
    config = module.config_for_parsing
    new = [cst.parse_statement(f"import {m}", config=config) for m in missing]
    return module.with_changes(body=[*body[:at], *new, *after])


def _skip_first(module: cst.Module) -> bool:
    """LibCST's ``_skip_first`` of its import adder: whether the module's first statement
    is a docstring or sets ``__strict__`` (imports then go after it)."""
    body = module.body
    if not body or not isinstance(body[0], cst.SimpleStatementLine) or len(body[0].body) != 1:
        return False
    first = body[0].body[0]
    if isinstance(first, cst.Expr):
        return isinstance(first.value, cst.SimpleString)
    return (
        isinstance(first, cst.Assign)
        and len(first.targets) == 1
        and isinstance(first.targets[0].target, cst.Name)
        and first.targets[0].target.value == "__strict__"
    )


def parse_fixed(text: str) -> Optional[cst.Module]:
    """The check every fix passes before it is written (``--fix``, ``--diff``) or
    offered (``[*]``, the fixable counts, JSON and SARIF edits, an editor's quick
    fix): its result parses, with the bounds gradlint parses any file within. The
    parsed module, or None."""
    try:
        return parsing.parse_module(text)
    except (parsing.NotParsed, cst.ParserSyntaxError, RecursionError, MemoryError):
        return None


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
    for tag, i1, i2, j1, j2 in line_opcodes(old_lines, new_lines):
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


class FixRenderer:
    """The text of each fix of one parsed file, as if it alone were applied.

    Reporters show every fix (JSON edits, ``full``'s previews, the language
    server's quick fixes), so a file with a hundred findings needs a hundred
    fixed versions of itself. Rendering the whole module and diffing it for
    each (and running LibCST's import codemods over the whole module for each,
    a scope analysis every time) made output cost grow with findings × file
    size. Here the file is rendered once, recording where each statement's
    text lies; a fix is then applied to the smallest statement that holds all
    its edits and only that statement is rendered, with the indentation of its
    block. Its import changes are skipped when they provably change nothing:
    an import to add that the module already has at its top, an import to
    remove whose name is still used outside the fix's edits. Any fix this
    cannot handle (edits in several top-level statements, an import that
    would change, a file without a final newline) is rendered in full, as
    ``apply_fixes`` does: the result is the same text either way.
    """

    def __init__(
        self,
        module: cst.Module,
        source: str,
        parents: Mapping[int, Optional[cst.CSTNode]],
        scopes: Optional[Callable[[], Mapping[cst.CSTNode, Any]]] = None,
        names: Optional[Callable[[], Any]] = None,
        span: Optional[Callable[[cst.CSTNode], Span]] = None,
        parsed: Optional[str] = None,
    ) -> None:
        """``scopes``: gives LibCST's scope metadata of ``module`` (the rules' own, when
        they computed it: a second analysis of the file costs as much as a lint).
        ``names``: gives the file's ``gradlint.semantic.names.Names``, which answers
        most "is this import still used" questions without any scope analysis.
        ``span``: a node's position, as the rules' findings have it (with it, a
        one-line statement's text is found without rendering the whole module).
        ``parsed``: the text ``module`` was parsed from, where that is not ``source``
        (a file read with its ``async=`` arguments renamed, line for line): fixes are
        rendered on it, and their edits given on ``source``."""
        self.module = module
        self._scopes = scopes
        self._names = names
        self._node_span = span
        self._one_spans: Dict[int, Optional[Tuple[int, int, List[str]]]] = {}
        self.written = source
        self.source = source if parsed is None else parsed
        self._renamed: Optional[List[TextEdit]] = None
        self._starts_written: Optional[List[int]] = None
        self._locals: Dict[int, Tuple[Fix, Optional[Tuple[int, int, str, Optional[List[str]]]]]] = {}
        self._parses: Dict[int, bool] = {}
        self._keep: List[Fix] = []
        self._statements: Dict[int, Tuple[Fix, Optional[Tuple[cst.CSTNode, int, int, str, List[str]]]]] = {}
        self.parents = parents
        self._spans: Optional[Dict[int, Tuple[int, int, List[str]]]] = None
        self._line_starts: Optional[List[int]] = None
        self._present: Dict[ImportSpec, bool] = {}
        self._heads: Dict[Any, str] = {}
        # A name bound by one import -> the top-level statement holding it (see _references).
        self._import_statements: Dict[str, cst.CSTNode] = {}
        self._import_refs: Optional[Dict[str, List[cst.CSTNode]]] = None

    # -- the whole text, or edits ------------------------------------------

    def fixed_text(self, fix: Fix) -> str:
        """The source with ``fix`` applied (what ``apply_fixes`` returns)."""
        if _no_change(fix):
            return self.source
        local = self._local_once(fix)
        if local is None:
            return apply_fixes(self.module, [fix], self.parents)
        start, end, text, _ = local
        return self.source[:start] + text + self.source[end:]

    def text_edits(self, fix: Fix) -> List[TextEdit]:
        """``text_edits(source, fixed_text(fix))``, computed on the changed statement only."""
        if _no_change(fix):  # the renaming fix of `async=` arguments: all of them
            return [] if self.written is self.source else list(self._renames())
        local = self._local_once(fix)
        if local is None:
            return text_edits(self.written, self.fixed_text(fix))
        start, end, text, _ = local
        first_row = self._row_of(start)
        old = self.source[start:end]
        outside: List[TextEdit] = []
        if self.written is not self.source:
            # Rows are the same in both texts: the region as written, and the renames
            # in the rest of the file (which the fixed text holds too).
            last_row = self._row_of(end - 1) if end > start else first_row
            starts = self._written_starts()
            old = self.written[starts[first_row - 1] : starts[last_row] if last_row < len(starts) else len(self.written)]
            for e in self._renames():
                if e.end_row < first_row or e.row > last_row:
                    outside.append(e)
                elif e.row < first_row or e.end_row > last_row:  # across the region's edge
                    return text_edits(self.written, self.fixed_text(fix))
        inside = [
            TextEdit(e.content, e.row + first_row - 1, e.column, e.end_row + first_row - 1, e.end_column)
            for e in text_edits(old, text)
        ]
        return sorted(outside + inside, key=lambda e: (e.row, e.column))

    def parses(self, fix: Fix) -> bool:
        """Whether ``fix``'s result passes :func:`parse_fixed`, the check ``--fix`` makes
        before it writes anything: only such a fix is offered. A fix confined to one
        statement is checked on that statement alone, within blocks standing in for
        those around it (the rest of the file is as it parsed); any other on the whole
        text its edits give."""
        found = self._parses.get(id(fix))
        if found is None:
            try:
                found = self._check(fix)
            except Exception:  # a fix that cannot be rendered cannot be applied either
                found = False
            self._parses[id(fix)] = found
            self._keep.append(fix)
        return found

    def check_together(self, fixes: Iterable[Fix]) -> None:
        """Answer ``parses`` for many fixes at once: those whose edits are apart from one
        another are applied together and the result parsed once; if it parses, each of
        them alone does (apart, a fix's edits cannot mend another's). Otherwise, or for
        the rest, each is checked on its own when asked."""
        spans: _SpanIndex[Span] = _SpanIndex()
        batch: List[Fix] = []
        for fix in fixes:
            if not fix.edits or id(fix) in self._parses:
                continue
            mine = [e.span for e in fix.edits]
            if any(spans.meeting(a) for a in mine):
                continue
            for a in mine:
                spans.add(a, a)
            batch.append(fix)
        if len(batch) < 2:
            return
        try:
            together = self.module.visit(_Applier([e for f in batch for e in f.edits], self.parents)).code
        except Exception:
            return
        if parse_fixed(together) is not None:
            for fix in batch:
                self._parses[id(fix)] = True
                self._keep.append(fix)  # its id() must not be reused while the answer stands

    def _check(self, fix: Fix) -> bool:
        # The imports a fix adds or removes are changed by LibCST's codemods, which build
        # nodes that always render as valid code (an emptied block gets `pass`): what
        # may not parse is the text its edits render, checked here without them.
        if not fix.edits:
            return True  # the module as it parsed, its imports aside
        found = self._statement_fixed(fix)
        if found is not None:
            _, _, _, text, indents = found
            newline = self.module.default_newline
            head = "".join("".join(indents[:k]) + "if 1:" + newline for k in range(len(indents)))
            return parse_fixed(head + text) is not None
        return parse_fixed(self.module.visit(_Applier(fix.edits, self.parents)).code) is not None

    def _written_starts(self) -> List[int]:
        if self._starts_written is None:
            self._starts_written = [0] + [m.end() for m in _LINE_BREAK.finditer(self.written)]
        return self._starts_written

    def _renames(self) -> List[TextEdit]:
        if self._renamed is None:
            self._renamed = text_edits(self.written, self.source)
        return self._renamed

    # -- one statement -----------------------------------------------------

    def _local_once(self, fix: Fix) -> Optional[Tuple[int, int, str, Optional[List[str]]]]:
        """``_local``, once per fix (offering it, its edits and its check all need it)."""
        found = self._locals.get(id(fix))
        if found is None or found[0] is not fix:
            found = self._locals[id(fix)] = (fix, self._local(fix))
        return found[1]

    def _local(self, fix: Fix) -> Optional[Tuple[int, int, str, Optional[List[str]]]]:
        """(start offset, end offset, new text, indentation of its block or None) of the
        one region ``fix`` changes, or None. The indentation is given for a region that
        is one statement of a block (None: the head of the module, imports changed)."""
        found = self._statement_fixed(fix)
        if found is None:
            return None
        stmt, start, end, text, indents = found
        adds = [imp for imp in fix.add_imports if not self._import_present(imp)]
        removes = [imp for imp in fix.remove_imports if not self._still_used(imp, fix.edits)]
        if not adds and not removes:
            return start, end, text, indents
        head = self._with_imports(fix, stmt, start, end, text, adds, removes)
        return None if head is None else (*head, None)

    def _statement_fixed(self, fix: Fix) -> Optional[Tuple[cst.CSTNode, int, int, str, List[str]]]:
        """(the statement of a block holding every edit of ``fix``, its start and end
        offsets, its text with the edits applied, the indentation of its block), or None."""
        key = id(fix)
        if key in self._statements and self._statements[key][0] is fix:
            return self._statements[key][1]
        found = None
        if fix.edits and self.module.has_trailing_newline:
            stmt = self._statement(fix.edits)
            span = None
            if stmt is not None and not (
                isinstance(stmt, cst.SimpleStatementLine) and any(isinstance(s, (cst.Import, cst.ImportFrom)) for s in stmt.body)
            ):
                span = self._span(stmt)
            if span is not None:
                assert stmt is not None
                start, end, indents = span
                new = stmt.visit(_Applier(fix.edits, self.parents))
                if isinstance(new, cst.CSTNode):
                    recorder = _span_recorder()
                    assert recorder is not None  # the spans were recorded with it
                    state = recorder(default_indent=self.module.default_indent, default_newline=self.module.default_newline)
                    state.indent_tokens = list(indents)
                    new._codegen(state)
                    found = (stmt, start, end, "".join(state.tokens), indents)
        self._statements[key] = (fix, found)
        return found

    def _with_imports(
        self, fix: Fix, stmt: cst.CSTNode, start: int, end: int, text: str, adds: List[ImportSpec], removes: List[ImportSpec]
    ) -> Optional[Tuple[int, int, str]]:
        """``_local`` for a fix whose imports change: LibCST's import codemods run on the
        head of the module only (its top imports, each import to remove and the
        statement after it, which inherits the comments above a removed import).
        What they do there depends on nothing further down, once it is known that
        nothing further down uses a removed name."""
        if removes and "__all__" in self.source:
            return None  # names listed in __all__ are kept: that list may be anywhere in the file
        body = list(self.module.body)
        index = {id(node): i for i, node in enumerate(body)}
        top = 0
        while top < len(body) and _is_top_import_or_docstring(body[top], top):
            top += 1
        k = top + 1
        for imp in removes:
            name = imp.asname or imp.obj or imp.module
            holder = self._import_statements.get(name)
            if holder is None or id(holder) not in index or re.search(rf"\b{re.escape(name)}\b", text):
                return None
            k = max(k, index[id(holder)] + 2)
        k = min(k, len(body))
        outer: Optional[cst.CSTNode] = stmt
        while outer is not None and id(outer) not in index:
            outer = self.parents.get(id(outer))
        if outer is None:
            return None
        head_body = body[:k]
        # The last statement of the head matters to the codemods only as a statement
        # that is not an import, and by the comment lines above it (which a removed
        # import's comments join): a large class or function there is stood in for
        # (and when the fix is inside it, its text is the one already rendered).
        last = head_body[-1]
        stand_in = isinstance(last, _LARGE_STATEMENTS)
        inside = index[id(outer)] < k and not (stand_in and last is outer)
        if stand_in:
            head_body[-1] = cst.SimpleStatementLine(body=[cst.Pass()], leading_lines=last.leading_lines)
        # The footer (comments after the last statement) stays out unless the head ends
        # the module with a statement of its own (an import whose comments could move there).
        with_footer = k == len(body) and not stand_in
        head = self.module.with_changes(body=head_body, footer=self.module.footer if with_footer else ())
        if inside:
            applier = _Applier(fix.edits, self.parents)
            if applier._enter is not None:
                applier._enter.add(id(head))
            head = head.visit(applier)
        head_end = self._span(body[k - 1])
        if head_end is None:
            return None
        cut = len(self.source) if k == len(body) else head_end[1]
        # A head without the fix's edits comes out the same for every fix with these
        # imports to change (many fixes of a file add the same `import torch`).
        key = None if inside else (frozenset(adds), frozenset(removes), k)
        new_head = self._heads.get(key) if key is not None else None
        if new_head is None:
            new_head = _update_imports(head, sorted(adds, key=_imp_key), sorted(removes, key=_imp_key)).code
            if key is not None:
                self._heads[key] = new_head
        if stand_in:
            pass_line = "pass" + self.module.default_newline
            last_span = self._span(last)
            if last_span is None:
                return None
            last_start, last_end, _ = last_span
            leading = "".join(self.module.code_for_node(line) for line in last.leading_lines)
            last_text = self.source[last_start:last_end]
            if last is outer:
                last_text = self.source[last_start:start] + text + self.source[end:last_end]
            if not new_head.endswith(pass_line) or not last_text.startswith(leading):
                return None
            new_head = new_head[: -len(pass_line)] + last_text[len(leading) :]
            if k == len(body):
                new_head += self.source[last_end:]  # the footer
        if inside or stand_in and last is outer:
            return 0, cut, new_head
        return 0, end, new_head + self.source[cut:start] + text

    def _statement(self, edits: Sequence[Edit]) -> Optional[cst.CSTNode]:
        """The innermost statement of a block that contains every edit, without being
        replaced itself (a statement replaced by several, or by none, is rendered as
        part of the statement around it)."""
        common: Optional[List[cst.CSTNode]] = None
        for edit in edits:
            node: Optional[cst.CSTNode] = edit.target
            if edit.kind == "wrap" or edit.kind == "replace" and not isinstance(edit.new, cst.CSTNode):
                node = self.parents.get(id(node))  # the block, then the statement holding it
            chain: List[cst.CSTNode] = []
            while node is not None:
                parent = self.parents.get(id(node), _MISSING)
                if parent is _MISSING:
                    return None
                if isinstance(node, cst.BaseStatement) and isinstance(parent, (cst.Module, cst.IndentedBlock)):
                    chain.append(node)
                node = parent  # type: ignore[assignment]
            if common is None:
                common = chain
            else:
                ids = {id(n) for n in chain}
                common = [n for n in common if id(n) in ids]
            if not common:
                return None
        return common[0] if common else None

    def _span(self, stmt: cst.CSTNode) -> Optional[Tuple[int, int, List[str]]]:
        """(start offset, end offset, indentation of its block) of a statement of a block."""
        if id(stmt) not in self._one_spans:
            found = self._line_span(stmt)
            if found is None:
                spans = self._statement_spans()
                found = spans.get(id(stmt)) if spans else None
            self._one_spans[id(stmt)] = found
        return self._one_spans[id(stmt)]

    def _line_span(self, stmt: cst.CSTNode) -> Optional[Tuple[int, int, List[str]]]:
        """``_span`` of a simple statement line, from its position and its own text.

        Its text (comment lines above it, indentation, code, trailing comment and
        newline) ends with the line its code ends on, when no backslash continues its
        trailing whitespace. Rendered with the indentation of the blocks around it,
        that text must end there and start at a line start; anything else (never
        expected) leaves the statement to ``_statement_spans``."""
        if self._node_span is None or not isinstance(stmt, cst.SimpleStatementLine):
            return None
        if "\\" in stmt.trailing_whitespace.whitespace.value:
            return None
        recorder = _span_recorder()
        if recorder is None:
            return None
        indents: List[str] = []
        node = self.parents.get(id(stmt), _MISSING)
        while not isinstance(node, cst.Module):
            if node is None or node is _MISSING:
                return None
            if isinstance(node, cst.IndentedBlock):
                indents.append(self.module.default_indent if node.indent is None else node.indent)
            node = self.parents.get(id(node), _MISSING)
        indents.reverse()
        state = recorder(default_indent=self.module.default_indent, default_newline=self.module.default_newline)
        state.indent_tokens = list(indents)
        stmt._codegen(state)
        text = "".join(state.tokens)
        try:
            last_line = self._node_span(stmt)[1][0]
        except KeyError:
            return None
        self._row_of(0)  # the line starts
        starts = self._line_starts
        assert starts is not None
        if last_line >= len(starts):
            return None
        end = starts[last_line]
        start = end - len(text)
        if start < 0 or self.source[start:end] != text or starts[bisect.bisect_right(starts, start) - 1] != start:
            return None
        return start, end, indents

    def _statement_spans(self) -> Optional[Dict[int, Tuple[int, int, List[str]]]]:
        """id() of each statement -> (start offset, end offset, indentation of its block)."""
        if self._spans is None:
            recorder = _span_recorder()
            if recorder is None:
                self._spans = {}
                return None
            state = recorder(default_indent=self.module.default_indent, default_newline=self.module.default_newline)
            self.module._codegen(state)
            if "".join(state.tokens) != self.source:  # never expected: LibCST round-trips
                self._spans = {}
            else:
                offsets = [0]
                for tok in state.tokens:
                    offsets.append(offsets[-1] + len(tok))
                self._spans = {k: (offsets[a], offsets[b], ind) for k, (a, b, ind) in state.spans.items()}
        return self._spans or None

    def _row_of(self, offset: int) -> int:
        if self._line_starts is None:
            self._line_starts = [0] + [m.end() for m in _LINE_BREAK.finditer(self.source)]
        return bisect.bisect_right(self._line_starts, offset)

    # -- imports -----------------------------------------------------------

    def _import_present(self, imp: ImportSpec) -> bool:
        """Whether adding ``imp`` leaves the module as it is: LibCST's own check, on the
        imports at the top of the module (the only ones it looks at)."""
        found = self._present.get(imp)
        if found is None and _plain(imp):
            # For `import X` the rule below is LibCST's own, both ways: no codemod needed.
            found = self._present[imp] = _among_top_imports(self.module, imp)
        if found is None and _among_top_imports(self.module, imp):
            found = self._present[imp] = True
        if found is None:
            from libcst.codemod import CodemodContext
            from libcst.codemod.visitors import AddImportsVisitor, ImportItem

            body = self.module.body
            top = 0
            while top < len(body) and _is_top_import_or_docstring(body[top], top):
                top += 1
            # One statement more: the gatherer stops at the first that is not an import
            # (a stand-in for it will do, and is quicker to walk than a large class).
            after = list(body[top : top + 1])
            if after and isinstance(after[0], _LARGE_STATEMENTS):
                after = [cst.SimpleStatementLine(body=[cst.Pass()])]
            head = self.module.with_changes(body=[*body[:top], *after])
            with _quick_matcher_visitors():
                visitor = AddImportsVisitor(CodemodContext(), [ImportItem(imp.module, imp.obj, imp.asname)])
                visitor.visit_Module(head)
            found = not (visitor.module_imports or visitor.module_mapping or visitor.module_aliases or visitor.alias_mapping)
            self._present[imp] = found
        return found

    def _still_used(self, imp: ImportSpec, edits: Sequence[Edit]) -> bool:
        """Whether the name ``imp`` binds is used outside the nodes ``edits`` replace (so
        that removing the import if unused leaves it); False when not sure."""
        if imp.obj is None and imp.asname is None and "." in imp.module:
            return False
        name = imp.asname or imp.obj or imp.module
        if self._names is not None:
            found = self._used_by_names(name, edits)
            if found is not None:
                return found
        refs = self._references().get(name)
        if not refs:
            return False
        replaced = {id(e.target) for e in edits if e.kind != "wrap"}
        for ref in refs:
            node: Optional[cst.CSTNode] = ref
            while node is not None and id(node) not in replaced:
                node = self.parents.get(id(node))
            if node is None:
                return True
        return False

    def _used_by_names(self, name: str, edits: Sequence[Edit]) -> Optional[bool]:
        """``_still_used`` from the semantic model: True when a read of the import is
        left outside the edits, False when the name is spelled nowhere outside the
        import statement and the nodes the edits replace (so no reference of any kind,
        string annotations included, is left); None when neither can be shown."""
        names = self._names() if self._names is not None else None
        if names is None or name not in names.index.sole:
            return None
        replaced = {id(e.target) for e in edits if e.kind != "wrap"}
        if names.import_read_after(name, replaced) is not None:
            return True
        record = next(r for r in names.index.records if r.name == name)
        spans = [e.span for e in edits if e.kind != "wrap"]
        try:
            spans.append(names.tree.span(record.statement))
        except KeyError:
            return None
        for m in re.finditer(rf"(?<!\w){re.escape(name)}(?!\w)", self.source):
            at = self._position(m.start())
            if not any(start <= at and (at[0], at[1] + len(name)) <= end for start, end in spans):
                return None
        holder = self.parents.get(id(record.statement))
        if isinstance(holder, cst.SimpleStatementLine) and isinstance(self.parents.get(id(holder)), cst.Module):
            self._import_statements[name] = holder
        return False

    def _position(self, offset: int) -> Tuple[int, int]:
        """(1-based line, 0-based column) of an offset in the source, as LibCST counts them."""
        row = self._row_of(offset)
        return row, offset - self._line_starts[row - 1]  # type: ignore[index]

    def _references(self) -> Dict[str, List[cst.CSTNode]]:
        """For each name bound by exactly one import statement in the whole module,
        the nodes that use it."""
        if self._import_refs is None:
            from libcst.metadata import ScopeProvider

            try:
                if self._scopes is not None:
                    scopes = self._scopes()
                else:
                    from gradlint.traversal import scope_metadata

                    scopes = scope_metadata(self.module)
            except Exception:  # LibCST changed inside: its own, slower way
                from libcst.metadata import MetadataWrapper

                scopes = MetadataWrapper(self.module, unsafe_skip_copy=True).resolve(ScopeProvider)
            bindings: Dict[str, List[Any]] = {}
            for scope in {id(s): s for s in scopes.values() if s is not None}.values():
                for assignment in scope.assignments:
                    if isinstance(getattr(assignment, "node", None), (cst.Import, cst.ImportFrom)):
                        bindings.setdefault(assignment.name, []).append(assignment)
            self._import_refs = {}
            for name, found in bindings.items():
                if len(found) != 1:
                    continue
                self._import_refs[name] = [access.node for access in found[0].references]
                holder = self.parents.get(id(found[0].node))
                if isinstance(holder, cst.SimpleStatementLine) and isinstance(self.parents.get(id(holder)), cst.Module):
                    self._import_statements[name] = holder
        return self._import_refs


_MISSING = object()


def _no_change(fix: Fix) -> bool:
    """Whether ``fix`` leaves the parsed module as it is."""
    return not fix.edits and not fix.add_imports and not fix.remove_imports
# Statements that LibCST's import codemods treat as any other non-import statement.
_LARGE_STATEMENTS = (cst.FunctionDef, cst.ClassDef, cst.For, cst.While, cst.With)
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def _among_top_imports(module: cst.Module, imp: ImportSpec) -> bool:
    """Whether ``imp``, a plain ``import X``, is one of the imports LibCST's
    ``AddImportsVisitor`` finds at the top of ``module`` (so that it adds nothing):
    its rule, without importing ``libcst.codemod``. The statements it looks at are
    one-statement import lines, after a first line that is a docstring or sets
    ``__strict__``; it stops at the first other one. False: not shown."""
    if imp.obj is not None or imp.asname is not None:
        return False
    body = module.body
    start = 0
    if body and isinstance(body[0], cst.SimpleStatementLine) and len(body[0].body) == 1:
        first = body[0].body[0]
        if isinstance(first, cst.Expr) and isinstance(first.value, cst.SimpleString):
            start = 1
        elif (
            isinstance(first, cst.Assign)
            and len(first.targets) == 1
            and isinstance(first.targets[0].target, cst.Name)
            and first.targets[0].target.value == "__strict__"
        ):
            start = 1
    for stmt in body[start:]:
        if not (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], (cst.Import, cst.ImportFrom))):
            return False
        small = stmt.body[0]
        if isinstance(small, cst.Import) and any(a.asname is None and a.evaluated_name == imp.module for a in small.names):
            return True
    return False


def _is_top_import_or_docstring(stmt: cst.BaseStatement, index: int) -> bool:
    if not isinstance(stmt, cst.SimpleStatementLine) or not stmt.body:
        return False
    first = stmt.body[0]
    if isinstance(first, (cst.Import, cst.ImportFrom)):
        return True
    return index == 0 and isinstance(first, cst.Expr) and isinstance(first.value, (cst.SimpleString, cst.ConcatenatedString))


@functools.lru_cache(maxsize=None)
def _span_recorder() -> Optional[type]:
    """A codegen state that records, for each statement, the tokens it produced and
    the indentation it was produced with; None if LibCST's codegen is not as expected
    (every fix is then rendered in full)."""
    try:
        from libcst._nodes.internal import CodegenState
    except ImportError:
        return None

    class _SpanRecorder(CodegenState):
        def __init__(self, default_indent: str, default_newline: str) -> None:
            super().__init__(default_indent=default_indent, default_newline=default_newline)
            self.spans: Dict[int, Tuple[int, int, List[str]]] = {}
            self._open: Dict[int, Tuple[int, List[str]]] = {}

        def before_codegen(self, node: cst.CSTNode) -> None:
            if isinstance(node, cst.BaseStatement):
                self._open[id(node)] = (len(self.tokens), list(self.indent_tokens))

        def after_codegen(self, node: cst.CSTNode) -> None:
            if isinstance(node, cst.BaseStatement):
                start, indents = self._open.pop(id(node))
                self.spans[id(node)] = (start, len(self.tokens), indents)

    return _SpanRecorder
