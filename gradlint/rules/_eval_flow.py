"""GL101's flows: the region a fix covers (``_Region``), where the outputs of its
forwards can go (``_Flow``), and the statement and binding facts the rule and its
fix share. Only GL101 uses them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, FrozenSet, Iterable, Iterator, List, Mapping, Optional, Sequence, Set, Tuple, Union

import ast
import builtins
import functools
import os

import libcst as cst

from gradlint.semantic import bounds, result_uses
from gradlint.semantic.ast_decorators import FACTORY, PLAIN, WRAPPER, is_identity, summary_entry
from gradlint.semantic.syntax import called_module, is_eval_call, last_name
from gradlint.semantic.tree import FunctionScope as Scope, walk

Block = Union[cst.IndentedBlock, cst.Module]

# Functions whose outputs feed a backward the rule cannot see: a module's
# forward composes into its caller's graph, and Lightning runs backward on
# what training_step returns. Freezing a submodule's batch-norm with eval()
# while it still trains is common there.
_TRAINING_HOOKS = frozenset({"forward", "__call__", "training_step"})
# Decorators known to leave grad mode alone: a function they wrap runs in its caller's mode.
_NEUTRAL_DECORATORS = frozenset(
    {
        "builtins.staticmethod", "builtins.classmethod", "builtins.property", "contextlib.contextmanager", "dataclasses.dataclass",
        # gin-config and hydra bind configured values to the parameters and call the function as is.
        "gin.configurable", "gin.register", "hydra.main",
        # haystack records a component's output sockets on ``run`` and returns it as is.
        "haystack.component.output_types", "haystack.core.component.component.output_types",
        # loguru logs an exception the function raises (and re-raises or returns a default).
        "loguru.logger.catch",
    }
)
_NEUTRAL_DECORATOR_PREFIXES = (
    "functools.", "abc.", "typing.", "typing_extensions.", "pytest.", "unittest.mock.", "torch.jit.", "click.",
)


def neutral_decorator(sem, module: cst.Module, expr: cst.BaseExpression) -> bool:
    """Whether the decorator ``expr`` is known to leave grad mode as it is: one that
    ``_NEUTRAL_DECORATORS`` names, or one of the file or of the project index that
    hands back the very function it decorates (``semantic.ast_decorators``: a
    docstring helper, a registry), or a factory of such (``@model_doc(h, "predict")``)."""
    called = isinstance(expr, cst.Call)
    target = expr.func if isinstance(expr, cst.Call) else expr
    if not isinstance(target, (cst.Name, cst.Attribute)):
        return False
    names = sem.names.qualnames(target)
    if names and all(q in _NEUTRAL_DECORATORS or q.startswith(_NEUTRAL_DECORATOR_PREFIXES) for q in names):
        return True
    kinds = (FACTORY,) if called else (PLAIN, WRAPPER)
    if isinstance(target, cst.Name) and not sem.names.is_imported(target):
        defined = [s for s in module.body if isinstance(s, cst.FunctionDef) and s.name.value == target.value]
        return len(defined) == 1 and _decorator_kinds(sem.source).get(target.value) in kinds
    index = sem.project
    if index is None or len(names) != 1 or not sem.names.is_imported(target):
        return False
    return is_identity(index, next(iter(names)), sem.path, called, wrappers=True)


@functools.lru_cache(maxsize=4)
def _decorator_kinds(code: str) -> Mapping[str, str]:
    """``ast_decorators.summary_entry`` of the file, given as its code: read once per
    text, however many functions its decorators decorate."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return {}
    return summary_entry(tree).get("identity_decorators", {})


# Calls that cannot record a graph; statements made only of them may run under
# a decorator added for the region that follows them.
_INERT_CALLS = frozenset(
    "eval train to cuda cpu print len range enumerate zip list dict set tuple int float str bool isinstance "
    "getattr hasattr next iter parameters named_parameters modules children format info debug warning "
    "log item tolist numpy append extend add_scalar add_scalars time perf_counter manual_seed seed "
    "set_seed device exists makedirs join no_grad inference_mode".split()
)


@dataclass
class _Region:
    block: Block
    start: int  # first statement of the region in ``block.body``
    end: int  # one past its last statement
    models: Set[str]
    # model -> the call that put it in eval mode, or its line in another file (named in the message)
    eval_line: Dict[str, Union[cst.CSTNode, int]]
    calls: List[Tuple[cst.Call, str]] = field(default_factory=list)
    # ``model.train(mode=flag)``: eval mode where ``flag`` is false, under the constants
    # of a call that make it so (``rules._mode_flag``)
    flag: Optional[str] = None
    constants: Optional[Dict[str, object]] = None
    # ``if head: head.eval()``: only forwards under ``if head:`` count (``_conditional_regions``)
    under: Optional[str] = None


def _assigned_attributes(func: cst.FunctionDef) -> Set[str]:
    """The attributes ``x`` that ``func`` assigns as ``self.x = ...``."""
    found: Set[str] = set()
    for node in walk(func.body, into_functions=True):
        if isinstance(node, (cst.Assign, cst.AugAssign, cst.AnnAssign)):
            targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
            for t in targets:
                if isinstance(t, cst.Attribute) and isinstance(t.value, cst.Name) and t.value.value == "self":
                    found.add(t.attr.value)
    return found


def bound_targets(node: cst.CSTNode) -> List[cst.BaseExpression]:
    """The targets ``node`` binds: of an assignment (plain, augmented, annotated, ``:=``),
    of a ``for`` (a comprehension's too) or of a ``with ... as``."""
    if isinstance(node, cst.Assign):
        return [t.target for t in node.targets]
    if isinstance(node, (cst.AugAssign, cst.AnnAssign, cst.For, cst.CompFor, cst.NamedExpr)):
        return [node.target]
    if isinstance(node, cst.WithItem) and node.asname is not None:
        return [node.asname.name]
    return []


def _rebound_names(func: cst.FunctionDef) -> Set[str]:
    """Names that ``func``'s body binds (``model = ...``, ``for model in ...``)."""
    found: Set[str] = set()
    for node in walk(func.body, into_functions=True):
        targets = bound_targets(node)
        while targets:
            t = targets.pop()
            if isinstance(t, cst.Name):
                found.add(t.value)
            elif isinstance(t, (cst.Tuple, cst.List)):
                targets += [el.value for el in t.elements]
            elif isinstance(t, cst.StarredElement):
                targets.append(t.value)
    return found


def _keeps_log_probs(stmt: cst.CSTNode) -> bool:
    """A policy rollout (``dist.log_prob(action)``) samples to collect log-probabilities
    for a policy-gradient backward, even when this code does not run it."""
    return any(isinstance(n, cst.Call) and last_name(n.func) == "log_prob" for n in walk(stmt))


def _bound_params(func: cst.FunctionDef, call: cst.Call, skip: int = 0) -> Iterable[Tuple[str, cst.BaseExpression]]:
    """(parameter name, argument) for the plain positional and keyword arguments of
    ``call``; ``skip``: leading parameters the call fills otherwise (``self``)."""
    params = [*func.params.posonly_params, *func.params.params][skip:]
    by_name = {p.name.value for p in [*params, *func.params.kwonly_params]}
    for i, arg in enumerate(call.args):
        if arg.star:
            return
        if arg.keyword is None:
            if i < len(params):
                yield params[i].name.value, arg.value
        elif arg.keyword.value in by_name:
            yield arg.keyword.value, arg.value


def _without_definitions(run: Sequence[cst.BaseStatement], holds) -> Sequence[cst.BaseStatement]:
    """``run`` up to the last statement holding a forward call before the first function
    or class definition in it: a script's forward calls on both sides of a ``def``
    are wrapped one run per fix round, never with the definitions inside the ``with``."""
    for i, stmt in enumerate(run):
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            run = run[:i]
            break
    while len(run) > 1 and not holds(run[-1]):
        run = run[:-1]
    return run


def _inert(stmt: cst.CSTNode, walk) -> bool:
    for node in walk(stmt):
        if isinstance(node, (cst.Yield, cst.Await)):
            return False
        if isinstance(node, cst.Call) and last_name(node.func) not in _INERT_CALLS:
            return False
    return True


def _suspends(stmt: cst.CSTNode, walk) -> bool:
    """A ``yield`` or ``await`` inside a ``with torch.no_grad():`` would hand the
    disabled grad mode to whatever runs while this code is suspended."""
    return any(isinstance(n, (cst.Yield, cst.Await)) for n in walk(stmt))


# -- where the region's outputs go ----------------------------------------------

# Routes by which a value leaves the function for a caller that may run backward.
_LEAVES = frozenset({"return", "yield", "self", "global", "outer"})
# Routes by which a value a call returns may reach a backward.
_USES = _LEAVES | frozenset({"backward", "helper", "closure", "raise"})


class _Flow:
    """Where the outputs of code that a fix puts under no_grad can go.

    The values of the forward calls made in the covered statements, and what is
    computed from them, are *results* (``semantic.escape``); a result that is
    returned, yielded, stored on ``self``/a parameter/a global, or handed to
    such an object's ``append``/``update``/... leaves the function
    (``escapes``): a caller may run backward through it, so the fix is unsafe.
    """

    def __init__(self, ctx, scope: Scope, models: FrozenSet[str]) -> None:
        self.ctx = ctx
        self.scope = scope
        self.models = models
        self.escapes = False
        self.returns_results = self.leaves = False
        self.result_routes: List = []  # the "return"/"yield" routes results take
        info = ctx.semantic.scopes.scope(scope)
        self.params: Set[str] = {
            n for n, binds in (info.bindings.items() if info is not None else ()) if any(b.form == "param" for b in binds)
        }
        # The seeds' ids -> (escapes, leaves, result_routes): a region's statements and the
        # whole body its fix decorates often hold the same forward calls, followed twice.
        self._analysed: Dict[Tuple[int, ...], Tuple[bool, bool, Tuple[Any, ...]]] = {}

    def analyse(self, covered: Iterable[cst.CSTNode]) -> None:
        if not isinstance(self.scope, cst.FunctionDef):
            self.escapes = self.returns_results = self.leaves = False
            self.result_routes = []
            return
        seeds = [n for stmt in covered for n in walk(stmt) if type(n) is cst.Call and self._makes_graph(n)]
        key = tuple(id(n) for n in seeds)
        known = self._analysed.get(key)
        if known is None:
            known = self._analysed[key] = self._follow(seeds)
        self.escapes, self.leaves = known[0], known[1]
        self.result_routes = list(known[2])
        self.returns_results = bool(self.result_routes)

    def _follow(self, seeds: Sequence[cst.CSTNode]) -> Tuple[bool, bool, Tuple[Any, ...]]:
        routes = self.ctx.semantic.escape.flows(self.scope).routes_of_nodes(seeds, self.ctx.tree, _LEAVES) if seeds else []
        # Any route out counts against the fix's safety (a helper, a callback, a closure,
        # a raise, an unknown callee may keep the graph); only returns decide the finding.
        # A forward of the region fed its own earlier outputs (``idx`` grown token by token)
        # keeps them in the region, under the same guard.
        # Only a callee that keeps nothing counts: ``self.log(name, out)`` is a method
        # that may keep ``out``, whatever the seeds took it for.
        seed_ids = {id(n) for n in seeds if not self.ctx.semantic.escape.callee_may_keep(n)}
        everywhere = self.ctx.semantic.escape.flows(self.scope).routes_of_nodes(seeds, self.ctx.tree) if seeds else []
        escapes = any(id(r.node) not in seed_ids for r in everywhere)
        # Leaves: returned, or stored where a caller may find it.
        return escapes, bool(routes), tuple(r for r in routes if r.kind in ("return", "yield"))

    def _makes_graph(self, call: cst.Call) -> bool:
        """A call of a model or submodule: ``model(x)``, ``self.head(h)``, ``encoder(x)``
        for a parameter ``encoder``."""
        func = called_module(call)
        if func is None:
            return False
        if self.ctx.code_for(func) in self.models:
            return True
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self":
            method = self.ctx.semantic.calls.local_function(call)
            return method is None or not self_contained(self.ctx.semantic, method)
        return isinstance(func, cst.Name) and func.value in self.params


_BUILTINS = frozenset(dir(builtins))


def self_contained(sem, method: cst.FunctionDef, _visiting: FrozenSet[int] = frozenset()) -> bool:
    """Whether ``method`` computes only from its arguments: every name it reads is one
    of its parameters, a name it binds, a builtin, or ``self`` called for a method of
    the class that is self-contained too (``self.remove_bpe(words)``). It reaches no
    model, attribute or global, so whatever graph its result carries came in through
    its arguments: it is no forward of its own."""
    if id(method) in _visiting or len(_visiting) > 4:
        return len(_visiting) <= 4  # recursion: as contained as the rest of its body
    if method.decorators:
        return False  # a decorator may put anything in the method's place
    visiting = _visiting | {id(method)}
    params = method.params
    local = _rebound_names(method) | {
        p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)
    }
    for star in (params.star_arg, params.star_kwarg):
        if isinstance(star, cst.Param):
            local.add(star.name.value)
    local.discard("self")  # only to call a method: ``getattr(self, "model")`` reads state
    skip: Set[int] = set()
    for node in walk(method.body, into_functions=True):
        if isinstance(node, cst.Attribute):
            skip.add(id(node.attr))
            if isinstance(node.value, cst.Name) and node.value.value == "self":
                skip.add(id(node.value))
                called = sem.tree.parent(node)
                if not (isinstance(called, cst.Call) and called.func is node):
                    if plain_setting(sem, method, node.attr.value):
                        continue  # ``self._min_confidence``: a number the constructor was given
                    return False  # reads state: a model, a cache
                target = sem.calls.local_function(called)
                if target is None or not self_contained(sem, target, visiting):
                    return False
        elif isinstance(node, cst.Arg) and node.keyword is not None:
            skip.add(id(node.keyword))
        elif isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef, cst.Global, cst.Nonlocal, cst.Yield, cst.Await)):
            return False
        elif isinstance(node, cst.Name) and id(node) not in skip and node.value not in local and node.value not in _BUILTINS:
            if not _numeric_library(sem, node):
                return False
    return True


# Libraries whose functions compute on NumPy arrays and Python numbers: what they
# return carries no autograd graph (``np.argsort(conf)``; a tensor that requires
# grad is refused by NumPy, not traced).
_NUMERIC_LIBRARIES = ("numpy", "math")
_PLAIN_ANNOTATIONS = frozenset({"int", "float", "bool", "str"})


def _numeric_library(sem, name: cst.Name) -> bool:
    """``np`` of ``import numpy as np``, ``math``: an imported numeric library."""
    if not sem.names.is_imported(name):
        return False
    qualnames = sem.names.qualnames(name)
    return bool(qualnames) and all(q.split(".")[0] in _NUMERIC_LIBRARIES for q in qualnames)


def plain_setting(sem, method: cst.FunctionDef, attr: str) -> bool:
    """Whether ``self.<attr>``, read in ``method``, holds a plain setting: every write
    of it in the class is ``self.<attr> = v`` (annotated or not) where ``v`` is a
    literal number, string or flag, or a parameter of the writing method annotated
    ``int``, ``float``, ``bool`` or ``str`` (``self._min_confidence =
    min_confidence``); no augmented, unpacking, loop or ``setattr`` write."""
    cls = sem.tree.method_class(method)
    if cls is None:
        return False
    plain = 0
    for node in walk(cls.body, into_functions=True):
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value in ("setattr", "delattr"):
            return False
        if not (isinstance(node, cst.Attribute) and node.attr.value == attr and isinstance(node.value, cst.Name)):
            continue
        if node.value.value != "self":
            continue
        parent = sem.tree.parent(node)
        if isinstance(parent, cst.AssignTarget) or (isinstance(parent, cst.AnnAssign) and parent.target is node):
            holder = sem.tree.parent(parent) if isinstance(parent, cst.AssignTarget) else parent
            value = getattr(holder, "value", None)
            if value is None or not _plain_value(sem, value):
                return False
            plain += 1
        elif isinstance(parent, (cst.AugAssign, cst.For, cst.CompFor, cst.Element, cst.AsName, cst.StarredElement, cst.Del)):
            return False  # another write (or an unpacking whose value is not known)
    return plain > 0


def _plain_value(sem, value: cst.BaseExpression) -> bool:
    if isinstance(value, (cst.Integer, cst.Float, cst.SimpleString)):
        return True
    if isinstance(value, cst.Name) and value.value in ("True", "False", "None"):
        return True
    if isinstance(value, cst.UnaryOperation) and isinstance(value.expression, (cst.Integer, cst.Float)):
        return True
    if not isinstance(value, cst.Name):
        return False
    func = sem.tree.enclosing(value, (cst.FunctionDef,))
    if not isinstance(func, cst.FunctionDef):
        return False
    params = (*func.params.posonly_params, *func.params.params, *func.params.kwonly_params)
    param = next((p for p in params if p.name.value == value.value), None)
    if param is None or param.annotation is None or not isinstance(param.annotation.annotation, cst.Name):
        return False
    if any(b.form != "param" for b in sem.scopes.bindings(func).get(value.value, [])):
        return False  # rebound in the method before it is stored
    return param.annotation.annotation.value in _PLAIN_ANNOTATIONS


# Attributes through which code walks the graph a forward recorded.
_GRAPH_WALKS = frozenset({"grad_fn", "next_functions"})


def reads_autograd_graph(scope: cst.CSTNode) -> bool:
    """Whether a function (hooks nested in it included) walks the autograd graph
    its forwards record (``out.grad_fn``, ``fn.next_functions``): a tracer or a
    pruner that needs the graph, not an evaluation that wastes it. For a module,
    its own statements."""
    if isinstance(scope, cst.FunctionDef):
        nodes = walk(scope.body, into_functions=True)
    else:
        nodes = walk(scope)
    return any(type(node) is cst.Attribute and node.attr.value in _GRAPH_WALKS for node in nodes)


def hands_model_to_caller_code(scope: cst.CSTNode, regions: Sequence["_Region"]) -> bool:
    """Whether a function calls one of its own parameters with a model it puts in
    eval mode (``run_fn(model, inputs)`` in a benchmark helper): what runs there,
    and whether it needs gradients, is the caller's choice."""
    if not isinstance(scope, cst.FunctionDef):
        return False
    params = {p.name.value for p in (*scope.params.posonly_params, *scope.params.params, *scope.params.kwonly_params)}
    models: Set[str] = set().union(*(r.models for r in regions))
    for node in walk(scope.body):
        if type(node) is cst.Call and type(node.func) is cst.Name and node.func.value in params:
            if any(type(a.value) is cst.Name and a.value.value in models for a in node.args):
                return True
    return False


def accumulated_in_loop(sem, func: cst.FunctionDef, calls: Sequence[cst.Call]) -> bool:
    """Whether an output of ``calls``, forwards inside a loop of ``func``, is summed or
    collected across that loop's iterations (``total += loss``): every batch's
    graph stays alive until ``func`` returns, whatever its caller then does."""
    flows = sem.escape.flows(func)
    for call in calls:
        loop = sem.tree.enclosing_loop(call)
        if loop is not None and sem.tree.is_inside(func, loop) and flows.accumulates([call], sem.tree, loop):
            return True
    return False


def loaded_in_eval_only(sem, scope: Scope, region: "_Region", calls: Sequence[Tuple[cst.Call, str]]) -> bool:
    """Whether ``region`` is a method's whole body, in eval mode only because its
    attribute was loaded with transformers' ``from_pretrained`` (no ``eval()`` of the
    code's), and no output of its forwards is collected across a loop. Such model
    wrappers (an evaluation framework's ``get_ppl``) are mostly called by the
    framework under ``no_grad``, from files the run may not show; only outputs
    kept batch after batch (a reader's logits) are worth a finding without them."""
    if region.start != 0 or not isinstance(scope, cst.FunctionDef) or region.block is not scope.body:
        return False
    cls = sem.tree.method_class(scope)
    switches = sem.modules.eval_attributes(cls) if cls is not None else {}
    # an ``eval()`` of the class's, or a base's constructor that ends in one (``super().__init__(model)``)
    if not region.models or any(m not in switches or is_eval_call(switches[m]) or last_name(switches[m].func) == "__init__" for m in region.models):
        return False
    return not accumulated_in_loop(sem, scope, [c for c, _ in calls])


def reported_alone(sem, helper: cst.FunctionDef, regions: Sequence["_Region"], forwards) -> bool:
    """Whether one of ``regions``, ``helper``'s own evaluation regions, reports its
    forwards where they are (``forwards(region)`` gives a region's forward calls). A
    method whose model is in eval mode only because ``from_pretrained`` loaded it
    reports only outputs it collects across a loop (``loaded_in_eval_only``): its
    single forward is left to a caller whose own ``eval()`` region runs the method
    (``self.bert.eval()`` then ``self.get_embeddings(batch)`` in a loop)."""
    return any(not loaded_in_eval_only(sem, helper, r, forwards(r)) for r in regions)


# A unit test's loop over at most this many literal items (``for k in range(2)``)
# keeps a handful of small graphs until the test returns: nothing worth a change.
_FEW_ITERATIONS = 8


def few_iterations(loop: cst.CSTNode) -> bool:
    """Whether ``loop`` is a ``for`` over a literal range (``range(2)``, ``range(1, 4)``)
    or a literal list or tuple of at most ``_FEW_ITERATIONS`` items."""
    if not isinstance(loop, cst.For):
        return False
    it = loop.iter
    if isinstance(it, (cst.List, cst.Tuple)):
        return len(it.elements) <= _FEW_ITERATIONS and not any(isinstance(e, cst.StarredElement) for e in it.elements)
    if not (isinstance(it, cst.Call) and isinstance(it.func, cst.Name) and it.func.value == "range" and 1 <= len(it.args) <= 2):
        return False
    bounds_ = [a.value for a in it.args]
    if any(a.keyword is not None or a.star or not isinstance(b, cst.Integer) for a, b in zip(it.args, bounds_)):
        return False
    values = [int(b.value.replace("_", ""), 0) for b in bounds_ if isinstance(b, cst.Integer)]
    return (values[-1] - (values[0] if len(values) == 2 else 0)) <= _FEW_ITERATIONS


def runs_once(sem, scope: Scope, call: cst.Call, depth: int = 0) -> bool:
    """The premise "the forward runs more than once or its graph is held" (issue
    26), proven false: ``call`` is outside any loop of ``scope``, and ``scope``
    is the module (its top-level code, ``__main__`` block included, runs once) or
    a module-level function proven to run once. A one-off reference forward of an
    example or export script holds its graph for one comparison, not across
    iterations."""
    if _in_loop(sem, scope, call) or sem.path.endswith(".ipynb"):
        return False  # a notebook's kernel keeps its globals, graphs included, and reruns cells
    return isinstance(scope, cst.Module) or (isinstance(scope, cst.FunctionDef) and _function_runs_once(sem, scope, depth))


def _in_loop(sem, scope: Scope, node: cst.CSTNode) -> bool:
    for ancestor in sem.tree.ancestors(node):
        if ancestor is scope:
            return False
        if isinstance(ancestor, (cst.For, cst.While, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp, cst.Lambda)):
            return True
        if isinstance(ancestor, (cst.FunctionDef, cst.ClassDef)):
            return True  # nested definition: runs when called, as often as that is
    return False


def _function_runs_once(sem, func: cst.FunctionDef, depth: int) -> bool:
    """The module-level, undecorated ``func`` has one call, in this file, outside
    any loop, at module level or in a function proven to run once; nothing else
    refers to it (no callback, no call from another file of the project)."""
    if depth > bounds.ENTRY_CALLER_LEVELS or func.decorators or sem.tree.parent(func) is not sem.module:
        return False
    sites = sem.calls.call_sites(func)
    if sites is None or len(sites) != 1 or sem.gradmode.project_call_counts(func)[0]:
        return False
    for site in sites:
        caller = sem.tree.enclosing_function(site)
        if caller is func:
            return False  # recursion
        if not runs_once(sem, caller if caller is not None else sem.module, site, depth + 1):
            return False
    return True


def results_dropped_elsewhere(sem, func: cst.FunctionDef) -> bool:
    """Whether the method ``func``, which returns its forward's graph, is called only
    from other files of the project index, each time in a loop with grad mode
    untouched, by code that reads what it returns only as numbers (a trainer's
    ``eval_step`` whose loss is ``.item()``-ed and logged, ``result_uses``): every
    batch's graph is built for nothing."""
    if sem.project is None or sem.tree.method_class(func) is None or sem.calls.call_sites(func) != []:
        return False
    return result_uses.dropped_in_loops(sem.project, func.name.value, sem.path)


def handed_on(sem, helper: cst.FunctionDef, param: str, _depth: int = 0) -> Iterator[Tuple[cst.FunctionDef, str]]:
    """``(helper, param)``, then the functions of the file that ``helper`` hands its
    parameter ``param`` on to, as it is (``gather_results(model, it)`` calling
    ``compute_outputs(model, it)``), with grad mode as it was: the caller's model
    and grad mode reach them unchanged. Not through a helper that rebinds
    ``param``, is decorated, guards its body or computes gradients."""
    yield helper, param
    if _depth >= bounds.RULE_FOLLOW_LEVELS or helper.decorators or param in _rebound_names(helper):
        return
    if sem.gradmode.guard_at(helper.body) is not None or sem.gradmode.needs_gradients(helper.body):
        return
    for call in walk(helper.body):
        if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Name) or sem.gradmode.guard_at(call) is not None:
            continue
        inner = sem.calls.local_function(call)
        if inner is None or inner is helper or inner.name.value in _TRAINING_HOOKS or inner.asynchronous:
            continue
        for name, arg in _bound_params(inner, call):
            if isinstance(arg, cst.Name) and arg.value == param:
                yield from handed_on(sem, inner, name, _depth + 1)


def collected_in_list(sem, func: cst.FunctionDef, calls: Sequence[cst.Call]) -> bool:
    """Whether ``func``, no method of a possible ``nn.Module``, appends the outputs of
    ``calls``, forwards in a loop of it, to a list across that loop
    (``l, p = model(batch); losses.append(l)``), and no function of the file that
    leads to it computes gradients: an evaluation pass whose every batch's
    activations stay alive until it returns, whatever a caller the file does not
    show then does with them. A sum (``total += loss``) is left to the callers:
    it is what a training helper hands back to be differentiated."""
    cls = sem.tree.method_class(func)
    if cls is not None and not sem.modules.not_module_class(cls):
        return False
    flows = sem.escape.flows(func)
    for call in calls:
        loop = sem.tree.enclosing_loop(call)
        stmt = sem.tree.parent(call)
        if loop is None or not sem.tree.is_inside(func, loop) or not isinstance(stmt, cst.Assign):
            continue
        names = {n.value for t in stmt.targets for n in walk(t.target) if isinstance(n, cst.Name)}
        appended = any(
            isinstance(n, cst.Call)
            and isinstance(n.func, cst.Attribute)
            and n.func.attr.value == "append"
            and any(isinstance(a, cst.Name) and a.value in names for arg in n.args for a in walk(arg.value))
            for n in walk(loop.body)
        )
        if appended and flows.accumulates([call], sem.tree, loop) and not _leads_from_gradients(sem, func):
            return True
    return False


def _leads_from_gradients(sem, func: cst.FunctionDef, depth: int = 0) -> bool:
    """Whether a function of the file that calls ``func``, or one that calls it in
    turn, computes gradients, or is module-level code or unknown callers."""
    sites = sem.calls.call_sites(func)
    if sites is None or depth > bounds.RULE_FOLLOW_LEVELS:
        return True
    for site in sites:
        caller = sem.tree.enclosing_function(site)
        if caller is None or caller is func or sem.gradmode.needs_gradients(caller.body):
            return True
        if _leads_from_gradients(sem, caller, depth + 1):
            return True
    return False


class OtherFileLine(int):
    """The line of an ``eval()`` in another file, as a finding's message names it
    (``main.py:139``): the message's "line N" would otherwise point into this file."""

    path: str

    def __new__(cls, line: int, path: str) -> "OtherFileLine":
        made = int.__new__(cls, line)
        made.path = path
        return made

    def __format__(self, spec: str) -> str:
        return f"{self.path}:{int(self)}"


def other_file_eval_params(sem) -> Iterator[Tuple[cst.FunctionDef, str, int]]:
    """(function, parameter, line of the caller's ``eval()``) for each module-level
    function of the file that only other files of the project call, every call with
    gradients on handing it, for that parameter, a model they put in eval mode
    (``semantic.eval_callers``): its forwards of the parameter run in eval mode, as
    a helper's do when the caller is in the same file. Not a function that trains or
    rebinds the parameter itself."""
    if sem.project is None:
        return
    for func in sem.module.body:
        if not isinstance(func, cst.FunctionDef) or func.asynchronous is not None or sem.calls.call_sites(func) != []:
            continue
        total, disabled = sem.project.function_call_counts(func.name.value, sem.path)
        passes = sem.project.eval_passes(func.name.value, sem.path) if total and not disabled else []
        if not passes or len(passes) != total:
            continue
        for i, param in enumerate([*func.params.posonly_params, *func.params.params]):
            name = param.name.value
            if all(i in entry[2] or name in entry[3] for _, entry in passes) and not sem.modules.ends_eval_mode(func.body, name):
                path, entry = passes[0]
                yield func, name, OtherFileLine(entry[1], os.path.relpath(path, os.path.dirname(sem.path)))
