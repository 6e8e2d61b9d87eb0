"""Whether a forward is a self-check: a model run on inputs the code makes up
itself, whose outputs are only compared, printed or measured.

An export script checks its ONNX graph against ``wrapper(torch.randn(1, 80, 100))``;
a conversion tester runs both models on ``torch.ones(1, 3, 224, 224)`` and compares
them; a module's ``__main__`` block prints the shapes a fresh model gives for a
random input. Such a forward records a graph of a few made-up tensors held for one
comparison: its outputs are no results. A forward is a self-check when both hold:

1. every argument is made up where the forward runs (or, for a parameter, by the
   only caller of the file): a literal, a torch factory call (``torch.randn``,
   ``torch.ones``... with shape arguments, ``torch.tensor`` of literals,
   ``torch.randn_like`` of a made-up tensor), such a tensor indexed, moved,
   reshaped or copied, a name every binding (and every item store) of which is
   made up, or an output of another self-check forward (streaming caches);
2. every use of its outputs, followed through local names, tuple unpacking,
   loops (``zip``/``enumerate`` pairing them with the outputs they are compared
   with), lists they are appended to and one ``return`` to the callers of the
   file, is a check: a comparison call (``torch.allclose``, ``np.testing.*``), an
   ``assert``, a comparison, ``print`` or logging, a read of shape, dtype or
   device, a conversion feeding only those (``.numpy()``, ``.cpu()``, a
   ``to_numpy`` helper), an argument of a function of the file that only checks
   that parameter (a ``compare(ref, out)`` helper), or the input of another
   self-check forward.

Anything else (saved, returned to a caller the file does not show, stored on an
object, handed to an unknown call, used as a real input) and anything not
understood means "not a self-check": the answer may only take findings away.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, FrozenSet, Iterator, List, Optional, Set, Tuple, Union

import libcst as cst

from gradlint.semantic import bounds
from gradlint.semantic.tree import NEW_SCOPES, walk

if TYPE_CHECKING:
    from gradlint.semantic import SemanticModel
    from gradlint.semantic.tree import Tree

Scope = Union[cst.FunctionDef, cst.Module]

# Torch calls that make a tensor from sizes alone (their arguments are no data).
_SIZED_FACTORIES = frozenset(
    f"torch.{n}" for n in ("randn", "rand", "randint", "ones", "zeros", "full", "empty", "arange", "linspace", "eye", "randperm")
)
# ... from another tensor's sizes: made up when that tensor is.
_LIKE_FACTORIES = frozenset(f"torch.{n}_like" for n in ("randn", "rand", "randint", "ones", "zeros", "full", "empty"))
# ... from the data given: made up when the data is literal.
_DATA_FACTORIES = frozenset({"torch.tensor", "torch.as_tensor", "torch.Tensor", "torch.LongTensor", "torch.FloatTensor"})
# Non-tensor values of torch an argument may name (``dtype=torch.bfloat16``, ``torch.device("cuda")``).
_TORCH_CONSTANTS = frozenset({"torch.device", "torch.Size", "torch.dtype"})
# Methods whose result is the receiver's values moved, cast, reshaped or copied.
_SHAPING_METHODS = frozenset(
    "to cuda cpu float half double bfloat16 long int bool unsqueeze squeeze view reshape transpose permute "
    "contiguous clone detach repeat expand flip narrow t flatten type_as".split()
)
_COPIES = frozenset({"copy.deepcopy", "copy.copy"})
# A transformers tokenizer's methods that turn text into token ids.
_TOKENIZING_METHODS = frozenset({"encode", "encode_plus", "batch_encode_plus"})

# Reading these of an output shows its sizes or kind, not its values.
_METADATA = frozenset({"shape", "dtype", "device", "ndim", "is_cuda", "layout", "requires_grad"})
# Methods whose result is a number, a bool or a list: the end of the output's road.
_READING_METHODS = frozenset(
    "item tolist size dim numel nelement element_size equal allclose isclose is_contiguous isfinite".split()
)
# Methods whose result is made from the output's values: followed further.
_DERIVING_METHODS = frozenset(
    _SHAPING_METHODS
    | set(
        "numpy abs mean sum max min std var norm sub add mul div pow sqrt exp log argmax argmin softmax "
        "log_softmax sigmoid round cumsum all any isnan isinf".split()
    )
)
# Calls that compare or show their arguments and return nothing of them that is kept.
_CHECK_CALLS = frozenset(
    {
        "torch.allclose", "torch.equal", "torch.isclose", "torch.testing.assert_close",
        "torch.testing.assert_allclose", "numpy.allclose", "numpy.isclose", "numpy.array_equal",
        "numpy.array_equiv", "builtins.print",
    }
)
_CHECK_PREFIXES = ("numpy.testing.", "unittest.")
_LOG_METHODS = frozenset({"debug", "info", "warning", "warn", "error", "critical", "exception", "log"})
# Calls whose result is made from the argument's values (a number, a string, an
# array, a new tensor): followed further.
_DERIVING_CALLS = frozenset(
    {
        "builtins.float", "builtins.int", "builtins.len", "builtins.str", "builtins.repr", "builtins.format",
        "builtins.abs", "builtins.round", "builtins.list", "builtins.tuple", "builtins.max", "builtins.min",
        "numpy.asarray", "numpy.array", "numpy.concatenate", "torch.cat", "torch.stack", "torch.abs",
        "torch.max", "torch.mean", "torch.sum", "torch.norm", "torch.dist",
        # ``zip``/``enumerate`` pair outputs with the references they are compared
        # with item by item: the pairs are followed into the loop's names.
        "builtins.zip", "builtins.enumerate",
        "torch.cosine_similarity", "torch.nn.functional.cosine_similarity",
    }
)
# Helpers that turn a tensor into an array by name (``to_numpy(out)``); what they
# return is followed further, so a helper that kept its argument would need a use
# that is no check to matter.
_CONVERTERS = frozenset({"to_numpy", "to_np", "tensor2numpy", "tensor_to_numpy"})
_UPDATING_METHODS = frozenset({"append", "extend", "insert"})


class SelfChecks:
    def __init__(self, model: "SemanticModel") -> None:
        self.model = model
        self.tree = model.tree

    def self_checks(self, forwards: List[cst.Call]) -> FrozenSet[int]:
        """The ids of the calls of ``forwards`` (forwards of models, of one file) that are
        self-checks. An output of one may be the input of another (a streaming
        cache), so the answer is the largest set of them each of which holds with
        the others taken as self-checks."""
        group = {id(c): c for c in forwards}
        changed = True
        while changed and group:
            changed = False
            for cid, call in list(group.items()):
                ids = frozenset(group)
                if not (_Inputs(self, ids).made_up_call(call) and _Outputs(self, ids).checked(call)):
                    del group[cid]
                    changed = True
        return frozenset(group)

    def made_up_inputs(self, call: cst.Call) -> bool:
        """Whether every argument of the forward ``call`` is made up by the code itself
        (condition 1 alone): a dummy or random input, not data read from anywhere."""
        return _Inputs(self, frozenset()).made_up_call(call)

    def outputs_checked(self, call: cst.Call) -> bool:
        """Whether every use of the outputs of the forward ``call`` is a check
        (condition 2 alone): compared, printed or measured, not kept as a result."""
        return _Outputs(self, frozenset({id(call)})).checked(call)

    def scope_of(self, node: cst.CSTNode) -> Scope:
        """The function whose variables ``node`` uses, or the module (for code in a
        lambda or a class body, the function around it: what it reads is not
        followed there, and ``occurrences`` reports it nested)."""
        return self.tree.enclosing_function(node) or self.model.module

    def occurrences(self, scope: Scope, name: str) -> Iterator[Tuple[cst.Name, bool]]:
        """The ``Name`` nodes of ``name`` that refer to ``scope``'s variable, with whether
        each is in a nested function, lambda or class (a closure, a method reading a
        global); nested scopes that bind ``name`` themselves hold another variable."""
        body = scope.body if isinstance(scope, cst.FunctionDef) else scope
        yield from self._occurrences(body, name, False)
        if isinstance(scope, cst.FunctionDef):
            for p in _params(scope):
                if p.name.value == name:
                    yield p.name, False

    def _occurrences(self, node: cst.CSTNode, name: str, nested: bool) -> Iterator[Tuple[cst.Name, bool]]:
        for sub in walk(node):
            if type(sub) in NEW_SCOPES and sub is not node:
                if not _binds_locally(sub, name):
                    inner = sub.body if isinstance(sub, (cst.FunctionDef, cst.Lambda, cst.ClassDef)) else sub
                    yield from self._occurrences(inner, name, True)
                continue
            if isinstance(sub, cst.Name) and sub.value == name and self._refers(sub):
                yield sub, nested

    def _refers(self, name: cst.Name) -> bool:
        parent = self.tree.parent(name)
        if isinstance(parent, cst.Attribute) and parent.attr is name:
            return False
        if isinstance(parent, cst.Arg) and parent.keyword is name:
            return False
        if isinstance(parent, (cst.FunctionDef, cst.ClassDef)) and parent.name is name:
            return False
        return True


def _params(func: Union[cst.FunctionDef, cst.Lambda]) -> List[cst.Param]:
    p = func.params
    star = [s for s in (p.star_arg, p.star_kwarg) if isinstance(s, cst.Param)]
    return [*p.posonly_params, *p.params, *p.kwonly_params, *star]


def _binds_locally(scope: cst.CSTNode, name: str) -> bool:
    """Whether the nested function or class ``scope`` has a variable ``name`` of its own."""
    if isinstance(scope, (cst.FunctionDef, cst.Lambda)) and any(p.name.value == name for p in _params(scope)):
        return True
    if isinstance(scope, cst.Lambda):
        return False
    body = scope.body  # type: ignore[attr-defined]
    for node in walk(body):
        if isinstance(node, (cst.Global, cst.Nonlocal)) and any(n.name.value == name for n in node.names):
            return False
    for node in walk(body):
        targets: List[cst.BaseExpression] = []
        if isinstance(node, cst.Assign):
            targets = [t.target for t in node.targets]
        elif isinstance(node, (cst.AugAssign, cst.AnnAssign, cst.For)):
            targets = [node.target]
        for t in targets:
            if any(isinstance(n, cst.Name) and n.value == name for n in walk(t)):
                return True
    return False


def _literal(expr: cst.BaseExpression) -> bool:
    if isinstance(expr, (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.Ellipsis)):
        return True
    if isinstance(expr, cst.Name):
        return expr.value in ("None", "True", "False")
    if isinstance(expr, cst.UnaryOperation):
        return _literal(expr.expression)
    if isinstance(expr, (cst.Tuple, cst.List)):
        return all(_literal(e.value) for e in expr.elements)
    return False


class _Inputs:
    """Condition 1: whether values are made up by the code itself."""

    def __init__(self, checks: SelfChecks, group: FrozenSet[int]) -> None:
        self.checks = checks
        self.sem = checks.model
        self.group = group
        self.seen: Set[Tuple[int, str]] = set()

    def made_up_call(self, call: cst.Call) -> bool:
        for up in self.checks.tree.ancestors(call):
            if isinstance(up, (cst.FunctionDef, cst.Module)):
                break
            if isinstance(up, (cst.Lambda, cst.ClassDef, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)):
                return False  # names there are another scope's
        scope = self.checks.scope_of(call)
        return all(self.made_up(a.value, scope, 0) for a in call.args)

    def _qualnames(self, func: cst.BaseExpression) -> FrozenSet[str]:
        if not isinstance(func, (cst.Name, cst.Attribute)):
            return frozenset()
        return self.sem.names.qualnames(func)

    def made_up(self, expr: cst.BaseExpression, scope: Scope, depth: int) -> bool:
        if _literal(expr):
            return True
        if isinstance(expr, cst.UnaryOperation):
            return self.made_up(expr.expression, scope, depth)
        if isinstance(expr, cst.BinaryOperation):
            return self.made_up(expr.left, scope, depth) and self.made_up(expr.right, scope, depth)
        if isinstance(expr, (cst.Tuple, cst.List)):
            return all(self.made_up(e.value, scope, depth) for e in expr.elements)
        if isinstance(expr, cst.Subscript):
            return self.made_up(expr.value, scope, depth)
        if isinstance(expr, cst.Attribute):
            if expr.attr.value == "dummy_inputs" and self.sem.modules.loaded_pretrained(expr.value):
                return True  # transformers' ``PreTrainedModel.dummy_inputs``: literal token ids
            if expr.attr.value in ("shape", "ndim", "dtype", "device"):
                return True  # a size or a kind, whatever the tensor
            if any(q.startswith("torch.") for q in self._qualnames(expr)):
                return True  # ``torch.bfloat16``, ``torch.float32``
            return self.made_up(expr.value, scope, depth)  # a field of a made-up value
        if isinstance(expr, cst.Call):
            return self._made_up_call_value(expr, scope, depth)
        if isinstance(expr, cst.Name):
            return self._made_up_name(expr, scope, depth)
        return False

    def _made_up_call_value(self, call: cst.Call, scope: Scope, depth: int) -> bool:
        if id(call) in self.group:
            return True  # the output of another self-check forward
        names = self._qualnames(call.func)
        if names & _SIZED_FACTORIES:
            # Sizes, a fill value, a dtype or device: none of them data (a fill value
            # that is a tensor is made up or not like any other argument).
            return all(self.made_up(a.value, scope, depth) or a.keyword is not None or _size_like(a.value) for a in call.args)
        if names & _LIKE_FACTORIES or names & _COPIES:
            return bool(call.args) and self.made_up(call.args[0].value, scope, depth)
        if names & _DATA_FACTORIES:
            # literal data, or numbers taken from made-up values (``[x.size(1)]``)
            return bool(call.args) and self.made_up(call.args[0].value, scope, depth)
        if names & _TORCH_CONSTANTS:
            return True
        if self._tokenizer_call(call):
            # text the code wrote, tokenized: made-up token ids (a demo's one sentence)
            return all(self.made_up(a.value, scope, depth) for a in call.args)
        func = call.func
        if isinstance(func, cst.Attribute) and func.attr.value in _SHAPING_METHODS:
            return self.made_up(func.value, scope, depth)
        if isinstance(func, cst.Attribute) and func.attr.value in ("size", "dim", "numel"):
            return True  # a number
        if isinstance(func, cst.Name) and func.value in ("len", "int", "range"):
            return True
        return False

    def _tokenizer_call(self, call: cst.Call) -> bool:
        """``tokenizer(text)`` or ``tokenizer.encode(text)`` where every binding that
        reaches ``tokenizer`` is a transformers tokenizer class's ``from_pretrained``."""
        func = call.func
        receiver = func.value if isinstance(func, cst.Attribute) and func.attr.value in _TOKENIZING_METHODS else func
        if not isinstance(receiver, cst.Name):
            return False
        reaching = self.sem.scopes.reaching(receiver)
        return bool(reaching.bindings) and not reaching.unbound and all(b.kind == "assign" and self._loads_tokenizer(b.value) for b in reaching.bindings)

    def _loads_tokenizer(self, value: Optional[cst.BaseExpression]) -> bool:
        if not isinstance(value, cst.Call) or not isinstance(value.func, cst.Attribute) or value.func.attr.value != "from_pretrained":
            return False
        names = self.sem.names.qualnames_in(value.func.value, frozenset({"transformers"}))
        return any(q.startswith("transformers.") and q.rsplit(".", 1)[-1].endswith(("Tokenizer", "TokenizerFast")) for q in names)

    def _made_up_name(self, name: cst.Name, scope: Scope, depth: int) -> bool:
        key = (id(scope), name.value)
        if key in self.seen:
            return True  # assumed while its bindings are being looked at
        self.seen.add(key)
        tree = self.checks.tree
        found = False
        for node, nested in self.checks.occurrences(scope, name.value):
            parent = tree.parent(node)
            if isinstance(parent, cst.Param):
                if not self._made_up_param(parent, depth):
                    return False
                found = True
                continue
            bound = self._bound_value(node)
            if bound is _NOT_BOUND:
                # A read: one that stores into the object counts as a binding.
                stored = _stored_into(tree, node)
                if stored is None or not all(self.made_up(v, scope, depth) for v in stored):
                    return False
                continue
            if nested or bound is None or not self.made_up(bound, scope, depth):
                return False
            found = True
        return found

    def _made_up_param(self, param: cst.Param, depth: int) -> bool:
        """A parameter the only call of the file binds to a made-up value."""
        if depth > bounds.SELF_CHECK_CALLER_LEVELS:
            return False
        passed = self.sem.calls.arguments_for(param)
        if not passed or len(passed) != 1 or len(self.sem.calls.call_sites(self.checks.tree.parent(self.checks.tree.parent(param))) or []) != 1:  # type: ignore[arg-type]
            return False
        call, arg = passed[0]
        return self.made_up(arg, self.checks.scope_of(call), depth + 1)

    def _bound_value(self, node: cst.Name) -> Optional[cst.BaseExpression]:
        """What the binding at ``node`` gives the name: an expression, None for a binding
        not understood, ``_NOT_BOUND`` for a read."""
        tree = self.checks.tree
        cur: cst.CSTNode = node
        parent = tree.parent(cur)
        path: List[int] = []
        while isinstance(parent, (cst.Element, cst.Tuple, cst.List)):
            if isinstance(parent, cst.Element):
                container = tree.parent(parent)
                path.append(list(container.elements).index(parent))  # type: ignore[union-attr]
            cur, parent = parent, tree.parent(parent)
        if isinstance(parent, cst.AssignTarget) and parent.target is cur:
            assign = tree.parent(parent)
            if not isinstance(assign, cst.Assign):
                return None
            value: cst.BaseExpression = assign.value
            for i in reversed(path):  # ``a, b = x, y``: the matching item
                if isinstance(value, (cst.Tuple, cst.List)) and i < len(value.elements):
                    value = value.elements[i].value
            return value
        if isinstance(parent, (cst.AugAssign, cst.AnnAssign)) and parent.target is cur:
            return parent.value
        if isinstance(parent, (cst.For, cst.CompFor)) and parent.target is cur:
            it = parent.iter
            if isinstance(it, cst.Call) and isinstance(it.func, cst.Name) and it.func.value == "range":
                return cst.Integer("0")
            return it
        if isinstance(parent, (cst.AsName, cst.NamedExpr, cst.Global, cst.Nonlocal, cst.ImportAlias)):
            return None
        return _NOT_BOUND  # a read, maybe as an item of a display


# What ``_bound_value`` answers for a read (no node of any tree is this one).
_NOT_BOUND: cst.BaseExpression = cst.Name("__read__")


def _size_like(expr: cst.BaseExpression) -> bool:
    """A size given by a name or an attribute (``torch.zeros(n, dim)``, ``args.chunk``)."""
    if isinstance(expr, (cst.Name, cst.Attribute)):
        return True
    if isinstance(expr, cst.BinaryOperation):
        return _size_like(expr.left) and _size_like(expr.right) or _literal(expr.left) and _size_like(expr.right) or _size_like(expr.left) and _literal(expr.right)
    if isinstance(expr, (cst.Tuple, cst.List)):
        return all(_literal(e.value) or _size_like(e.value) for e in expr.elements)
    return False


def _stored_into(tree: "Tree", node: cst.Name) -> Optional[List[cst.BaseExpression]]:
    """What a read of the name ``node`` stores into its object: ``[v]`` for
    ``x[...] = v``, the arguments of ``x.append(v)`` or of an in-place method
    (``x.add_(v)``), ``[]`` for a read that stores nothing, None for ``x.a = v``
    and for a store into a field (another object, maybe shared)."""
    cur: cst.CSTNode = node
    parent = tree.parent(cur)
    if isinstance(parent, cst.Attribute) and parent.value is cur:
        holder = tree.parent(parent)
        attr = parent.attr.value
        if isinstance(holder, cst.Call) and holder.func is parent and (attr in _UPDATING_METHODS or attr.endswith("_")):
            return [a.value for a in holder.args]
        return None if _is_target(tree, parent) else []
    while isinstance(parent, cst.Subscript) and parent.value is cur:
        cur, parent = parent, tree.parent(parent)
    if cur is node:
        return []
    if isinstance(parent, cst.AssignTarget) and parent.target is cur:
        assign = tree.parent(parent)
        return [assign.value] if isinstance(assign, cst.Assign) else None
    if isinstance(parent, cst.AugAssign) and parent.target is cur:
        return [parent.value]
    return []


class _Outputs:
    """Condition 2: whether every use of a value is a check."""

    def __init__(self, checks: SelfChecks, group: FrozenSet[int]) -> None:
        self.checks = checks
        self.sem = checks.model
        self.tree = checks.tree
        self.group = group
        self.seen: Set[Tuple[int, str]] = set()

    def checked(self, call: cst.Call) -> bool:
        return self._value(call, 0)

    def _qualnames(self, func: cst.BaseExpression) -> FrozenSet[str]:
        if not isinstance(func, (cst.Name, cst.Attribute)):
            return frozenset()
        return self.sem.names.qualnames(func)

    def _name(self, name: str, scope: Scope, depth: int) -> bool:
        key = (id(scope), name)
        if key in self.seen:
            return True
        if len(self.seen) >= bounds.OUTPUT_NAMES:
            return False  # unknown: not proven only checked
        self.seen.add(key)
        tree = self.tree
        if isinstance(scope, cst.FunctionDef):
            for node in walk(scope.body):
                if isinstance(node, (cst.Global, cst.Nonlocal)) and any(n.name.value == name for n in node.names):
                    return False
        for node, nested in self.checks.occurrences(scope, name):
            parent = tree.parent(node)
            if isinstance(parent, cst.Param):
                return False  # the caller holds the object too
            if _is_target(tree, node):
                continue  # a binding: what it binds is followed where it comes from
            if nested:
                return False
            if (
                isinstance(parent, cst.Attribute)
                and parent.value is node
                and parent.attr.value in _UPDATING_METHODS
                and isinstance(tree.parent(parent), cst.Call)
            ):
                continue  # ``outs.append(v)``: its arguments are uses of their own
            if not self._value(node, depth):
                return False
        return True

    def _value(self, node: cst.CSTNode, depth: int) -> bool:
        tree = self.tree
        cur = node
        while True:
            parent = tree.parent(cur)
            if parent is None:
                return False
            if isinstance(parent, cst.Subscript):
                if parent.value is not cur:
                    return True  # an index: its value only
                cur = parent
                continue
            if isinstance(parent, (cst.SubscriptElement, cst.Index, cst.Slice)):
                return True
            if isinstance(parent, cst.Attribute) and parent.value is cur:
                holder = tree.parent(parent)
                called = isinstance(holder, cst.Call) and holder.func is parent
                attr = parent.attr.value
                if _is_target(tree, parent):
                    return False
                if not called:
                    if attr in _METADATA:
                        return True
                    cur = parent  # a field of the output (``result.z``)
                    continue
                if attr in _READING_METHODS:
                    return True
                if attr in _DERIVING_METHODS:
                    cur = holder  # type: ignore[assignment]
                    continue
                return False
            if isinstance(parent, (cst.BinaryOperation, cst.UnaryOperation, cst.BooleanOperation)):
                cur = parent
                continue
            if isinstance(parent, cst.IfExp):
                if parent.test is cur:
                    return True
                cur = parent
                continue
            if isinstance(parent, (cst.Comparison, cst.ComparisonTarget)):
                cur = parent if isinstance(parent, cst.Comparison) else tree.parent(parent)  # type: ignore[assignment]
                continue
            if isinstance(parent, (cst.FormattedStringExpression, cst.FormattedString, cst.Comma, cst.LeftParen, cst.RightParen)):
                cur = parent
                continue
            if isinstance(parent, cst.Assert):
                return True
            if isinstance(parent, (cst.If, cst.While)) and parent.test is cur:
                return True
            if isinstance(parent, (cst.Expr, cst.Del)):
                return True
            if isinstance(parent, cst.Arg):
                call = tree.parent(parent)
                if not isinstance(call, cst.Call):
                    return False
                verdict = self._argument(call, depth, parent)
                if verdict is None:
                    cur = call
                    continue
                return verdict
            if isinstance(parent, (cst.Element, cst.Tuple, cst.List)):
                if _is_target(tree, cur):
                    return True
                cur = parent
                continue
            if isinstance(parent, cst.Assign) and parent.value is cur:
                return all(self._into(t.target, depth) for t in parent.targets)
            if isinstance(parent, (cst.AugAssign, cst.AnnAssign)):
                if parent.target is cur:
                    return True
                return self._into(parent.target, depth)
            if isinstance(parent, cst.For) and parent.iter is cur:
                return self._into(parent.target, depth)
            if isinstance(parent, cst.Return):
                return self._returned(node, depth)
            return False

    def _argument(self, call: cst.Call, depth: int, arg: Optional[cst.Arg] = None) -> Optional[bool]:
        """What an argument of ``call`` comes to: True for a check, False for a use
        that may keep it, None for a call whose result is made from it (followed)."""
        if id(call) in self.group:
            return True  # the input of another self-check forward
        func = call.func
        names = self._qualnames(func)
        if names & _CHECK_CALLS or any(q.startswith(_CHECK_PREFIXES) for q in names):
            return True
        if isinstance(func, cst.Attribute):
            attr = func.attr.value
            receiver = func.value
            if attr in _LOG_METHODS and "log" in self.tree.code_for(receiver).lower():
                return True
            if attr in ("equal", "allclose", "isclose") or attr.startswith("assert"):
                return True  # ``ref.equal(out)``, ``self.assertTrue(...)``
            if attr in _UPDATING_METHODS and isinstance(receiver, cst.Name):
                return self._name(receiver.value, self.checks.scope_of(call), depth)
            if attr == "format" and isinstance(receiver, cst.SimpleString):
                return None
        if names & _DERIVING_CALLS:
            return None
        if isinstance(func, cst.Name) and func.value in _CONVERTERS:
            return None
        return arg is not None and self._checked_by_helper(call, arg, depth)

    def _checked_by_helper(self, call: cst.Call, arg: cst.Arg, depth: int) -> bool:
        """Handed to a function of the file that only checks what it gets for that
        parameter (``compare(ref, out)`` asserting closeness, printing a difference),
        one level deep: what the helper returns of it is not followed."""
        helper = self.sem.calls.local_function(call)
        if helper is None or arg.star or depth > bounds.SELF_CHECK_CALLER_LEVELS:
            return False
        for param in _params(helper):
            if param.star:
                continue
            for site, value in self.sem.calls.arguments_for(param) or ():
                if site is call and value is arg.value:
                    return self._param_checked(helper, param, depth + 1)
        return False

    def _param_checked(self, helper: cst.FunctionDef, param: cst.Param, depth: int) -> bool:
        for node, nested in self.checks.occurrences(helper, param.name.value):
            if node is param.name:
                continue
            if nested or _is_target(self.tree, node) or not self._value(node, depth):
                return False
        return True

    def _into(self, target: cst.BaseExpression, depth: int) -> bool:
        if isinstance(target, cst.Name):
            return self._name(target.value, self.checks.scope_of(target), depth)
        if isinstance(target, (cst.Tuple, cst.List)):
            return all(self._into(e.value, depth) for e in target.elements)
        if isinstance(target, cst.StarredElement):
            return self._into(target.value, depth)
        return False  # an attribute or an item of something: kept there

    def _returned(self, node: cst.CSTNode, depth: int) -> bool:
        """Returned: every caller of the function is in the file, and checks what it gets."""
        func = self.tree.enclosing_function(node)
        if func is None or depth > bounds.SELF_CHECK_CALLER_LEVELS:
            return False
        sites = self.sem.calls.call_sites(func)
        if not sites:
            return False
        return all(self._value(site, depth + 1) for site in sites)


def _is_target(tree: "Tree", node: cst.CSTNode) -> bool:
    cur, parent = node, tree.parent(node)
    while isinstance(parent, (cst.Element, cst.Tuple, cst.List, cst.StarredElement)):
        cur, parent = parent, tree.parent(parent)
    return (
        (isinstance(parent, cst.AssignTarget) and parent.target is cur)
        or (isinstance(parent, (cst.For, cst.CompFor)) and parent.target is cur)
        or (isinstance(parent, (cst.AugAssign, cst.AnnAssign)) and parent.target is cur)
    )


__all__ = ["SelfChecks"]
