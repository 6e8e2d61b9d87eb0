"""Where to measure: from findings (positions in one version of a file) to what
the harness watches (line ranges), and from the original to the fixed version.

The harness sees only line numbers. A *unit* is a simple statement line, or
the header of a compound statement (``for x in y:``, ``with ...:``), whose
line range the harness treats as one statement: it notices when a frame
enters and leaves it, and reads the names the unit assigns when it leaves.

A finding's *site* is the unit containing it; a claim's *region* is the site
(``statement``), the site and everything after it in its function or module
(``rest-of-scope``), or the innermost loop around the site (``loop``).

The fixed version is a different file: sites are found there by mapping the
site's first line through a line alignment of the two versions (``LineMap``)
and taking the unit at that line; regions are then derived from the fixed
file's own structure, so a fix that wraps a loop in ``with torch.no_grad():``
or adds a decorator still maps to the same loop or function.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple, Union

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from gradlint import parsing
from gradlint.semantic.syntax import dotted

# Read expressions collected per unit to look for storage aliases (``detaches``).
MAX_READS = 24


@dataclass
class Unit:
    start: int
    end: int
    names: List[str] = field(default_factory=list)
    returns: bool = False
    reads: List[str] = field(default_factory=list)
    # Innermost enclosing loop and function: (first line, last line); None at module level.
    loop: Optional[Tuple[int, int]] = None
    function: Optional["FunctionInfo"] = None
    # For the header of a loop: the loop's span and its first body line (to count iterations).
    own_loop: Optional[Tuple[int, int]] = None
    body_line: Optional[int] = None
    # For a ``with`` header: its body's lines. Python reports the header's line
    # again when the block exits; coming from there is not the statement starting.
    exit_from: Optional[Tuple[int, int]] = None
    # The outermost function around the unit, as code outside the file would call it.
    caller: Optional["CallerInfo"] = None


@dataclass(frozen=True)
class FunctionInfo:
    name: str
    first: int  # first decorator line, else the ``def`` line: what co_firstlineno says
    def_line: int
    end: int


def _target_names(target: cst.BaseExpression) -> List[str]:
    if isinstance(target, (cst.Tuple, cst.List)):
        out: List[str] = []
        for el in target.elements:
            value = el.value
            out.extend(_target_names(value))
        return out
    if isinstance(target, cst.StarredElement):
        return _target_names(target.value)
    name = dotted(target)
    return [name] if name else []


class _Reads(cst.CSTVisitor):
    """Maximal dotted chains read in an expression (``model.proj.weight``, ``x``)."""

    def __init__(self) -> None:
        self.found: List[str] = []

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        name = dotted(node)
        if name:
            self._add(name)
            return False
        return True

    def visit_Name(self, node: cst.Name) -> bool:
        self._add(node.value)
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def _add(self, name: str) -> None:
        if name not in self.found and len(self.found) < MAX_READS and name not in ("True", "False", "None"):
            self.found.append(name)


def _reads(nodes: Sequence[cst.CSTNode]) -> List[str]:
    v = _Reads()
    for node in nodes:
        node.visit(v)
    return v.found


class _Indexer(cst.CSTVisitor):
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, wrapper: MetadataWrapper) -> None:
        super().__init__()
        self.pos = wrapper.resolve(PositionProvider)
        self.units: List[Unit] = []
        self.loops: List[Tuple[int, int]] = []
        self.functions: List[FunctionInfo] = []
        # Enclosing class names and callable functions, outermost first.
        self.classes: List[str] = []
        self.callers: List[Optional[CallerInfo]] = []

    def _lines(self, node: cst.CSTNode) -> Tuple[int, int]:
        rng = self.pos[node]
        return rng.start.line, rng.end.line

    def _context(self, unit: Unit) -> Unit:
        unit.loop = self.loops[-1] if self.loops else None
        unit.function = self.functions[-1] if self.functions else None
        unit.caller = self.callers[0] if self.callers else None
        return unit

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> bool:
        start, end = self._lines(node)
        unit = self._context(Unit(start, end))
        for small in node.body:
            if isinstance(small, cst.Assign):
                for t in small.targets:
                    unit.names.extend(_target_names(t.target))
                unit.reads.extend(_reads([small.value]))
            elif isinstance(small, (cst.AugAssign, cst.AnnAssign)):
                if small.value is not None:
                    unit.names.extend(_target_names(small.target))
                    unit.reads.extend(_reads([small.value]))
            elif isinstance(small, cst.Return):
                unit.returns = True
                if small.value is not None:
                    unit.reads.extend(_reads([small.value]))
            elif isinstance(small, cst.Expr):
                unit.reads.extend(_reads([small.value]))
        unit.reads = unit.reads[:MAX_READS]
        self.units.append(unit)
        return True

    def _header(self, node: cst.BaseCompoundStatement, names: List[str], exprs: Sequence[cst.CSTNode]) -> Unit:
        start, end = self._lines(node)
        body = node.body
        if isinstance(body, cst.IndentedBlock) and body.body:
            header_end = max(start, self.pos[body.body[0]].start.line - 1)
        else:  # ``for x in y: pass`` on one line
            header_end = end
        unit = self._context(Unit(start, header_end, names=names, reads=_reads(exprs)[:MAX_READS]))
        self.units.append(unit)
        return unit

    def _loop_header(self, node: Union[cst.For, cst.While], unit: Unit) -> None:
        unit.own_loop = self._lines(node)
        if isinstance(node.body, cst.IndentedBlock) and node.body.body:
            unit.body_line = self.pos[node.body.body[0]].start.line
        self.loops.append(unit.own_loop)

    def visit_For(self, node: cst.For) -> bool:
        self._loop_header(node, self._header(node, _target_names(node.target), [node.iter]))
        return True

    def leave_For(self, original_node: cst.For) -> None:
        self.loops.pop()

    def visit_While(self, node: cst.While) -> bool:
        self._loop_header(node, self._header(node, [], [node.test]))
        return True

    def leave_While(self, original_node: cst.While) -> None:
        self.loops.pop()

    def visit_With(self, node: cst.With) -> bool:
        names: List[str] = []
        for item in node.items:
            if item.asname is not None:
                names.extend(_target_names(item.asname.name))
        unit = self._header(node, names, [item.item for item in node.items])
        unit.exit_from = (unit.end + 1, self._lines(node)[1])
        return True

    def visit_If(self, node: cst.If) -> bool:
        self._header(node, [], [node.test])
        return True

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        start, end = self._lines(node)
        first = min([start] + [self.pos[d].start.line for d in node.decorators])
        info = FunctionInfo(node.name.value, first, start, end)
        self.functions.append(info)
        if len(self.functions) == 1 and len(self.classes) <= 1:
            is_method = bool(self.classes)
            qualname = ".".join(self.classes + [info.name])
            self.callers.append(CallerInfo(info, qualname, is_method, _needs_arguments(node, is_method)))
        else:
            self.callers.append(None)
        # A nested function is its own scope: the enclosing loop does not run its body.
        self.loops.append(None)  # type: ignore[arg-type]
        return True

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.functions.pop()
        self.callers.pop()
        self.loops.pop()

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self.loops.append(None)  # type: ignore[arg-type]
        self.classes.append(node.name.value)
        return True

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self.loops.pop()
        self.classes.pop()


@dataclass(frozen=True)
class CallerInfo:
    """A function defined at module level, or a method of a module-level class:
    what an entry point can call to reach the lines inside it."""

    function: FunctionInfo
    qualname: str  # ``train``, ``Trainer.fit``
    is_method: bool
    needs_arguments: bool


def _needs_arguments(node: cst.FunctionDef, is_method: bool) -> bool:
    params = node.params
    positional = list(params.posonly_params) + list(params.params)
    if is_method and positional and not any(
        isinstance(d.decorator, cst.Name) and d.decorator.value == "staticmethod" for d in node.decorators
    ):
        positional = positional[1:]  # self or cls
    required = [p for p in positional + list(params.kwonly_params) if p.default is None]
    return bool(required)


class SourceIndex:
    """The units of one version of a file, by line."""

    def __init__(self, source: str, module: Optional[cst.Module] = None) -> None:
        """``module``: ``source`` already parsed (by the check whose findings are planned)."""
        if module is None:
            module = parsing.parse_module(source)
        self.wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
        indexer = _Indexer(self.wrapper)
        self.wrapper.visit(indexer)
        self.positions = indexer.pos
        self.units = sorted(indexer.units, key=lambda u: (u.start, u.end))
        self.last_line = max(1, source.count("\n") + (0 if source.endswith("\n") else 1))
        self._by_line: Dict[int, Unit] = {}
        for unit in self.units:
            for line in range(unit.start, unit.end + 1):
                self._by_line.setdefault(line, unit)

    def unit_at(self, line: int) -> Optional[Unit]:
        """The unit containing ``line``, else the next one after it."""
        found = self._by_line.get(line)
        if found is not None:
            return found
        return next((u for u in self.units if u.start >= line), None)

    def node_at(self, start: Tuple[int, int], end: Tuple[int, int]) -> Optional[cst.CSTNode]:
        """The innermost node spanning exactly ``start``..``end`` (LibCST positions).

        Found by descending from the module through the child that contains
        the span: the position table lists parents after their children."""
        best = None
        node: cst.CSTNode = self.wrapper.module
        while True:
            rng = self.positions.get(node)
            if rng is not None and (rng.start.line, rng.start.column) == start and (rng.end.line, rng.end.column) == end:
                best = node
            for child in node.children:
                r = self.positions.get(child)
                if r is not None and (r.start.line, r.start.column) <= start and end <= (r.end.line, r.end.column):
                    node = child
                    break
            else:
                return best

    def scope_end(self, unit: Unit) -> int:
        return unit.function.end if unit.function is not None else self.last_line

    def loop_of(self, unit: Unit) -> Tuple[int, int]:
        """The innermost loop around (or headed by) ``unit``, else its scope."""
        if unit.own_loop is not None:
            return unit.own_loop
        if unit.loop is not None:
            return unit.loop
        return (unit.function.def_line if unit.function else 1), self.scope_end(unit)

    def count_line(self, span: Tuple[int, int]) -> Optional[int]:
        head = self._by_line.get(span[0])
        return head.body_line if head is not None else None


def receiver_of(node: Optional[cst.CSTNode]) -> Optional[str]:
    """The object a finding acts on: ``p`` in ``p.data.add_(...)``, ``model`` in
    ``model.requires_grad = False``, ``p.grad`` in ``p.grad.data.zero_()``."""
    if node is None:
        return None
    base: Optional[cst.CSTNode] = node
    # A finding may span the whole statement line, or only an assignment's target.
    if isinstance(base, cst.SimpleStatementLine) and base.body:
        base = base.body[0]
    if isinstance(base, cst.Expr):
        base = base.value
    if isinstance(base, cst.AssignTarget):
        base = base.target
    if isinstance(base, (cst.Assign, cst.AugAssign, cst.AnnAssign)):
        base = base.targets[0].target if isinstance(base, cst.Assign) else base.target
    if isinstance(base, cst.Call) and isinstance(base.func, cst.Attribute):
        base = base.func.value
    elif isinstance(base, (cst.Attribute, cst.Subscript)):
        base = base.value
    while True:
        if isinstance(base, cst.Attribute) and base.attr.value == "data":
            base = base.value
        elif (
            isinstance(base, cst.Call)
            and isinstance(base.func, cst.Attribute)
            and base.func.attr.value == "detach"
            and not base.args
        ):
            base = base.func.value
        else:
            break
    return dotted(base) if isinstance(base, cst.BaseExpression) else None


class LineMap:
    """Aligns the lines of two versions of a file (indentation ignored, so that
    re-indented blocks still match)."""

    def __init__(self, old: str, new: str) -> None:
        self.a = [line.strip() for line in old.splitlines()]
        self.b = [line.strip() for line in new.splitlines()]
        self.opcodes = difflib.SequenceMatcher(a=self.a, b=self.b, autojunk=False).get_opcodes()
        self.new_last = max(1, len(self.b))

    def line(self, old_line: int) -> int:
        """The 1-based line of ``new`` corresponding to ``old_line``; a deleted
        line maps to the line that took its place. Where a block of lines was
        replaced by one of another size (``p.data.add_(...)`` becoming ``with
        torch.no_grad():`` and ``p.add_(...)``), the line maps to the most
        similar line of the replacement, so that what is measured there is the
        rewritten statement rather than the block it was put in."""
        i = old_line - 1
        for tag, i1, i2, j1, j2 in self.opcodes:
            if i1 <= i < i2:
                if tag == "equal" or (tag == "replace" and i2 - i1 == j2 - j1):
                    return j1 + (i - i1) + 1
                if tag == "replace":
                    ratios = [difflib.SequenceMatcher(a=self.a[i], b=self.b[j], autojunk=False).ratio() for j in range(j1, j2)]
                    return j1 + ratios.index(max(ratios)) + 1
                return min(j1 + 1, self.new_last)
        return self.new_last

    def old_line(self, new_line: int) -> int:
        """The line of ``old`` that ``new_line`` stands for, to number what the
        fixed copy did as in the file as written: an inserted line (``with
        torch.no_grad():``, a decorator) stands for the line after it."""
        j = new_line - 1
        old_last = max(1, len(self.a))
        for tag, i1, i2, j1, j2 in self.opcodes:
            if j1 <= j < j2:
                if tag == "equal" or (tag == "replace" and i2 - i1 == j2 - j1):
                    return i1 + (j - j1) + 1
                if tag == "replace":
                    ratios = [difflib.SequenceMatcher(a=self.b[j], b=self.a[i], autojunk=False).ratio() for i in range(i1, i2)]
                    return i1 + ratios.index(max(ratios)) + 1
                return min(i1 + 1, old_last)
        return old_last


@dataclass
class Watches:
    """What one run watches: statements by first line, regions, functions."""

    units: Dict[int, Tuple[Unit, bool, Optional[str]]] = field(default_factory=dict)
    regions: Dict[Tuple[int, int], str] = field(default_factory=dict)
    region_count: Dict[str, Optional[int]] = field(default_factory=dict)
    functions: Dict[Tuple[str, int], str] = field(default_factory=dict)
    function_info: Dict[str, FunctionInfo] = field(default_factory=dict)

    def statement(self, unit: Unit, full: bool = False, receiver: Optional[str] = None) -> int:
        known = self.units.get(unit.start)
        if known is not None:
            full = full or known[1]
            receiver = receiver or known[2]
        self.units[unit.start] = (unit, full, receiver)
        return unit.start

    def region(self, span: Tuple[int, int], count_line: Optional[int] = None) -> str:
        rid = self.regions.get(span)
        if rid is None:
            rid = self.regions[span] = f"r{len(self.regions)}"
            self.region_count[rid] = count_line
        return rid

    def function(self, info: FunctionInfo) -> str:
        key = (info.name, info.def_line)
        fid = self.functions.get(key)
        if fid is None:
            fid = self.functions[key] = f"f{len(self.functions)}"
            self.function_info[fid] = info
        return fid

    def to_config(self) -> Dict[str, object]:
        statements = []
        for unit, full, receiver in sorted(self.units.values(), key=lambda x: x[0].start):
            statements.append(
                {
                    "start": unit.start,
                    "end": unit.end,
                    "names": unit.names,
                    "returns": unit.returns,
                    "reads": unit.reads if full else [],
                    "receiver": receiver if full else None,
                    "full": full,
                    "exit_from": unit.exit_from,
                }
            )
        regions = [
            {"id": rid, "start": span[0], "end": span[1], "count_line": self.region_count.get(rid)}
            for span, rid in self.regions.items()
        ]
        functions = [
            {"id": fid, "name": info.name, "first": info.first, "def": info.def_line}
            for fid, info in self.function_info.items()
        ]
        return {"statements": statements, "regions": regions, "functions": functions}


@dataclass
class SitePlan:
    """Where one finding is measured in one version of the file."""

    site: Optional[int]  # first line of the watched unit (None: nothing left to watch)
    span: Tuple[int, int]
    regions: Dict[str, str] = field(default_factory=dict)  # claim region kind -> region id
    region_spans: Dict[str, Tuple[int, int]] = field(default_factory=dict)
    function: Optional[str] = None
    function_name: Optional[str] = None
    receiver: Optional[str] = None
    # The module-level function (or method) around the site, watched for calls.
    caller: Optional[str] = None
    caller_info: Optional[CallerInfo] = None


def plan_site(
    index: SourceIndex,
    watches: Watches,
    unit: Optional[Unit],
    region_kinds: Sequence[str],
    receiver: Optional[str],
    want_function: bool,
) -> SitePlan:
    if unit is None:
        return SitePlan(None, (0, 0))
    plan = SitePlan(watches.statement(unit, full=True, receiver=receiver), (unit.start, unit.end), receiver=receiver)
    for kind in region_kinds:
        if kind == "statement":
            span = (unit.start, unit.end)
            count = None
        elif kind == "rest-of-scope":
            span = (unit.start, index.scope_end(unit))
            count = None
        else:
            span = index.loop_of(unit)
            count = index.count_line(span)
        plan.regions[kind] = watches.region(span, count)
        plan.region_spans[kind] = span
        # Tensors assigned (or returned) in the region tell whether a graph was recorded there.
        for other in index.units:
            if span[0] <= other.start and other.end <= span[1] and (other.names or other.returns):
                watches.statement(other)
    if unit.caller is not None:
        plan.caller = watches.function(unit.caller.function)
        plan.caller_info = unit.caller
    if want_function and unit.function is not None:
        plan.function = watches.function(unit.function)
        plan.function_name = unit.function.name
    return plan
