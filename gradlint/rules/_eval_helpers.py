"""The helpers an evaluation region of ``EvalWithoutNoGrad`` hands its model to: a
function of the file (``_run_batches(model, loader)`` after ``model.eval()``), or a
method of the same class called on ``self`` (``self.encode_text(self.text_encoder,
tokens)`` where ``self.text_encoder`` is in eval mode); their forwards of that
parameter run in eval mode too, with the helper's grad mode.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, FrozenSet, List, Optional, Set, Tuple, Union

import libcst as cst

from gradlint.rules._eval_flow import _TRAINING_HOOKS, _bound_params, _Region, handed_on
from gradlint.semantic.tree import FunctionScope as Scope, walk

if TYPE_CHECKING:
    from gradlint.rule import FileContext


class EvalHelpers:
    """The methods of ``EvalWithoutNoGrad`` that follow a region's model into helpers."""

    if TYPE_CHECKING:
        ctx: FileContext

        def _under_other_guard(self, node: cst.CSTNode, scope: Scope) -> bool: ...

        def _forwards(self, stmt: cst.CSTNode, models: FrozenSet[str], _depth: int = 0) -> List[Tuple[cst.Call, str]]: ...

        def _check_helper(self, helper: cst.FunctionDef, param: str, switch: Union[cst.CSTNode, int]) -> None: ...

        def _check_helper_call(self, helper: cst.FunctionDef, param: str, call: cst.Call, model: str, switch: Union[cst.CSTNode, int]) -> bool: ...

    def _check_helpers(self, scope: Scope, region: _Region) -> None:
        """The helpers of the file that the region hands its model to (see the module
        docstring). A shared step called with constants that rule its gradient code out
        is reported at the call (``_check_helper_call``), for functions only: the
        constants of a method's call are not bound here."""
        sem = self.ctx.semantic
        code_for = self.ctx.code_for
        reported: Set[int] = set()  # helpers reported at a call of the region (``_check_helper_call``)
        for stmt in region.block.body[region.start : region.end]:
            if type(stmt) in (cst.FunctionDef, cst.ClassDef):
                continue
            for call in walk(stmt):
                if type(call) is not cst.Call:
                    continue
                method = self._own_method(scope, call)
                if type(call.func) is not cst.Name and method is None:
                    continue
                if sem.gradmode.guard_at(call) is not None or self._under_other_guard(call, scope):
                    continue
                helper = method or sem.calls.local_function(call)
                if helper is None or helper is scope or helper.name.value in _TRAINING_HOOKS or helper.asynchronous:
                    continue
                if method is not None and any(c is call for c, _ in self._forwards(call, frozenset(region.models))):
                    continue  # a forward at the call already (``_passed_models``): reported there
                for param, arg in _bound_params(helper, call, skip=1 if method is not None else 0):
                    model = code_for(arg)
                    if model in region.models and sem.modules.ends_eval_mode(helper.body, param):
                        continue  # rebound to something else (``model = self.others[0]``) or trained
                    for inner, name in handed_on(sem, helper, param) if model in region.models else ():
                        self._check_helper(inner, name, region.eval_line[model])
                    if model in region.models and id(helper) not in reported and method is None:
                        if self._check_helper_call(helper, param, call, model, region.eval_line[model]):
                            reported.add(id(helper))

    def _own_method(self, scope: Scope, call: cst.Call) -> Optional[cst.FunctionDef]:
        """The method ``call`` runs when it is ``self.<name>(...)`` in a method of a class
        that defines ``<name>`` itself, undecorated, with ``self`` first (a subclass
        may override it: the call is followed as the file shows it)."""
        func = call.func
        if not (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self"):
            return None
        sem = self.ctx.semantic
        cls = sem.tree.method_class(scope) if isinstance(scope, cst.FunctionDef) else None
        if cls is None:
            return None
        for stmt in cls.body.body:
            if isinstance(stmt, cst.FunctionDef) and stmt.name.value == func.attr.value:
                params = stmt.params.params
                if stmt.decorators or not params or params[0].name.value != "self":
                    return None
                return stmt
        return None
