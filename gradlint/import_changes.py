"""The imports a fix adds and removes, changed as LibCST's import codemods change them.

The codemods walk the whole module on every call, and the remover asks the
scope analysis (``semantic.resolution``) which imports nothing reads; the
changes fixes make most are made here without them, and the others are given
only the part of the module that decides what they do (its head, or the
statements that spell a removed name), or answered by Python's symbol table.
Each shortcut writes what the codemods write (tests/test_import_changes.py,
tests/test_fix_loop.py compare them).
"""

from __future__ import annotations

import contextlib
import functools
import re
import threading
from typing import Any, Callable, Collection, Dict, Iterable, Iterator, List, Optional, Sequence, Set, Tuple

import libcst as cst

from gradlint import codegen
from gradlint.fix import ImportSpec
from gradlint.semantic.syntax import dotted


# The last module rendered, and its text: the import changes read the text of the
# module they change several times over (each a rendering of the whole module),
# and mostly return that module itself. A module never changes, and this keeps it
# alive, so its identity stands for its text.
_LAST_CODE: List[Optional[Tuple[cst.Module, str]]] = [None]


def module_code(module: cst.Module) -> str:
    last = _LAST_CODE[0]  # one tuple, swapped whole: safe across threads
    if last is not None and last[0] is module:
        return last[1]
    code = _spliced(module)
    if code is None:
        code = module.code
    _LAST_CODE[0] = (module, code)
    return code


# Per thread, while fixes are applied (``known_code``): (the default indent and newline
# of the module the fixes apply to, ``id(node) -> (node, its code)`` for nodes of its
# header, body and footer). A fix changes a few top-level statements of a long file;
# the others keep their objects, so their code is known, and rendering the module
# is rendering the few.
_KNOWN = threading.local()


@contextlib.contextmanager
def known_code(
    module: cst.Module, known: Optional[Dict[int, Tuple[cst.CSTNode, str]]]
) -> Iterator[Optional[Dict[int, Tuple[cst.CSTNode, str]]]]:
    """While inside, ``module_code`` takes the code of the top-level nodes in ``known``
    (of ``module``, as ``module.code_for_node`` renders them) as it is, and keeps that
    of the others it renders, in the table it yields (None without ``known``)."""
    before = getattr(_KNOWN, "code", None)
    _KNOWN.code = None if known is None else ((module.default_indent, module.default_newline), dict(known))
    try:
        yield None if _KNOWN.code is None else _KNOWN.code[1]
    finally:
        _KNOWN.code = before


def _node_code(module: cst.Module, node: cst.CSTNode) -> str:
    """``module.code_for_node(node)`` for a node of ``module``'s body, known or rendered."""
    known = getattr(_KNOWN, "code", None)
    if known is None or known[0] != (module.default_indent, module.default_newline):
        return module.code_for_node(node)
    found = known[1].get(id(node))
    if found is None or found[0] is not node:
        found = (node, module.code_for_node(node))
        known[1][id(node)] = found
    return found[1]


def _spliced(module: cst.Module) -> Optional[str]:
    """``module.code`` from the code of its header, body and footer nodes, each known
    or rendered alone (``Module._codegen_impl`` renders them one after the other, with
    one state that has no indentation at that level); None where no code is known,
    or where the module ends without a newline (whose last token the module drops)
    or is empty (where it adds one)."""
    known = getattr(_KNOWN, "code", None)
    if known is None or known[0] != (module.default_indent, module.default_newline):
        return None
    if not module.body or not module.has_trailing_newline:
        return None
    codes = known[1]
    parts = []
    for node in (*module.header, *module.body, *module.footer):
        found = codes.get(id(node))
        if found is None or found[0] is not node:
            found = (node, module.code_for_node(node))
            codes[id(node)] = found  # the node is kept with it: its id stays its own
        parts.append(found[1])
    return "".join(parts)


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
        line would: a fix must not lose a comment that was not about its code.

        Which imports nothing reads is the project's scope analysis's answer
        (``semantic.resolution.unused_imports``), not LibCST's: the remover gets no
        metadata, and its own gatherer (which would run LibCST's scope analysis of
        the whole module) does not run. Its edits to the import statements are kept
        as they are: they decide the bytes of every fix that removes an import."""

        @classmethod
        def get_inherited_dependencies(cls) -> Collection[Any]:
            return ()

        def __init__(self, context: CodemodContext) -> None:
            super().__init__(context)
            self._orphans: List[cst.EmptyLine] = []
            self._adopted: Dict[int, List[cst.EmptyLine]] = {}

        def visit_Module(self, node: cst.Module) -> None:
            from libcst.codemod.visitors import GatherExportsVisitor

            from gradlint.semantic.resolution import unused_imports

            exports = GatherExportsVisitor(self.context)
            node.visit(exports)
            self._unused_imports = unused_imports(node, frozenset(exports.explicit_exported_objects))

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
            read = _read_as_globals(module_code(module), removes)
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
        shown = _removal_reads(module)
        if shown is None:
            return None
        reads, strings = shown[1]
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
                counted = _name_reads(_node_code(module, body[i]))
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
    bound): Python's symbol table says so without a scope analysis of the module.
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
    shown = _removal_reads(module)
    if shown is None:
        return None
    code, names = shown
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
        if spelled.search(_node_code(module, stmt)):
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


def _removal_reads(module: cst.Module) -> Optional[Tuple[str, Tuple[Dict[str, int], str]]]:
    """``module``'s code and its name reads (``_name_reads``), or None where what the
    remover decides is not shown: ``__all__`` (whose names it keeps), or code that
    does not tokenize."""
    code = module_code(module)
    if "__all__" in code:
        return None
    names = _spliced_reads(module)
    if names is None:
        names = _name_reads(code)
    return None if names is None else (code, names)


@functools.lru_cache(maxsize=8)
def _name_reads(code: str) -> Optional[Tuple[Dict[str, int], str]]:
    """(how many times each name is spelled as a name, not after a dot; the text of
    every string) in ``code``, or None if it does not tokenize."""
    found = _reads(code)
    return None if found is None else (found[0], "\n".join(found[1]))


def _reads(code: str) -> Optional[Tuple[Dict[str, int], List[str]]]:
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
    return counts, strings


# The reads of the code of top-level nodes (``_spliced_reads``), by that code: the
# statements a round of fixes leaves alone are read again, in the next round's
# module, with the same code.
_PART_READS: Dict[str, Optional[Tuple[Dict[str, int], List[str]]]] = {}
_PART_READS_MAX = 1 << 16
_UNREAD: Any = object()


def _spliced_reads(module: cst.Module) -> Optional[Tuple[Dict[str, int], str]]:
    """``_name_reads(module_code(module))`` from the reads of each top-level node's code
    (see ``known_code``); None where ``module_code`` does not splice the module, or a
    part does not tokenize alone.

    A top-level node's code is whole lines that end its last logical line, at no
    indentation and outside any bracket: tokenizing it alone gives the names and
    strings the module's tokenizing gives there (the dedents that close its blocks
    come at its end, not at the next statement, and a dedent, a newline or nothing
    before a name is never the dot that makes it an attribute)."""
    known = getattr(_KNOWN, "code", None)
    if known is None or _spliced(module) is None:
        return None
    codes = known[1]
    cache = _PART_READS
    if len(cache) > _PART_READS_MAX:
        cache.clear()
    counts: Dict[str, int] = {}
    strings: List[str] = []
    for node in (*module.header, *module.body, *module.footer):
        code = codes[id(node)][1]
        part = cache.get(code, _UNREAD)
        if part is _UNREAD:
            part = cache[code] = _reads(code)
        if part is None:
            return None
        for name, n in part[0].items():
            counts[name] = counts.get(name, 0) + n
        strings.extend(part[1])
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
    code = module_code(module)
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
    if len(spelled.findall(code)) != len(spelled.findall(_node_code(module, stmt))):
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
        if dotted(small.module) != imp.module or imp.module == "__future__":
            return False
        names = small.names
        module = imp.obj
    else:
        return False
    return len(names) == 1 and names[0].evaluated_name == module and names[0].evaluated_alias == imp.asname




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
    new = [codegen.statement(f"import {m}") for m in missing]
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
