"""Graph evidence: which forward or loss call gives a value its autograd history
(``graph_source``, and ``proven_graph_source`` without guesses from names), and
whose output a tensor may be (``forward_output``).

The layer of ``values.Values`` above the abstract values (``kinds``): evidence
reads what a value is, never the other way round.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Dict, Optional, Sequence, Set, Tuple, TypeVar, cast

import libcst as cst

from gradlint.semantic import bounds
from gradlint.semantic.frameworks import LOSS_STEPS
from gradlint.semantic.kinds import _PARAMETER, Kinds, _target_path
from gradlint.semantic.module_evidence import class_forward
from gradlint.semantic.scopes import Binding
from gradlint.semantic.syntax import bool_value, call_arg, is_basic_index, last_name, looks_forward, root_name
from gradlint.semantic.torch_api import (
    FACTORY_NAME,
    LOSS_FUNCTIONS,
    MODULE_API,
    NO_GRAPH_ATTRIBUTES,
    NO_GRAPH_METHODS,
    PYTHON_VALUE_FUNCS,
    PYTHON_VALUE_METHODS,
    REQUIRES_GRAD_FACTORIES,
    TENSOR_FACTORIES,
    TORCH,
    VARIABLE,
    VIEW_ATTRIBUTES,
    VIEW_METHODS,
)
from gradlint.semantic.tree import walk

_T = TypeVar("_T")

if TYPE_CHECKING:
    from gradlint.semantic import SemanticModel


class GraphEvidence(Kinds):
    """Autograd history and forward outputs (the third layer of ``values.Values``)."""

    def __init__(self, model: "SemanticModel") -> None:
        super().__init__(model)
        self._graph_by_name: Dict[int, Optional[cst.CSTNode]] = {}
        self._returns_checked: Set[int] = set()
        self._forward_outputs: Dict[int, Optional[cst.CSTNode]] = {}
        # Whether graph evidence may rest on names (a callee named like a model or a
        # loss): True for ``graph_source``, False inside ``proven_graph_source``,
        # which keeps memos of its own.
        self._by_name = True
        self._proven_memos: Tuple[Dict[int, Optional[cst.CSTNode]], Dict[int, Optional[cst.CSTNode]]] = ({}, {})

    # -- names ---------------------------------------------------------------------------

    def value_of(self, name: cst.Name) -> Optional[cst.BaseExpression]:
        """The expression ``name`` certainly holds, if a plain assignment gave it (an
        augmented assignment in between edits the same object)."""
        b = self.model.scopes.same_object(name)
        return b.value if b is not None and b.kind == "assign" else None

    # -- autograd history ----------------------------------------------------------------------

    def graph_source(self, expr: cst.BaseExpression, _depth: int = 0) -> Optional[cst.CSTNode]:
        """The forward or loss call that evidently gives ``expr`` autograd history, or None.

        Evidence: a call of a model or loss (``model(x)``, ``criterion(out, y)``,
        ``F.cross_entropy(...)``, a name bound to an ``nn`` module), and arithmetic,
        indexing, attributes (``outputs.loss``) and graph-keeping methods
        (``.mean()``, ``.cpu()``) of such or of a leaf that requires grad, followed
        through the bindings that may reach a name. Nothing computed under
        no-grad counts, nor ``.item()``/``.detach()``/``.data``/``float()``,
        comparisons, ``argmax`` and other results without history. A leaf itself
        has no history."""
        if _depth > bounds.GRAPH_STEPS:
            return None
        if isinstance(expr, cst.Call):
            return self._call_graph_source(expr, _depth)
        if isinstance(expr, cst.Attribute):
            if expr.attr.value in NO_GRAPH_ATTRIBUTES:
                return None
            return self._operand_graph_source(expr.value, _depth + 1)
        if isinstance(expr, cst.Subscript):
            return self._operand_graph_source(expr.value, _depth + 1)
        if isinstance(expr, cst.BinaryOperation):
            return self._operand_graph_source(expr.left, _depth + 1) or self._operand_graph_source(expr.right, _depth + 1)
        if isinstance(expr, cst.UnaryOperation):
            if isinstance(expr.operator, cst.Not):
                return None
            return self._operand_graph_source(expr.expression, _depth + 1)
        if isinstance(expr, cst.Name):
            return self._name_graph_source(expr, _depth)
        return None

    def _operand_graph_source(self, expr: cst.BaseExpression, depth: int) -> Optional[cst.CSTNode]:
        return self.graph_source(expr, depth) or self.requires_grad_leaf(expr, depth)

    def _proven(self, compute: Callable[[], _T]) -> _T:
        """``compute()`` with graph evidence limited to what types prove (see
        ``proven_graph_source``); in the preview tier, as ``graph_source`` has it."""
        if self.model.preview or not self._by_name:
            return compute()
        saved = self._graph_by_name, self._forward_outputs
        self._graph_by_name, self._forward_outputs = self._proven_memos
        self._by_name = False
        try:
            return compute()
        finally:
            self._graph_by_name, self._forward_outputs = saved
            self._by_name = True

    def proven_graph_source(self, expr: cst.BaseExpression) -> Optional[cst.CSTNode]:
        """``graph_source`` without guesses from names: the history must come from a
        forward of what is proven a module (an ``nn.*`` constructor, a class whose
        bases reach ``nn.Module`` in the project, ``self(...)``), a torch loss or
        function, a leaf that requires grad, or a function of the file returning
        such, never from a callee named like a model or a loss (``model(x)`` for a
        parameter ``model`` of unknown type, ``criterion(out, y)``,
        ``trainer.train_step(b)``, ``model.fc(x)``). With ``preview`` on, the guesses
        count too."""
        return self._proven(lambda: self.graph_source(expr))

    def proven_forward_output(self, expr: cst.BaseExpression) -> Optional[cst.CSTNode]:
        """``forward_output`` with the evidence of ``proven_graph_source``."""
        return self._proven(lambda: self.forward_output(expr))

    def requires_grad_leaf(self, expr: cst.BaseExpression, _depth: int = 0) -> Optional[cst.CSTNode]:
        """The call that made ``expr`` a leaf requiring grad (``torch.zeros(3, requires_grad=True)``,
        ``nn.Parameter(t)``, ``t.requires_grad_()``), directly or through a variable."""
        if _depth > bounds.GRAPH_STEPS:
            return None
        if isinstance(expr, cst.Name):
            value = self.value_of(expr)
            return self.requires_grad_leaf(value, _depth + 1) if value is not None else None
        if not isinstance(expr, cst.Call):
            return None
        func = expr.func
        names = self.model.names.qualnames_in(func, TORCH) if isinstance(func, (cst.Name, cst.Attribute)) else frozenset()
        if names & REQUIRES_GRAD_FACTORIES:
            flag = call_arg(expr, None, "requires_grad")
            return expr if flag is not None and bool_value(flag.value) is not False else None
        if names & _PARAMETER:
            flag = call_arg(expr, 1, "requires_grad")
            return expr if flag is None or bool_value(flag.value) is not False else None
        if isinstance(func, cst.Attribute) and func.attr.value == "requires_grad_":
            flag = call_arg(expr, 0, "requires_grad")
            return expr if flag is None or bool_value(flag.value) is not False else None
        return None

    def _call_graph_source(self, call: cst.Call, depth: int) -> Optional[cst.CSTNode]:
        func = call.func
        names_ = self.model.names
        if isinstance(func, cst.Name) and func.value in PYTHON_VALUE_FUNCS and not names_.is_imported(func):
            return None
        # Every name asked about below is torch's; ``F.mse_loss(o, y).abs`` is a method of
        # what the call returned, not a torch function, whatever its dotted name reads.
        names = names_.qualnames_in(func, TORCH) if isinstance(func, (cst.Name, cst.Attribute)) and root_name(func) is not None else frozenset()
        if names & (TENSOR_FACTORIES | VARIABLE) or self.carries_no_graph(call, self.tree.function_scope(call)):
            return None
        if self.model.gradmode.grad_disabled(call) is True:
            return None
        if names & LOSS_FUNCTIONS:
            return call
        if any(n.startswith("torch.") for n in names):  # torch.mean(loss), torch.stack(outs), F.relu(h)
            return self._args_graph_source(call, depth)
        if isinstance(func, cst.Attribute):
            if func.attr.value in NO_GRAPH_METHODS or func.attr.value in PYTHON_VALUE_METHODS:
                return None
            if root_name(func.value) is not None and names_.is_imported(func.value):
                return None  # a function of some other module: unknown
            # A method keeps its receiver's history (loss.mean(), out.cpu(), w.pow(2));
            # else the receiver may be a model (self.model(x) is an attribute call too).
            found = self._operand_graph_source(func.value, depth + 1)
            if found is not None:
                return found
        if isinstance(func, cst.Name) and func.value == "self" and self.model.modules.forward(call) is not None:
            # ``self(x)`` in a module's method runs the class's forward: what it returns decides
            forward = self._own_forward(call)
            return call if forward is None or self._returns_history(forward, depth) else None
        local = self.model.calls.local_function(call)
        if local is not None:  # a function of this file: what it returns decides
            return call if self._returns_history(local, depth) else None
        method = self.model.modules.method_forward(call)
        if method is not None:
            # ``clf.predict(x)``: a method of a module class of the file that runs its
            # layers; what it returns decides (``self(x).argmax(-1)`` has no history)
            return call if self._returns_history(method, depth) else None
        if self._library_number_method(call):
            return None
        if isinstance(func, (cst.Name, cst.Attribute)) and self.model.modules.is_module(func):
            return call
        if not self._by_name:
            return None  # what follows is judged from names: the preview tier's evidence
        if isinstance(func, cst.Attribute) and func.attr.value in LOSS_STEPS and call.args:
            return call  # ``trainer.train_step(batch)``: the step's loss, by the framework's contract
        if looks_forward(last_name(func)):
            return call
        if (
            isinstance(func, cst.Attribute)
            and func.attr.value not in MODULE_API
            and not FACTORY_NAME.match(func.attr.value.lstrip("_"))
            and call.args
            and looks_forward(last_name(func.value))
        ):
            # ``model.fc(x)``, ``self.model.encode(x)``: a submodule or method of a model;
            # not ``model.load_pretrained(path)``, ``model.init_weights()``: set-up, no forward;
            # not ``demo_model.predictor()``: a forward takes inputs
            return call
        return None

    def _own_forward(self, call: cst.Call) -> Optional[cst.FunctionDef]:
        """The ``forward`` defined by the class whose method makes ``call``, if it has one."""
        cls = self.tree.enclosing_class(call)
        return class_forward(cls) if cls is not None else None

    def _returns_part_history(self, func: cst.FunctionDef, path: Sequence[object], depth: int) -> bool:
        """Whether the part ``path`` of what ``func`` returns carries history, on some return."""
        if id(func) in self._returns_checked:
            return False  # recursion
        self._returns_checked.add(id(func))
        try:
            return any(
                self._part_graph_source(node.value, path, depth + 1) is not None
                for node in walk(func)
                if isinstance(node, cst.Return) and node.value is not None
            )
        finally:
            self._returns_checked.discard(id(func))

    def _returns_history(self, func: cst.FunctionDef, depth: int) -> bool:
        if id(func) in self._returns_checked:
            return False  # recursion
        self._returns_checked.add(id(func))
        try:
            for node in walk(func):
                if isinstance(node, cst.Return) and node.value is not None:
                    value = node.value
                    values = [e.value for e in value.elements] if isinstance(value, cst.Tuple) else [value]
                    if any(self.graph_source(v, depth + 1) is not None for v in values):
                        return True
            return False
        finally:
            self._returns_checked.discard(id(func))

    def _args_graph_source(self, call: cst.Call, depth: int) -> Optional[cst.CSTNode]:
        for arg in call.args:
            values = [el.value for el in arg.value.elements] if isinstance(arg.value, (cst.List, cst.Tuple)) else [arg.value]
            for value in values:
                found = self._operand_graph_source(value, depth + 1)
                if found is not None:
                    return found
        return None

    def _name_graph_source(self, name: cst.Name, depth: int) -> Optional[cst.CSTNode]:
        # Memoised per use, with a cycle guard: ``h = h + layer(h)`` in a loop refers to itself.
        return _memo_shallow(self._graph_by_name, id(name), depth, lambda: self._resolve_name_graph_source(name, depth))

    def _resolve_name_graph_source(self, name: cst.Name, depth: int) -> Optional[cst.CSTNode]:
        reaching = self.model.scopes.reaching(name)
        if not reaching.bindings:
            return None
        found: Optional[cst.CSTNode] = None
        for cand in reaching.bindings:
            if cand.form == "aug":
                target = cand.node.target  # type: ignore[union-attr]
                src = self._name_graph_source(target, depth + 1) if isinstance(target, cst.Name) else None
                if src is None:
                    return None  # ``loss += reg``: the same tensor, with more history
                found = found or src
                continue
            if cand.kind == "for" and cand.value is not None:
                src = self._loop_item_graph_source(cand, depth)
            elif cand.kind == "unpack" and cand.value is not None:
                path = _target_path(cand)
                src = self._part_graph_source(cand.value, path, depth + 1) if path is not None else None
            elif cand.kind == "assign" and cand.value is not None:
                src = self.graph_source(cand.value, depth + 1)
            else:
                return None
            if src is None:
                return None
            found = found or src
        return found

    # -- forward outputs ---------------------------------------------------------------------

    def forward_output(self, expr: cst.BaseExpression, _depth: int = 0) -> Optional[cst.CSTNode]:
        """The forward or loss call whose output ``expr`` may be: a non-leaf tensor with
        history (an activation, which the op that made it or a later one may have saved
        for backward), as opposed to a leaf (a parameter, a buffer, a fresh or loaded
        tensor), which no recorded op produced. None when nothing shows one.

        Unlike ``graph_source`` (every binding that may reach a name must give history),
        one binding suffices: ``x = model(x)`` on one path makes ``x`` possibly an
        activation. A parameter of a function of this file counts when a call of that
        function in this file passes such a value for it (``delta = net(z);
        scale(delta)`` for ``def scale(delta)``). A view of such a tensor is its
        storage: basic indexing (integers, slices, ``...``, ``None``, names holding
        numbers), ``.T``, ``.view()``/``.transpose()``... ; advanced indexing copies."""
        expr = self._viewed(expr)
        if isinstance(expr, (cst.Subscript, cst.Call)):
            return None  # a copy made right here (``h[idx]``, ``h.clone()``): no op saved it
        return self._held_forward_output(expr, _depth)

    def _viewed(self, expr: cst.BaseExpression) -> cst.BaseExpression:
        """The tensor whose storage the view ``expr`` is (``expr`` itself if not a view)."""
        while True:
            if isinstance(expr, cst.Subscript) and self._view_index(expr):
                expr = expr.value
            elif isinstance(expr, cst.Attribute) and expr.attr.value in VIEW_ATTRIBUTES:
                expr = expr.value
            elif isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and expr.func.attr.value in VIEW_METHODS:
                expr = expr.func.value
            else:
                return expr

    def _held_forward_output(self, expr: cst.BaseExpression, _depth: int) -> Optional[cst.CSTNode]:
        """``forward_output`` of a value bound to a name (``h = model(x)[idx]`` binds an
        activation, whether or not it is a copy)."""
        if _depth > bounds.EXPRESSION_STEPS:
            return None
        expr = self._viewed(expr)
        if not isinstance(expr, cst.Name):
            return self.graph_source(expr) or self._op_forward_output(expr, _depth)
        # ``h = h.view(...)`` in a loop reaches itself: the memo's guard stops it.
        return _memo_shallow(self._forward_outputs, id(expr), _depth, lambda: self._name_forward_output(expr, _depth))

    def _op_forward_output(self, expr: cst.BaseExpression, _depth: int) -> Optional[cst.CSTNode]:
        """An op recorded on a possible activation is one too: ``torch.tanh(d)``,
        ``d * 2``, ``d.clamp(0, 1)`` for ``d`` a parameter some caller passes a forward's
        output for (what ``graph_source``, which asks every binding, cannot show)."""
        if isinstance(expr, cst.BinaryOperation):
            operands = [expr.left, expr.right]
        elif isinstance(expr, cst.UnaryOperation) and not isinstance(expr.operator, cst.Not):
            operands = [expr.expression]
        elif isinstance(expr, cst.Call) and isinstance(expr.func, (cst.Name, cst.Attribute)):
            func = expr.func
            names = self.model.names
            if self.carries_no_graph(expr, self.tree.function_scope(expr)) or self.model.gradmode.grad_disabled(expr) is True:
                return None
            if any(q.startswith("torch.") for q in names.qualnames_in(func, TORCH)):
                operands = [a.value for a in expr.args]  # ``torch.tanh(d)``, ``F.pad(d, p)``
            elif isinstance(func, cst.Attribute) and not names.is_imported(func.value) and func.attr.value not in (
                NO_GRAPH_METHODS | PYTHON_VALUE_METHODS
            ):
                operands = [func.value]  # ``d.clamp(0, 1)``, ``d.cuda()``
            else:
                return None
        else:
            return None
        for operand in operands:
            found = self._held_forward_output(operand, _depth + 1)
            if found is not None:
                return found
        return None

    def _name_forward_output(self, expr: cst.Name, _depth: int) -> Optional[cst.CSTNode]:
        for b in self.model.scopes.reaching(expr).bindings:
            found: Optional[cst.CSTNode] = None
            if b.form == "param" and isinstance(b.node, cst.Param):
                found = self.argument_forward_output(b.node, _depth + 1)
            elif b.kind == "assign" and b.form != "aug" and b.value is not None:
                found = self._held_forward_output(b.value, _depth + 1)
            elif b.kind == "unpack" and isinstance(b.value, cst.Call):
                found = self.graph_source(b.value)  # ``out, h = rnn(x)``
            if found is not None:
                return found
        return None

    def argument_forward_output(self, param: cst.Param, _depth: int = 0) -> Optional[cst.CSTNode]:
        """The forward output (``forward_output``) that some call in this file passes for
        ``param`` of a function of this file; None when none does or the function's
        callers are unknown (``calls.arguments_for``)."""
        if _depth > bounds.EXPRESSION_STEPS:
            return None
        for _call, arg in self.model.calls.arguments_for(param) or ():
            found = self._held_forward_output(arg, _depth + 1)
            if found is not None:
                return found
        return None

    def _view_index(self, expr: cst.Subscript) -> bool:
        """Indexing that returns a view: integers (literal or held by a name, such as a
        ``range`` loop variable), slices, ``...`` and ``None``."""
        if is_basic_index(expr):
            return True
        for el in expr.slice:
            sl = el.slice
            if isinstance(sl, cst.Slice):
                continue
            value = cast(cst.Index, sl).value
            if isinstance(value, (cst.Integer, cst.Ellipsis)) or (isinstance(value, cst.Name) and value.value == "None"):
                continue
            if not (isinstance(value, cst.Name) and self.value(value).what == "number"):
                return False
        return True

    def _loop_item_graph_source(self, b: Binding, depth: int) -> Optional[cst.CSTNode]:
        """``for name, loss in losses.items()`` / ``for loss in losses.values()``: the
        values of a mapping that carries history (a helper's dict of losses, a model's
        dict of outputs). Other loop items (batches, parameters) are not followed."""
        iterable = b.value
        if not (isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Attribute) and not iterable.args):
            return None
        method = iterable.func.attr.value
        path = _target_path(b)
        if method == "values" and path == ():
            return self._part_graph_source(iterable.func.value, (_VALUES,), depth + 1)
        if method == "items" and path is not None and path[:1] == (1,):
            return self._part_graph_source(iterable.func.value, (_VALUES, *path[1:]), depth + 1)
        return None

    def _part_graph_source(self, expr: cst.BaseExpression, path: Sequence[object], depth: int) -> Optional[cst.CSTNode]:
        """The graph evidence of the part of ``expr`` that ``path`` selects: tuple
        positions (``a, b = f()`` takes position 0 and 1) and ``_VALUES``, any value of
        a mapping. A function of the file is summarised per returned part, so that
        ``loss, acc = step(x)`` gives ``loss`` the history of ``step``'s first returned
        element and ``acc`` that of its second; a tuple or dict display by its
        elements; a name by the expression it certainly holds. Anything else (a
        forward's output, a loss function's tuple) passes its history to every part."""
        if depth > bounds.GRAPH_STEPS:
            return None
        if not path:
            return self.graph_source(expr, depth)
        step, rest = path[0], path[1:]
        if isinstance(expr, (cst.Tuple, cst.List)):
            if step == _VALUES or any(isinstance(e, cst.StarredElement) for e in expr.elements):
                return None
            if not isinstance(step, int) or step >= len(expr.elements):
                return None
            return self._part_graph_source(expr.elements[step].value, rest, depth + 1)
        if isinstance(expr, cst.Dict):
            if step != _VALUES:
                return None
            for el in expr.elements:
                if isinstance(el, cst.DictElement):
                    found = self._part_graph_source(el.value, rest, depth + 1)
                    if found is not None:
                        return found
            return None
        if isinstance(expr, cst.Name):
            held = self.value_of(expr)
            if held is not None:
                return self._part_graph_source(held, path, depth + 1)
            return self.graph_source(expr, depth)
        if isinstance(expr, cst.Call):
            local = self.model.calls.local_function(expr)
            if local is not None:
                return expr if self._returns_part_history(local, path, depth) else None
        return self.graph_source(expr, depth)


# A step of a part path that selects any value of a mapping (``d.values()``).
_VALUES = "values"


def _memo_shallow(memo: Dict[int, Any], key: int, depth: int, compute: Callable[[], Optional[_T]]) -> Optional[_T]:
    """``compute()`` memoised under ``key``, with a cycle guard (a question that reaches
    itself gets None); answers found deeper than 2 may have been cut short by the depth
    limit and are not remembered."""
    if key in memo:
        known: Optional[_T] = memo[key]
        return known
    memo[key] = None
    found = compute()
    if depth <= bounds.REMEMBERED_STEPS:
        memo[key] = found
    else:
        del memo[key]
    return found
