"""Qualified names, and which reads reach an import: the questions fixes and
``semantic.names`` ask of the scope analysis (``semantic.scopes``) by name.

The answers are those LibCST's ``ScopeProvider`` and ``QualifiedNameProvider``
gave, which the findings and fixes were built on; they are computed here from
the project's own scopes, so that a file has one scope analysis. Where LibCST
departs from Python, its rules are kept, because the output must not move:

- a name read resolves to every binding of the scope that binds it (not only
  those that may reach the read); in the read's own scope, only to those made
  before it (a ``for`` target counts as made before its iterable and body; a
  comprehension's targets before its element), and when none is, to the
  bindings of the scope around it;
- ``import a.b`` binds ``a.b`` as well as ``a``, and ``a.b.c`` reads ``a.b``;
- a walrus binds in the comprehension it is written in; ``del x`` and the names
  of ``match`` patterns read, bind nothing;
- a name in a string annotation (or a ``typing.cast``/``TypeVar``/``NewType``
  argument, or a ``typing`` subscript) is a read, by the string.

Qualified names are ``(name, source)`` pairs, ``source`` one of ``import``,
``builtin`` and ``local``; a local is prefixed with the functions and classes
around it (``f.<locals>.x``, ``C.m``, ``<comprehension>``).
tests/semantic/test_resolution.py compares every answer with LibCST's.
"""

from __future__ import annotations

import builtins
from typing import Callable, Dict, FrozenSet, Iterator, List, Optional, Sequence, Set, Tuple, Union

import libcst as cst

from gradlint.semantic.bindings import COMPREHENSION_TYPES, Binding, Scope
from gradlint.semantic.scopes import Scopes
from gradlint.semantic.tree import Tree
from gradlint.traversal import children, get_full_name_for_node

IMPORT, BUILTIN, LOCAL = "import", "builtin", "local"
QualifiedName = Tuple[str, str]

_NOT_ASSIGNMENTS = frozenset({"del", "match"})
# Type-hint functions whose arguments after the first are read as annotations.
_TYPE_HINT_CALLS = frozenset({"typing.NewType", "typing.TypeVar"})


class Assignment:
    """One binding of a dotted name in a scope, as LibCST records it."""

    __slots__ = ("name", "scope", "node", "made", "form", "binding")

    def __init__(self, name: str, scope: Optional[Scope], node: Optional[cst.CSTNode], made: int, form: str, binding: Optional[Binding]) -> None:
        self.name = name
        self.scope = scope  # None: the builtins
        self.node = node  # the Name stored, the def, class, parameter or import statement
        self.made = made  # the last node index before which the binding is not made yet
        self.form = form
        self.binding = binding

    @property
    def is_import(self) -> bool:
        return self.form == "import"


class Access:
    """A read of a (dotted) name: by a Name, the Attribute it starts, or a string annotation."""

    __slots__ = ("node", "name", "scope", "at")

    def __init__(self, node: cst.CSTNode, name: str, scope: Scope, at: int) -> None:
        self.node = node
        self.name = name
        self.scope = scope
        self.at = at


class Resolution:
    def __init__(self, scopes: Scopes) -> None:
        self.scopes = scopes
        self.tree: Tree = scopes.tree
        self._tables: Dict[int, Dict[str, List[Assignment]]] = {}
        self._builtins: Dict[str, List[Assignment]] = {}
        self._access_of: Dict[int, Access] = {}  # by id() of the Name read
        self._accesses: Optional[List[Access]] = None
        self._by_name: Optional[List[Access]] = None
        self._references: Optional[Dict[int, List[Access]]] = None
        self._prefixes: Dict[int, str] = {}
        self._import_name_ids: Optional[Set[int]] = None

    # -- assignments ------------------------------------------------------------

    def _table(self, scope: Scope) -> Dict[str, List[Assignment]]:
        """The assignments of ``scope`` by name, built when first asked for: a question
        about one function of a large file reads that function and what is around it."""
        found = self._tables.get(id(scope))
        if found is None:
            found = self._tables[id(scope)] = {}
            self.scopes.read(scope)
            order = self.tree.order
            for name, binds in scope.bindings.items():
                for b in binds:
                    if b.form in _NOT_ASSIGNMENTS or b.name is None:
                        continue
                    if b.form == "walrus" and self.scopes.scope_of(b.name) is not scope:
                        continue  # LibCST binds it in the comprehension it is written in
                    if b.form == "import" and b.node is not None:
                        made = order(b.node)[1]
                        for dotted in _import_names(b):
                            found.setdefault(dotted, []).append(Assignment(dotted, scope, b.node, made, "import", b))
                        continue
                    found.setdefault(name, []).append(Assignment(name, scope, _assigned_node(b), self._made(b), b.form, b))
            if scope.kind == "comprehension":
                home = scope.parent
                while home is not None and home.kind == "comprehension":
                    home = home.parent
                for name, binds in (home.bindings if home is not None else {}).items():
                    for b in binds:
                        if b.form == "walrus" and b.name is not None and self.scopes.scope_of(b.name) is scope:
                            found.setdefault(name, []).append(Assignment(name, scope, b.name, self._made(b), b.form, b))
        return found

    def _made(self, b: Binding) -> int:
        """The index of the last node before the binding is made (LibCST counts a
        binding as made when the statement, target or parameter list holding it ends)."""
        order = self.tree.order
        node = b.node
        assert node is not None
        if b.form == "param":
            return order(self.tree.parent(node) or node)[1]
        if isinstance(node, cst.For):
            return order(node.target)[1]
        if isinstance(node, cst.CompFor):
            if type(self.tree.parent(node)) not in COMPREHENSION_TYPES:
                return order(node)[1]  # an inner ``for`` of a comprehension: when it ends
            return order(node.target)[1]
        if isinstance(node, cst.WithItem) and node.asname is not None:
            return order(node.asname)[1]
        if isinstance(node, _HANDLERS) and node.name is not None:
            return order(node.name)[1]
        return order(node)[1]

    def resolve(self, start: Optional[Scope], name: str) -> List[Assignment]:
        """The assignments a read of ``name`` in ``start`` finds, LibCST's way: the
        first scope out from ``start`` that binds it (classes seen only from their
        own body), then the builtins."""
        scope = start
        while scope is not None:
            if scope.kind == "module":
                found = self._table(scope).get(name)
                if found:
                    return found
                break
            if name in scope.globals:
                scope = self.scopes.root
                continue
            if name in scope.nonlocals:
                scope = _visible(scope.parent)
                continue
            found = self._table(scope).get(name)
            if found:
                return found
            scope = _visible(scope.parent)
        return self._builtin(name)

    def _builtin(self, name: str) -> List[Assignment]:
        found = self._builtins.get(name)
        if found is None:
            found = self._builtins[name] = [Assignment(name, None, None, -1, "builtin", None)] if hasattr(builtins, name) else []
        return found

    def _contains(self, scope: Scope, name: str) -> bool:
        return bool(self.resolve(scope, name))

    # -- reads ---------------------------------------------------------------------

    def accesses(self) -> List[Access]:
        """Every read of the file, in walk order (string annotations by their string)."""
        if self._accesses is None:
            found = [*self._name_accesses(), *self._string_accesses()]
            found.sort(key=lambda a: a.at)
            self._accesses = found
        return self._accesses

    def _name_accesses(self) -> List[Access]:
        if self._by_name is None:
            self.scopes.ensure_all()
            is_read, access = self._is_read, self._access
            self._by_name = [access(n) for n in self.tree.nodes_of(cst.Name) if isinstance(n, cst.Name) and is_read(n)]
        return self._by_name

    def _access_at(self, node: cst.CSTNode) -> Optional[Access]:
        """The read ``node`` is, if LibCST records it as one: a Name read, or the
        attribute of a dotted name bound by an import (``a.b`` after ``import a.b``)."""
        root = node
        while isinstance(root, cst.Attribute):
            root = root.value
        if not isinstance(root, cst.Name) or not self._is_read(root):
            return None
        access = self._access(root)
        return access if access.node is node else None

    def _is_read(self, name: cst.Name) -> bool:
        """Whether LibCST counts ``name`` as a read: a name it visits that is not stored
        to (a ``del`` target and a ``match`` pattern's name are reads)."""
        parent = self.tree.parent(name)
        if isinstance(parent, cst.Attribute):
            return parent.value is name and id(name) not in self._in_imports()
        if isinstance(parent, cst.Arg):
            return parent.keyword is not name
        if isinstance(parent, (cst.FunctionDef, cst.ClassDef, cst.Param)):
            return parent.name is not name
        if isinstance(parent, cst.NameItem) or id(name) in self._in_imports():
            return False
        cur: cst.CSTNode = name
        while isinstance(parent, (cst.Element, cst.StarredElement, cst.Tuple, cst.List)):
            cur, parent = parent, self.tree.parent(parent)
        if isinstance(parent, (cst.AssignTarget, cst.AnnAssign, cst.AugAssign, cst.NamedExpr, cst.For, cst.CompFor)):
            return parent.target is not cur
        if isinstance(parent, cst.AsName):
            return parent.name is not cur
        return True

    def _visited(self, node: cst.CSTNode) -> bool:
        """Whether LibCST's scope analysis visits ``node``: not an attribute's or a
        keyword's name, nor a part of an import or ``global`` statement."""
        if id(node) in self._in_imports():
            return False
        parent = self.tree.parent(node)
        if isinstance(parent, cst.Attribute):
            return parent.attr is not node
        if isinstance(parent, cst.Arg):
            return parent.keyword is not node
        return not isinstance(parent, cst.NameItem)

    def _in_imports(self) -> Set[int]:
        """id() of every node in an import statement (no name of one is read)."""
        if self._import_name_ids is None:
            found: Set[int] = set()
            for kind in (cst.Import, cst.ImportFrom):
                for stmt in self.tree.nodes_of(kind):
                    stack: List[cst.CSTNode] = [stmt]
                    while stack:
                        cur = stack.pop()
                        found.add(id(cur))
                        stack.extend(children(cur))
            self._import_name_ids = found
        return self._import_name_ids

    def _access(self, name: cst.Name) -> Access:
        found = self._access_of.get(id(name))
        if found is None:
            found = self._access_of[id(name)] = self._make_access(name)
        return found

    def _make_access(self, name: cst.Name) -> Access:
        scope = self.scopes.scope_of(name)
        node: cst.CSTNode = name
        dotted = name.value
        top = self._top_attribute(name)
        if top is not None:
            for full, part in _dotted_names(top):
                if self._contains(scope, full):
                    node, dotted = part, full
                    break
        return Access(node, dotted, scope, self._read_at(name, scope))

    def _top_attribute(self, name: cst.Name) -> Optional[cst.Attribute]:
        """The outermost attribute holding ``name`` with no call between them."""
        top: Optional[cst.Attribute] = None
        cur = self.tree.parent(name)
        while cur is not None and not isinstance(cur, (cst.Call, cst.BaseSmallStatement, cst.BaseCompoundStatement)):
            if isinstance(cur, cst.Attribute):
                top = cur
            cur = self.tree.parent(cur)
        return top

    def _read_at(self, node: cst.CSTNode, scope: Scope) -> int:
        """Where a read of ``scope`` happens among its bindings: a comprehension's
        element is read after all of its ``for``s."""
        at = self.tree.order(node)[0]
        if scope.kind == "comprehension":
            comp = scope.node
            for part in ("elt", "key", "value"):
                value = getattr(comp, part, None)
                if value is not None:
                    first, last = self.tree.order(value)
                    if first <= at <= last:
                        return self.tree.order(comp)[1] + 1  # after every node of it
        return at

    def referents(self, access: Access) -> List[Assignment]:
        found = self.resolve(access.scope, access.name)
        before = [a for a in found if a.scope is not access.scope or a.made < access.at]
        if not before and found:
            before = self.resolve(access.scope.parent, access.name)
        return before

    # -- questions ----------------------------------------------------------------

    def qualified_names(self, node: cst.CSTNode) -> FrozenSet[QualifiedName]:
        """What LibCST's ``QualifiedNameProvider`` gives ``node``."""
        access = self._access_at(node)
        if access is None and not self._visited(node):
            return frozenset()  # LibCST gives the nodes its scope analysis skips no scope
        if access is not None:
            return frozenset(q for a in self.referents(access) for q in self._qualify(a, a.name))
        full = _full_name(node)
        if full is None:
            return frozenset()
        scope = self.scopes.scope_of(node)
        prefix: Optional[str] = full
        found: List[Assignment] = []
        while prefix:
            found = self.resolve(scope, prefix)
            if found:
                break
            prefix = prefix.rpartition(".")[0] or None
        for a in found:
            if a.scope is not None and _is_assignment(node, a):
                return frozenset(self._qualify(a, full))
        return frozenset(q for a in found for q in self._qualify(a, full))

    def _qualify(self, a: Assignment, full: str) -> Set[QualifiedName]:
        if a.scope is None:
            return {(f"builtins.{a.name}", BUILTIN)}
        if isinstance(a.node, (cst.Import, cst.ImportFrom)):
            return _import_qualified(a.node, full)
        prefix = self._prefix(a.scope)
        return {(f"{prefix}.{full}" if prefix else full, LOCAL)}

    def _prefix(self, scope: Scope) -> str:
        found = self._prefixes.get(id(scope))
        if found is None:
            parent = self._prefix(scope.parent) if scope.parent is not None else ""
            node = scope.node
            if scope.kind == "module":
                parts: Sequence[Optional[str]] = ()
            elif isinstance(node, cst.ClassDef):
                parts = (parent, node.name.value)
            elif scope.kind == "comprehension":
                parts = (parent, "<comprehension>")
            else:
                parts = (parent, node.name.value if isinstance(node, cst.FunctionDef) else None, "<locals>")
            found = self._prefixes[id(scope)] = ".".join(p for p in parts if p)
        return found

    def references(self) -> Dict[int, List[Access]]:
        """id() of each assignment -> the reads that reach it, LibCST's way: a read
        made before every binding of its own scope reaches the scope around it."""
        if self._references is None:
            refs: Dict[int, List[Access]] = {}
            for access in self.accesses():
                for a in self.resolve(access.scope, access.name):
                    if a.scope is not access.scope or a.made < access.at:
                        refs.setdefault(id(a), []).append(access)
                    elif a.scope is not None:
                        for outer in self.resolve(a.scope.parent, a.name):
                            refs.setdefault(id(outer), []).append(access)
            self._references = refs
        return self._references

    def assignments(self) -> Iterator[Assignment]:
        """Every assignment of every scope."""
        self.scopes.ensure_all()
        stack = [self.scopes.root]
        while stack:
            scope = stack.pop()
            stack.extend(scope.children)
            for found in self._table(scope).values():
                yield from found

    def import_references(self) -> Tuple[Dict[str, List[cst.CSTNode]], Dict[str, cst.CSTNode]]:
        """For each name that exactly one import binds in the whole module, the nodes
        that read it; and the import statement that binds it."""
        bound: Dict[str, List[Assignment]] = {}
        for a in self.assignments():
            if a.is_import:
                bound.setdefault(a.name, []).append(a)
        refs = self.references()
        reads: Dict[str, List[cst.CSTNode]] = {}
        statements: Dict[str, cst.CSTNode] = {}
        for name, found in bound.items():
            if len(found) == 1:
                reads[name] = [r.node for r in refs.get(id(found[0]), ())]
                node = found[0].node
                if node is not None:
                    statements[name] = node
        return reads, statements

    def unused_imports(self, exported: FrozenSet[str], in_strings: FrozenSet[str]) -> Dict[cst.ImportAlias, Union[cst.Import, cst.ImportFrom]]:
        """The aliases of import statements that nothing reads: LibCST's
        ``GatherUnusedImportsVisitor``, given the names ``__all__`` exports and the
        names string annotations spell."""
        refs = self.references()
        unused: Dict[cst.ImportAlias, Union[cst.Import, cst.ImportFrom]] = {}
        for kind in (cst.Import, cst.ImportFrom):
            for stmt in self.tree.nodes_of(kind):
                if not isinstance(stmt, (cst.Import, cst.ImportFrom)):
                    continue
                names = stmt.names
                if isinstance(names, cst.ImportStar):
                    continue
                if isinstance(stmt, cst.ImportFrom) and (stmt.module is None or getattr(stmt.module, "value", None) == "__future__"):
                    continue
                scope = self.scopes.scope_of(stmt)
                for alias in names:
                    bound = alias.asname.name if alias.asname is not None else alias.name
                    used = False
                    for dotted, _ in _dotted_names(bound):
                        if dotted in exported or dotted in in_strings:
                            used = True
                        elif any(a.is_import and refs.get(id(a)) for a in self.resolve(scope, dotted)):
                            used = True
                        if used:
                            break
                    if not used:
                        unused[alias] = stmt
        return unused

    # -- string annotations ----------------------------------------------------------

    def string_annotation_names(self) -> FrozenSet[str]:
        """The names LibCST's ``GatherNamesFromStringAnnotationsVisitor`` collects: those
        spelled in the strings of annotations and of ``typing.TypeVar`` calls, outside
        ``Literal[...]`` and outside any other call (whose arguments it does not visit)."""
        found: Set[str] = set()
        for kind in (cst.SimpleString, cst.ConcatenatedString):
            for string in self.tree.nodes_of(kind):
                if not isinstance(string, (cst.SimpleString, cst.ConcatenatedString)) or not self._gathered_string(string):
                    continue
                value = string.evaluated_value
                if value is None:
                    continue
                try:
                    parsed = cst.parse_module(value)
                except cst.ParserSyntaxError:
                    continue
                found.update(_spelled_names(parsed))
        return frozenset(found)

    def _gathered_string(self, string: cst.CSTNode) -> bool:
        inside = False
        cur = self.tree.parent(string)
        while cur is not None:
            if isinstance(cur, (cst.SimpleString, cst.ConcatenatedString)):
                return False  # its parts are not visited
            if isinstance(cur, cst.Annotation):
                inside = True
            elif isinstance(cur, cst.Subscript):
                if any(q == "typing.Literal" for q, _ in self.qualified_names(cur)):
                    return False
            elif isinstance(cur, cst.Call):
                if not any(q == "typing.TypeVar" for q, _ in self.qualified_names(cur)):
                    return False
                inside = True
            cur = self.tree.parent(cur)
        return inside

    def _string_accesses(self) -> List[Access]:
        found: List[Access] = []
        for kind in (cst.SimpleString, cst.ConcatenatedString):
            for string in self.tree.nodes_of(kind):
                if not isinstance(string, (cst.SimpleString, cst.ConcatenatedString)):
                    continue
                holder = self.tree.parent(string)
                if isinstance(holder, cst.ConcatenatedString) and self._annotation_string(holder):
                    continue  # read as a whole
                if not self._annotation_string(string):
                    continue
                value = string.evaluated_value
                if not value or not isinstance(value, str):
                    continue
                try:
                    parsed = cst.parse_module(value)
                except cst.ParserSyntaxError:
                    continue
                scope = self.scopes.scope_of(string)
                at = self.tree.order(string)[0]
                for dotted in _string_reads(parsed, lambda n: self._contains(scope, n)):
                    found.append(Access(string, dotted, scope, at))
        return found

    def _annotation_string(self, string: cst.CSTNode) -> bool:
        """Whether LibCST reads ``string`` as an annotation: under an ``Annotation`` or a
        type hint (the innermost call or subscript decides), not under ``Literal[...]``."""
        hint: Optional[bool] = None
        annotation = False
        child = string
        cur = self.tree.parent(string)
        while cur is not None:
            if isinstance(cur, cst.Annotation):
                annotation = True
            elif isinstance(cur, cst.Subscript):
                if child is not cur.value and isinstance(cur.value, cst.Name):
                    names = {q for q, _ in self.qualified_names(cur.value)}
                    if "typing.Literal" in names or "typing_extensions.Literal" in names:
                        return False
                    if hint is None:
                        hint = any(q.startswith(("typing.", "typing_extensions.")) for q in names)
                elif hint is None:
                    hint = False
            elif isinstance(cur, cst.Call):
                names = {q for q, _ in self.qualified_names(cur)}
                if names & _TYPE_HINT_CALLS:
                    if child is cur.func:
                        hint = False if hint is None else hint
                    elif cur.args and child is cur.args[0]:
                        return False  # never visited
                    elif hint is None:
                        hint = True
                elif "typing.cast" in names:
                    if hint is None:
                        hint = bool(cur.args) and child is cur.args[0]
                elif hint is None:
                    hint = False
            child, cur = cur, self.tree.parent(cur)
        return annotation or bool(hint)


_HANDLERS = (cst.ExceptHandler, *(getattr(cst, n) for n in ("ExceptStarHandler",) if hasattr(cst, n)))


def _visible(scope: Optional[Scope]) -> Optional[Scope]:
    while scope is not None and scope.kind == "class":
        scope = scope.parent
    return scope


def _assigned_node(b: Binding) -> Optional[cst.CSTNode]:
    """The node LibCST records a binding at: the def, class or parameter, else the Name."""
    if b.form in ("def", "class", "param"):
        return b.node
    return b.name


def _is_assignment(node: cst.CSTNode, a: Assignment) -> bool:
    if node is a.node:
        return True
    stmt = a.node
    if isinstance(stmt, (cst.Import, cst.ImportFrom)) and not isinstance(stmt.names, cst.ImportStar):
        for alias in stmt.names:
            if alias.name is node or (alias.asname is not None and alias.asname.name is node):
                return True
    return False


def _import_names(b: Binding) -> List[str]:
    """The dotted names the import alias behind ``b`` binds (``a.b.c``, ``a.b``, ``a``)."""
    stmt, bound = b.node, b.name
    if not isinstance(bound, cst.Name):
        return []
    if not isinstance(stmt, (cst.Import, cst.ImportFrom)) or isinstance(stmt.names, cst.ImportStar):
        return [bound.value]
    for alias in stmt.names:
        if alias.asname is not None:
            if alias.asname.name is bound:
                return [bound.value]
            continue
        top: cst.BaseExpression = alias.name
        while isinstance(top, cst.Attribute):
            top = top.value
        if top is bound:
            return [full for full, _ in _dotted_names(alias.name)]
    return [bound.value]


def _dotted_names(node: cst.CSTNode) -> List[Tuple[str, cst.CSTNode]]:
    """LibCST's ``_gen_dotted_names``: ``a.b.c`` -> ``a.b.c``, ``a.b``, ``a``; a call's
    function stands for the call (``f(x).y`` -> ``f``); anything else ends it (none)."""
    if isinstance(node, cst.Name):
        return [(node.value, node)]
    if not isinstance(node, cst.Attribute):
        return []
    value = node.value
    if isinstance(value, cst.Call):
        return _dotted_names(value.func) if isinstance(value.func, (cst.Attribute, cst.Name)) else []
    if isinstance(value, (cst.Attribute, cst.Name)):
        inner = _dotted_names(value)
        if not inner:
            return []
        return [(f"{inner[0][0]}.{node.attr.value}", node), *inner]
    return []


def _full_name(node: cst.CSTNode) -> Optional[str]:
    return get_full_name_for_node(node)


def _import_qualified(stmt: Union[cst.Import, cst.ImportFrom], full: str) -> Set[QualifiedName]:
    """LibCST's ``ImportAssignment.get_qualified_names_for``."""
    module = ""
    if isinstance(stmt, cst.ImportFrom):
        if stmt.module is not None:
            module = _full_name(stmt.module) or ""
        if stmt.relative:
            module = "." * len(stmt.relative) + module
    results: Set[QualifiedName] = set()
    if isinstance(stmt.names, cst.ImportStar):
        return results
    for alias in stmt.names:
        real = _full_name(alias.name)
        if not real:
            continue
        parts = real.split(".")
        for candidate in (".".join(parts[:i]) for i in range(len(parts), 0, -1)):
            as_name = candidate
            if module and module.endswith("."):
                candidate = f"{module}{candidate}"
            elif module:
                candidate = f"{module}.{candidate}"
            if alias.asname is not None:
                evaluated = alias.evaluated_alias
                if evaluated is not None:
                    as_name = evaluated
            if full.startswith(as_name):
                rest = full.split(as_name, 1)[1]
                if rest and not rest.startswith("."):
                    continue
                rest = rest.lstrip(".")
                results.add((f"{candidate}.{rest}" if rest else candidate, IMPORT))
                break
    return results


def _string_reads(parsed: cst.Module, contains: Callable[[str], bool]) -> List[str]:
    """The dotted names the reads in a parsed string annotation resolve by (the longest
    prefix of an attribute chain that ``contains`` says is bound, else its first name)."""
    parents: Dict[int, Optional[cst.CSTNode]] = {id(parsed): None}
    names: List[cst.Name] = []
    stack: List[cst.CSTNode] = [parsed]
    while stack:
        node = stack.pop()
        for child in children(node):
            parents[id(child)] = node
            stack.append(child)
        if isinstance(node, cst.Name):
            names.append(node)
    found: List[str] = []
    for name in names:
        parent = parents.get(id(name))
        if isinstance(parent, cst.Attribute) and parent.attr is name:
            continue
        if isinstance(parent, cst.Arg) and parent.keyword is name:
            continue
        top: Optional[cst.Attribute] = None
        cur = parent
        while cur is not None and not isinstance(cur, cst.Call):
            if isinstance(cur, cst.Attribute):
                top = cur
            cur = parents.get(id(cur))
        dotted = name.value
        if top is not None:
            for full, _ in _dotted_names(top):
                if contains(full):
                    dotted = full
                    break
        found.append(dotted)
    return found


def unused_imports(module: cst.Module, exported: FrozenSet[str]) -> Dict[cst.ImportAlias, Union[cst.Import, cst.ImportFrom]]:
    """The import aliases of ``module`` that LibCST's ``GatherUnusedImportsVisitor``
    finds unused, given the names its ``__all__`` exports."""
    resolution = Resolution(Scopes(module, Tree(module)))
    return resolution.unused_imports(exported, resolution.string_annotation_names())


def _spelled_names(parsed: cst.Module) -> Set[str]:
    """Every Name of ``parsed`` but an attribute's parts, and every dotted name of its
    attributes (``a.b.c``: ``a.b.c``, ``a.b``, ``a``)."""
    found: Set[str] = set()
    stack: List[Tuple[cst.CSTNode, Optional[cst.CSTNode]]] = [(parsed, None)]
    while stack:
        cur, parent = stack.pop()
        if isinstance(cur, cst.Name) and not isinstance(parent, cst.Attribute):
            found.add(cur.value)
        elif isinstance(cur, cst.Attribute):
            found.update(full for full, _ in _dotted_names(cur))
        stack.extend((child, cur) for child in children(cur))
    return found
