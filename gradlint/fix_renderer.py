"""The text of each fix of a parsed file, as if it alone were applied (see :class:`FixRenderer`)."""

from __future__ import annotations

import bisect
import functools
import re
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

import libcst as cst

from gradlint.fix import Edit, Fix, ImportSpec, Span
from gradlint.fixes import _Applier, _SpanIndex, apply_fixes, parse_fixed
from gradlint.import_changes import (
    _among_top_imports,
    _imp_key,
    _is_top_import_or_docstring,
    _plain,
    _quick_matcher_visitors,
    _update_imports,
)
from gradlint.results import TextEdit
from gradlint.text_diff import text_edits


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
        names: Optional[Callable[[], Any]] = None,
        span: Optional[Callable[[cst.CSTNode], Span]] = None,
        parsed: Optional[str] = None,
    ) -> None:
        """``names``: gives the file's ``gradlint.semantic.names.Names``, which answers
        most "is this import still used" questions without any scope analysis, and
        the others from the scope analysis the rules already made of the file.
        ``span``: a node's position, as the rules' findings have it (with it, a
        one-line statement's text is found without rendering the whole module).
        ``parsed``: the text ``module`` was parsed from, where that is not ``source``
        (a file read with its ``async=`` arguments renamed, line for line): fixes are
        rendered on it, and their edits given on ``source``."""
        self.module = module
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
        if self._node_span is None:
            return None
        if not isinstance(stmt, cst.SimpleStatementLine):
            return self._block_span(stmt)
        if "\\" in stmt.trailing_whitespace.whitespace.value:
            return None
        found = self._own_text(stmt)
        if found is None:
            return None
        text, indents = found
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

    def _own_text(self, stmt: cst.CSTNode) -> Optional[Tuple[str, List[str]]]:
        """(the text of a statement of a block, rendered alone with the indentation of the
        blocks around it; that indentation), or None."""
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
        return "".join(state.tokens), indents

    def _block_span(self, stmt: cst.CSTNode) -> Optional[Tuple[int, int, List[str]]]:
        """``_span`` of a compound statement (a loop, a function: what a wrapping fix edits,
        or the last statement of the head whose imports a fix changes), from its own text,
        without rendering the whole module (``_statement_spans``: on a file of a few
        hundred lines, most of what a fix's edits cost).

        That text starts at a line start, on one of the lines from its first code line
        back by as many lines as it has (its comment lines and decorators come first).
        It is taken only where exactly one of those starts gives it: two would mean
        lines repeating with a period shorter than the statement, each of them the
        compound statement's header, which the deeper indented body cannot be."""
        found = self._own_text(stmt)
        if found is None:
            return None
        text, indents = found
        if not text or text[-1] not in "\r\n":
            return None
        try:
            row = self._node_span(stmt)[0][0]  # type: ignore[misc]
        except KeyError:
            return None
        self._row_of(0)  # the line starts
        starts = self._line_starts
        assert starts is not None
        if not 1 <= row <= len(starts):
            return None
        lines = len(_LINE_BREAK.findall(text))
        at = [starts[r - 1] for r in range(max(1, row - lines), row + 1) if self.source.startswith(text, starts[r - 1])]
        if len(at) != 1:
            return None
        end = at[0] + len(text)
        i = bisect.bisect_left(starts, end)
        if end != len(self.source) and (i == len(starts) or starts[i] != end):
            return None  # a "\r" that ends the text, of a "\r\n" in the file
        return at[0], end, indents

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
            names = self._names() if self._names is not None else None
            if names is not None:
                resolution = names.resolution
            else:
                from gradlint.semantic.resolution import Resolution
                from gradlint.semantic.scopes import Scopes
                from gradlint.semantic.tree import Tree

                resolution = Resolution(Scopes(self.module, Tree(self.module)))
            self._import_refs, statements = resolution.import_references()
            for name, stmt in statements.items():
                holder = self.parents.get(id(stmt))
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
