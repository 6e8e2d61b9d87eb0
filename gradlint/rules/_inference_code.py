"""GL101's inference code without an ``eval()`` of its own: functions named for
inference, module-level loops over a test loader, a model run on held-out data
after a script's training steps, and methods that inference code of another
file calls. Mixed into ``EvalWithoutNoGrad``; only the preview tier asks it,
since its premises rest on names."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Dict, List, Optional, Tuple, Union

import libcst as cst

from gradlint.rules._eval_flow import _LEAVES, _TRAINING_HOOKS, _Flow, _keeps_log_probs, _Region
from gradlint.semantic import bounds
from gradlint.semantic.project import InferenceCaller
from gradlint.semantic.syntax import called_module, is_inference_name, last_name, looks_like_model
from gradlint.semantic.torch_api import not_forward_method
from gradlint.semantic.tree import FunctionScope as Scope, walk

if TYPE_CHECKING:
    from gradlint.fixes import Fix
    from gradlint.rule import FileContext, Later

# The names of functions that are entry points of inference (``evaluate``,
# ``_validate``, ``predict``, ``generate_text``, ``sample_image``). Unlike
# ``INFERENCE_WORD`` it leaves out ``decode``/``beam_search``: stages that models
# also run inside their own training forward (a VAE's ``decode``).
_ENTRY_WORD = re.compile(
    r"(^|_)(eval|evaluate|evaluation|validate|validation|val|valid|test|testing|predict|prediction|"
    r"infer|inference|generate|generation|sample|sampling)(_|$|\d)"
)


class InferenceCode:
    """The methods of ``EvalWithoutNoGrad`` that find and report inference code."""

    if TYPE_CHECKING:
        # What the rule supplies (declared for the type checker only).
        ctx: FileContext
        _has_eval: bool
        _other_framework: bool
        _inference_callers: Dict[int, InferenceCaller]
        _inference_regions: Dict[int, Optional[_Region]]

        def _fix(self, scope: Scope, region: _Region, flow: _Flow) -> Optional[Fix]: ...
        def _in_loop(self, node: cst.CSTNode, scope: Scope) -> bool: ...
        def _inference_loader(self, expr: cst.BaseExpression, scope: Scope) -> bool: ...
        def _is_unit_test(self, scope: Scope, depth: int = 0) -> bool: ...
        def _records(self, call: cst.Call, scope: Scope) -> bool: ...
        def _regions(self, scope: Scope) -> List[_Region]: ...
        def _report(self, call: cst.Call, fix: Optional[Fix], state: Union[str, Later], cause: str = ...) -> None: ...
        def _returns_unused(self, func: cst.FunctionDef, depth: int = 0) -> bool: ...
        def _skip_function(self, func: cst.FunctionDef) -> bool: ...
        def _wants_gradients(self, stmt: cst.CSTNode) -> bool: ...

    def _check_inference_code(self, scope: Scope) -> None:
        """A function named for inference (``evaluate``, ``predict``, ``generate_text``) or
        a module-level loop over an inference loader (``for x, y in test_loader:``) runs
        forwards whose outputs never leave with a graph: whoever put the model in eval
        mode, the graphs are recorded for nothing."""
        if self._other_framework:
            return  # JAX/Flax or TensorFlow code: no autograd graph to speak of
        if isinstance(scope, cst.Module):
            for i, stmt in enumerate(scope.body):
                if isinstance(stmt, cst.For) and self._inference_loader(stmt.iter, scope):
                    region = self._inference_block(scope, _Region(scope, i, i + 1, set(), {}))
                    if region is not None:
                        self._report_inference(scope, region, f"a loop over `{self.ctx.code_for(stmt.iter)}`")
            self._check_after_training(scope)
        elif isinstance(scope, cst.FunctionDef):
            region = self._inference_function(scope)
            if region is not None:
                caller = self._inference_callers.get(id(scope))
                where = f"`{scope.name.value}()`"
                if caller is not None:
                    where += f", called from `{caller.function}()` ({caller.path}:{caller.line})"
                self._report_inference(scope, region, where)

    def _check_after_training(self, module: cst.Module) -> None:
        """A script that, after its last training step in a block (``optimizer.step(...)``),
        runs the model on held-out data (an input named for it: ``test_input``,
        ``x_val``) and only prints or plots the result: that forward records a graph
        for nothing."""
        sem = self.ctx.semantic
        for block in walk(module):
            if not isinstance(block, (cst.IndentedBlock, cst.Module)):
                continue
            steps = [i for i, stmt in enumerate(block.body) if not isinstance(stmt, (cst.FunctionDef, cst.ClassDef)) and sem.gradmode.needs_gradients(stmt)]
            if not steps or steps[-1] + 1 >= len(block.body):
                continue
            region = _Region(block, steps[-1] + 1, len(block.body), set(), {})
            stmts = block.body[region.start :]
            if any(self._wants_gradients(st) or _keeps_log_probs(st) for st in stmts):
                continue
            for stmt in stmts:
                if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
                    continue
                for call in walk(stmt):
                    if not isinstance(call, cst.Call) or not call.args or call.args[0].keyword is not None:
                        continue
                    arg = call.args[0].value
                    if isinstance(arg, cst.Name) and is_inference_name(arg.value):
                        model = self._inference_forward(call)
                        if model is not None and self._records(call, module):
                            region.calls.append((call, model))
            if region.calls:
                region.models = {m for _, m in region.calls}
                call, model = region.calls[0]
                held_out = self.ctx.code_for(call.args[0].value)
                line = self.ctx.position(block.body[steps[-1]]).start.line
                flow = _Flow(self.ctx, module, frozenset(region.models))
                self._report(call, self._fix(module, region, flow), f"`{model}` runs on held-out `{held_out}` after the training step (line {line})", "")

    def _inference_function(self, func: cst.FunctionDef) -> Optional[_Region]:
        """The region to report in ``func`` when it is inference code without ``eval()``."""
        key = id(func)
        if key not in self._inference_regions:
            self._inference_regions[key] = None  # recursion through helpers
            self._inference_regions[key] = self._find_inference_function(func)
        return self._inference_regions[key]

    def _called_from_inference(self, func: cst.FunctionDef, depth: int = 0) -> Optional[InferenceCaller]:
        """A call of the method ``func`` from inference code in another file of the run
        (``agent.act_e_greedy(state)`` in a ``test()`` loop), directly or through the
        methods of its class that call it (``self.act(state)``)."""
        sem = self.ctx.semantic
        index = sem.project
        if index is None or depth > bounds.RULE_FOLLOW_LEVELS or sem.tree.method_class(func) is None:
            return None
        name = func.name.value
        if name in _TRAINING_HOOKS or name.startswith("__"):
            return None
        callers = index.inference_callers(name, sem.path)
        if callers:
            return callers[0]
        for site in sem.calls.call_sites(func) or ():
            if not (isinstance(site.func, cst.Attribute) and isinstance(site.func.value, cst.Name) and site.func.value.value == "self"):
                continue
            outer = sem.tree.enclosing_function(site)
            if outer is not None and outer is not func and sem.gradmode.guard_at(site) is None:
                found = self._called_from_inference(outer, depth + 1)
                if found is not None:
                    return found
        return None

    def _find_inference_function(self, func: cst.FunctionDef) -> Optional[_Region]:
        sem = self.ctx.semantic
        if func.name.value in _TRAINING_HOOKS:
            return None
        if not _ENTRY_WORD.search(func.name.value.lower()):
            caller = self._called_from_inference(func)
            if caller is None:
                return None
            self._inference_callers[id(func)] = caller
        if self._is_unit_test(func) or func.asynchronous is not None:
            return None
        if any(isinstance(n, cst.Arg) and n.keyword is not None and n.keyword.value == "volatile" for n in walk(func.body)):
            return None  # legacy code that meant to switch autograd off: GL001's finding and fix
        if any(isinstance(n, cst.Call) and last_name(n.func) == "train" for n in walk(func.body)):
            return None  # it sets the mode itself (``model.train() if training else model.eval()``)
        if sem.gradmode.framework_hook(func) is not None or (self._has_eval and self._regions(func)):
            return None
        region = self._inference_block(func, _Region(func.body, 0, len(func.body.body), set(), {}))  # type: ignore[arg-type]
        if region is None or self._skip_function(func):  # the costly question last
            return None
        return region

    def _inference_block(self, scope: Scope, region: _Region) -> Optional[_Region]:
        sem = self.ctx.semantic
        stmts = region.block.body[region.start : region.end]
        if any(self._wants_gradients(s) or _keeps_log_probs(s) for s in stmts):
            return None
        if any(self._calls_trainer(n) for s in stmts for n in walk(s)):
            return None
        frozen = sem.modules.frozen_models_in(scope)
        calls: List[Tuple[cst.Call, str]] = []
        for stmt in stmts:
            if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
                continue
            for call in walk(stmt):
                if isinstance(call, cst.Call):
                    model = self._inference_forward(call)
                    if model is not None and model not in frozen and self._records(call, scope):
                        calls.append((call, model))
        if not calls:
            return None
        region.models = {m for _, m in calls}
        region.calls = calls
        live = [c for c, _ in calls if not sem.escape.drops_graph(c)]
        if live and isinstance(scope, cst.FunctionDef):
            routes = sem.escape.flows(scope).routes_of_nodes(live, sem.tree, _LEAVES)
            # A loop of forwards whose sum is returned to callers that only log it is
            # the evaluation loop; a single forward returned (``return self.model(x)``)
            # is a wrapper, judged where its caller uses it.
            looped = any(self._in_loop(c, scope) for c in live)
            if routes and not (looped and all(r.kind == "return" for r in routes) and self._returns_unused(scope)):
                return None  # a graph leaves: the caller may need it
        return region

    def _calls_trainer(self, node: cst.CSTNode) -> bool:
        """A call of a function or method of the file that may train (a test-time
        adapter's ``adapter.adapt(x)``): nothing proves the code calling it is for
        inference only. Not a parameter called like a function (``criterion(out)``),
        which may be a training step only as far as its callers say."""
        sem = self.ctx.semantic
        return (
            isinstance(node, cst.Call)
            and (isinstance(node.func, cst.Attribute) or sem.calls.local_function(node) is not None)
            and sem.gradmode.call_may_train(node)
        )

    def _report_inference(self, scope: Scope, region: _Region, where: str) -> None:
        flow = _Flow(self.ctx, scope, frozenset(region.models))
        call, model = region.calls[0]
        self._report(call, self._fix(scope, region, flow), f"`{model}` runs for inference in {where}", "")

    def _inference_forward(self, call: cst.Call) -> Optional[str]:
        """The model that ``call`` runs, with evidence: a module running itself
        (``self(x)``), a method of its class that runs it (``self.infer(x)``), or a
        model-like name or attribute (``model``, ``self.net``, ``generator``) whose
        class, when known, records a graph."""
        sem = self.ctx.semantic
        module = called_module(call)
        if module is None or not_forward_method(last_name(module)):
            return None  # ``accelerator.unwrap_model(m)``, ``req.model_dump()``: hands back a module or data
        if isinstance(module, cst.Name) and module.value == "self":
            forward = sem.modules.forward(call)
            return "self" if forward is not None and forward.evidence == "self" else None
        if looks_like_model(module) and self._holds_instance(module, call) and not sem.modules.records_no_graph(module):
            return self.ctx.code_for(module)
        if isinstance(module, cst.Name) and self._holds_instance(module, call):
            # ``seq = Sequence()`` for a module class of the file: whatever its name
            forward = sem.modules.forward(call)
            if forward is not None and forward.evidence == "instance" and not sem.modules.records_no_graph(module):
                return module.value
        if isinstance(module, cst.Subscript) and self._holds_instance(module, call):
            # ``self.model["generator"](z)``: an item of a container of models
            forward = sem.modules.forward(call)
            if forward is not None and forward.evidence == "container":
                return self.ctx.code_for(module)
        return None

    def _holds_instance(self, expr: cst.BaseExpression, call: cst.Call) -> bool:
        """Whether ``expr`` can hold an object built at run time (a model): not a
        function or class of this file (``split_model_name_tag``) nor something
        imported (``torch.Generator``)."""
        sem = self.ctx.semantic
        root = expr
        while isinstance(root, (cst.Attribute, cst.Subscript)):
            root = root.value
        if not isinstance(root, cst.Name) or sem.names.is_imported(root) or sem.calls.local_function(call) is not None:
            return False
        if root is expr:
            seen = sem.scopes.visible(root.value, call)
            return not any(b.form in ("def", "class", "import") for b in seen.bindings)
        return True
