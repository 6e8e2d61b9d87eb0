"""GL201 inplace-on-detached: an in-place edit of a ``.detach()`` alias edits the original tensor."""

from __future__ import annotations

import re

import libcst as cst

from gradlint import codegen
from gradlint.rules._gates import edited_through
from gradlint.rules._inplace import InplaceEditRule, edit_text, edited_alias, short
from gradlint.semantic.syntax import inplace_edit, root_name
from gradlint.semantic.tree import walk
from gradlint.semantic.values import StorageAlias


class InplaceOnDetached(InplaceEditRule):
    code = "GL201"
    triggers = (".detach()",)
    # ``.detach()`` edited in place or bound to a name: not ``.detach().cpu()``
    gates = (re.compile(edited_through(r"\.detach\(\)")),)

    def check_edit(self, node: cst.CSTNode) -> None:
        sem = self.ctx.semantic
        alias = edited_alias(sem, node, "detach")
        if alias is None or not (self._source_has_history(alias) or self._parameter_read_after(alias, node)):
            return
        source = short(self.ctx, alias.source) or "the original tensor"
        origin_text = short(self.ctx, alias.origin) or "`.detach()`"
        edited = short(self.ctx, inplace_edit(node))  # type: ignore[arg-type]
        if alias.through_name and edited:
            via = f"`{edited}`, an alias of `{origin_text}`"
        else:
            via = f"`{origin_text}`"
        origin = alias.origin
        fix = self.fix(
            self.transform(origin, lambda n: codegen.method_call(n, "clone"), key=("detach-clone", id(origin))),
            source=source,
        )
        self.report(node, fix=fix, edit=edit_text(self.ctx, node), via=via, source=source)

    def _source_has_history(self, alias: StorageAlias) -> bool:
        """Whether the detached tensor evidently carries a graph and is read again: the edit
        then either breaks ``backward()`` or changes what later code reads. An alias of
        a temporary (``model(x).detach()``) or of a plain parameter is left alone."""
        sem = self.ctx.semantic
        root = root_name(alias.source)
        history = sem.values.graph_source if self.preview else sem.values.proven_graph_source
        if root is None or history(alias.source) is None:
            return False
        scope = sem.tree.function_scope(alias.origin)
        for node in walk(scope):
            if isinstance(node, cst.Name) and node.value == root.value and not sem.tree.is_inside(alias.origin, node):
                parent = self.ctx.parent(node)
                if not (isinstance(parent, cst.AssignTarget) and parent.target is node):
                    return True
        return False

    def _parameter_read_after(self, alias: StorageAlias, edit: cst.CSTNode) -> bool:
        """Whether the detached tensor is a parameter of the function that is read
        after the edit (compared with the target built from it, returned): the
        caller's tensor, graph or not, then holds the edited values."""
        sem = self.ctx.semantic
        root = alias.source
        if not isinstance(root, cst.Name):
            return False
        if not alias.through_name and not self.preview:
            # ``state.detach().copy_(new)`` then ``return state``: a write handle made
            # to fill the caller's tensor on purpose (loading state); only a named
            # alias edited apart from the original (``target = q.detach()``) is proven
            # to be meant as a copy.
            return False
        binding = sem.scopes.reaching_binding(root)
        if binding is None or binding.form != "param":
            return False
        scope = sem.tree.function_scope(alias.origin)
        if not isinstance(scope, cst.FunctionDef):
            return False
        for node in walk(scope.body):
            if (
                isinstance(node, cst.Name)
                and node.value == root.value
                # after the edit: starts later and is not part of it (the rules run while
                # the edit is being walked, so its end is not known yet)
                and sem.tree.order(node)[0] > sem.tree.order(edit)[0]
                and not sem.tree.is_inside(edit, node)
                and sem.scopes.is_read(node)
                and sem.scopes.reaching_binding(node) is binding
            ):
                return True
        return False
