"""Where a value goes: the routes by which what a name (or an expression) holds
leaves the code that computed it.

Per scope (a function, or the module), values flow between names through
assignments, augmented assignments, loop and ``with`` targets, walruses and
container mutators (``xs.append(v)`` makes ``xs`` hold ``v``); an edge is not
followed through an expression whose abstract value carries no graph
(``loss.item()``, ``out.argmax()``, ``float(x)``: see ``values``). Names are
keyed by their dotted chain (``total``, ``self.stats``; ``hist[i]`` is
``hist``).

Routes (``Route.kind``):

- "backward": the receiver of ``.backward()``, or the tensors given to
  ``torch.autograd.grad``/``backward``, to a framework's backward
  (``fabric.backward(loss)``, ``accelerator.backward(loss)``) or to
  ``self.manual_backward(loss)`` in a LightningModule;
- "helper": an argument of a same-file function that runs backward on (or
  returns into a backward of) the parameter it binds;
- "return", "yield": out to the caller;
- "self": stored on ``self``/``cls`` (an attribute, an item of one, a mutator
  such as ``self.hist.append(v)``, ``self.buf.copy_(v)``);
- "global": assigned to a ``global``/``nonlocal`` name or a module-level
  container from a function;
- "outer": stored into something the function does not own: a parameter's
  attribute or item, ``xs += [v]`` or ``xs.append(v)`` on a list passed in,
  ``buf.copy_(v)`` into a parameter;
- "holder": stored into an object the scope may not own (``certain`` False): a
  local name bound to what a call returns (``buf = get_buffer()``), or an object
  chosen by name at run time (``getattr(holder, name)``, ``vars(obj)[k]``);
  a local alias of a holder on ``self``, of a parameter or of a global
  (``kept = self.kept``, ``d = store``, an item got from one: ``.get``,
  ``.setdefault``, ``for buf in self.bufs``) counts as that holder's route, and
  ``getattr(self, name)`` as "self";
- "closure": captured by a lambda or a nested function (callbacks, hooks);
- "raise": carried by a raised exception;
- "call": handed to a callee this file does not define (``certain`` False:
  it may keep it, or not).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Callable, Dict, FrozenSet, List, Optional, Sequence, Set

import libcst as cst

from gradlint.semantic import bounds
from gradlint.semantic.calls import BACKWARD_METHODS
from gradlint.semantic.scope_flows import Route, ScopeFlows, _Edge, _mutates, _Sink, key, keys_in
from gradlint.semantic.torch_api import TORCH
from gradlint.semantic.tree import assignment, walk

if TYPE_CHECKING:
    from gradlint.semantic import SemanticModel
    from gradlint.semantic.bindings import Scope
    from gradlint.semantic.names import Names

# Methods that store their arguments in their receiver.
MUTATORS = frozenset({"append", "extend", "insert", "add", "update", "put", "put_nowait", "setdefault", "appendleft", "__setitem__"})
# Methods that copy their argument's values into their receiver's storage.
COPIES_INTO = frozenset({"copy_", "set_"})
# Builtins and methods that keep nothing of their arguments.
_KEEPS_NOTHING = frozenset(
    "len str int float bool repr print isinstance range format round min max sum abs any all sorted enumerate zip "
    "list tuple dict set iter next getattr hasattr type id hash".split()
)


def _backward_named(func: cst.BaseExpression) -> bool:
    """Whether ``func`` names a method that may run backward (cheap: asked of every call)."""
    return isinstance(func, cst.Attribute) and func.attr.value in BACKWARD_METHODS

# What a tensor tells of itself without its values: sizes, types, places.
_METADATA = frozenset({"shape", "dtype", "device", "ndim", "is_cuda", "layout"})
_METADATA_METHODS = frozenset({"size", "dim", "numel", "nelement", "element_size", "get_device", "data_ptr"})

# Exception classes, by the way their names end: a raise carries what they hold.
_EXCEPTIONS = ("Error", "Exception", "Warning")


def _stored_in(receiver: cst.BaseExpression) -> cst.BaseExpression:
    """The container a mutator's receiver lives in: ``store`` for
    ``store.setdefault(k, []).append(v)`` (``setdefault`` returns the item it keeps)."""
    while (
        isinstance(receiver, cst.Call)
        and isinstance(receiver.func, cst.Attribute)
        and receiver.func.attr.value == "setdefault"
    ):
        receiver = receiver.func.value
    return receiver


def _target_keys(target: cst.BaseExpression) -> FrozenSet[str]:
    if isinstance(target, (cst.Tuple, cst.List)):
        return frozenset(k for el in target.elements for k in _target_keys(el.value))
    if isinstance(target, cst.StarredElement):
        return _target_keys(target.value)
    k = key(target)
    if k is None:
        return frozenset()
    # ``x.a = v`` / ``x[i] = v`` changes what ``x`` holds too
    return frozenset({k, k.partition(".")[0]})


# Methods that return an item their receiver keeps.
_ITEM_GETTERS = frozenset({"get", "setdefault", "pop", "__getitem__"})
# Builtins and standard classes whose call makes a new container.
_CONSTRUCTORS = frozenset(
    "builtins.list builtins.dict builtins.set builtins.tuple builtins.bytearray collections.defaultdict "
    "collections.deque collections.OrderedDict collections.Counter queue.Queue".split()
)
# Calls that return an object named by a string: what it is is decided at run time.
_DYNAMIC = frozenset({"builtins.getattr", "builtins.vars", "builtins.globals", "builtins.locals"})


def _fresh(value: cst.BaseExpression, names: "Names") -> bool:
    """Whether ``value`` makes a new object: a display, a comprehension, a constructor
    (a builtin container, a class named in CapWords), an arithmetic result."""
    if isinstance(value, (cst.List, cst.Dict, cst.Set, cst.Tuple, cst.ListComp, cst.DictComp, cst.SetComp, cst.GeneratorExp)):
        return True
    if _literal(value) or isinstance(value, (cst.BinaryOperation, cst.UnaryOperation, cst.Lambda)):
        return True
    if isinstance(value, cst.Call) and isinstance(value.func, (cst.Name, cst.Attribute)):
        if names.qualnames(value.func) & _CONSTRUCTORS:
            return True
        last = value.func.attr.value if isinstance(value.func, cst.Attribute) else value.func.value
        return last[:1].isupper()
    return False


def _dynamic_holder(expr: cst.BaseExpression, names: "Names") -> Optional[str]:
    """For a store into ``getattr(self, f"{stage}_outputs")``, ``vars(obj)[k]``,
    ``globals()[k]`` (or an attribute or item of one): the object is chosen at run
    time. "self" when it is an attribute of ``self``, "holder" otherwise."""
    while isinstance(expr, (cst.Attribute, cst.Subscript)):
        expr = expr.value
    if not (isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and names.qualnames(expr.func) & _DYNAMIC):
        return None
    first = expr.args[0].value if expr.args else None
    if isinstance(first, cst.Name) and first.value in ("self", "cls"):
        return "self"
    return "global" if expr.func.value in ("globals", "locals") and not expr.args else "holder"


def _literal(expr: cst.CSTNode) -> bool:
    return isinstance(expr, (cst.Integer, cst.Float, cst.SimpleString, cst.FormattedString, cst.ConcatenatedString, cst.Comparison))


def _root(expr: cst.BaseExpression) -> Optional[str]:
    k = key(expr)
    return k.partition(".")[0] if k else None


# Kinds of values (``semantic.lattice.Value.what``) that are no tensor and hold none.
_GRAPH_FREE_KINDS = frozenset({"number", "numbers", "bool", "string", "none", "array", "image"})
_MUTABLE_DISPLAYS = (cst.List, cst.Dict, cst.Set, cst.ListComp, cst.DictComp, cst.SetComp)


# The node types ``Escape._build`` does something with: any other node is passed over.
_BUILD_KINDS = frozenset(
    {
        cst.FunctionDef,
        cst.Lambda,
        cst.ClassDef,
        cst.Assign,
        cst.AugAssign,
        cst.AnnAssign,
        cst.For,
        cst.CompFor,
        cst.WithItem,
        cst.NamedExpr,
        cst.Return,
        cst.Yield,
        cst.Raise,
        cst.Call,
    }
)


class Escape:
    def __init__(self, model: "SemanticModel") -> None:
        self.model = model
        self.tree = model.tree
        self._flows: Dict[int, ScopeFlows] = {}
        # ``leaving`` by function: the rules ask it once per finding (the volatile-flag rule of every
        # ``Variable(..., volatile=True)`` in the function, and again for the guard it
        # writes). Asked only by rules, never inside the model's own recursion, so an
        # answer is never one cut short by a question in progress further up.
        self._leaving: Dict[int, List[Route]] = {}
        self._helper_params: Dict[int, FrozenSet[int]] = {}
        self._keeping: Dict[int, FrozenSet[int]] = {}
        self._filled: Dict[int, FrozenSet[str]] = {}

    def flows(self, scope: cst.CSTNode) -> ScopeFlows:
        """The flows of ``scope``: a module, function or lambda node."""
        found = self._flows.get(id(scope))
        if found is None:
            found = self._flows[id(scope)] = self._build(scope)
        return found

    def routes(self, name: cst.Name, kinds: Optional[FrozenSet[str]] = None) -> List[Route]:
        """Where what ``name`` holds goes, in the scope it belongs to."""
        scope = self.tree.function_scope(name)
        return self.flows(scope).routes([name.value], kinds)

    def leaving(self, func: cst.FunctionDef) -> List[Route]:
        """The routes by which any value ``func`` computes (or was given) may leave it
        still able to carry a graph: what a guard around the whole function decides
        for code outside it. Every sink of the function counts unless what leaves
        carries no graph (numbers, indices, ``.item()``s) or goes to a callee that
        keeps nothing: torch's functions, a module's forward (a parameter called like
        one counts as a module unless a caller in this file passes something else or
        the function is a callback whose callers are not shown), a method of a value the
        function made, a same-file function that lets the argument go nowhere but
        back. A ``global``/``nonlocal`` declaration, a nested function, lambda or
        class counts as leaving. Backward calls are not routes here: they are the
        function computing gradients itself. The list is kept: not to be changed."""
        found = self._leaving.get(id(func))
        if found is None:
            found = self._leaving[id(func)] = self._leaving_routes(func)
        return found

    def _leaving_routes(self, func: cst.FunctionDef) -> List[Route]:
        out: List[Route] = []
        info = self.model.scopes.scope(func)
        if info is not None and (info.globals or info.nonlocals):
            out.append(Route("global", func))
        for node in walk(func.body):
            if isinstance(node, cst.ClassDef):
                out.append(Route("closure", node))
        flows = self.flows(func)

        values = self.model.values

        def plain(expr: cst.BaseExpression) -> bool:
            if isinstance(expr, (cst.Tuple, cst.List)):  # ``return acc, n``: each item decides
                return all(not isinstance(e, cst.StarredElement) and plain(e.value) for e in expr.elements)
            if isinstance(expr, cst.BinaryOperation):  # ``total / n`` of numbers
                return plain(expr.left) and plain(expr.right)
            if isinstance(expr, cst.Name) and values.adds_up_numbers(expr):
                return True
            return flows._is_plain(expr)

        for sink in flows.sinks:
            if sink.expr is not None and plain(sink.expr):  # type: ignore[arg-type]
                continue
            route = sink.final()
            if route is None or route.kind == "backward":
                continue
            if route.kind == "call" and isinstance(route.node, cst.Call) and not self.callee_may_keep(route.node):
                continue
            out.append(route)
        return out

    def module_results_leave(self, seeds: Sequence[cst.CSTNode]) -> List[Route]:
        """For calls ``seeds`` made at module level: the routes by which their values may
        reach code that runs later. A callee that backpropagates them or may keep them,
        and a module name that holds them, or an object they were stored into
        (``holder.cache = out``, ``outs.append(out)``, ``buf.copy_(out)``), that a
        function or class of the module reads ("global", at the read)."""
        module = self.model.module
        flows = self.flows(module)
        out = [
            r
            for r in flows.routes_of_nodes(seeds, self.tree)
            if r.kind != "call" or not isinstance(r.node, cst.Call) or self.callee_may_keep(r.node)
        ]
        roots = {k.partition(".")[0] for k in flows.derived_of_nodes(seeds)}
        if not roots:
            return out
        scopes = self.model.scopes
        for node in walk(module, into_functions=True):
            if not isinstance(node, cst.Name) or node.value not in roots:
                continue
            scope = self.tree.enclosing(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef))
            if scope is None or not scopes.is_read(node):
                continue
            info = scopes.scope(self.tree.function_scope(node))
            if info is not None and info.node is not module and info.is_local(node.value):
                continue  # a name of the function's own
            out.append(Route("global", node))
        return out

    def callee_may_keep(self, call: cst.Call) -> bool:
        """Whether the callee of ``call`` may keep an argument beyond the call (other
        than by returning it): not torch's functions, nor a module's forward (a
        parameter called like one counts as a module unless a caller in this file
        passes something else or the function is a callback whose callers are not
        shown), nor a method of a value the calling function made; a function of
        this file when it stores, captures or passes on what it gets."""
        func = call.func
        if isinstance(func, (cst.Name, cst.Attribute)) and self.model.names.qualnames_in(func, TORCH):
            return False
        local_function = self.model.calls.local_function(call)
        if local_function is not None:
            return True
        scope = self.tree.function_scope(call)
        info = self.model.scopes.scope(scope)
        bindings = info.bindings if info is not None else {}
        if isinstance(func, cst.Attribute):
            root = _root(func.value)
            if root is not None and info is not None and info.is_local(root) and not any(
                b.form == "param" for b in bindings.get(root, ())
            ):
                return False  # a method of a value the function made (``out.sum(dim)``)
        forward = self.model.modules.forward(call)
        if forward is not None and forward.evidence in ("instance", "self", "submodule", "container"):
            return False
        if isinstance(func, cst.Name) and any(b.form == "param" for b in bindings.get(func.value, ())):
            return not self._module_param(func)
        return True

    def _module_param(self, name: cst.Name) -> bool:
        binding = self.model.scopes.reaching_binding(name)
        return (
            binding is not None
            and isinstance(binding.node, cst.Param)
            and self.model.modules.callers_pass_modules(binding.node) is not False
        )

    def holds_no_graph(self, expr: cst.BaseExpression) -> bool:
        """Whether the value of ``expr`` carries no graph, as far as values can tell: a
        literal, a number, string or numpy array, a tensor's metadata (``out.shape[0]``),
        a tensor without history (``out.argmax(1)``). What flows never follow."""
        return self._plain(expr)

    def graph_free(self, expr: cst.BaseExpression, depth: int = 0) -> bool:
        """Whether the value of ``expr`` is proven to carry no autograd graph: a number,
        bool, string, ``None``, numpy array or list of numbers (``.item()``,
        ``.tolist()``, ``.numpy()``, ``len``), a tensor without history
        (``out.argmax(1)``, a comparison), arithmetic of those, or a tuple, list or dict
        display of them, followed through the bindings that reach a name. Anything
        unknown may carry one."""
        if depth > bounds.EXPRESSION_STEPS:
            return False
        if isinstance(expr, (cst.Tuple, cst.List)):
            return all(isinstance(e, cst.Element) and self.graph_free(e.value, depth + 1) for e in expr.elements)
        if isinstance(expr, cst.Dict):
            return all(
                isinstance(e, cst.DictElement) and self.graph_free(e.key, depth + 1) and self.graph_free(e.value, depth + 1)
                for e in expr.elements
            )
        if isinstance(expr, cst.BinaryOperation):
            return self.graph_free(expr.left, depth + 1) and self.graph_free(expr.right, depth + 1)
        sem = self.model
        if isinstance(expr, cst.Name):
            if sem.values.adds_up_numbers(expr):
                return True  # ``total = 0`` then ``total += loss.item()``
            held = sem.values.value(expr)
            if held.is_tensor and held.graph is not False:
                return False  # ``acc = torch.zeros(n)`` then ``acc[i] = out.sum()``: edited in place
            reaching = sem.scopes.reaching(expr)
            if reaching.bindings and not reaching.unbound and all(
                b.form in ("assign", "aug") and b.value is not None for b in reaching.bindings
            ):
                # ``loss = loss.item()`` after ``loss = criterion(out, y)``: what reaches the
                # read decides. A list, dict or set made empty and filled later (``preds =
                # []`` then ``preds.append(out)``) holds what was put in, not what it was made of.
                return all(
                    not isinstance(b.value, _MUTABLE_DISPLAYS) and self.graph_free(b.value, depth + 1)  # type: ignore[arg-type]
                    for b in reaching.bindings
                )
        if self.holds_no_graph(expr) or self._numpy_result(expr):
            return True
        value = sem.values.value(expr)
        return value.not_tensor and value.what in _GRAPH_FREE_KINDS

    def _numpy_result(self, expr: cst.BaseExpression) -> bool:
        """A call of a NumPy function (``np.transpose(pos)``): it reads its tensor
        arguments through ``__array__``, which raises for one that requires grad, so
        what it returns (an array, or a tensor ``__array_wrap__`` gives back) has no
        history."""
        if not isinstance(expr, cst.Call) or not isinstance(expr.func, (cst.Name, cst.Attribute)):
            return False
        names = self.model.names.qualnames(expr.func)
        return bool(names) and all(q.startswith("numpy.") for q in names)

    # -- building ---------------------------------------------------------------------

    def _read_carries(self, name: cst.Name) -> bool:
        """Whether some binding that may reach this read of ``name`` is not a plain
        assignment of a value that carries no graph, or the object may have been
        filled since (``scores[0] = out.sum()``, ``outs.append(out)``)."""
        reaching = self.model.scopes.reaching(name)
        if reaching.unbound or not reaching.bindings:
            return True
        if any(b.kind != "assign" or b.form == "aug" or b.value is None or not self._plain(b.value) for b in reaching.bindings):
            return True
        return name.value in self._filled_names(self.model.tree.function_scope(name))

    def _filled_names(self, scope: cst.CSTNode) -> FrozenSet[str]:
        """Names of ``scope`` whose object is stored into or changed by a method:
        an item or attribute assigned, or a method called on it that is not a
        known read (``out.item()``, ``arr.tolist()``)."""
        found = self._filled.get(id(scope))
        if found is None:
            names = set()
            # Nested functions too: a closure may fill the object it reads from here.
            for node in walk(scope, into_functions=True):
                assigned = assignment(node)
                targets: List[cst.BaseExpression] = list(assigned[0]) if assigned is not None else []
                if isinstance(node, cst.AugAssign):
                    targets = [node.target]
                for target in targets:
                    if isinstance(target, (cst.Subscript, cst.Attribute)):
                        base = _base_name(target)
                        if base is not None:
                            names.add(base)
                if type(node) is cst.Call and isinstance(node.func, cst.Attribute) and node.func.attr.value not in _READ_METHODS:
                    base = _base_name(node.func.value)
                    if base is not None:
                        names.add(base)
            found = self._filled[id(scope)] = frozenset(names)
        return found

    def _plain(self, expr: cst.BaseExpression) -> bool:
        """Carries no graph, as far as values can tell: not worth following."""
        if _literal(expr):
            return True
        base = expr
        while isinstance(base, cst.Subscript):
            base = base.value
        if isinstance(base, cst.Attribute) and base.attr.value == "data" and self.model.values.value(base.value).is_tensor:
            # ``loss.data[0]``: whatever the index gives (an error on a 0-dim tensor
            # today, a number in torch 0.3), no graph.
            return True
        if isinstance(base, cst.Attribute) and base.attr.value in _METADATA or (
            isinstance(base, cst.Call) and isinstance(base.func, cst.Attribute) and base.func.attr.value in _METADATA_METHODS
        ):
            return True  # ``out.shape[0]``, ``out.size(1)``: numbers, or an error, never a graph
        v = self.model.values.value(expr)
        if v.not_tensor:
            return v.what != "container"
        if v.is_tensor and v.graph is False and not v.leaf:
            # Without history because of the grad mode it runs in? Then where it goes
            # is still the question (the caller may run it with gradients on).
            return self.model.gradmode.mode_at(expr).disabled is not True
        return False

    def drops_graph(self, expr: cst.CSTNode) -> bool:
        """Whether the value of ``expr`` is used only through something that carries no
        graph: ``model(x).argmax(1).tolist()``, ``float(model(x))``, ``model(x).data``."""
        cur = expr
        while True:
            parent = self.tree.parent(cur)
            if isinstance(parent, cst.Attribute) and parent.value is cur:
                if parent.attr.value == "data":
                    return True
                cur = parent
            elif isinstance(parent, (cst.Call, cst.Subscript)) and getattr(parent, "func", getattr(parent, "value", None)) is cur:
                if isinstance(parent, cst.Call) and self._plain(parent):
                    return True
                cur = parent
            elif isinstance(parent, cst.Arg):
                call = self.tree.parent(parent)
                return isinstance(call, cst.Call) and self._plain(call)
            else:
                return False

    def _captured(self, func: cst.FunctionDef) -> FrozenSet[str]:
        """The keys a nested or module-level ``func`` may read from the scope around
        it: every name it mentions but those it binds itself (a parameter, an
        assignment: local throughout its body), unless a ``global``/``nonlocal``
        statement in it may reach out. Defaults and decorators are evaluated
        outside, and a default is kept with the function."""
        found = keys_in(func)
        info = self.model.scopes.scope(func)
        if info is None or any(type(n) in (cst.Global, cst.Nonlocal) for n in walk(func, into_functions=True)):
            return found
        outside = [p.default for p in (*func.params.params, *func.params.posonly_params, *func.params.kwonly_params) if p.default]
        head = frozenset().union(*(keys_in(n) for n in (*outside, *func.decorators)))
        return frozenset(k for k in found if k in head or k.partition(".")[0] not in info.bindings)

    def _build(self, scope: cst.CSTNode) -> ScopeFlows:
        flows = ScopeFlows(scope, self._plain, self._read_carries)
        body = scope if isinstance(scope, cst.Module) else scope.body  # type: ignore[attr-defined]
        is_function = isinstance(scope, (cst.FunctionDef, cst.Lambda))
        scopes = self.model.scopes
        info = scopes.scope(scope)
        params: Set[str] = set()
        outer: Set[str] = set()
        local: Set[str] = set()
        if info is not None:
            outer = set(info.globals) | set(info.nonlocals)
            params = {n for n, bs in info.bindings.items() if any(b.form == "param" for b in bs)}
            local = {n for n in info.bindings if n not in outer} - params
        names = self.model.names
        may_autograd = "autograd" in self.model.source

        def outside(target: cst.BaseExpression, mutate: bool = False, _depth: int = 0) -> Optional[str]:
            """The route kind of a store into ``target`` (``mutate``: into the object it
            names, ``xs.append(v)``), if it leaves the scope. A local name that may
            hold an object made elsewhere (``kept = self.kept``) is that object."""
            if isinstance(target, (cst.Tuple, cst.List)):
                for el in target.elements:
                    found = outside(el.value)
                    if found:
                        return found
                return None
            if isinstance(target, cst.StarredElement):
                return outside(target.value)
            if not is_function:
                return None
            root = _root(target)
            if isinstance(target, cst.Name) and not mutate:
                return "global" if target.value in outer else None
            if root is None:
                return _dynamic_holder(target, names)
            if root in ("self", "cls"):
                return "self"
            if root in outer:
                return "global"
            if root in params:
                return "outer"
            if root not in local:
                return "global"
            if _depth < bounds.STORE_STEPS and info is not None:
                return aliased(root, _depth)
            return None

        def alias_keys(name: str, depth: int) -> Set[str]:
            return self._alias_keys_of(info, name, depth)

        def aliased(name: str, depth: int) -> Optional[str]:
            """Where the object a local ``name`` holds lives, when a binding may make it
            an alias of one the scope does not own: the kind of the first such binding
            (``kept = self.kept``: "self"; ``d = store`` for a parameter: "outer"),
            "holder" where what a call returns is not known."""
            if info is None:
                return None
            for b in info.bindings.get(name, ()):
                if b.form in ("assign", "walrus", "unpack") and b.value is not None:
                    source = b.value
                elif b.form in ("for", "with") and b.value is not None:
                    source = b.value  # an item of a container, what a manager gives
                else:
                    continue
                kind = holder_of(source, depth)
                if kind:
                    return kind
            return None

        def holder_of(value: cst.BaseExpression, depth: int) -> Optional[str]:
            if _fresh(value, names):
                return None
            if isinstance(value, (cst.Name, cst.Attribute, cst.Subscript)):
                if key(value) is None:
                    return _dynamic_holder(value, names) or "holder"
                return outside(value, mutate=True, _depth=depth + 1)
            if isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and value.func.attr.value in _ITEM_GETTERS:
                # ``d.get(k)``, ``store.setdefault(k, [])``: an item of that container
                return outside(value.func.value, mutate=True, _depth=depth + 1) if key(value.func.value) else "holder"
            if isinstance(value, cst.Call):
                return _dynamic_holder(value, names) or ("holder" if not self._plain(value) else None)
            return None

        def add_sink(kind: str, node: cst.CSTNode, expr: Optional[cst.CSTNode]) -> None:
            if expr is not None and kind != "backward" and _literal(expr):
                return
            certain = kind != "holder"  # an object that may or may not be kept elsewhere
            flows.sinks.append(_Sink(Route(kind, node, certain), keys_in(expr) if expr is not None else frozenset(), expr))

        # Exact types, not isinstance(): every node of the scope goes down this chain,
        # and an isinstance() against a LibCST node class (an ABC) is a Python-level
        # call; the classes are concrete, and neither a parse nor a fix subclasses them.
        for node in walk(body):
            kind_of = type(node)
            if kind_of not in _BUILD_KINDS:
                continue
            if node is not body and kind_of in (cst.FunctionDef, cst.Lambda):
                captured = self._captured(node) if isinstance(node, cst.FunctionDef) else keys_in(node)
                if captured:
                    flows.sinks.append(_Sink(Route("closure", node), captured, None))
                continue
            if isinstance(node, cst.ClassDef) and node is not body:
                continue
            if isinstance(node, cst.Assign):
                for t in node.targets:
                    flows.edges.append(_Edge(_target_keys(t.target), keys_in(node.value), node, (node.value,)))
                    kind = outside(t.target)
                    if kind:
                        add_sink(kind, node, node.value)
            elif isinstance(node, (cst.AugAssign, cst.AnnAssign)) and node.value is not None:
                flows.edges.append(_Edge(_target_keys(node.target), keys_in(node.value), node, (node.value,)))
                kind = outside(node.target)
                if kind is None and isinstance(node, cst.AugAssign) and isinstance(node.target, cst.Name) and node.target.value in params:
                    kind = "outer"  # ``xs += [v]`` extends the list passed in
                if kind:
                    add_sink(kind, node, node.value)
            elif isinstance(node, (cst.For, cst.CompFor)):
                flows.edges.append(_Edge(_target_keys(node.target), keys_in(node.iter), node))
            elif isinstance(node, cst.WithItem) and node.asname is not None:
                flows.edges.append(_Edge(_target_keys(node.asname.name), keys_in(node.item), node))
            elif isinstance(node, cst.NamedExpr):
                flows.edges.append(_Edge(_target_keys(node.target), keys_in(node.value), node, (node.value,)))
            elif isinstance(node, (cst.Return, cst.Yield)) and node.value is not None and is_function:
                value = node.value.item if isinstance(node.value, cst.From) else node.value
                add_sink("return" if isinstance(node, cst.Return) else "yield", node, value)
            elif isinstance(node, cst.Raise) and node.exc is not None:
                add_sink("raise", node, node.exc)
            elif isinstance(node, cst.Call):
                self._call(node, flows, outside, add_sink, names, may_autograd)
        if info is not None:
            # What is stored into a local alias (``kept.append(v)`` after ``kept = HOLDER``)
            # is in the object it names too.
            for edge in flows.edges:
                if _mutates(edge.node):
                    extra = {a for t in edge.targets if "." not in t for a in alias_keys(t, 0)}
                    if extra:
                        edge.targets = edge.targets | frozenset(extra)
        return flows

    def _alias_keys_of(self, info: Optional[Scope], name: str, depth: int) -> Set[str]:
        found: Set[str] = set()
        if depth > bounds.NAME_STEPS or info is None:
            return found
        for b in info.bindings.get(name, ()):
            if b.form in ("assign", "walrus") and isinstance(b.value, (cst.Name, cst.Attribute)):
                k = key(b.value)
                if k:
                    found.add(k)
                    if "." not in k:
                        found |= self._alias_keys_of(info, k, depth + 1)
        return found

    def _call(
        self,
        node: cst.Call,
        flows: ScopeFlows,
        outside: Callable[..., Optional[str]],
        add_sink: Callable[[str, cst.CSTNode, Optional[cst.CSTNode]], None],
        names: "Names",
        may_autograd: bool,
    ) -> None:
        func = node.func
        backward = self.model.calls.backward_call(node) if may_autograd or _backward_named(func) else None
        if backward is not None and backward.tensor is not None:
            add_sink("backward", node, backward.tensor)  # ``fabric.backward(loss)`` too
            if isinstance(func, cst.Attribute) and backward.tensor is func.value:
                given = next((a.value for a in node.args if a.keyword is None and not a.star), None)
                if given is not None and not self.model.values.proven_tensor(func.value):
                    # ``accelerator.backward(losses[i])`` on a driver object the file does not
                    # show: it may run backward on its argument, which is then wanted
                    add_sink("backward", node, given)
            return
        if isinstance(func, cst.Attribute):
            attr = func.attr.value
            if attr in MUTATORS or attr in COPIES_INTO:
                args = [a for a in node.args if not _literal(a.value)]
                receiver = _stored_in(func.value)
                if args:
                    flows.edges.append(
                        _Edge(_target_keys(receiver), frozenset(k for a in args for k in keys_in(a.value)), node, tuple(a.value for a in args))
                    )
                kind = outside(receiver, mutate=True)
                for a in args:
                    if kind:
                        add_sink(kind, node, a.value)
                return
        if backward is not None and backward.function:
            return  # torch.autograd's, from a tensor it does not show
        if isinstance(func, cst.Name) and (func.value in _KEEPS_NOTHING or func.value.endswith(_EXCEPTIONS)):
            return
        # What the callee does with its arguments is asked only of the calls a
        # question reaches (``_Sink.resolve``): most calls never are.
        for i, a in enumerate(node.args):
            if _literal(a.value):
                continue
            position = i if a.keyword is None and not a.star and all(b.keyword is None and not b.star for b in node.args[:i]) else None
            flows.sinks.append(
                _Sink(Route("call", node, False), keys_in(a.value), a.value, resolve=functools.partial(self._callee_route, node, position))
            )

    def _callee_route(self, call: cst.Call, position: Optional[int]) -> Optional[Route]:
        """The route of the argument at ``position`` of ``call``: "helper" when a function
        of this file backpropagates the parameter it binds; none for torch functions,
        which keep nothing; else a "call" that may keep it."""
        func = call.func
        local = self.model.calls.local_function(call)
        if local is not None:
            if position is None:
                return Route("call", call, False)
            if position in self._backprop_params(local):
                return Route("helper", call)
            if position in self._keeping_params(local):
                # stored on an object, captured, passed on: kept, for purposes not known here
                return Route("call", call, False)
            return None
        if isinstance(func, (cst.Name, cst.Attribute)) and self.model.names.qualnames_in(func, TORCH):
            return None
        return Route("call", call, False)

    def _keeping_params(self, func: cst.FunctionDef) -> FrozenSet[int]:
        """Positions of ``func``'s parameters whose value may outlive the call other than
        by being returned (the caller sees that through the call's value)."""
        found = self._keeping.get(id(func))
        if found is None:
            self._keeping[id(func)] = frozenset()  # recursion
            names = self._positional(func)
            flows = self.flows(func)
            found = frozenset(
                i for i, p in enumerate(names) if any(r.kind not in ("return", "yield") for r in flows.routes([p]))
            )
            self._keeping[id(func)] = found
        return found

    def _positional(self, func: cst.FunctionDef) -> List[str]:
        """The names of ``func``'s positional parameters a call's arguments bind (not a
        method's ``self``/``cls``)."""
        params = [p.name.value for p in (*func.params.posonly_params, *func.params.params)]
        if params and params[0] in ("self", "cls") and self.tree.method_class(func) is not None:
            return params[1:]
        return params

    def _backprop_params(self, func: cst.FunctionDef) -> FrozenSet[int]:
        """Positions of ``func``'s parameters whose value reaches a backward inside it."""
        found = self._helper_params.get(id(func))
        if found is None:
            self._helper_params[id(func)] = frozenset()  # recursion
            params = [p.name.value for p in (*func.params.posonly_params, *func.params.params)]
            flows = self.flows(func)
            offset = 1 if params and params[0] in ("self", "cls") and self.tree.method_class(func) is not None else 0
            found = frozenset(
                i - offset
                for i, p in enumerate(params)
                if i >= offset and flows.routes([p], frozenset({"backward", "helper"}))
            )
            self._helper_params[id(func)] = found
        return found


# Methods that read their receiver and change nothing of it.
_READ_METHODS = frozenset(
    "item tolist numel dim size nelement element_size cpu numpy detach float double half to clone argmax argmin "
    "max min sum mean softmax log_softmax reshape view squeeze unsqueeze get keys values items copy format "
    "startswith endswith split join lower upper strip count index".split()
)


def _base_name(expr: cst.BaseExpression) -> Optional[str]:
    """``x`` of ``x``, ``x.a[0].b`` or ``x.f().g``."""
    while isinstance(expr, (cst.Attribute, cst.Subscript, cst.Call)):
        expr = expr.func if isinstance(expr, cst.Call) else expr.value
    return expr.value if isinstance(expr, cst.Name) else None
