"""GL301 graph-kept-alive: a loop keeps each iteration's autograd graph alive in an accumulator."""

from __future__ import annotations

import re
from typing import Dict, Iterator, List, Optional, Sequence

import libcst as cst

from gradlint import codegen
from gradlint.rule import AnyOf, Rule
from gradlint.rules._eval_flow import few_iterations
from gradlint.rules._gates import LOOP_STATEMENT, word
from gradlint.rules._inplace import edit_text, short
from gradlint.semantic import flows
from gradlint.semantic.frameworks import LIGHTNING_MODULE
from gradlint.semantic.scope_flows import key as escape_key
from gradlint.semantic.syntax import last_name
from gradlint.semantic.tree import walk


class GraphKeptAlive(Rule):
    code = "GL301"
    triggers = ("for", "while", "clone", "self.")
    gates = (
        # a loop; a copy kept past the call (``store.append(value.clone())``); an
        # attribute added to in a per-step method (``self.total += loss``)
        AnyOf(
            *map(re.compile, LOOP_STATEMENT),
            re.compile(r"\.clone\b"),
            re.compile(word(r"self\.") + r"[\w.]+(?:\[[^\]\n]*\])?[ \t]*[-+]="),
            re.compile(word(r"self\.") + r"[\w.]+\.append\b"),
        ),
        # what the visitors below check
        AnyOf(
            re.compile(r"\][\s)\\]*=(?!=)"),  # history[i] = out
            re.compile(r"[-+]="),  # total += loss
            re.compile(r"\+[\s(\\]*\w+[ \t)\\]*(?:[\r\n;#]|\Z)"),  # total = loss + total
            re.compile(word("append") + r"\b"),  # losses.append(loss)
            re.compile(r"\.clone\b"),  # value.clone() kept in a store
            re.compile(r"\b(\w+)[ \t]*=[\s(\\]*\1\b[\s)\\]*[-+]"),  # total = total + loss
        ),
    )

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._training_loops: Dict[int, bool] = {}
        self._trained: Dict[int, List[object]] = {}

    # On leaving, not visiting: the operands have been walked by then, so their
    # parents are known without a walk over the whole file.

    # ``total += loss`` / ``total = total + loss``
    def leave_AugAssign(self, node: cst.AugAssign) -> None:
        if isinstance(node.operator, (cst.AddAssign, cst.SubtractAssign)):
            self._check(node, node.target, node.value)

    def leave_Assign(self, node: cst.Assign) -> None:
        if len(node.targets) != 1:
            return
        target = node.targets[0].target
        value = node.value
        if isinstance(target, cst.Subscript):  # ``history[i] = out``
            self._check(node, target, value)
        elif isinstance(target, cst.Name) and isinstance(value, cst.BinaryOperation):
            if not isinstance(value.operator, (cst.Add, cst.Subtract)):
                return
            left, right = value.left, value.right
            if isinstance(left, cst.Name) and left.value == target.value:
                self._check(node, target, right)
            elif isinstance(right, cst.Name) and right.value == target.value and isinstance(value.operator, cst.Add):
                self._check(node, target, left)

    # ``losses.append(loss)``; ``value.clone()`` kept in a store
    def leave_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value == "append" and len(node.args) == 1:
            arg = node.args[0]
            if arg.keyword is None and not arg.star:
                self._check(node, func.value, arg.value)
        elif isinstance(func, cst.Attribute) and func.attr.value == "clone" and not node.args:
            self._check_kept_copy(node, func.value)

    def _check_kept_copy(self, call: cst.Call, receiver: cst.BaseExpression) -> None:
        """``value.clone()`` of a tensor handed in (``if isinstance(value, torch.Tensor)``),
        kept past the call: in an attribute or a module-level store, by this function or
        by every caller of the file that it returns the copy to. A reporter or logger
        keeps one such copy per reported step, and ``clone()`` copies the history too."""
        if not self.preview:
            return  # a tensor handed in is not proven to carry a graph: the preview tier's
        sem = self.ctx.semantic
        func = sem.tree.function_scope(call)
        if not isinstance(func, cst.FunctionDef) or not isinstance(receiver, cst.Name):
            return
        reaching = sem.scopes.reaching(receiver)
        if not reaching.bindings or reaching.unbound or not all(b.form == "param" for b in reaching.bindings):
            return  # a tensor the function computed itself: its own business
        if not sem.values.tensor_checked(receiver) or sem.gradmode.mode_at(call).disabled is True:
            return
        store = self._kept_store(call, func)
        if store is None:
            return
        remedy = f"{receiver.value}.detach().clone()"
        self.report(
            call,
            fix=self.fix(
                self.replace(call, codegen.method_call(codegen.method_call(receiver, "detach"), "clone")),
                title=f"Keep `{remedy}` instead",
                applicability="unsafe",  # a copy kept on an object may be what other code differentiates
            ),
            statement=edit_text(self.ctx, call),
            value=receiver.value,
            target=store,
            remedy=remedy,
            held=_HELD,
        )

    def _kept_store(self, call: cst.Call, func: cst.FunctionDef) -> Optional[str]:
        """Where the copy made by ``call`` is kept past the call: the store's text."""
        sem = self.ctx.semantic
        kept = sem.escape.flows(func).routes_of_nodes([call], sem.tree, _KEPT | _TO_CALLER)
        for route in kept:
            if route.kind in _KEPT:
                return _store_text(self.ctx, route.node)
        if not any(route.kind == "return" for route in kept):
            return None
        sites = sem.calls.call_sites(func)
        if not sites:
            return None  # callers unknown: what they do with the copy is theirs to say
        stores = []
        for site in sites:
            scope = sem.tree.function_scope(site)
            routes = [r for r in sem.escape.flows(scope).routes_of_nodes([site], sem.tree, _KEPT) if r.kind in _KEPT]
            if not routes or not isinstance(scope, cst.FunctionDef):
                return None
            stores.append(_store_text(self.ctx, routes[0].node))
        return stores[0]

    def _check(self, node: cst.CSTNode, target: cst.BaseExpression, value: cst.BaseExpression) -> None:
        sem = self.ctx.semantic
        loop: Optional[cst.CSTNode] = sem.tree.enclosing_loop(node)
        key = escape_key(target)
        if key is None:
            return
        if loop is None:
            # No loop here: a method that runs once per step (``training_step``, a step
            # that calls backward(), a function called only from loops) repeats in its
            # caller's loop, and what it adds to an attribute of ``self`` outlives the step.
            loop = self._per_step_function(node, key)
            if loop is None:
                return
        elif not self._outlives(target, loop):
            return
        # The value's history first: it looks only at what was computed before this
        # point; where the total goes looks at the whole function.
        trained = self._backpropagated(value, loop)
        if not self.preview and (not trained or few_iterations(loop)):
            # The default tier's proof of a graph: the loop runs backward() from this very
            # value. A forward's output judged by what computed it was right too rarely at
            # first sight (docs/precision.md), and stays in preview.
            return
        source = sem.values.proven_graph_source(value)
        if source is None and not trained:
            return
        if isinstance(node, cst.AugAssign) and isinstance(target, cst.Subscript) and not self._grows(target, loop):
            return  # ``buf[..., :-1] += x``, ``totals[i] += v``: a slot updated, not a collection growing
        flows = sem.escape.flows(sem.tree.function_scope(node))
        if flows.routes([key], _TO_BACKWARD):
            return  # accumulated on purpose, to call backward() on the total
        leaves = flows.routes([key], _TO_CALLER)
        # The loops around this one count too: ``for name, v in losses.items()`` inside
        # the loop over the loader adds one step's losses per batch.
        loops = list(self._loops_out_from(loop))
        if leaves and not any(self._trains(outer) or self._over_batches(outer) for outer in loops):
            return  # a sum of losses (over heads, layers, chunks) returned for the caller's backward()
        if leaves and not self.preview and not any(self._steps(outer) for outer in loops):
            return  # a total over heads or chunks handed back once per call: it grows only as far as the loop goes
        if not self.preview and "." not in key and not any(self._steps(outer) for outer in self._loops_out_from(loop) if self._holds(outer, target)):
            # A local total of a loop that is no training loop: micro-batches of one
            # step (``for i in range(accumulation_steps)`` with the optimizer's step
            # after it) keep a bounded handful of graphs until the call returns.
            return
        if (
            _stores_value(node)
            and isinstance(source, cst.Call)
            and sem.modules.in_eval_mode(source)
            and not any(self._over_batches(outer) for outer in loops)
        ):
            # One output per item of a fixed collection, from a model the function put in
            # eval mode with gradients on: GL101 reports that forward, and its no_grad
            # removes the graphs too.
            return
        if isinstance(node, cst.Assign) and isinstance(target, cst.Subscript) and not self._grows(target, loop):
            return  # ``cache[i] = kv``: a slot replaced, not a collection growing
        if self._stores_modules(target):
            return  # ``self.layers.append(block(dim))`` into a ModuleList: modules, built once
        if sem.values.value(value).not_tensor or self._no_graph_recorded(node, value):
            return
        # `.detach()`, not `.item()`: the total stays a tensor, so it prints, sums (in float32)
        # and compares as before; only the graph goes. `.item()` would make it a Python float
        # (`tensor(1.1007)` printed as `1.1007099151611328`, accumulated in float64).
        method = "detach"
        carriers = list(self._carriers(value, trained))
        if not carriers:
            return
        first = _text(self.ctx, carriers[0])
        remedy = f"{first}.{method}()"
        fix = None
        if all(sem.values.proven_tensor(c) for c in carriers):
            # ``.detach()`` exists on tensors only: on a forward's tuple (``rnn(s)`` gives
            # ``(out, h)``), a model output dataclass or a number it would raise.
            edits = [self.replace(c, codegen.method_call(c, method)) for c in carriers]
            safety = self._safety(key, bool(leaves), target, loop, carriers)
            fix = self.fix(*edits, title=f"Keep `{remedy}` instead", applicability=safety)
        self.report(
            node,
            fix=fix,
            statement=short(self.ctx, node, 50) or edit_text(self.ctx, node),
            value=_text(self.ctx, value),
            target=_text(self.ctx, target),
            remedy=remedy,
            held=_HELD_AFTER_BACKWARD if trained or any(self._trains(outer) for outer in loops) else _HELD,
        )

    def _safety(self, key: str, leaves: bool, target: cst.BaseExpression, loop: cst.CSTNode, carriers) -> str:
        """Safe only when the total stays in this function: one that is returned or
        yielded may be what a caller backpropagates; one kept on an object
        (``self.stats[...]``) or in a global may be differentiated by other code.
        "Stays" is proven use by use (``semantic.flows``): an alias, a container it is
        put in, a call it is handed to or a closure that reads it may take it out, and
        an activation whose ``retain_grad()`` or hook is asked for is wanted as itself."""
        if leaves or "." in key:
            return "unsafe"
        base = target.value if isinstance(target, cst.Subscript) else target
        if not isinstance(base, cst.Name):
            return "unsafe"
        sem = self.ctx.semantic
        scope = sem.tree.function_scope(loop)
        if scope is self.ctx.module or base.value not in sem.scopes.bindings(scope):
            return "unsafe"  # a module-level total is visible to every function
        if not isinstance(scope, cst.FunctionDef):
            return "unsafe"
        if flows.fresh_bindings(sem.tree, scope, base.value) or flows.stays_local(sem.tree, scope, base.value):
            return "unsafe"
        named = tuple(n.value for c in carriers for n in walk(c) if isinstance(n, cst.Name))
        if flows.retains_identity(sem.tree, scope, named):
            return "unsafe"
        return "safe"

    # -- what outlives the iteration ------------------------------------------------

    def _outlives(self, target: cst.BaseExpression, loop: cst.CSTNode) -> bool:
        """Whether ``target`` is bound before the loop (or is an attribute, which outlives it)."""
        base = target.value if isinstance(target, cst.Subscript) else target
        if isinstance(base, cst.Attribute):
            return True
        if not isinstance(base, cst.Name):
            return False
        sem = self.ctx.semantic
        scope = sem.tree.function_scope(loop)
        binds = sem.scopes.bindings(scope).get(base.value)
        if not binds:
            return scope is not self.ctx.module and base.value in sem.scopes.bindings(self.ctx.module)
        return any(b.node is not None and not sem.tree.is_inside(loop, b.node) for b in binds)

    def _grows(self, target: cst.Subscript, loop: cst.CSTNode) -> bool:
        """``history[step] = out`` adds an entry per iteration only to a mapping this function
        made (``{}``, ``dict()``, ``defaultdict(list)``...), under a key the loop changes;
        an item assignment into a list or a container passed in replaces a slot."""
        base = target.value
        if not isinstance(base, cst.Name):
            return isinstance(base, cst.Attribute)  # ``self.history[k] = v``: an attribute, kept as before
        sem = self.ctx.semantic
        binds = sem.scopes.bindings(sem.tree.function_scope(loop)).get(base.value, [])
        made = [
            b for b in binds if b.kind == "assign" and b.value is not None and (b.node is None or not sem.tree.is_inside(loop, b.node))
        ]
        if not made or not all(b.value is not None and _makes_mapping(b.value) for b in made):
            return False
        loop_names = {n.value for n in walk(loop.target) if isinstance(n, cst.Name)} if isinstance(loop, cst.For) else set()
        keys = [n.value for el in target.slice for n in walk(el.slice) if isinstance(n, cst.Name)]
        return not loop_names or any(k in loop_names for k in keys) or isinstance(loop, cst.While)

    def _stores_modules(self, target: cst.BaseExpression) -> bool:
        """The accumulator is a module container (``nn.ModuleList``, ``nn.Sequential``):
        what goes into it is a module, not a tensor with history."""
        base = target.value if isinstance(target, cst.Subscript) else target
        return self.ctx.semantic.modules.is_module(base)

    def _no_graph_recorded(self, node: cst.CSTNode, value: cst.BaseExpression) -> bool:
        """Gradients are off where ``value`` is computed, as callers or the framework run
        this code (a helper whose every caller is under ``no_grad``, Lightning's
        ``validation_step``); for ``total += loss`` it is enough that the sum is taken
        under no-grad: the new total records no history."""
        modes = self.ctx.semantic.gradmode
        if modes.computed_under(value, node).disabled is True:
            return True
        return not _stores_value(node) and modes.mode_at(node).disabled is True

    # -- deliberate accumulation ------------------------------------------------------

    def _per_step_function(self, node: cst.CSTNode, key: str) -> Optional[cst.FunctionDef]:
        """The function holding ``node`` when it runs once per step and ``node`` adds to
        the attribute ``key`` of ``self``, which no plain assignment of the function resets."""
        sem = self.ctx.semantic
        func = sem.tree.function_scope(node)
        if not isinstance(func, cst.FunctionDef) or not key.startswith("self.") or isinstance(node, cst.Assign):
            return None
        for sub in walk(func.body):
            if isinstance(sub, cst.Assign) and any(escape_key(t.target) == key and not isinstance(t.target, cst.Subscript) for t in sub.targets):
                return None  # ``self.losses = []`` first: the list is the call's own
        if not (sem.calls.runs_per_step(func) or self._trains(func)):
            return None
        return func

    def _loops_out_from(self, loop: cst.CSTNode) -> Iterator[cst.CSTNode]:
        """``loop`` and the loops of the same function that hold it, innermost first."""
        tree = self.ctx.semantic.tree
        cur: Optional[cst.CSTNode] = loop
        while cur is not None:
            yield cur
            cur = tree.enclosing_loop(cur)

    def _trains(self, loop: cst.CSTNode) -> bool:
        """The loop body runs backward (any spelling: ``Calls.backward_call``): the
        accumulated values are for logging."""
        found = self._training_loops.get(id(loop))
        if found is None:
            calls = self.ctx.semantic.calls
            found = self._training_loops[id(loop)] = any(
                isinstance(node, cst.Call) and calls.is_backward_call(node) for node in walk(loop)
            )
        return found

    def _steps(self, loop: cst.CSTNode) -> bool:
        """A loop that repeats training steps: over batches, a ``while``, or one whose
        body takes an optimizer's step (``.step()`` without arguments) or calls a
        function of the file that runs backward (``loss, _ = train_step(batch)``)."""
        if self._over_batches(loop) or isinstance(loop, cst.While):
            return True
        calls = self.ctx.semantic.calls
        for n in walk(loop):
            if not isinstance(n, cst.Call):
                continue
            if isinstance(n.func, cst.Attribute) and n.func.attr.value == "step" and not n.args:
                return True
            callee = calls.local_function(n)
            if callee is not None and self._trains(callee):
                return True
        return False

    def _holds(self, loop: cst.CSTNode, target: cst.BaseExpression) -> bool:
        """Whether ``target``'s store outlives ``loop`` (is bound before it)."""
        return self._outlives(target, loop) if isinstance(loop, (cst.For, cst.While)) else False

    def _over_batches(self, loop: cst.CSTNode) -> bool:
        sem = self.ctx.semantic
        return isinstance(loop, cst.For) and sem.values.is_loader(loop.iter, sem.tree.function_scope(loop))

    def _carriers(self, value: cst.BaseExpression, trained: Sequence[cst.Name] = ()) -> Iterator[cst.BaseExpression]:
        """The operands of ``value`` that hold the history (``loss`` in ``loss * n``)."""
        sem = self.ctx.semantic
        if isinstance(value, cst.BinaryOperation) and not value.lpar:
            yield from self._carriers(value.left, trained)
            yield from self._carriers(value.right, trained)
        elif isinstance(value, cst.UnaryOperation) and not value.lpar:
            yield from self._carriers(value.expression, trained)
        elif (
            any(value is name for name in trained)
            or sem.values.proven_graph_source(value) is not None
            or sem.values.requires_grad_leaf(value) is not None
        ):
            yield value

    def _backpropagated(self, value: cst.BaseExpression, loop: cst.CSTNode) -> List[cst.Name]:
        """The names in ``value`` (``loss``, ``loss * n``) that hold the very tensor a
        backward call of ``loop`` runs from (``loss.backward()``,
        ``scaler.scale(loss).backward()``, ``(loss / accum).backward()``): backward
        proves a tensor with a graph, which no name or callee could."""
        sem = self.ctx.semantic
        trained = {id(b) for b in self._trained_bindings(loop)}
        found = []
        for name in _operands(value, sem):
            # ``loss /= world_size`` after ``loss.backward()`` edits the same tensor
            binding = sem.scopes.same_object(name)
            if binding is not None and (id(binding) in trained or self._helper_trained(binding)):
                found.append(name)
        return found

    def _helper_trained(self, binding) -> bool:
        """``loss, meta = train_step(batch)`` where every ``return`` of that function of
        the file hands back, at this position, the tensor it ran backward from."""
        sem = self.ctx.semantic
        call = binding.value
        if binding.kind not in ("assign", "unpack") or not isinstance(call, cst.Call):
            return False
        helper = sem.calls.local_function(call)
        if helper is None:
            return False
        position: Optional[int] = None
        if binding.kind == "unpack":
            target = binding.node.targets[0].target if isinstance(binding.node, cst.Assign) and len(binding.node.targets) == 1 else None
            if not isinstance(target, (cst.Tuple, cst.List)):
                return False
            names = [e.value for e in target.elements]
            matches = [i for i, n in enumerate(names) if n is binding.name]
            if len(matches) != 1 or any(isinstance(e, cst.StarredElement) for e in target.elements):
                return False
            position = matches[0]
        trained = {id(b) for b in self._trained_bindings(helper)}
        returns = [n for n in walk(helper.body) if isinstance(n, cst.Return)]
        if not trained or not returns:
            return False
        for ret in returns:
            value = ret.value
            if position is not None:
                if not isinstance(value, cst.Tuple) or len(value.elements) <= position:
                    return False
                value = value.elements[position].value
            if not isinstance(value, cst.Name):
                return False
            held = sem.scopes.same_object(value)
            if held is None or id(held) not in trained:
                return False
        return True

    def _trained_bindings(self, loop: cst.CSTNode) -> List[object]:
        """The bindings that a backward call of ``loop`` runs from (once per loop)."""
        found = self._trained.get(id(loop))
        if found is None:
            found = self._trained[id(loop)] = self._find_trained_bindings(loop)
        return found

    def _find_trained_bindings(self, loop: cst.CSTNode) -> List[object]:
        sem = self.ctx.semantic
        bindings = list(self._returned_for_backward(loop))
        for node in walk(loop):
            if not isinstance(node, cst.Call):
                continue
            backward = sem.calls.backward_call(node)
            if backward is None or backward.tensor is None or backward.returns_gradients:
                continue
            for name in _operands(_scaled(backward.tensor), sem):
                binding = sem.scopes.same_object(name)
                if binding is not None:
                    bindings.append(binding)
        return bindings

    def _returned_for_backward(self, func: cst.CSTNode) -> Iterator[object]:
        """What a Lightning module's ``training_step`` returns, as the loss itself or a
        dict's ``"loss"``: with automatic optimization the trainer runs backward from it."""
        sem = self.ctx.semantic
        if not isinstance(func, cst.FunctionDef) or func.name.value != "training_step":
            return
        cls = sem.tree.method_class(func)
        if cls is None or not sem.modules.derives_from(cls, LIGHTNING_MODULE, frozenset({"LightningModule"})):
            return
        if "automatic_optimization" in self.ctx.code_for(cls):
            return  # manual optimization: the step runs its own backward, if any
        for node in walk(func.body):
            if isinstance(node, (cst.FunctionDef, cst.Lambda)):
                continue
            if not isinstance(node, cst.Return) or node.value is None:
                continue
            value = node.value
            if isinstance(value, cst.Dict):
                value = next(
                    (
                        e.value
                        for e in value.elements
                        if isinstance(e, cst.DictElement) and isinstance(e.key, cst.SimpleString) and e.key.evaluated_value == "loss"
                    ),
                    value,
                )
            if isinstance(value, cst.Name):
                binding = sem.scopes.same_object(value)
                if binding is not None:
                    yield binding


# Routes (``semantic.escape``) that make an accumulation deliberate.
_TO_BACKWARD = frozenset({"backward", "helper"})
_TO_CALLER = frozenset({"return", "yield"})
# Routes that keep a value past the call: an attribute of ``self``, a module-level store.
_KEPT = frozenset({"self", "global"})

# What the kept graph holds: a backward() in the loop frees the saved activations
# (their storage), but not the graph's nodes, which stay referenced from the total.
_HELD = ", with the activations it saved"
_HELD_AFTER_BACKWARD = " (`backward()` frees its saved activations, but its graph nodes stay referenced)"


def _text(ctx, expr: cst.BaseExpression) -> str:
    """``loss``; ``F.nll_loss(...)`` for a long call; ``...`` for anything else too long."""
    whole = short(ctx, expr, 40)
    if whole is not None:
        return whole
    if isinstance(expr, cst.Call):
        return f"{short(ctx, expr.func, 36) or '...'}(...)"
    return "..."


def _store_text(ctx, node: cst.CSTNode) -> str:
    """The store a route's statement keeps a value in: ``self.stats`` of ``self.stats[k] = v``,
    ``_store`` of ``_store.setdefault(k, []).append(v)``."""
    target: Optional[cst.BaseExpression] = None
    if isinstance(node, cst.Assign):
        target = node.targets[0].target
    elif isinstance(node, (cst.AugAssign, cst.AnnAssign)):
        target = node.target
    elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
        target = node.func.value
    while isinstance(target, (cst.Subscript, cst.Call)):
        target = target.value if isinstance(target, cst.Subscript) else (
            target.func.value if isinstance(target.func, cst.Attribute) else None
        )
    return (short(ctx, target, 40) or "...") if target is not None else "..."


def _scaled(expr: cst.BaseExpression) -> cst.BaseExpression:
    """The loss inside ``scaler.scale(loss)`` (a ``GradScaler`` multiplies it) or
    ``loss.mean()``; ``expr`` itself otherwise."""
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute):
        attr = expr.func.attr.value
        if attr == "scale" and len(expr.args) == 1 and expr.args[0].keyword is None and not expr.args[0].star:
            return expr.args[0].value
        if attr in ("mean", "sum") and not expr.args:
            return expr.func.value
    return expr


def _operands(expr: cst.BaseExpression, sem) -> List[cst.Name]:
    """The names whose tensor ``expr`` scales or sums: ``loss`` in ``loss``,
    ``loss / accum_steps`` or ``loss * x.size(0)``, when every other operand is
    proven no tensor (a number); none for anything else."""
    if isinstance(expr, cst.Name):
        return [expr]
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, (cst.Add, cst.Subtract, cst.Multiply, cst.Divide)):
        sides = [expr.left, expr.right]
        names = [s for s in sides if isinstance(s, cst.Name) and not sem.values.value(s).not_tensor]
        others = [s for s in sides if not any(s is n for n in names)]
        if len(names) == 1 and all(isinstance(o, (cst.Integer, cst.Float)) or sem.values.value(o).not_tensor for o in others):
            return names
    return []


def _stores_value(node: cst.CSTNode) -> bool:
    """``xs.append(v)`` and ``xs[k] = v`` keep ``v`` itself; ``+=`` keeps a new sum."""
    return isinstance(node, cst.Call) or (isinstance(node, cst.Assign) and isinstance(node.targets[0].target, cst.Subscript))


_MAPPING_FACTORIES = frozenset({"dict", "defaultdict", "OrderedDict"})


def _makes_mapping(expr: cst.BaseExpression) -> bool:
    if isinstance(expr, (cst.Dict, cst.DictComp)):
        return True
    return isinstance(expr, cst.Call) and last_name(expr.func) in _MAPPING_FACTORIES


