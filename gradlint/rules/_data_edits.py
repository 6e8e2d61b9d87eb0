"""The analysis of in-place edits through ``.data`` that GL202 and GL204 share.

One analysis decides whether a pending backward can see the edit; GL202 reports
the edits it can see, GL204 (off by default) the others, with the same fix.
"""

from __future__ import annotations

import re
from typing import Dict, FrozenSet, List, Optional, Sequence, Tuple, Union, cast

import libcst as cst

from gradlint import codegen
from gradlint.fixes import Fix
from gradlint.rules._gates import edited_through, tensor_data
from gradlint.rules._inplace import InplaceEditRule, chained_receiver, edit_text, edited_alias, short
from gradlint.semantic import bounds
from gradlint.semantic.scope_flows import key as escape_key
from gradlint.semantic.scope_flows import keys_in
from gradlint.semantic.syntax import inplace_edit, is_tensor_data_syntax, root_name
from gradlint.semantic.torch_api import TORCH
from gradlint.semantic.tree import walk
from gradlint.semantic.values import StorageAlias

# The deprecated ``add_(Number alpha, Tensor other)`` overloads and the keyword the
# number moves to (the current signatures take one, resp. two, tensors positionally).
_LEGACY_OVERLOADS = {"add_": (2, "alpha"), "sub_": (2, "alpha"), "addcmul_": (3, "value"), "addcdiv_": (3, "value")}

Block = Union[cst.IndentedBlock, cst.Module]

# Statements whose value may be a step of a forward: ``out = model(x)``, ``loss += ...``, ``return net(x)``.
_STEPS = (cst.Assign, cst.AnnAssign, cst.AugAssign, cst.Expr, cst.Return)

# Ops whose backward reads their output, which they save (torch's derivatives.yaml:
# ``result`` in the formula): editing that output through ``.data`` changes the gradient.
_SAVES_OUTPUT_NAMES = "exp exp2 expm1 sigmoid tanh softmax log_softmax relu sqrt rsqrt reciprocal".split()
_SAVES_OUTPUT_FUNCTIONS = frozenset(
    [f"torch.{n}" for n in _SAVES_OUTPUT_NAMES]
    + [f"torch.nn.functional.{n}" for n in ("softmax", "log_softmax", "relu", "sigmoid", "tanh")]
    + ["torch.special.expit", "torch.special.exp2", "torch.special.expm1", "torch.special.softmax", "torch.special.log_softmax"]
)
_SAVES_OUTPUT_METHODS = frozenset(_SAVES_OUTPUT_NAMES)
_SAVES_OUTPUT_MODULES = frozenset({"torch.nn.ReLU", "torch.nn.Sigmoid", "torch.nn.Tanh", "torch.nn.Softmax", "torch.nn.LogSoftmax"})
# Ops that save their first input whatever the others are: ``pow`` (the base), and
# layers whose weight needs the input for its gradient (``F.linear(x, w)``, ``conv``).
_SAVES_INPUT_FUNCTIONS = frozenset(
    {"torch.pow", "torch.nn.functional.linear", "torch.nn.functional.bilinear"}
    | {f"torch.nn.functional.conv{d}d" for d in (1, 2, 3)}
    | {f"torch.nn.functional.conv_transpose{d}d" for d in (1, 2, 3)}
)
_SAVES_SELF_METHODS = frozenset({"pow"})
# Products: each operand is saved for the other's gradient, so only when the other
# has history (``x * 2`` and ``x * mask`` save nothing of ``x``).
_SAVES_BOTH_FUNCTIONS = frozenset({"torch.mul", "torch.multiply", "torch.matmul", "torch.mm", "torch.bmm", "torch.mv", "torch.outer"})
_SAVES_BOTH_METHODS = frozenset({"mul", "multiply", "matmul", "mm", "bmm", "mv", "outer"})
_SAVES_INPUT_MODULES = frozenset(
    {"torch.nn.Linear", "torch.nn.Bilinear"}
    | {f"torch.nn.Conv{d}d" for d in (1, 2, 3)}
    | {f"torch.nn.ConvTranspose{d}d" for d in (1, 2, 3)}
)
# Modules of one layer: given an input without history, their forward saves nothing
# of their parameters (``AddmmBackward0._saved_mat2`` is None).
_ONE_LAYER_MODULES = _SAVES_INPUT_MODULES | frozenset({"torch.nn.Embedding", "torch.nn.LayerNorm", "torch.nn.GroupNorm"})
_ONE_LAYER_MODULES |= frozenset({f"torch.nn.BatchNorm{d}d" for d in (1, 2, 3)})

# Functions that initialise parameters, by name.
_INIT_NAME = re.compile(r"init|reset_param|initiali[sz]e", re.IGNORECASE)


class DataEditRule(InplaceEditRule):
    """A rule about in-place edits through ``.data``; a subclass sets ``code`` and
    ``reports_pending`` (whether it reports the edits a pending backward can see)."""

    reports_pending: bool
    triggers = (".data",)
    # ``.data`` of a possible tensor, edited in place, bound to a name or assigned
    # (``p.data = other``): not ``torch.utils.data``, ``self.data``, ``p.data.cpu()``.
    gates = (re.compile(edited_through(tensor_data()) + "|" + tensor_data() + r"[ \t]*=(?!=)"),)

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._modules: Optional[FrozenSet[str]] = None
        self._steps: Dict[int, Tuple[List[Tuple[cst.CSTNode, FrozenSet[str]]], List[cst.CSTNode]]] = {}
        self._yields: Dict[int, List[cst.Yield]] = {}

    def check_edit(self, node: cst.CSTNode) -> None:
        swapped = self._swap(node)
        if swapped is not None and not self.reports_pending:
            return  # a weight swapped in with no graph about: loading, fusing, casting; not GL204's update idiom
        alias = swapped or edited_alias(self.ctx.semantic, node, "data")
        if alias is None or self._initialising(node):
            return
        if self._graph_may_hold(node, alias, swapped is not None) is not self.reports_pending:
            return
        if self.reports_pending and not self.preview and not self._proven_tensor(alias.source):
            return  # ``recipe.data = datamodule``: `.data` of what may not be a tensor
        if self.reports_pending and not self.preview and self._test_without_backward(node):
            return  # a unit test that never runs backward: no gradient to get wrong
        source = short(self.ctx, alias.source) or "the tensor"
        data = short(self.ctx, alias.origin) or f"{source}.data"
        if swapped is not None:
            via = "a `.data` assignment (it swaps the storage under the same tensor)"
            self.report(node, edit=edit_text(self.ctx, node), source=source, via=via)
            return
        edited = short(self.ctx, inplace_edit(node))  # type: ignore[arg-type]
        via = f"`{edited}`, an alias of `{data}`" if alias.through_name and edited else "`.data`"
        self.report(node, fix=self._fix(node, alias), edit=edit_text(self.ctx, node), source=source, via=via)

    def _test_without_backward(self, node: cst.CSTNode) -> bool:
        """The edit is in a test function (``test_*`` of a test file) that runs no
        backward and returns nothing: its pending graph is dropped unused when it
        returns, so no gradient can be wrong."""
        sem = self.ctx.semantic
        func = sem.tree.enclosing_function(node)
        path = self.ctx.path.replace("\\", "/").rpartition("/")[2]
        if func is None or not func.name.value.startswith("test") or not (path.startswith("test_") or path.endswith("_test.py")):
            return False
        for sub in walk(func.body):
            if isinstance(sub, cst.Call) and sem.calls.is_backward_call(sub):
                return False
            if isinstance(sub, (cst.Return, cst.Yield)) and getattr(sub, "value", None) is not None:
                return False
        return True

    # GL202 claims a pending backward saw the edit: in the default tier, only where the
    # semantic model proves the graph. GL204 claims none did: it takes every hint of a
    # graph, names included, as a reason to stay silent.

    def _graph_source(self, value: cst.BaseExpression) -> Optional[cst.CSTNode]:
        values = self.ctx.semantic.values
        return values.graph_source(value) if self.preview or not self.reports_pending else values.proven_graph_source(value)

    def _forward_output(self, value: cst.BaseExpression) -> Optional[cst.CSTNode]:
        values = self.ctx.semantic.values
        return values.forward_output(value) if self.preview or not self.reports_pending else values.proven_forward_output(value)

    def _proven_tensor(self, source: cst.BaseExpression) -> bool:
        """Whether the object whose ``.data`` is edited is proven a tensor: by the value
        analysis, as a parameter of a proven module or a ``.grad``, or as the output of
        a proven module's forward (what has ``.data`` with in-place methods there is a
        tensor's)."""
        values = self.ctx.semantic.values
        return values.proven_tensor_or_parameter(source) or values.proven_forward_output(source) is not None

    def _swap(self, node: cst.CSTNode) -> Optional[StorageAlias]:
        """``p.data = other``: ``p`` keeps its identity (what a graph saved) and takes
        ``other``'s storage, without a version-counter bump: to a pending backward it
        is an in-place edit of ``p`` that autograd cannot see."""
        if not (isinstance(node, cst.Assign) and len(node.targets) == 1):
            return None
        target = node.targets[0].target
        if not (isinstance(target, cst.Attribute) and self.ctx.semantic.values.is_tensor_data(target)):
            return None
        return StorageAlias("data", target, target.value)

    def _initialising(self, node: cst.CSTNode) -> bool:
        """Inside parameter initialisation (``__init__``, ``reset_parameters``,
        ``_init_weights``, ``weights_init`` for ``model.apply``...): no forward has run
        yet, so no graph can have saved the tensor, and the edit cannot corrupt a
        gradient. (``nn.init`` is the modern spelling; GL203 still reports the read.)"""
        func = self.ctx.semantic.tree.enclosing_function(node)
        while func is not None:
            if _INIT_NAME.search(func.name.value):
                return True
            func = self.ctx.semantic.tree.enclosing_function(func)
        return False

    # -- can a graph see the edit? -------------------------------------------------

    def _graph_may_hold(self, node: cst.CSTNode, alias: StorageAlias, swap: bool = False) -> bool:
        """Whether a graph that saved the edited tensor can still be alive when the edit
        runs: earlier in the same function (or module), with no ``backward()`` since,
        a step that records history either produced the tensor (``h = relu(...)``;
        ``h.data.mul_(m)``) or took it, or the module or parameters it comes from, as an
        input (``out = netD(x)``; ``for p in netD.parameters(): p.data.clamp_(...)``);
        or a caller in this file passed a forward's output for it (``d = netG(z);
        scale(d)`` for ``def scale(d): d.data += 1``), and no ``backward()`` here ran since.
        Not a ``.grad`` (gradients are what a backward produced, not what a graph saved),
        nor a tensor no recorded step has touched yet (weights loaded at set-up, an input
        buffer refilled before the forward that reads it, a fresh ``torch.ones``)."""
        sem = self.ctx.semantic
        source = alias.source
        if isinstance(source, cst.Attribute) and source.attr.value == "grad":
            return False
        scope = sem.tree.function_scope(node)
        tree = sem.tree
        if self._restored_after_yield(node):
            return True
        steps, backwards = self._graph_steps(scope)
        # An activation (a forward's output, or a view of one), not a leaf.
        produced = self._forward_output(source)
        # The default tier reports only what an op is proven to have saved (its output:
        # ``exp``, ``sigmoid``, ``softmax``...; or its input: a product with a tensor that
        # has history, ``pow``, a ``Linear``'s input); that a recorded step produced or
        # read the tensor is not enough (``Linear`` without bias and ``squeeze`` save
        # nothing of their output; ``x * 2`` saves nothing of ``x``).
        strict = self.reports_pending and not self.preview
        if produced is not None and not tree.is_inside(scope, produced):
            # Handed in by a caller: its graph is alive from the function's entry until a
            # backward here runs, if it was when the call was made.
            if any(tree.ends_before(b, node) for b in backwards):
                return False
            if strict and not self._saved_by_callers(source):
                return False
            return self._alive_at_call(scope, produced)
        if produced is not None and strict and self._saved_output(source, node, backwards):
            return True
        owners = self._owners(source, scope)
        module_owners = self._module_owners(source)
        swap_owners = module_owners if swap else frozenset()
        for step, inputs in steps:
            if not tree.ends_before(step, node):
                break
            if swap and produced is None:
                # A whole tensor swapped in is what loading, converting and averaging
                # weights do, passing modules around as arguments: only a forward of the
                # module itself shows a graph that saved its parameter.
                inputs = self._callees(step)
                owners = swap_owners
            if not (produced is not None or inputs & owners):
                continue
            if any(tree.ends_before(step, b) and tree.ends_before(b, node) for b in backwards):
                continue  # its backward has run: the saved tensors are freed
            if strict and not self._step_saves(step, source, module_owners):
                continue
            return True
        return False

    # -- was the tensor saved? ----------------------------------------------------------

    def _saved_output(self, source: cst.BaseExpression, node: cst.CSTNode, backwards: List[cst.CSTNode]) -> bool:
        """Whether the tensor ``source`` (or the tensor it is a view of) is the output of
        an op that saves its output for backward (``h = torch.sigmoid(...)``, ``p =
        scores.softmax(-1)``, ``a = self.act(x)`` for ``nn.ReLU``), recorded with grad on
        and with no ``backward()`` between it and the edit ``node``."""
        sem = self.ctx.semantic
        values = sem.values
        tree = sem.tree
        expr: Optional[cst.BaseExpression] = source
        for _ in range(bounds.EXPRESSION_STEPS):
            if expr is None:
                return False
            expr = values._viewed(expr)
            if isinstance(expr, cst.Name):
                expr = values.value_of(expr)
                continue
            break
        if not isinstance(expr, cst.Call) or not self._saves_output(expr):
            return False
        if sem.gradmode.mode_at(expr).disabled is True or values.proven_graph_source(expr) is None:
            return False
        return not any(tree.ends_before(expr, b) and tree.ends_before(b, node) for b in backwards)

    def _saved_by_callers(self, source: cst.BaseExpression) -> bool:
        """Whether ``source`` is (a view of) a parameter for which a call in this file
        passes the output of an op that saves its output (``scale(torch.tanh(net(z)))``)."""
        sem = self.ctx.semantic
        root = sem.values._viewed(source)
        b = sem.scopes.reaching_binding(root) if isinstance(root, cst.Name) else None
        if b is None or b.form != "param" or not isinstance(b.node, cst.Param):
            return False
        for call, arg in sem.calls.arguments_for(b.node) or ():
            backwards = self._graph_steps(sem.tree.function_scope(call))[1]
            if self._saved_output(arg, call, backwards):
                return True
        return False

    def _saves_output(self, call: cst.Call) -> bool:
        sem = self.ctx.semantic
        func = call.func
        if not isinstance(func, (cst.Name, cst.Attribute)):
            return False
        if sem.names.qualnames_in(func, TORCH) & _SAVES_OUTPUT_FUNCTIONS:
            return True
        if isinstance(func, cst.Attribute) and func.attr.value in _SAVES_OUTPUT_METHODS and not sem.names.is_imported(func.value):
            return sem.values.proven_graph_source(func.value) is not None
        return self._built_by(func, _SAVES_OUTPUT_MODULES)

    def _built_by(self, ref: cst.BaseExpression, classes: FrozenSet[str]) -> bool:
        """Whether ``ref`` certainly holds a module that one of the torch classes
        ``classes`` built (every binding, or every ``self.<attr> = ...``)."""
        sem = self.ctx.semantic
        built = sem.modules.assigned_values(ref)
        return bool(built) and all(
            isinstance(v, cst.Call)
            and isinstance(v.func, (cst.Name, cst.Attribute))
            and bool(sem.names.qualnames_in(v.func, TORCH) & classes)
            for v in built
        )

    def _step_saves(self, step: cst.CSTNode, source: cst.BaseExpression, module_owners: FrozenSet[str]) -> bool:
        """Whether the recorded ``step`` saves the tensor ``source`` for its backward: an
        op that saves that input (a product with a tensor that has history, a power, a
        ``Linear``/``Conv`` layer's input), or a forward of the module it is a parameter
        of, given an input that has history (the layers then save their weights to
        compute that input's gradient; with a plain data input the first layer saves
        nothing of its weight)."""
        sem = self.ctx.semantic
        values = sem.values
        k = escape_key(values._viewed(source))
        value = getattr(step, "value", None)
        if value is None:
            return False
        for sub in walk(value):
            if k is not None and self._saves_operand(sub, k):
                return True
            if isinstance(sub, cst.Call) and module_owners:
                func = sub.func
                if isinstance(func, cst.Attribute) and func.attr.value == "forward":
                    func = func.value
                if escape_key(func) in module_owners and (
                    any(values.proven_graph_source(a.value) is not None for a in sub.args)
                    or not self._built_by(func, _ONE_LAYER_MODULES)
                ):
                    return True
        return False

    def _saves_operand(self, sub: cst.CSTNode, k: str) -> bool:
        """Whether the op ``sub`` saves its operand keyed ``k``."""
        sem = self.ctx.semantic
        values = sem.values

        def is_k(e: cst.BaseExpression) -> bool:
            return escape_key(values._viewed(e)) == k and not isinstance(values._viewed(e), cst.Call)

        def has_history(e: cst.BaseExpression) -> bool:
            return values.proven_graph_source(e) is not None or values.requires_grad_leaf(e) is not None

        if isinstance(sub, cst.BinaryOperation):
            op = sub.operator
            if isinstance(op, cst.Power):
                return is_k(sub.left)
            if isinstance(op, cst.Divide) and is_k(sub.right):
                return True
            if isinstance(op, (cst.Multiply, cst.MatrixMultiply, cst.Divide)):
                return (is_k(sub.left) and has_history(sub.right)) or (is_k(sub.right) and has_history(sub.left))
            return False
        if not (isinstance(sub, cst.Call) and isinstance(sub.func, (cst.Name, cst.Attribute))):
            return False
        func = sub.func
        args = [a.value for a in sub.args if not a.star]
        names = sem.names.qualnames_in(func, TORCH)
        if names & _SAVES_INPUT_FUNCTIONS:
            return bool(args) and is_k(args[0])
        if names & _SAVES_BOTH_FUNCTIONS and len(args) >= 2:
            return (is_k(args[0]) and has_history(args[1])) or (is_k(args[1]) and has_history(args[0]))
        if isinstance(func, cst.Attribute) and is_k(func.value) and not sem.names.is_imported(func.value):
            if func.attr.value in _SAVES_SELF_METHODS:
                return True
            if func.attr.value in _SAVES_BOTH_METHODS:
                return bool(args) and has_history(args[0])
        if isinstance(func, cst.Attribute) and func.attr.value in _SAVES_BOTH_METHODS and args and is_k(args[0]):
            return has_history(func.value)
        return bool(args) and is_k(args[0]) and self._built_by(func, _SAVES_INPUT_MODULES)

    def _restored_after_yield(self, node: cst.CSTNode) -> bool:
        """A temporary edit made by a generator context manager: the edit runs before its
        ``yield``, the code after the ``yield`` writes ``.data`` again (the restore), and
        a ``with`` of it in this file records a graph in its body and leaves the block
        with no backward run there. That graph saved the tensor itself, not its values,
        so the restore silently changes what its backward will read."""
        tree = self.ctx.semantic.tree
        func = tree.enclosing_function(node)
        if func is None:
            return False
        yields = self._yields.get(id(func))
        if yields is None:
            yields = self._yields[id(func)] = [y for y in walk(func.body) if isinstance(y, cst.Yield)]
        # By where they start: the walk may still be inside ``node`` (its end is not known yet).
        if not yields or tree.order(yields[0])[0] < tree.order(node)[0]:
            return False
        if not any(tree.ends_before(yields[0], n) and self._writes_data(n) for n in walk(func.body)):
            return False
        for call in self.ctx.semantic.calls.call_sites(func) or ():
            item = tree.parent(call)
            block = tree.parent(item) if isinstance(item, cst.WithItem) else None
            if isinstance(block, cst.With) and self._records_without_backward(block.body):
                return True
        return False

    def _writes_data(self, node: cst.CSTNode) -> bool:
        if self._swap(node) is not None:
            return True
        return isinstance(node, (cst.Call, cst.AugAssign, cst.Assign)) and edited_alias(self.ctx.semantic, node, "data") is not None

    def _records_without_backward(self, body: cst.BaseSuite) -> bool:
        """Whether a block computes a value with history (grad enabled) and runs no
        ``backward()``/``autograd.grad`` inside."""
        sem = self.ctx.semantic
        recorded = False
        for sub in walk(body):
            if isinstance(sub, cst.Call) and sem.calls.is_backward_call(sub):
                return False
            value = getattr(sub, "value", None) if isinstance(sub, _STEPS) else None
            if value is not None and self._graph_source(value) is not None and sem.gradmode.mode_at(sub).disabled is not True:
                recorded = True
        return recorded

    def _alive_at_call(self, func: cst.CSTNode, produced: cst.CSTNode) -> bool:
        """Whether the forward ``produced`` that a caller passes to ``func`` can still have
        its graph when a call of ``func`` runs: no ``backward()`` of the caller lies
        between the forward and the call (``out = model(x); loss.backward();
        scale(out)`` runs the helper on a freed graph)."""
        tree = self.ctx.semantic.tree
        sites = self.ctx.semantic.calls.call_sites(func) if isinstance(func, cst.FunctionDef) else None
        for call in sites or ():
            caller = tree.function_scope(call)
            if tree.function_scope(produced) is not caller or tree.is_inside(call, produced):
                return True  # passed straight in, or from further up: nothing shows it freed
            backwards = self._graph_steps(caller)[1]
            if not any(tree.ends_before(produced, b) and tree.ends_before(b, call) for b in backwards):
                return True
        return not sites

    def _module_owners(self, source: cst.BaseExpression) -> FrozenSet[str]:
        """The modules whose forward would save ``source``: ``self.proj`` for
        ``self.proj.weight``; ``netD`` for ``p`` of ``for p in netD.parameters()`` (or
        ``for name, p in netD.named_parameters()``)."""
        k = escape_key(source)
        if k is None:
            return frozenset()
        parts = k.split(".")
        found = {".".join(parts[:i]) for i in range(1, len(parts))}
        if isinstance(source, cst.Name):
            for b in self.ctx.semantic.scopes.reaching(source).bindings:
                loop = b.value if b.form == "for" else None
                if (
                    isinstance(loop, cst.Call)
                    and isinstance(loop.func, cst.Attribute)
                    and loop.func.attr.value in ("parameters", "named_parameters", "buffers", "named_buffers")
                ):
                    owner = escape_key(loop.func.value)
                    if owner is not None:
                        found.add(owner)
        return frozenset(found - {"self", "cls"})

    def _callees(self, step: cst.CSTNode) -> FrozenSet[str]:
        """The keys of what ``step`` calls: ``self.proj`` for ``self.proj(x)`` and
        ``self.proj.forward(x)``; not the arguments."""
        found = set()
        for sub in walk(step):
            if isinstance(sub, cst.Call):
                func = sub.func
                if isinstance(func, cst.Attribute) and func.attr.value == "forward":
                    func = func.value
                k = escape_key(func)
                if k is not None:
                    found.add(k)
        return frozenset(found)

    def _owners(self, source: cst.BaseExpression, scope: cst.CSTNode) -> FrozenSet[str]:
        """``self.proj.weight`` -> {self.proj.weight, self.proj}; ``p`` of ``for p in
        netD.parameters()`` -> {p, netD.parameters, netD}: what a step must take for the
        tensor to be among its inputs (``self``/``cls`` alone say nothing)."""
        k = escape_key(source)
        if k is None:
            return frozenset()
        parts = k.split(".")
        found = {".".join(parts[:i]) for i in range(1, len(parts) + 1)}
        found |= self.ctx.semantic.escape.flows(scope).sources_of([k])
        return frozenset(found - {"self", "cls"})

    def _graph_steps(self, scope: cst.CSTNode) -> Tuple[List[Tuple[cst.CSTNode, FrozenSet[str]]], List[cst.CSTNode]]:
        """The statements of ``scope`` that compute a value with history (with the keys they
        read), and its ``backward()`` calls, in source order."""
        found = self._steps.get(id(scope))
        if found is None:
            sem = self.ctx.semantic
            body = scope if isinstance(scope, cst.Module) else scope.body  # type: ignore[attr-defined]
            steps: List[Tuple[cst.CSTNode, FrozenSet[str]]] = []
            backwards: List[cst.CSTNode] = []
            for sub in walk(body):
                if isinstance(sub, cst.Call) and sem.calls.is_backward_call(sub):
                    backwards.append(sub)
                value = getattr(sub, "value", None) if isinstance(sub, _STEPS) else None
                if value is None or self._graph_source(value) is None:
                    continue
                if sem.gradmode.mode_at(sub).disabled is True:
                    continue  # computed under no_grad: nothing recorded
                steps.append((sub, keys_in(value)))
            found = self._steps[id(scope)] = (steps, backwards)
        return found

    # -- the fix ------------------------------------------------------------------

    def _fix(self, node: cst.CSTNode, alias: StorageAlias) -> Optional[Fix]:
        if alias.through_name:
            return None  # rewriting ``d_p = p.grad.data`` would change every other use of ``d_p``
        sem = self.ctx.semantic
        stmt = self._statement_of(node)
        if stmt is None or self._edit_in(stmt) is not node:
            return None
        block = self.ctx.parent(stmt)
        if not isinstance(block, (cst.IndentedBlock, cst.Module)):
            return None
        if any(
            isinstance(n, cst.Subscript)
            and isinstance(n.value, cst.Attribute)
            and n.value.attr.value == "data"
            and not (isinstance(n.value.value, cst.Attribute) and n.value.value.attr.value == "grad")
            for n in walk(stmt)
        ):
            # ``packed.data[0]`` of a PackedSequence (a namedtuple) is a row of its data, while
            # ``packed[0]`` is the whole data tensor: dropping `.data` before an index is
            # right only for tensors, which the name does not prove (a `.grad` is one).
            return None
        modules = self._module_names()
        # ``.data`` of a receiver proven a tensor though named like a dataset (``g.data``)
        proven = frozenset(
            id(n)
            for n in walk(stmt)
            if isinstance(n, cst.Attribute) and not is_tensor_data_syntax(n) and sem.values.is_tensor_data(n)
        )
        edits = [self.transform(stmt, lambda s: _modernize(s, modules, proven), key=("data-edit", id(stmt)))]
        imports: Sequence = ()
        first, last = self._run(block, stmt)
        if sem.gradmode.grad_disabled(stmt) is True:
            title = "Edit the tensor itself (gradients are already disabled here)"
        elif not any(self._needs_guard(s) for s in _between(block, first, last)):
            title = "Edit the gradient itself (it carries no graph, and nothing in the edit can add one)"
        else:
            ref = sem.names.torch_ref_at(first)
            if ref is None:
                return None
            torch_name, imports = ref
            guard = f"{torch_name}.no_grad()"
            edits.append(
                self.wrap(first, last, lambda stmts: codegen.wrap_in_with(stmts, guard), key=("data-no-grad", id(first)))
            )
            title = f"Edit the tensor itself under `with {guard}:`"
        return self.fix(*edits, title=title, add_imports=imports)

    def _statement_of(self, node: cst.CSTNode) -> Optional[cst.SimpleStatementLine]:
        cur = self.ctx.parent(node)
        while cur is not None and not isinstance(cur, cst.BaseStatement):
            cur = self.ctx.parent(cur)
        return cur if isinstance(cur, cst.SimpleStatementLine) else None

    def _edit_in(self, stmt: cst.BaseStatement) -> Optional[cst.CSTNode]:
        """The edit through ``.data`` that the statement ``stmt`` consists of, if it is one
        the fix can move under ``no_grad``: ``p.data.add_(...)`` (a chain of in-place
        calls included), ``p.data -= ...``, ``p.data[idx] = ...``. A statement that
        also binds the result (``y = p.data.add_(1)``) is not: ``y`` would lose its graph."""
        if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
            return None
        small = stmt.body[0]
        if isinstance(small, cst.Expr):
            call = small.value
            if not (isinstance(call, cst.Call) and inplace_edit(call) is not None):
                return None
            # ``inplace_edit`` found a method call: ``call.func`` is an attribute.
            while chained_receiver(cast(cst.Attribute, call.func).value):
                call = cast(cst.Call, cast(cst.Attribute, call.func).value)
            edit: cst.CSTNode = call
        elif isinstance(small, cst.AugAssign) or (isinstance(small, cst.Assign) and len(small.targets) == 1):
            edit = small
        else:
            return None
        alias = edited_alias(self.ctx.semantic, edit, "data")
        return edit if alias is not None and not alias.through_name else None

    def _needs_guard(self, stmt: cst.BaseStatement) -> bool:
        """Whether the rewritten ``stmt`` must run under ``no_grad``: anything but an edit of
        a ``.grad`` with numbers only (``p.grad.data.zero_()``, ``g.data.mul_(0.5)``), which
        is what ``Optimizer.zero_grad`` itself does without ``no_grad``."""
        edit = self._edit_in(stmt)
        alias = edited_alias(self.ctx.semantic, edit, "data") if edit is not None else None
        if alias is None or not (isinstance(alias.source, cst.Attribute) and alias.source.attr.value == "grad"):
            return True
        assert isinstance(stmt, cst.SimpleStatementLine)
        small = stmt.body[0]
        if isinstance(small, (cst.AugAssign, cst.Assign)):
            values = [small.value]
        else:
            values = [a.value for node in walk(small) if isinstance(node, cst.Call) for a in node.args]
        return not all(_is_number(v) for v in values)

    def _run(self, block: Block, stmt: cst.SimpleStatementLine) -> Tuple[cst.BaseStatement, cst.BaseStatement]:
        """The consecutive statements around ``stmt`` that are all such edits: they go
        under one ``with`` (an EMA or SGD loop body becomes one block, not one per line)."""
        body: List[cst.BaseStatement] = list(block.body)
        i = j = next(k for k, s in enumerate(body) if s is stmt)
        while i > 0 and self._edit_in(body[i - 1]) is not None:
            i -= 1
        while j + 1 < len(body) and self._edit_in(body[j + 1]) is not None:
            j += 1
        return body[i], body[j]

    def _module_names(self) -> FrozenSet[str]:
        """Names bound by imports: ``torch.utils.data`` is a module, not a tensor's ``.data``."""
        if self._modules is None:
            sem = self.ctx.semantic
            self._modules = frozenset(
                name
                for name, binds in sem.scopes.bindings(self.ctx.module).items()
                if any(isinstance(b.node, (cst.Import, cst.ImportFrom)) for b in binds)
            )
        return self._modules


def _between(block: Block, first: cst.BaseStatement, last: cst.BaseStatement) -> List[cst.BaseStatement]:
    body = list(block.body)
    i = next(k for k, s in enumerate(body) if s is first)
    j = next(k for k, s in enumerate(body) if s is last)
    return body[i : j + 1]


def _is_number(expr: cst.BaseExpression) -> bool:
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, (cst.Minus, cst.Plus)):
        expr = expr.expression
    return isinstance(expr, (cst.Integer, cst.Float))


def _modernize(stmt: cst.CSTNode, modules: FrozenSet[str], proven: FrozenSet[int] = frozenset()) -> cst.CSTNode:
    """``stmt`` with ``.data`` dropped from tensors and legacy ``add_(alpha, other)``
    overloads rewritten; run under ``no_grad`` it does what the original did."""
    return cast(cst.CSTNode, stmt.visit(_Modernizer(modules, proven)))


class _Modernizer(cst.CSTTransformer):
    def __init__(self, modules: FrozenSet[str], proven: FrozenSet[int]) -> None:
        super().__init__()
        self.modules = modules
        self.proven = proven

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
        if not is_tensor_data_syntax(original) and id(original) not in self.proven:
            return updated
        root = root_name(original.value)
        if root is not None and root.value in self.modules:
            return updated
        return codegen.keep_parens(original, updated.value)

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.Call:
        func = updated.func
        if not (isinstance(func, cst.Attribute) and func.attr.value in _LEGACY_OVERLOADS):
            return updated
        count, keyword = _LEGACY_OVERLOADS[func.attr.value]
        args = updated.args
        if len(args) != count or any(a.keyword is not None or a.star for a in args):
            return updated
        scalar, *tensors = args
        tensors[-1] = tensors[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        moved = updated.with_changes(args=tensors)
        return codegen.add_keyword(moved, keyword, scalar.value)
