"""Where a local value goes after it is built: whether every use of a name in its
function is one that reads the value without keeping or handing on the object.

``semantic.escape`` follows the routes a value may leave by (returned, kept on
``self``, backpropagated). The question here is the converse, and stricter: that
no route exists at all. A use is allowed only where what it does with the object
is known: printing it, turning it into a number, indexing it, arithmetic whose
result is held to the same test, iterating it into names held to the same test.
Anything else (an argument to an unknown call, an item of a container, a closure,
a ``return``, an attribute read this module does not know) may keep the object or
look at its identity, and the answer is "it may leave".
"""

from __future__ import annotations

from typing import Iterator, List, Optional, Set, Tuple, Union

import libcst as cst

from gradlint.semantic.syntax import last_name
from gradlint.semantic.tree import Tree, walk

# Calls whose result is a number, a string or a bool made from the argument (or
# that only print it): the argument's object is not kept, and neither its graph
# nor its identity shows in the result.
_READING_CALLS = frozenset({"print", "float", "int", "len", "round", "bool", "isinstance", "type"})
# Calls whose result is made from the argument's values (a new tensor or number,
# possibly with the argument's history): the result is held to the same test.
# A tensor's text (``str``, ``repr``, ``format``, an f-string) shows its ``grad_fn``:
# printed, that is the annotation the fix is allowed to remove; kept or returned,
# the text is a value that changes, so it is followed like the others.
_DERIVING_CALLS = frozenset(
    {"sum", "max", "min", "abs", "sorted", "list", "tuple", "reversed", "enumerate", "zip", "str", "repr", "format"}
)
_DERIVING_TORCH = frozenset({"stack", "cat", "mean", "sum", "tensor", "as_tensor", "exp", "log", "sqrt", "abs"})
# Tensor attributes read, and methods called, whose result is a number or a
# description of the values: neither the graph nor the object's identity shows.
_READING_ATTRIBUTES = frozenset({"shape", "dtype", "device", "ndim", "is_cuda"})
_READING_METHODS = frozenset({"item", "tolist", "numel", "dim", "size", "nelement", "element_size", "__len__"})
# Methods whose result is a new value made from the receiver's values.
_DERIVING_METHODS = frozenset(
    {
        "mean", "sum", "cpu", "float", "double", "half", "to", "clone", "view", "reshape", "squeeze",
        "unsqueeze", "div", "mul", "add", "sub", "pow", "sqrt", "exp", "log", "abs", "max", "min",
        "values", "items", "keys", "pop", "get", "copy", "flatten", "data",
    }
)
# Methods that change the container in place and return nothing of it.
_UPDATING_METHODS = frozenset({"append", "extend", "insert", "clear", "update", "setdefault", "add", "remove", "discard"})


def stays_local(tree: Tree, func: cst.FunctionDef, name: str) -> Optional[str]:
    """None when every use of ``name`` in ``func`` reads its value in place (see the
    module's docstring); otherwise what may take the object out, in words."""
    return _Uses(tree, func).stays(name)


def fresh_bindings(tree: Tree, func: cst.FunctionDef, name: str) -> Optional[str]:
    """None when every assignment of ``name`` in ``func`` gives it a new object of its
    own (a number, an empty or constant container, a new tensor of ``torch.zeros``
    and the like, or arithmetic on the name itself); otherwise the assignment that may
    make it an alias of another object (``kept = self.kept``), in words."""
    for node in walk(func.body):
        if isinstance(node, cst.Assign):
            for t in node.targets:
                if isinstance(t.target, cst.Name) and t.target.value == name and not _fresh(node.value, name):
                    return f"`{name}` is assigned `{tree.code_for(node.value)[:40]}`, which may be another object"
                if isinstance(t.target, (cst.Tuple, cst.List)) and any(
                    isinstance(e.value, cst.Name) and e.value.value == name for e in t.target.elements
                ):
                    return f"`{name}` is unpacked from another value"
        elif isinstance(node, (cst.AnnAssign,)) and isinstance(node.target, cst.Name) and node.target.value == name:
            if node.value is not None and not _fresh(node.value, name):
                return f"`{name}` is assigned another value"
        elif isinstance(node, (cst.For, cst.WithItem, cst.NamedExpr)):
            target = node.target if isinstance(node, (cst.For, cst.NamedExpr)) else (node.asname.name if node.asname else None)
            if target is not None and any(isinstance(n, cst.Name) and n.value == name for n in walk(target)):
                return f"`{name}` is bound by a `{type(node).__name__.lower()}`"
    params = func.params
    for p in (*params.posonly_params, *params.params, *params.kwonly_params):
        if p.name.value == name:
            return f"`{name}` is a parameter: the caller holds the object"
    return None


def _fresh(value: cst.BaseExpression, name: str) -> bool:
    if isinstance(value, (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString)):
        return True
    if isinstance(value, cst.Name):
        return value.value in ("None", "True", "False")
    if isinstance(value, cst.UnaryOperation):
        return _fresh(value.expression, name)
    if isinstance(value, (cst.List, cst.Tuple, cst.Set)):
        return all(_constant(e.value) for e in value.elements)
    if isinstance(value, cst.Dict):
        return all(isinstance(e, cst.DictElement) and _constant(e.key) and _constant(e.value) for e in value.elements)
    if isinstance(value, cst.BinaryOperation):
        # ``total = total + loss``, ``total = total / n``: the name's own value, rebuilt
        return any(isinstance(n, cst.Name) and n.value == name for n in (value.left, value.right))
    if isinstance(value, cst.Call):
        callee = last_name(value.func)
        constant_args = all(_constant(a.value) for a in value.args)
        if callee in ("list", "dict", "set", "tuple", "deque", "OrderedDict", "defaultdict", "Counter"):
            return all(_constant(a.value) or last_name(a.value) in ("list", "int", "float", "dict") for a in value.args)
        if callee in ("zeros", "ones", "empty", "full", "tensor", "as_tensor") and constant_args:
            return isinstance(value.func, cst.Attribute)
    return False


def _constant(expr: cst.BaseExpression) -> bool:
    if isinstance(expr, (cst.Integer, cst.Float, cst.SimpleString)):
        return True
    if isinstance(expr, cst.UnaryOperation):
        return _constant(expr.expression)
    if isinstance(expr, cst.Name):
        return expr.value in ("None", "True", "False")
    if isinstance(expr, (cst.Tuple, cst.List)):
        return all(_constant(e.value) for e in expr.elements)
    return False


class _Uses:
    def __init__(self, tree: Tree, func: cst.FunctionDef) -> None:
        self.tree = tree
        self.func = func
        self.seen: Set[str] = set()

    def stays(self, name: str) -> Optional[str]:
        if name in self.seen:
            return None
        self.seen.add(name)
        for node in walk(self.func.body, into_functions=True):
            if isinstance(node, (cst.Global, cst.Nonlocal)) and any(n.name.value == name for n in node.names):
                return f"`{name}` is declared {type(node).__name__.lower()}"
        for use in self._uses(name):
            if self._nested(use):
                return f"`{name}` is used by a nested function, lambda or class"
            reason = self._use(use, name)
            if reason is not None:
                return reason
        return None

    def _uses(self, name: str) -> Iterator[cst.Name]:
        for node in walk(self.func.body, into_functions=True):
            if not isinstance(node, cst.Name) or node.value != name:
                continue
            parent = self.tree.parent(node)
            if isinstance(parent, cst.Attribute) and parent.attr is node:
                continue
            if isinstance(parent, cst.Arg) and parent.keyword is node:
                continue
            yield node

    def _nested(self, node: cst.CSTNode) -> bool:
        for cur in self.tree.ancestors(node):
            if cur is self.func:
                return False
            if isinstance(cur, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
                return True
        return False

    def _names_bound(self, target: cst.BaseExpression) -> Optional[List[str]]:
        """The names a ``for`` or comprehension target binds, or None for anything but names."""
        if isinstance(target, cst.Name):
            return [target.value]
        if isinstance(target, (cst.Tuple, cst.List)):
            out: List[str] = []
            for e in target.elements:
                inner = self._names_bound(e.value)
                if inner is None:
                    return None
                out.extend(inner)
            return out
        return None

    def _use(self, node: cst.CSTNode, name: str) -> Optional[str]:
        """None when what happens to the value at ``node`` (and to what is made from it)
        keeps the object in the function; otherwise why not."""
        cur: cst.CSTNode = node

        def what() -> str:
            return f"`{self.tree.code_for(cur)[:40]}`"

        while True:
            parent = self.tree.parent(cur)
            if parent is None:
                return f"{what()} is used where it cannot be followed"
            if isinstance(parent, (cst.Subscript, cst.SubscriptElement, cst.Index, cst.Slice)):
                if isinstance(parent, cst.Subscript) and parent.value is cur:
                    holder = self.tree.parent(parent)
                    if self._is_target(parent, holder):
                        return None  # ``losses[i] = v``: the container written, not read out
                    cur = parent
                    continue
                if isinstance(parent, cst.Subscript):
                    return None  # used as a key or index: its value, not its object
                cur = parent
                continue
            if isinstance(parent, (cst.BinaryOperation, cst.UnaryOperation, cst.BooleanOperation, cst.IfExp)):
                if isinstance(parent, cst.IfExp) and parent.test is cur:
                    return None
                cur = parent
                continue
            if isinstance(parent, cst.Comparison) or isinstance(parent, cst.ComparisonTarget):
                comparison = parent if isinstance(parent, cst.Comparison) else self.tree.parent(parent)
                if isinstance(comparison, cst.Comparison) and any(
                    isinstance(t.operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn)) for t in comparison.comparisons
                ):
                    return f"{what()} is compared by identity or membership"
                return None
            if isinstance(parent, (cst.FormattedString, cst.FormattedStringExpression)):
                cur = parent
                continue
            if isinstance(parent, (cst.If, cst.While)) and parent.test is cur:
                return None
            if isinstance(parent, cst.Expr) or isinstance(parent, cst.Del):
                return None
            if isinstance(parent, cst.Arg):
                call = self.tree.parent(parent)
                if not isinstance(call, cst.Call):
                    return f"{what()} is an argument of something that is not a call"
                callee = call.func
                if isinstance(callee, cst.Name) and callee.value in _READING_CALLS:
                    return None
                if isinstance(callee, cst.Name) and callee.value in _DERIVING_CALLS:
                    cur = call
                    continue
                if (
                    isinstance(callee, cst.Attribute)
                    and isinstance(callee.value, cst.Name)
                    and callee.value.value in ("torch", "math")
                    and (callee.attr.value in _DERIVING_TORCH or callee.value.value == "math")
                ):
                    if callee.value.value == "math":
                        return None  # a float
                    cur = call
                    continue
                return f"{what()} is handed to `{self.tree.code_for(callee)[:40]}`"
            if isinstance(parent, cst.Attribute) and parent.value is cur:
                attr = parent.attr.value
                holder = self.tree.parent(parent)
                called = isinstance(holder, cst.Call) and holder.func is parent
                if self._is_target(parent, holder):
                    return f"{what()} has an attribute set"
                if attr in _READING_ATTRIBUTES and not called:
                    return None
                if called and attr in _READING_METHODS:
                    return None
                if called and attr in _UPDATING_METHODS and cur is node:
                    return None  # ``losses.append(v)`` on the name itself: its arguments are their own uses
                if isinstance(holder, cst.Call) and holder.func is parent and attr in _DERIVING_METHODS:
                    cur = holder
                    continue
                if attr == "data" and not called:
                    cur = parent
                    continue
                return f"{what()}.{attr} reads what the fix changes, or is not known"
            if isinstance(parent, cst.AugAssign):
                if parent.target is cur:
                    return None if cur is node else f"{what()} is added to in place"
                return self._into_name(parent.target, name, what())
            if isinstance(parent, cst.AssignTarget):
                return None  # rebinding the name
            if isinstance(parent, cst.Assign) and parent.value is cur:
                if len(parent.targets) != 1:
                    return f"{what()} is assigned to several targets"
                return self._into_name(parent.targets[0].target, name, what())
            if isinstance(parent, (cst.For, cst.CompFor)) and parent.target is cur:
                return None  # rebinding the name
            if isinstance(parent, cst.For) and parent.iter is cur:
                names = self._names_bound(parent.target)
                if names is None:
                    return f"{what()} is iterated into something that is not a name"
                for n in names:
                    reason = self.stays(n)
                    if reason is not None:
                        return reason
                return None
            if isinstance(parent, cst.CompFor) and parent.iter is cur:
                names = self._names_bound(parent.target)
                comp = self.tree.parent(parent)
                while isinstance(comp, cst.CompFor):
                    comp = self.tree.parent(comp)
                if names is None or not isinstance(comp, (cst.ListComp, cst.GeneratorExp, cst.SetComp, cst.DictComp)):
                    return f"{what()} is iterated into something that is not a name"
                for n in names:
                    for use in (u for u in walk(comp) if isinstance(u, cst.Name) and u.value == n):
                        if self._is_binding(use):
                            continue
                        reason = self._use_within(use, comp)
                        if reason is not None:
                            return reason
                cur = comp
                continue
            if isinstance(parent, (cst.CompIf,)):
                return None
            if isinstance(parent, (cst.ListComp, cst.GeneratorExp, cst.SetComp, cst.DictComp)):
                return None  # the element of a comprehension followed from its iterable (below)
            if isinstance(parent, cst.Element) or isinstance(parent, (cst.List, cst.Tuple, cst.Set)):
                if self._is_binding_target(parent):
                    return None  # ``for i, l in ...``: the name rebound
                up = parent if isinstance(parent, (cst.List, cst.Tuple, cst.Set)) else self.tree.parent(parent)
                if up is None:
                    return f"{what()} is used where it cannot be followed"
                cur = up
                continue
            if isinstance(parent, (cst.StarredElement, cst.Return, cst.Yield, cst.Raise, cst.Await, cst.DictElement, cst.Dict)):
                return f"{what()} leaves by a {type(parent).__name__.lower()}"
            if isinstance(parent, (cst.Comma, cst.LeftParen, cst.RightParen)):
                cur = parent
                continue
            return f"{what()} is used in a `{type(parent).__name__}`, which is not followed"

    def _use_within(self, use: cst.Name, comp: cst.CSTNode) -> Optional[str]:
        """A comprehension variable's use: followed up to the comprehension's element,
        whose value the comprehension itself carries on."""
        cur: cst.CSTNode = use
        while True:
            parent = self.tree.parent(cur)
            if parent is comp:
                return None
            if isinstance(parent, cst.CompFor) and parent.iter is not cur:
                return None
            reason = self._step_one(cur, parent)
            if reason is not None:
                return reason if reason != "up" else None
            if parent is None:
                return None
            cur = parent

    def _step_one(self, cur: cst.CSTNode, parent: Optional[cst.CSTNode]) -> Optional[str]:
        """Within a comprehension's element: the few shapes that carry the value on
        (arithmetic, indexing, deriving methods) go up; reading calls end the walk."""
        if isinstance(parent, (cst.BinaryOperation, cst.UnaryOperation, cst.Subscript, cst.SubscriptElement, cst.Index)):
            return None
        if isinstance(parent, cst.Attribute) and parent.value is cur:
            holder = self.tree.parent(parent)
            called = isinstance(holder, cst.Call) and holder.func is parent
            if called and parent.attr.value in _READING_METHODS:
                return "up"
            if called and parent.attr.value in _DERIVING_METHODS or parent.attr.value in _READING_ATTRIBUTES:
                return None
            return f"`.{parent.attr.value}` reads what the fix changes, or is not known"
        if isinstance(parent, cst.Call):
            return None  # a method's or a reading call's result, carried on
        if isinstance(parent, cst.Arg):
            call = self.tree.parent(parent)
            callee = call.func if isinstance(call, cst.Call) else None
            if isinstance(callee, cst.Name) and callee.value in _READING_CALLS | _DERIVING_CALLS:
                return None
            return "a comprehension hands its items to a call that is not known"
        if isinstance(parent, (cst.Comparison, cst.ComparisonTarget, cst.FormattedStringExpression, cst.FormattedString, cst.CompIf)):
            return "up"
        return f"a comprehension uses its items in a `{type(parent).__name__}`"

    def _into_name(self, target: cst.BaseExpression, name: str, what: str) -> Optional[str]:
        if isinstance(target, cst.Name):
            return None if target.value == name else self.stays(target.value)
        return f"{what} is stored in `{self.tree.code_for(target)[:40]}`"

    def _is_target(self, node: cst.CSTNode, holder: Optional[cst.CSTNode]) -> bool:
        return (isinstance(holder, cst.AssignTarget) and holder.target is node) or (
            isinstance(holder, (cst.AugAssign, cst.AnnAssign)) and holder.target is node
        ) or (isinstance(holder, cst.Del) and holder.target is node)

    def _is_binding_target(self, node: cst.CSTNode) -> bool:
        cur, parent = node, self.tree.parent(node)
        while isinstance(parent, (cst.Tuple, cst.List, cst.Element)):
            cur, parent = parent, self.tree.parent(parent)
        return (isinstance(parent, (cst.For, cst.CompFor)) and parent.target is cur) or (
            isinstance(parent, cst.AssignTarget) and parent.target is cur
        )

    def _is_binding(self, name: cst.Name) -> bool:
        cur: Optional[cst.CSTNode] = name
        parent = self.tree.parent(name)
        while isinstance(parent, (cst.Tuple, cst.List, cst.Element)):
            cur, parent = parent, self.tree.parent(parent)
        return isinstance(parent, cst.CompFor) and parent.target is cur


def retains_identity(tree: Tree, func: Union[cst.FunctionDef, cst.Module], names: Tuple[str, ...]) -> Optional[str]:
    """Whether ``func`` asks autograd about one of ``names`` as an object
    (``h.retain_grad()``, ``h.register_hook(...)``): a stored detached copy is another
    object, whose ``.grad`` stays None and whose hooks never run."""
    for node in walk(func, into_functions=True):
        if (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Attribute)
            and node.func.attr.value in ("retain_grad", "register_hook")
            and isinstance(node.func.value, cst.Name)
            and node.func.value.value in names
        ):
            return f"`{node.func.value.value}.{node.func.attr.value}()` is called"
    return None


__all__ = ["stays_local", "fresh_bindings", "retains_identity"]
