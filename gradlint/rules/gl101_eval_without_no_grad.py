"""GL101 eval-without-no-grad: ``model.eval()`` does not stop autograd.

An *evaluation region* is, within one function body (or the module body), the
statements after ``m.eval()`` / ``m.train(False)`` (or ``m[k].eval()`` for every
key of a container) up to whatever may take ``m`` out of eval mode
(``m.train()``) or rebind it. In a function or loop whose name says it is for
inference (``evaluate``, ``for x in val_loader``), an ``eval()`` nested in an
``if`` also opens a region after the statement holding it. A region is reported
once, at its first forward call of ``m`` that runs with gradients on, unless
something says the gradients are wanted or already off: see ``_skip_function``,
``_records`` and ``_wants_gradients``. Helpers of the file that a region hands
``m`` to are followed (``_check_helpers``).

Code written for inference with no ``eval()`` of its own (a function named for
it, a module-level loop over a test loader) is reported when the outputs of its
forwards never leave with a graph (``_check_inference_code``, in
``_inference_code``: the preview tier's). Regions and where their outputs go
(``_Region``, ``_Flow``) are in ``_eval_flow``.
"""

from __future__ import annotations

import re
from typing import Dict, FrozenSet, List, Optional, Sequence, Set, Tuple, Union, cast

import libcst as cst

from gradlint import codegen
from gradlint.fixes import Fix
from gradlint.prefilter import InferenceCalledGate
from gradlint.rule import AnyOf, Later, LowercaseGate, Rule
from gradlint.rules._eval_flow import (
    _LEAVES, _TRAINING_HOOKS, _USES,
    _bound_params,
    _Flow,
    _inert,
    _rebound_names,
    _Region,
    _suspends,
    _without_definitions,
    accumulated_in_loop,
    few_iterations,
    collected_in_list,
    handed_on,
    hands_model_to_caller_code,
    loaded_in_eval_only,
    neutral_decorator,
    other_file_eval_params,
    reads_autograd_graph,
    reported_alone,
    results_dropped_elsewhere,
    runs_once,
)
from gradlint.rules._gates import word
from gradlint.rules._mode_calls import check_mode_calls, overrides, plain_eval_object
from gradlint.rules._mode_flag import live_pieces, modes_off
from gradlint.rules._eval_helpers import EvalHelpers
from gradlint.rules._eval_regions import EvalRegions, under_test
from gradlint.rules._inference_code import InferenceCode
from gradlint.rules._submodules import own_layer_forward
from gradlint.rules._safety import grad_guard, guard_changes_more_than_graph, in_async_function
from gradlint.semantic import bounds, branches
from gradlint.semantic.containers import container_item
from gradlint.semantic.frameworks import FORWARD_STEPS
from gradlint.semantic.forwarders import owner_forward
from gradlint.semantic.needs_grad import forward_needs_grad
from gradlint.semantic.project import InferenceCaller
from gradlint.semantic.signatures import module_call_rejected, other_framework_call
from gradlint.semantic.syntax import called_module, is_generator
from gradlint.semantic.test_code import TEST_FILE, called_by_module, has_test_class, is_test_module, uncalled_tests
from gradlint.semantic.torch_api import INFERENCE_WORD, MODEL_NAME
from gradlint.semantic.tree import FunctionScope as Scope, walk

# Reading these means gradients are being computed or inspected.
_GRAD_ATTRS = frozenset({"grad", "retain_grad", "register_hook"})
_TORCH_FUNC_TRANSFORMS = frozenset(
    f"torch.func.{n}" for n in ("grad", "grad_and_value", "vjp", "jacrev", "hessian", "functional_call")
)


# transformers' ``from_pretrained`` returns its model in eval mode (``Modules.eval_attributes``).
_EVAL_GATE = re.compile(r"\.eval\((?:\s|\\|#[^\n]*)*\)|\.train\([^)]*?False\b|\.train\(\s*(?:mode\s*=\s*)?(?!True\b)[A-Za-z_]\w*\s*\)|\.from_pretrained\(")
_INFERENCE_WORDS = INFERENCE_WORD.pattern.split("(", 2)[2].split(")", 1)[0]
# The gates below are patterns of ``LowercaseGate``s in ``AnyOf``s: in lower case,
# and one per alternative (see ``AnyOf``).
# ``.train(mode=flag)``: a shared train/eval step (``rules._mode_flag``).
_EVAL_GATES = (
    r"\.eval\((?:\s|\\|#[^\n]*)*\)",
    r"\.train\([^)]*?false\b",
    r"\.train\(\s*(?:mode\s*=\s*)?(?!true\b)[a-z_]\w*\s*\)",
    r"\.from_pretrained\(",
)
# A function or a loop's iterable named with a word of ``INFERENCE_WORD`` (a superset
# of what ``is_inference_name`` accepts): ``def _validate(``, ``in enumerate(test_loader)``.
_INFERENCE_GATES = (
    r"def\s+\w*?(?<![a-z])(?:%s)(?![a-z])" % _INFERENCE_WORDS,
    word("in") + r"\s+[^\n:]*?(?<![a-z])(?:%s)(?![a-z])" % _INFERENCE_WORDS,
)
# A call of something named like a model (``model(x)``, ``self.net_g(z)``,
# ``models["g"](x)``), ``self(x)`` or ``m.forward(x)``: a superset of the calls
# ``looks_like_model`` accepts, for code without an ``eval()``.
_MODEL_CALL_GATES = (
    r"self\s*\(",
    r"\.forward\s*\(",
    r"(?:[gd](?<!\w[gd])|net[gd](?<!\wnet[gd]))\s*\(",
    r"(?<![a-z])(?:" + MODEL_NAME.pattern.split("(", 2)[2].split(")s?", 1)[0] + r")s?(?:[_\d]\w*)?(?:\[[^\]\n]*\])*\s*\(",
)
# A call whose first argument is named for held-out data (``seq(test_input)``,
# ``net(x_val)``): a superset of what ``_check_after_training`` reports.
_HELD_OUT_GATE = r"\(\s*\w*?(?<![a-z])(?:%s)(?![a-z])\w*\s*[,)]" % _INFERENCE_WORDS
_PYTEST_RAISES = frozenset({"pytest.raises"})
_GUARD_NAMES = frozenset({"no_grad", "inference_mode", "set_grad_enabled"})
_OTHER_FRAMEWORK = re.compile(r"^\s*(?:import|from)\s+(?:jax|flax|tensorflow|keras|paddle|mxnet)\b", re.MULTILINE)
_TEST_SUPPORT = re.compile(r"(^|/)(tests|test)/(.*/)?[^/]*\.py$")


class EvalWithoutNoGrad(InferenceCode, EvalRegions, EvalHelpers, Rule):
    code = "GL101"
    triggers = (".eval(", ".train(", "def", "for")
    # ``m.eval()`` or ``m.train(False)`` / ``m.train(mode=False)`` (``semantic.eval_switch``),
    # or code named for inference (a function, a loader)
    gates = (
        AnyOf(*map(LowercaseGate, (*_EVAL_GATES, _HELD_OUT_GATE, *_INFERENCE_GATES))),
        AnyOf(*map(LowercaseGate, (*_EVAL_GATES, _HELD_OUT_GATE, *_MODEL_CALL_GATES))),
    )

    project_gate = InferenceCalledGate()

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._may_name_func = "func" in ctx.source  # ``torch.func`` / ``from torch import func``
        self._has_eval = _EVAL_GATE.search(ctx.source) is not None or self.project_gate.calls_eval_returning(ctx.source, ctx.project)
        self._test_file = TEST_FILE.search(ctx.path.replace("\\", "/")) is not None
        # A module of a tests directory that is no test file (``tests/hf_utils.py``):
        # every function of it is test support, run by tests.
        self._test_support = not self._test_file and _TEST_SUPPORT.search(ctx.path.replace("\\", "/")) is not None
        self._reported: Set[int] = set()
        self._functions: List[cst.FunctionDef] = []
        self._hooks: List[cst.FunctionDef] = []  # a module's forward: checked for what it does not return
        self._inference_regions: Dict[int, Optional[_Region]] = {}
        self._inference_callers: Dict[int, InferenceCaller] = {}
        self._other_framework = _OTHER_FRAMEWORK.search(ctx.source) is not None
        # (id(statement), model) -> whether it ends the model's eval mode: a long module
        # with many ``eval()`` calls asks it of the same statements for each of them.
        self._ends: Dict[Tuple[int, str], bool] = {}
        self._left_found: Optional[Dict[str, Tuple[cst.Call, int]]] = None  # ``EvalRegions._left_in_eval``
        self._declared_names: Optional[FrozenSet[str]] = None  # ``EvalRegions._declared``
        self._in_callers = False  # ``EvalRegions._caller_regions`` asks its callers' regions
        self._grad_off: Optional[bool] = None  # ``EvalRegions._gradients_off_by_import``
        self._known: Optional[Tuple[cst.FunctionDef, Dict[str, object]]] = None  # constants of a call checked (``_mode_calls``)

    # The scopes are checked once the walk has entered every node: their questions
    # (who calls this method, from where) are about the whole file, and answer
    # from what the walk recorded instead of walking the file again.

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        (self._functions if node.name.value not in _TRAINING_HOOKS or self._plain_call(node) else self._hooks).append(node)

    def _plain_call(self, func: cst.FunctionDef) -> bool:
        """``__call__`` of a class that is surely no ``nn.Module`` (a predictor wrapping
        one): not a module's forward, whose outputs a caller's graph would compose."""
        sem = self.ctx.semantic
        cls = sem.tree.method_class(func)
        return func.name.value == "__call__" and cls is not None and sem.modules.not_module_class(cls)

    def leave_Module(self, node: cst.Module) -> None:
        if self.ctx.semantic.gradmode.module_grad_off():
            return
        if self.ctx.fixable_only and self.ctx.safe_fixes_only and guard_changes_more_than_graph(self.ctx):
            # Every fix `_fix` builds in this file is unsafe, and the caller keeps no
            # finding without a safe fix (`--diff`'s loop): there is none to look for.
            return
        scopes: List[Scope] = [node, *self._functions]
        for scope in scopes:
            # Code taken for inference by its name (``def evaluate``, ``net(x_val)``), with no ``eval()``
            # of its own: the preview tier's; the default tier needs the ``eval()`` that shows it.
            if not self._check_scope(scope) and self.preview:
                self._check_inference_code(scope)
            check_mode_calls(self, scope)
        for hook in self._hooks:
            self._check_scope(hook)
        for helper, param, line in other_file_eval_params(self.ctx.semantic):  # eval() in callers of other files
            self._check_helper(helper, param, line)

    def _skip_function(self, func: cst.FunctionDef) -> bool:
        sem = self.ctx.semantic
        site = sem.gradmode.guard_at(func.body)
        if site is not None:  # decorated: no_grad (nothing to do) or enable_grad (wanted)
            return True
        if not self.preview and any(not self._neutral_decorator(d.decorator) for d in func.decorators):
            # A decorator the model cannot read may run the function under no_grad or
            # inference_mode (``@smart_inference_mode()`` picks one at import): grad
            # mode is then unknown, and the default tier stays silent.
            return True
        return sem.gradmode.always_called_without_grad(func) or sem.gradmode.script_runs_without_grad(func)

    def _neutral_decorator(self, expr: cst.BaseExpression) -> bool:
        return neutral_decorator(self.ctx.semantic, self.ctx.module, expr)

    # -- regions --------------------------------------------------------------

    def _check_scope(self, scope: Scope) -> bool:
        """Checks the evaluation regions of ``scope``; whether it has any."""
        regions = self._regions(scope) if self._has_eval else []
        if not regions:
            return False
        if isinstance(scope, cst.FunctionDef) and self._skip_function(scope) or self._gradients_off_by_import():
            return True
        if not self.preview and (reads_autograd_graph(scope) or hands_model_to_caller_code(scope, regions)):
            return True
        for region in regions:
            calls = self._unguarded_calls(scope, region)
            region.calls = [] if loaded_in_eval_only(self.ctx.semantic, scope, region, calls) else calls
        self._drop_self_checks(scope, regions)
        for region in self._merged([r for r in regions if r.calls]):
            self._check_region(scope, region)
        for region in regions if scope not in self._hooks else ():
            if region.constants is None:  # the helper may run on a path the constants rule out
                self._check_helpers(scope, region)
        return True

    def _unguarded_calls(self, scope: Scope, region: _Region) -> List[Tuple[cst.Call, str]]:
        """The forward calls of the region's (unfrozen) model that run with grad on and record a graph."""
        sem = self.ctx.semantic
        models = frozenset(region.models) - sem.modules.frozen_models_in(scope)
        stmts = region.block.body[region.start : region.end]
        live = live_pieces(stmts, region.constants) if region.constants is not None else None
        return [
            (call, model)
            for stmt in stmts
            for call, model in self._forwards(stmt, models)
            if self._records(call, scope)
            and not other_framework_call(self.ctx.semantic, call)
            and (live is None or any(sem.tree.is_inside(piece, call) for piece in live))
            and (region.under is None or under_test(sem.tree, call, region.under))
        ]

    def _drop_self_checks(self, scope: Scope, regions: Sequence[_Region]) -> None:
        """The premise "the forward's outputs are results": a forward on inputs the
        code makes up, whose outputs are only compared or printed (an export's
        self-check, a ``__main__`` block's shape check), holds a few made-up tensors
        for one comparison. The default tier leaves such forwards out; the preview
        tier keeps them. Unit tests keep their own measure (``_records``): a test is
        a self-check by nature, and one that keeps every output of a loop is
        reported all the same."""
        if self.preview or self._is_unit_test(scope):
            return
        calls = [c for r in regions for c, _ in r.calls]
        if not calls:
            return
        checks = self.ctx.semantic.self_checks.self_checks(calls)
        for r in regions:
            r.calls = [(c, m) for c, m in r.calls if id(c) not in checks]

    def _records(self, call: cst.Call, scope: Scope) -> bool:
        """Whether the forward ``call`` runs with gradients on and records a graph
        worth reporting: not under a guard, not expected to raise, not of a module
        without trainable parameters, not a unit test's one-off forward."""
        sem = self.ctx.semantic
        if sem.gradmode.guard_at(call) is not None or self._under_other_guard(call, scope):
            return False
        if not self.preview and sem.gradmode.profiled(call):
            return False  # run to be profiled: the user measures what the run does, graph and all
        module = called_module(call)
        if module is not None and (
            sem.modules.records_no_graph(module) or forward_needs_grad(sem, module) or plain_eval_object(sem, module)
        ):
            return False
        for ancestor in sem.tree.ancestors(call):
            if ancestor is scope:
                break
            if isinstance(ancestor, cst.With) and any(
                isinstance(i.item, cst.Call)
                and isinstance(i.item.func, (cst.Name, cst.Attribute))
                and sem.names.refers_to(i.item.func, _PYTEST_RAISES)
                for i in ancestor.items
            ):
                return False  # expected to raise before it computes anything
        loop = sem.tree.enclosing_loop(call)
        in_loop = loop is not None and sem.tree.is_inside(scope, loop)
        if self._is_unit_test(scope):
            # A test's graphs are freed when it returns: only graphs that pile up in a
            # loop (outputs collected across iterations) cost anything worth a change.
            return in_loop and not few_iterations(loop) and sem.escape.flows(scope).accumulates([call], sem.tree, loop)  # type: ignore
        parent = sem.tree.parent(call)
        if isinstance(parent, cst.Expr) and not in_loop:
            return False  # ``model(dummy)`` once, output dropped (calibration, warm-up): freed at once
        if not in_loop and isinstance(scope, cst.FunctionDef) and sem.calls.is_script_entry(scope):
            return False  # the script's last step: its one graph ends with the program a moment later
        if not runs_once(sem, scope, call):
            return True
        # A one-off forward. On inputs the code makes up (an export's or a shape check's
        # reference run) it holds a few dummy tensors' graph for one comparison; on data
        # (an image read, a batch loaded) it keeps every activation of a real forward
        # until the output goes, which is what inference scripts run out of memory on.
        checks = sem.self_checks
        return self.preview or not (checks.made_up_inputs(call) or checks.outputs_checked(call))

    def _is_unit_test(self, scope: Scope, depth: int = 0) -> bool:
        """A test function of a test file, or a helper of one: a function of the file
        that only its tests call (``assert_forward_matches(ref, batch)``), whose
        graphs are freed when the test returns just the same."""
        test_module = self._test_file and not self.preview and self._collects_tests()
        if (self._test_support or test_module) and isinstance(scope, cst.FunctionDef):
            return True  # default tier: any function of a test module is test code (issue 26)
        if not self._test_file or not isinstance(scope, cst.FunctionDef):
            return False
        if scope.name.value.startswith("test") and not called_by_module(self.ctx.semantic.module, scope.name.value):
            # collected by the runner; a script's own ``test(loader)``, called by its code, is
            # not, nor an evaluation routine that other files of the project call
            # (``test_engine(cfg, dataset)`` of ``utils/test_engine.py``, run by the trainer)
            return not self.ctx.semantic.gradmode.project_call_counts(scope)[0]
        if depth > bounds.RULE_FOLLOW_LEVELS:
            return False
        sem = self.ctx.semantic
        sites = sem.calls.call_sites(scope)
        if not sites:
            return False  # called from elsewhere, or not at all: not known to be a helper
        for site in sites:
            caller = sem.tree.enclosing_function(site)
            if caller is None or caller is scope or not self._is_unit_test(caller, depth + 1):
                return False
        return True

    def _collects_tests(self) -> bool:
        """Whether the file is a test module (``is_test_module``) whose tests are not
        all functions that other files of the project call."""
        module = self.ctx.semantic.module
        if not is_test_module(module):
            return False
        if has_test_class(module):
            return True
        counts = self.ctx.semantic.gradmode.project_call_counts
        return any(not counts(f)[0] for f in uncalled_tests(module))

    def _forwards(self, stmt: cst.CSTNode, models: FrozenSet[str], _depth: int = 0) -> List[Tuple[cst.Call, str]]:
        """Forward calls of a model in ``models`` under ``stmt`` (not in nested functions):
        ``m(...)``, ``m.forward(...)``, ``m[k](...)`` for a container ``m[]`` put in
        eval mode item by item, ``m.test_step(...)``, ``m.decode(z)`` for a method of
        ``m``'s class (of this file) that runs its layers, and ``self.helper(...)``
        for a method of the class that runs one (``self.infer(x)``, ``self._forward(x)``)."""
        if type(stmt) in (cst.FunctionDef, cst.ClassDef, cst.Lambda):
            return []  # runs when called, not here
        sem = self.ctx.semantic
        code_for = self.ctx.code_for
        found: List[Tuple[cst.Call, str]] = []
        for sub in walk(stmt):
            if type(sub) is not cst.Call:
                continue
            module = called_module(sub)
            if module is not None:
                text = code_for(module)
                if text in models and module_call_rejected(sem, sub, module):
                    continue  # raises ``TypeError`` before any forward runs
                if text in models:
                    found.append((sub, text))
                    continue
                if isinstance(module, cst.Subscript) and code_for(module.value) + "[]" in models:
                    found.append((sub, code_for(module.value) + "[]"))
                    continue
                item = container_item(sem.tree, sem.scopes, module) if any(m.endswith("[]") for m in models) else None
                if item in models:  # ``for name, m in models.items(): m(x)`` after each item's ``eval()``
                    found.append((sub, item))
                    continue
                if "self" in models and own_layer_forward(sem, module):
                    found.append((sub, "self"))  # ``self.decoder_fc(h)`` after ``self.eval()``
                    continue
                wrapped = sem.modules.wrapped_model(module)
                if wrapped is not None and wrapped in models:
                    found.append((sub, wrapped))  # ``ddp(x)`` for ``ddp = DDP(model)``: model's forward
                    continue
                owned = owner_forward(sem, module, models)
                if owned is not None:
                    found.append((sub, owned))  # ``model(x)`` whose forward runs ``model.net``
                    continue
            func = sub.func
            if not isinstance(func, cst.Attribute):
                continue
            receiver = code_for(func.value)
            if func.attr.value in FORWARD_STEPS and receiver in models:
                found.append((sub, receiver))
                continue
            if receiver in models and receiver != "self" and sem.modules.method_forward(sub) is not None:
                found.append((sub, receiver))  # ``model.decode(z)``: a method of its class that runs its layers
                continue
            if receiver in models and receiver != "self" and sem.modules.imported_method_forward(sub):
                found.append((sub, receiver))  # the same, for a module class of another file of the project
                continue
            pretrained = sem.modules.pretrained_submodule_forward(sub, models, remote_methods=self.preview)
            if pretrained is not None:
                found.append((sub, pretrained))  # ``self.lm.encoder(x)``: a submodule of a loaded transformers model
                continue
            if receiver == "self" and _depth < bounds.RULE_FOLLOW_LEVELS:
                helper = sem.calls.local_function(sub)
                if helper is not None and helper.name.value not in _TRAINING_HOOKS and not self._checked_alone(helper):
                    passed = self._passed_models(helper, sub, models)
                    model = self._helper_forward(helper, models | frozenset(passed), _depth + 1, sub)
                    if model is None:  # abstract here: every override of the file's subclasses runs it?
                        ran = [self._helper_forward(o, models, _depth + 1, sub) for o in overrides(sem, helper)]
                        model = ran[0] if ran and all(m == ran[0] for m in ran) else None
                    if model is not None:
                        found.append((sub, passed.get(model, model)))
        return found

    def _helper_wants_gradients(self, helper: cst.FunctionDef, call: Optional[cst.Call], models: FrozenSet[str] = frozenset()) -> bool:
        """``_wants_gradients`` of the code of ``helper`` that ``call`` runs: a branch
        that a constant argument rules out (``backward=False`` for ``if backward:
        loss.backward()``) computes nothing for this call, nor one that the mode of
        ``self``'s models in eval mode at the call rules out (``mode = "train" if
        self.encoder.training else "val"``, then ``if mode == "train":``)."""
        if call is None:
            return self._wants_gradients(helper.body)
        sem = self.ctx.semantic
        method = sem.tree.method_class(helper) is not None and not any(
            isinstance(d.decorator, cst.Name) and d.decorator.value == "staticmethod" for d in helper.decorators
        )
        known = self._known[1] if self._known and sem.tree.enclosing_function(call) is self._known[0] else None
        constants = {**branches.constant_params(helper, call, method, known), **(modes_off(sem, helper, call, models) if method else {})}
        constants = branches.derived(helper, constants)
        return any(self._wants_gradients(node) for node in branches.live_code(helper.body, constants))

    def _passed_models(self, helper: cst.FunctionDef, call: cst.Call, models: FrozenSet[str]) -> Dict[str, str]:
        """The parameters of the method ``helper`` that ``call`` (``self._predict(self.model,
        batch)``) binds to a model of ``models``: parameter -> the model's text. A
        parameter the method rebinds is left out: it may hold something else."""
        sem = self.ctx.semantic
        params = [*helper.params.posonly_params, *helper.params.params]
        if not params or sem.tree.method_class(helper) is None or helper.decorators:
            return {}
        bare = helper.params.with_changes(posonly_params=(), params=params[1:])
        passed: Dict[str, str] = {}
        for param, arg in _bound_params(helper.with_changes(params=bare), call):
            text = self.ctx.code_for(arg)
            if text in models and param not in _rebound_names(helper):
                passed[param] = text
        return passed

    def _checked_alone(self, helper: cst.FunctionDef) -> bool:
        """Whether ``helper``'s forwards are reported in ``helper`` itself: a region of its
        own reports them (``reported_alone``), or it is inference code reported as such."""
        def forwards(r: _Region) -> List[Tuple[cst.Call, str]]:  # not through further helpers: no recursion
            return [f for s in r.block.body[r.start : r.end] for f in self._forwards(s, frozenset(r.models), bounds.RULE_FOLLOW_LEVELS)]
        alone = self._has_eval and reported_alone(self.ctx.semantic, helper, self._regions(helper), forwards)
        return alone or self._inference_function(helper) is not None

    def _helper_forward(
        self, helper: cst.FunctionDef, models: FrozenSet[str], depth: int, call: Optional[cst.Call] = None
    ) -> Optional[str]:
        """The model of ``models`` that the method ``helper`` runs, if it runs one without
        a guard of its own: ``self.model(x)`` for ``self.model``, and for ``self`` (a
        module running itself) a call of one of its callable attributes (``self.head(h)``)."""
        sem = self.ctx.semantic
        if sem.gradmode.guard_at(helper.body) is not None or self._helper_wants_gradients(helper, call, models):
            return None  # no_grad already, or it computes gradients (an attack's forward-and-gradient step)
        for stmt in helper.body.body:
            for call, model in self._forwards(stmt, models, depth):
                if sem.gradmode.guard_at(call) is None:
                    return model
            if "self" in models:
                for sub in walk(stmt):
                    if not isinstance(sub, cst.Call) or sem.gradmode.guard_at(sub) is not None:
                        continue
                    module = called_module(sub)
                    if (
                        isinstance(module, cst.Attribute)
                        and isinstance(module.value, cst.Name)
                        and module.value.value == "self"
                        and sem.calls.local_function(sub) is None
                    ):
                        return "self"
        return None

    # -- one region -------------------------------------------------------------

    def _check_region(self, scope: Scope, region: _Region) -> None:
        stmts = region.block.body[region.start : region.end]
        flag = region.flag
        if any(self._wants_gradients(p) for p in (live_pieces(stmts, region.constants) if region.constants is not None else stmts)):
            return
        flow = _Flow(self.ctx, scope, frozenset(region.models))
        if isinstance(scope, cst.FunctionDef) and self._results_reach_backward(scope, flow, stmts, region):
            return
        call, model = region.calls[0]
        state = self._in_eval_mode(call, model, region.eval_line[model], flag and f"{flag}` is {'true' if (region.constants or {}).get(flag) else 'false'}")
        if flag:
            # No guard fits both phases but ``set_grad_enabled(flag)``, which is the author's to choose.
            self._report(call, None, state, f"{_spelled(region.eval_line[model], flag)} does not stop autograd, so ")
        else:
            self._report(call, self._fix(scope, region, flow), state)

    def _in_eval_mode(self, call: cst.Call, model: str, switch: Union[cst.CSTNode, int], flag: Optional[str] = None) -> Later:
        """The message's account of the mode, naming the line of ``switch``, the call
        that set it (or that line, in another file): made when the finding is."""

        def state() -> str:
            name = model
            if name.endswith("[]"):  # an item of a container: name the one called
                module = called_module(call)
                name = self.ctx.code_for(module) if isinstance(module, (cst.Subscript, cst.Name)) else name[:-2] + "[...]"
            when = f" when `{flag}" if flag else ""  # "is_train` is false"
            line = switch if isinstance(switch, int) else self.ctx.tree.line(switch)
            return f"`{name}` is in eval mode{when} (line {line})"

        return Later(state)

    def _report(self, call: cst.Call, fix: Optional[Fix], state: Union[str, Later], cause: str = "`.eval()` does not stop autograd, so ") -> None:
        if id(call) not in self._reported:
            self._reported.add(id(call))
            self.report(call, fix=fix, state=state, cause=cause)

    # -- eval() in the caller, forwards in a helper ------------------------------------

    def _check_helper_call(self, helper: cst.FunctionDef, param: str, call: cst.Call, model: str, switch: Union[cst.CSTNode, int]) -> bool:
        """A step shared with training (``run_epoch(model, loader, loss_fn, optimizer)``,
        its backward under ``if optimizer:``) called in the region with constants that
        rule the gradient code out (``optimizer=None``): its forwards of ``param`` on
        that path run in eval mode with gradients on, for nothing. Reported at the
        call, without a fix (a guard in the helper would reach its training calls
        too); whether it was."""
        sem = self.ctx.semantic
        if param in _rebound_names(helper) or not self._wants_gradients(helper.body) or self._helper_wants_gradients(helper, call):
            return False  # nothing to rule out (``_check_helper`` has it), or gradients wanted on this path too
        if self._skip_function(helper) or any(sem.modules.eval_switch(s) for s in walk(helper.body)):
            return False
        constants = branches.constant_params(helper, call, False)
        pieces = list(branches.live_code(helper.body, constants))
        models = frozenset({param}) - sem.modules.frozen_models_in(helper)
        forwards = [
            c
            for s in cst.ensure_type(helper.body, cst.IndentedBlock).body
            for c, _ in self._forwards(s, models)
            if self._records(c, helper) and any(sem.tree.is_inside(piece, c) for piece in pieces)
        ]
        live = [c for c in forwards if not sem.escape.drops_graph(c)]
        leaving = sem.escape.flows(helper).routes_of_nodes(live, sem.tree, _LEAVES) if live else []
        if not forwards or any(not self._graph_free_return(r) for r in leaving):
            return False  # no forward on this path, or its graph reaches the caller
        self._report(call, None, self._in_eval_mode(call, model, switch))
        return True

    def _check_helper(self, helper: cst.FunctionDef, param: str, switch: Union[cst.CSTNode, int]) -> None:
        sem = self.ctx.semantic
        if self._skip_function(helper) or self._wants_gradients(helper.body) or any(sem.modules.eval_switch(s) for s in walk(helper.body)):
            return  # gradients wanted, or an eval() of its own: checked on its own
        models = frozenset({param}) - sem.modules.frozen_models_in(helper)
        region = _Region(cast(cst.IndentedBlock, helper.body), 0, len(helper.body.body), set(models), {param: switch})
        region.calls = [(c, m) for s in helper.body.body for c, m in self._forwards(s, models) if self._records(c, helper)]
        self._drop_self_checks(helper, [region])
        if not region.calls:
            return
        live = [c for c, _ in region.calls if not sem.escape.drops_graph(c)]
        leaving = sem.escape.flows(helper).routes_of_nodes(live, sem.tree, _LEAVES) if live else []
        if any(not self._graph_free_return(r) for r in leaving) and not (
            accumulated_in_loop(sem, helper, live) and (self._returns_unused(helper) or collected_in_list(sem, helper, live))
        ):
            return  # the caller gets the graph: whether it is wanted is decided there
        flow = _Flow(self.ctx, helper, frozenset(models))
        call, model = region.calls[0]
        self._report(call, self._fix(helper, region, flow), self._in_eval_mode(call, model, switch))

    def _in_loop(self, node: cst.CSTNode, scope: Scope) -> bool:
        loop = self.ctx.semantic.tree.enclosing_loop(node)
        return loop is not None and self.ctx.semantic.tree.is_inside(scope, loop)

    def _returns_unused(self, func: cst.FunctionDef, depth: int = 0) -> bool:
        """Whether what ``func`` returns never reaches a backward: every call of it is
        in this file, and there its value goes nowhere a backward could see it (only
        into ``.item()``, printing, logging), or is returned by a caller whose own
        value goes nowhere either (``metrics, loss = self.evaluate(...)``); a call in
        top-level code (a script's ``__main__`` loop) returns nowhere."""
        sem = self.ctx.semantic
        sites = sem.calls.call_sites(func)
        if not sites or depth > bounds.RULE_FOLLOW_LEVELS:
            return False
        for site in sites:
            caller = sem.tree.enclosing_function(site)
            if caller is func:
                return False
            routes = sem.escape.flows(caller or sem.module).routes_of_nodes([site], sem.tree, _USES)
            if any(r.kind != "return" for r in routes):
                return False
            if routes and not (caller is not None and self._returns_unused(caller, depth + 1)):
                return False
        return True

    def _under_other_guard(self, node: cst.CSTNode, scope: Scope) -> bool:
        """Inside a ``with`` whose grad mode is chosen some other way: ``with torch.no_grad:``
        (the missing parentheses are GL102's finding), ``with torch.no_grad() if evaluating
        else nullcontext():``, or ``with ctx:`` where ``ctx`` holds such a choice."""
        parent = self.ctx.parent(node)
        while parent is not None and not isinstance(parent, (cst.FunctionDef, cst.Lambda)):
            if isinstance(parent, cst.With) and any(self._mentions_guard(i.item, scope) for i in parent.items):
                return True
            parent = self.ctx.parent(parent)
        return False

    def _mentions_guard(self, expr: cst.BaseExpression, scope: Scope) -> bool:
        sem = self.ctx.semantic
        values = [expr]
        if isinstance(expr, cst.Name):
            values += [b.value for b in sem.scopes.bindings(scope).get(expr.value, []) if b.value is not None]
        # ``with self.torch.no_grad():`` (torch kept on the instance): a guard by every
        # sign the model cannot resolve, so grad mode there is not proven on.
        return any(
            isinstance(n, (cst.Name, cst.Attribute))
            and (sem.gradmode.guard(n) is not None or (type(n) is cst.Attribute and n.attr.value in _GUARD_NAMES))
            for value in values
            for n in walk(value)
        )

    def _wants_gradients(self, stmt: cst.CSTNode) -> bool:
        """Backward, ``autograd.grad``, an optimizer step, ``requires_grad_()`` on an
        input, reading ``.grad``, ``torch.func`` transforms: the region computes or
        inspects gradients (attacks, saliency maps, MAML inner loops)."""
        sem = self.ctx.semantic
        if sem.gradmode.needs_gradients(stmt):
            return True
        for node in walk(stmt):
            if type(node) is cst.Attribute and node.attr.value in _GRAD_ATTRS:
                return True
            if type(node) is cst.Call and type(node.func) in (cst.Name, cst.Attribute) and self._may_name_func:
                if sem.names.refers_to(node.func, _TORCH_FUNC_TRANSFORMS):
                    return True
        return False

    def _results_reach_backward(self, func: cst.FunctionDef, flow: "_Flow", stmts: Sequence[cst.CSTNode], region: _Region) -> bool:
        """The region's outputs are returned to a caller that may compute gradients
        through them: the caller decides, not this function."""
        flow.analyse(stmts)
        if func in self._hooks:  # a forward's outputs compose into its caller's graph (``self.aux_loss`` too)
            return flow.leaves
        if not flow.returns_results:
            return False
        if all(self._graph_free_return(r) for r in flow.result_routes):
            # ``return loss.item(), logits.argmax(-1)``: nothing a caller gets can take
            # it back into this graph, as if the function returned nothing.
            return False
        # Returned outputs are wanted by whoever gets them unless every caller is in
        # this file and lets them go nowhere a backward could see.
        if self._returns_unused(func) or results_dropped_elsewhere(self.ctx.semantic, func):
            return False
        if self._collects_outputs(func, region):
            return False
        if not self.preview:
            return True
        # The preview tier guesses that callers which compute no gradient in this
        # file are all there are (``def predict(model, x): return model(x)``).
        sem = self.ctx.semantic
        for call in sem.calls.call_sites(func) or []:
            caller = sem.tree.enclosing_function(call)
            if self._wants_gradients(caller.body if caller is not None else self.ctx.module):
                return True
        return "loss" in func.name.value.lower()

    def _graph_free_return(self, route) -> bool:
        """``route`` is a ``return`` of a value proven to carry no graph."""
        node = route.node
        return isinstance(node, cst.Return) and node.value is not None and self.ctx.semantic.escape.graph_free(node.value)

    def _collects_outputs(self, func: cst.FunctionDef, region: _Region) -> bool:
        """The region runs its model over a loop and collects every output
        (``embeddings.append(model(batch))``), in a function that is not a method of a
        class that may be an ``nn.Module``: whatever the caller does with the result,
        every iteration's activations stay alive until it returns (an embedding or
        prediction pass over a dataset, not one step of a composed forward)."""
        sem = self.ctx.semantic
        cls = sem.tree.method_class(func)
        if cls is not None and not sem.modules.not_module_class(cls):
            return False
        flows = sem.escape.flows(func)
        for call, _ in region.calls:
            loop = sem.tree.enclosing_loop(call)
            if loop is not None and sem.tree.is_inside(func, loop) and flows.accumulates([call], sem.tree, loop):
                return True
        return False

    # -- fix ------------------------------------------------------------------------

    def _fix(self, scope: Scope, region: _Region, flow: "_Flow") -> Optional[Fix]:
        sem = self.ctx.semantic
        if isinstance(scope, cst.FunctionDef) and scope.asynchronous is not None:
            return None  # grad mode is thread-local: an await would leak it to other tasks
        decorate = self._decorate(scope, region)
        wrapped = () if decorate else self._to_wrap(region)
        ref = sem.names.torch_ref_at(scope if decorate else wrapped[0])
        if ref is None:
            return None  # `torch.no_grad()` would not name the module there
        torch_name, imports = ref
        guard = f"{torch_name}.{grad_guard(self.ctx, scope, None if decorate else wrapped)}()"
        if decorate:
            assert isinstance(scope, cst.FunctionDef)
            flow.analyse(scope.body.body)
            edit = self.transform(
                scope, lambda f: codegen.add_decorator(f, guard), key=("grad-guard-decorator", id(scope))
            )
            title = f"Decorate `{scope.name.value}` with `@{guard}`"
        else:
            if any(self._sets_grad_mode(s) or _suspends(s, walk) for s in wrapped):
                return None
            flow.analyse(wrapped)
            first, last = wrapped[0], wrapped[-1]
            edit = self.wrap(
                first, last, lambda stmts: codegen.wrap_in_with(stmts, guard), key=("grad-guard-wrap", id(first))
            )
            what = "the loop" if len(wrapped) == 1 and isinstance(first, (cst.For, cst.While)) else "the forward pass"
            title = f"Wrap {what} in `with {guard}:`"
        if isinstance(scope, cst.FunctionDef):
            # What a generator yields, or a function nested in a coroutine returns, goes
            # where grad mode and backward calls are not known yet.
            risky = (
                sem.gradmode.may_compute_gradients(scope)
                or flow.escapes
                or in_async_function(self.ctx, scope)
                or (decorate and is_generator(scope))
            )
        else:
            # Module level: what the statements compute stays in the module's names, which
            # its functions (run later, maybe to backpropagate) can read.
            seeds = [c for c, _ in region.calls]
            risky = sem.gradmode.needs_gradients(scope) or bool(sem.escape.module_results_leave(seeds))
        # A module's forward returns what its inputs and other layers compute to a caller
        # that may backpropagate: the guard would cut those graphs too.
        risky = risky or scope in self._hooks or guard_changes_more_than_graph(self.ctx)
        # A helper or a method of the file's classes run under the guard may train (a
        # test-time adapter's ``adapter.adapt(x)`` steps an optimizer): the guard breaks it.
        covered = scope.body.body if decorate else wrapped  # type: ignore[union-attr]
        risky = risky or any(
            isinstance(n, cst.Call) and (sem.gradmode.call_may_train(n) or _numpy_of_unknown(sem, n))
            for stmt in covered
            for n in walk(stmt)
        )
        # A file that imports nothing of torch may run where torch is not installed (a
        # serving engine with another backend): the ``import torch`` the fix adds could raise.
        risky = risky or bool(imports) and "torch" not in {r.package for r in sem.names.index.records}
        return self.fix(edit, title=title, applicability="unsafe" if risky else "safe", add_imports=imports)

    def _to_wrap(self, region: _Region) -> Sequence[cst.BaseStatement]:
        """The run of statements of the region's block that holds its unguarded forward
        calls (a whole loop, usually), looking inside an ``if``/``with``/``try`` that
        holds them all in its body (``if __name__ == "__main__":``)."""
        call_ids = {id(c) for c, _ in region.calls}

        def holds(stmt: cst.CSTNode) -> bool:
            return any(id(n) in call_ids for n in walk(stmt))

        block, start, end = region.block, region.start, region.end
        while True:
            holding = [i for i in range(start, end) if holds(block.body[i])]
            lo, hi = holding[0], holding[-1]
            stmt = block.body[lo]
            inner = stmt.body if isinstance(stmt, (cst.If, cst.With, cst.Try)) else None
            if lo != hi or not isinstance(inner, cst.IndentedBlock):
                return _without_definitions(block.body[lo : hi + 1], holds)
            inside = {id(n) for s in inner.body for n in walk(s)}
            if not call_ids <= inside:  # some in an ``else``/``except``
                return block.body[lo : hi + 1]
            block, start, end = inner, 0, len(inner.body)

    def _decorate(self, scope: Scope, region: _Region) -> bool:
        """The region is the function's whole body: nothing before it (or after it)
        that a decorator would put under no_grad can record a graph."""
        if not isinstance(scope, cst.FunctionDef) or region.block is not scope.body:
            return False
        if self.ctx.semantic.gradmode.needs_gradients(scope.body) or self._sets_grad_mode(scope.body):
            return False
        outside = [*region.block.body[: region.start], *region.block.body[region.end :]]
        return all(_inert(s, walk) for s in outside)

    def _sets_grad_mode(self, stmt: cst.CSTNode) -> bool:
        sem = self.ctx.semantic
        for node in walk(stmt):
            if type(node) is cst.With and sem.gradmode.with_guard(node) is not None:
                return True
            if type(node) is cst.SimpleStatementLine and sem.gradmode.global_switch(node) is not None:
                return True
        return False


def _spelled(switch: Union[cst.CSTNode, int], flag: str) -> str:
    """The switch of a flag's region as the message names it: ``.train(flag)``, or
    the ``eval()`` / ``train(False)`` of the branch that ``if flag: ... else: ...`` takes."""
    if isinstance(switch, cst.Call) and isinstance(switch.func, cst.Attribute):
        if switch.func.attr.value == "eval":
            return "`.eval()`"
        if switch.args and isinstance(switch.args[0].value, cst.Name) and switch.args[0].value.value == "False":
            return "`.train(False)`"
    return f"`.train({flag})`"


def _numpy_of_unknown(sem, call: cst.Call) -> bool:
    """``out.numpy()`` of a tensor that may carry a graph raises ``RuntimeError`` with
    gradients on and not under the guard: the fix would remove an error raised at
    another line than the one it flags."""
    func = call.func
    if not (isinstance(func, cst.Attribute) and func.attr.value == "numpy") or call.args:
        return False
    return not sem.escape.graph_free(func.value)

