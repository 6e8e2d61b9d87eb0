"""The file's own functions: who calls them, and which one a call calls; and
which calls run backward (``backward_call``), however spelled."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Dict, FrozenSet, List, Optional, Sequence, Tuple, cast

import libcst as cst

from gradlint.semantic import bounds
from gradlint.semantic.frameworks import FRAMEWORK_OBJECTS, LIGHTNING_BACKWARD_METHODS, PER_BATCH_STEPS
from gradlint.semantic.syntax import call_arg, is_optimizer_name
from gradlint.semantic.torch_api import TORCH_04
from gradlint.semantic.tree import self_attribute_values, walk
from gradlint.semantic.versions import runs_only_before

if TYPE_CHECKING:
    from gradlint.semantic import SemanticModel

_AUTOGRAD_BACKWARD = frozenset({"torch.autograd.backward"})
_AUTOGRAD_GRAD = frozenset({"torch.autograd.grad"})
_AUTOGRAD_FUNCTIONS = _AUTOGRAD_BACKWARD | _AUTOGRAD_GRAD
# Python Fire's entry: ``fire.Fire(command)`` runs the command named on the command line.
_FIRE = frozenset({"fire.Fire", "fire.core.Fire"})
# Methods that run backward on their first argument, for some receivers (``frameworks``).
_BACKWARD_ON_ARGUMENT = LIGHTNING_BACKWARD_METHODS.union(*(o.backward for o in FRAMEWORK_OBJECTS))
# The names of the methods that may run backward: a call of no other method does.
BACKWARD_METHODS = frozenset({"backward"}) | _BACKWARD_ON_ARGUMENT
# Methods ``may_train`` takes by their name alone, whatever the receiver.
_TRAINING_METHODS = frozenset({"zero_grad", "fit", "grad"})


@dataclass(frozen=True)
class Backward:
    """A call that runs backward through the graph of a tensor."""

    # The tensor backward runs from (a loss); None where the call does not show it,
    # or where what the receiver is is not known (``self.manual_backward(loss)``
    # outside a known LightningModule).
    tensor: Optional[cst.BaseExpression]
    # How the call is spelled, for messages: "`.backward()`", "`torch.autograd.grad`".
    spelling: str
    # ``torch.autograd.grad``: it returns the gradients, and accumulates none in ``.grad``.
    returns_gradients: bool = False
    # One of torch.autograd's functions (not a method).
    function: bool = False


# Parents whose name child names the parent (or an import, a parameter) and is no load.
_NAMING = frozenset({cst.FunctionDef, cst.ClassDef, cst.Param, cst.ImportAlias, cst.AsName})


class Calls:
    def __init__(self, model: "SemanticModel") -> None:
        self.model = model
        self.tree = model.tree
        self._refs: Optional[Tuple[Dict[str, List[cst.Name]], Dict[str, List[cst.Attribute]]]] = None
        self._methods: Optional[Dict[str, List[cst.FunctionDef]]] = None

    def references(self) -> Tuple[Dict[str, List[cst.Name]], Dict[str, List[cst.Attribute]]]:
        """Every load of a name, and every ``x.attr`` access by attribute name."""
        if self._refs is None:
            names: Dict[str, List[cst.Name]] = {}
            attrs: Dict[str, List[cst.Attribute]] = {}
            parent_of = self.tree.parent
            # ``nodes_of`` gives nodes of exactly the type asked; the parents are tested by
            # exact type too (an isinstance() against a LibCST node class, an ABC, is a
            # Python-level call, and this looks at every name of the file).
            for attr in cast(Sequence[cst.Attribute], self.tree.nodes_of(cst.Attribute)):
                attrs.setdefault(attr.attr.value, []).append(attr)
            for node in cast(Sequence[cst.Name], self.tree.nodes_of(cst.Name)):
                parent = parent_of(node)
                kind = type(parent)
                if kind is cst.Attribute and parent.attr is node:  # type: ignore[union-attr]
                    continue
                if kind in _NAMING:
                    continue
                if kind is cst.Arg and parent.keyword is node:  # type: ignore[union-attr]
                    continue
                names.setdefault(node.value, []).append(node)
            self._refs = (names, attrs)
        return self._refs

    def error_expected(self, node: cst.CSTNode) -> bool:
        """Whether the code around ``node`` expects an exception from it: ``node`` is
        inside ``with pytest.raises(...)`` / ``with self.assertRaises(...)``, or in the
        body of a ``try`` whose handler takes a ``RuntimeError`` (``except
        RuntimeError``, ``except Exception``, a bare ``except``, a tuple naming one)
        and either asserts (on the message) or is in a test function (``test*``,
        ``_test*``). A test that checks an error on purpose is no bug; elsewhere such a
        ``try`` may be hiding one (a training step skipped with a message)."""
        sem = self.model
        func = sem.tree.enclosing_function(node)
        in_test = func is not None and func.name.value.lstrip("_").startswith("test")
        child: cst.CSTNode = node
        for ancestor in sem.tree.ancestors(node):
            if isinstance(ancestor, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
                return False
            if isinstance(ancestor, cst.Try) and child is ancestor.body:
                if any(_catches_runtime_error(h.type) and (in_test or _asserts(h)) for h in ancestor.handlers):
                    return True
            if isinstance(ancestor, cst.With) and child is ancestor.body:
                for item in ancestor.items:
                    call = item.item
                    if not isinstance(call, cst.Call):
                        continue
                    if isinstance(call.func, cst.Attribute) and call.func.attr.value in ("assertRaises", "assertRaisesRegex"):
                        return True
                    if isinstance(call.func, (cst.Name, cst.Attribute)) and sem.names.refers_to(call.func, _PYTEST_RAISES):
                        return True
            child = ancestor
        return False

    def backward_call(self, call: cst.Call) -> Optional[Backward]:
        """Whether ``call`` runs backward, and from which tensor: ``loss.backward()``
        (``scaler.scale(loss).backward()`` too), ``torch.autograd.backward(loss)``,
        ``torch.autograd.grad(loss, x)`` (any import of them), a framework's
        ``fabric.backward(loss)``/``accelerator.backward(loss)``, and
        ``self.manual_backward(loss)`` in a LightningModule. None for any other call."""
        func = call.func
        names = self.model.names
        # torch.autograd's functions can be named only in a file that spells "autograd".
        autograd = "autograd" in self.model.source
        if isinstance(func, cst.Attribute):
            attr = func.attr.value
            if attr in _BACKWARD_ON_ARGUMENT:
                given = call_arg(call, 0, None)
                if self._backward_on_argument(func.value, attr):
                    return Backward(given.value if given is not None else None, f"`.{attr}()`")
                if attr in LIGHTNING_BACKWARD_METHODS:
                    return Backward(None, f"`.{attr}()`")  # Lightning's name, on a receiver not known
            if attr == "backward" and not (autograd and names.refers_to(func, _AUTOGRAD_BACKWARD)):
                return Backward(func.value, "`.backward()`")
        if autograd and isinstance(func, (cst.Name, cst.Attribute)) and names.refers_to(func, _AUTOGRAD_FUNCTIONS):
            if names.refers_to(func, _AUTOGRAD_GRAD):
                arg = call_arg(call, 0, "outputs")
                return Backward(arg.value if arg is not None else None, "`torch.autograd.grad`", returns_gradients=True, function=True)
            arg = call_arg(call, 0, "tensors")
            return Backward(arg.value if arg is not None else None, "`torch.autograd.backward`", function=True)
        return None

    def is_backward_call(self, node: cst.CSTNode, *, gradients: bool = True) -> bool:
        """Whether ``node`` is a call that runs backward (see ``backward_call``);
        ``gradients=False`` leaves out ``torch.autograd.grad``, which accumulates nothing."""
        if not isinstance(node, cst.Call):
            return False
        found = self.backward_call(node)
        return found is not None and (gradients or not found.returns_gradients)

    def may_train(self, call: cst.Call) -> bool:
        """Whether ``call`` may compute gradients or update weights: a backward
        (``backward_call``: ``torch.autograd.grad`` by its qualified name, a
        framework's backward, ``manual_backward``), an optimizer's step (``step()``
        without arguments, or ``step(...)`` of a receiver named as an optimizer:
        ``optimizer.step(closure)``), or, by the name alone, ``zero_grad(...)``,
        ``fit(...)`` (a trainer's) and ``grad(...)`` (``torch.func.grad``, a ``grad``
        the names cannot follow), whatever the receiver.

        The names are a superset on purpose, and the only place they are kept: each
        user takes a yes as a reason to keep a finding or to leave code unfixed, never
        to drop one (a grad switch that training may follow is reported, the
        volatile fix refuses a region a training call crosses, a test module that may
        compute gradients keeps the grad-switch findings), so a name that means something
        else costs a finding kept, not one lost. Where a yes would silence a finding,
        ask ``backward_call`` instead."""
        if self.backward_call(call) is not None:
            return True
        func = call.func
        if isinstance(func, cst.Name):
            return func.value == "grad"
        if not isinstance(func, cst.Attribute):
            return False
        name = func.attr.value
        if name == "step":
            # ``env.step(action)`` is not an optimizer's
            return not call.args or is_optimizer_name(func.value)
        return name in _TRAINING_METHODS

    def _backward_on_argument(self, receiver: cst.BaseExpression, method: str) -> bool:
        """``receiver.method(x)`` runs backward on ``x``: a framework's driver object
        (``fabric.backward(loss)``), or ``self.manual_backward(loss)`` in a LightningModule."""
        modules = self.model.modules
        if method in LIGHTNING_BACKWARD_METHODS and isinstance(receiver, cst.Name) and receiver.value == "self":
            func = self.tree.enclosing_function(receiver)
            cls = self.tree.method_class(func) if func is not None else None
            return cls is not None and modules.is_lightning_module(cls)
        found = modules.framework_object(receiver)
        return found is not None and method in found.backward

    def call_sites(self, func: cst.FunctionDef) -> Optional[List[cst.Call]]:
        """The calls of ``func`` in this module: ``f(...)`` for a function,
        ``<anything>.f(...)`` for a method. None when ``func`` is also used some
        other way (passed as a callback, stored), so that its callers are unknown."""
        names, attrs = self.references()
        name = func.name.value
        is_method = self.tree.method_class(func) is not None
        refs = attrs.get(name, []) if is_method else names.get(name, [])
        sites = []
        for ref in refs:
            parent = self.tree.parent(ref)
            if not (isinstance(parent, cst.Call) and parent.func is ref):
                return None
            sites.append(parent)
        return sites

    def arguments_for(self, param: cst.Param) -> Optional[List[Tuple[cst.Call, cst.BaseExpression]]]:
        """What the calls of this file pass for ``param`` of a function of this file:
        ``(call, argument)`` for each call that passes one (by position, after ``self``
        for a method called as ``obj.f(...)``, or by keyword); a call that passes
        none (the default is used) or whose ``*args`` may hold it is left out. None
        when the function's callers are unknown (``call_sites``)."""
        params = self.tree.parent(param)
        func = self.tree.parent(params) if params is not None else None
        if not isinstance(params, cst.Parameters) or not isinstance(func, cst.FunctionDef):
            return None
        sites = self.call_sites(func)
        if sites is None:
            return None
        positional = list(params.posonly_params) + list(params.params)
        index = next((i for i, p in enumerate(positional) if p is param), None)
        cls = self.tree.method_class(func)
        decorators = {d.decorator.value for d in func.decorators if isinstance(d.decorator, cst.Name)}
        bound = cls is not None and "staticmethod" not in decorators
        name = param.name.value
        found = []
        for call in sites:
            at = index
            if at is not None and bound and not (
                "classmethod" not in decorators and cls is not None and self._through_own_class(call, cls)
            ):
                at -= 1  # ``obj.f(a)`` passes ``a`` for the parameter after ``self``
            for i, a in enumerate(call.args):
                if a.star:
                    break
                if (a.keyword is not None and a.keyword.value == name) or (a.keyword is None and i == at):
                    found.append((call, a.value))
                    break
        return found

    def _through_own_class(self, call: cst.Call, cls: cst.ClassDef) -> bool:
        """``Trainer.epoch_val(model, loader)`` on the module-level class ``Trainer``
        itself: a plain function call, which binds no instance to the first parameter."""
        func = call.func
        if not (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name)):
            return False
        if func.value.value != cls.name.value or self.tree.parent(cls) is not self.model.module:
            return False
        binds = self.model.scopes.bindings(self.model.module).get(cls.name.value, [])
        return bool(binds) and all(b.node is cls for b in binds)

    def runs_per_step(self, func: cst.FunctionDef) -> bool:
        """Whether ``func`` runs once per step of a loop it does not hold: a method that a
        framework calls for every batch (Lightning's ``training_step``), or a function
        of this file every call of which sits in a loop."""
        cls = self.tree.method_class(func)
        if cls is not None:
            for _framework, bases, base_names, methods in PER_BATCH_STEPS:
                if func.name.value in methods and self.model.modules.derives_from(cls, bases, base_names):
                    return True
        sites = self.call_sites(func) or []
        return bool(sites) and all(self.tree.enclosing_loop(site) is not None for site in sites)

    def main_block(self) -> Optional[cst.If]:
        """The module's ``if __name__ == "__main__":`` block, when the file is a script."""
        for stmt in self.model.module.body:
            if isinstance(stmt, cst.If) and _is_main_test(stmt.test):
                return stmt
        return None

    def is_script_entry(self, func: cst.FunctionDef) -> bool:
        """Whether ``func`` is a module-level function called only from the script's
        ``__main__`` block, by that block's last statement: what runs after it
        returns is the end of the program."""
        block = self.main_block()
        if block is None or self.tree.enclosing_function(func) is not None or self.tree.method_class(func) is not None:
            return False
        body = block.body.body if isinstance(block.body, cst.IndentedBlock) else ()
        sites = self.call_sites(func)
        if not body or not sites:
            return False
        last = body[-1]
        return all(self.tree.is_inside(last, site) for site in sites)

    def is_fire_command(self, func: cst.FunctionDef) -> bool:
        """Whether ``func`` is a module-level function that the script hands to
        ``fire.Fire(func)`` as the last statement of its ``__main__`` block (or of the
        module), and that nothing else refers to, here or in the other files of the
        project index: Fire runs it as the process's command and the program ends
        when it returns, as after a script's entry point."""
        if self.tree.parent(func) is not self.model.module:
            return False
        block = self.main_block()
        body: Sequence[cst.CSTNode] = self.model.module.body
        if block is not None:
            body = block.body.body if isinstance(block.body, cst.IndentedBlock) else ()
        if not body:
            return False
        last = body[-1]
        names, _ = self.references()
        refs = names.get(func.name.value, [])
        if not refs:
            return False
        for ref in refs:
            arg = self.tree.parent(ref)
            call = self.tree.parent(arg) if isinstance(arg, cst.Arg) else None
            if not (
                isinstance(arg, cst.Arg)
                and arg.keyword is None
                and isinstance(call, cst.Call)
                and call.args[0] is arg
                and self.model.names.refers_to(call.func, _FIRE)
                and self.tree.is_inside(last, call)
            ):
                return False
        return self.model.gradmode.project_call_counts(func)[0] == 0

    def local_function(self, call: cst.Call) -> Optional[cst.FunctionDef]:
        """The function of this file that ``call`` calls: ``f(...)`` for a ``def f``
        that every binding reaching the call (or, from a nested function, every
        binding of the enclosing scopes) is, ``self.f(...)`` for a method of the
        enclosing class."""
        func = call.func
        if type(func) is cst.Name:
            if func.value not in self.model.names.index.defined:
                return None  # no ``def`` of that name anywhere in the file
            scopes = self.model.scopes
            seen = scopes.visible(func.value, call)
            defs = [b.node for b in seen.bindings if b.form == "def"]
            if len(defs) == 1 and len(seen.bindings) == 1 and not seen.unbound:
                return defs[0]  # type: ignore[return-value]
            return None
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self":
            cls = self.tree.enclosing_class(call)
            if cls is not None:
                for stmt in cls.body.body:
                    if isinstance(stmt, cst.FunctionDef) and stmt.name.value == func.attr.value:
                        return stmt
        return None

    def methods_called(self, call: cst.Call) -> Optional[List[cst.FunctionDef]]:
        """For ``obj.meth(...)`` where ``obj`` holds an instance of a class of this file:
        the methods of those classes (or of their bases in the file) that the call may
        run; for ``super().meth(...)``, the bases' (none when they are not of the file).
        ``obj`` is a name every binding of which reaching the call builds one
        (``adapter = Adapter(...)``) or is a parameter annotated with one (``adapter:
        Adapter``, ``Optional[Adapter]``), or ``self.<attr>`` whose every assignment in
        the class is such a value. None when that is not known (a class not of the
        file, a value of unknown origin, a method the class does not define)."""
        func = call.func
        if not isinstance(func, cst.Attribute) or isinstance(func.value, cst.Name) and func.value.value in ("self", "cls"):
            return None
        receiver = func.value
        if isinstance(receiver, cst.Call) and isinstance(receiver.func, cst.Name) and receiver.func.value == "super":
            # ``super().f(...)``: the bases' method; one of a base outside the file is no method of the file
            cls = self.tree.enclosing_class(call)
            if cls is None:
                return None
            bases = [b for b in (self._class_named(base.value, cls) for base in cls.bases) if b is not None]
            methods = [m for m in (self._method_of(b, func.attr.value, 0) for b in bases) if m is not None]
            return methods[:1]
        classes = self._instance_classes(receiver, 0)
        if not classes:
            return None
        found: List[cst.FunctionDef] = []
        for cls in classes:
            method = self._method_of(cls, func.attr.value, 0)
            if method is None:
                return None
            found.append(method)
        return found

    def methods_named(self, name: str) -> List[cst.FunctionDef]:
        """Every method called ``name`` of a class of this file."""
        if self._methods is None:
            self._methods = {}
            for cls in self.tree.nodes_of(cst.ClassDef):
                for stmt in cls.body.body:  # type: ignore[attr-defined]
                    if isinstance(stmt, cst.FunctionDef):
                        self._methods.setdefault(stmt.name.value, []).append(stmt)
        return self._methods.get(name, [])

    def _method_of(self, cls: cst.ClassDef, name: str, depth: int) -> Optional[cst.FunctionDef]:
        for stmt in cls.body.body:
            if isinstance(stmt, cst.FunctionDef) and stmt.name.value == name:
                return stmt
        if depth > bounds.SEARCH_BASE_LEVELS:
            return None
        for base in cls.bases:
            parent = self._class_named(base.value, cls)
            if parent is not None:
                found = self._method_of(parent, name, depth + 1)
                if found is not None:
                    return found
        return None

    def _class_named(self, ref: cst.BaseExpression, at: cst.CSTNode) -> Optional[cst.ClassDef]:
        """The class of this file that ``ref`` (a name, or a string annotation) denotes."""
        if isinstance(ref, cst.SimpleString):
            text = ref.evaluated_value
            if not isinstance(text, str) or not text.isidentifier():
                return None
            classes = [c for c in self.tree.nodes_of(cst.ClassDef) if c.name.value == text]  # type: ignore[attr-defined]
            return classes[0] if len(classes) == 1 else None  # type: ignore[return-value]
        if not isinstance(ref, cst.Name):
            return None
        seen = self.model.scopes.visible(ref.value, at)
        defs = [b.node for b in seen.bindings if b.form == "class"]
        if len(defs) == 1 and len(seen.bindings) == 1 and not seen.unbound and isinstance(defs[0], cst.ClassDef):
            return defs[0]
        return None

    def _annotated_classes(self, ann: cst.BaseExpression, at: cst.CSTNode) -> Optional[List[cst.ClassDef]]:
        """``Adapter``, ``"Adapter"``, ``Optional[Adapter]``, ``Adapter | None``."""
        if isinstance(ann, cst.Subscript) and isinstance(ann.value, (cst.Name, cst.Attribute)):
            if (ann.value.attr if isinstance(ann.value, cst.Attribute) else ann.value).value == "Optional" and len(ann.slice) == 1:
                inner = ann.slice[0].slice
                return self._annotated_classes(inner.value, at) if isinstance(inner, cst.Index) else None
            return None
        if isinstance(ann, cst.BinaryOperation) and isinstance(ann.operator, cst.BitOr):
            sides = [s for s in (ann.left, ann.right) if not (isinstance(s, cst.Name) and s.value == "None")]
            found: List[cst.ClassDef] = []
            for side in sides:
                classes = self._annotated_classes(side, at)
                if classes is None:
                    return None
                found += classes
            return found
        cls = self._class_named(ann, at)
        return [cls] if cls is not None else None

    def _instance_classes(self, expr: cst.BaseExpression, depth: int) -> Optional[List[cst.ClassDef]]:
        if depth > bounds.CALL_LEVELS:
            return None
        values: List[Tuple[cst.BaseExpression, cst.CSTNode]] = []
        if isinstance(expr, cst.Name):
            seen = self.model.scopes.visible(expr.value, expr)
            if seen.unbound or not seen.bindings:
                return None
            found: List[cst.ClassDef] = []
            for b in seen.bindings:
                if b.form == "param" and isinstance(b.node, cst.Param):
                    ann = b.node.annotation
                    classes = self._annotated_classes(ann.annotation, b.node) if ann is not None else None
                    if classes is None:
                        return None
                    found += classes
                elif b.kind == "assign" and b.value is not None:
                    values.append((b.value, b.value))
                else:
                    return None
        elif isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name) and expr.value.value == "self":
            owner = self.tree.enclosing_class(expr)
            assigned = self_attribute_values(owner, expr.attr.value) if owner is not None else []
            if not assigned:
                return None
            found = []
            values = [(v, v) for v in assigned]
        else:
            return None
        for value, at in values:
            if isinstance(value, cst.Call):
                cls = self._class_named(value.func, at)
                if cls is None:
                    return None
                found.append(cls)
            elif isinstance(value, cst.Name):
                classes = self._instance_classes(value, depth + 1)
                if classes is None:
                    return None
                found += classes
            else:
                return None
        return found

    def forwarded_to(
        self,
        func: cst.FunctionDef,
        param: str,
        keyword: str,
        position: Optional[int],
        targets: FrozenSet[str],
        _depth: int = 0,
        modern: bool = False,
    ) -> Optional[cst.Call]:
        """A call to one of ``targets`` (qualified names) that receives ``func``'s
        parameter ``param`` unchanged as its argument ``keyword`` (or at ``position``):
        in ``func`` itself, or through this file's functions that pass it on the
        same way (``def as_inputs(batch, volatile=False): return Variable(batch,
        volatile=volatile)``). None when no such call is seen. With ``modern``, calls
        in a branch that runs only on torch older than 0.4 (``else:`` of ``if
        IS_TORCH_04:``) are not seen: there the value goes nowhere on today's torch."""
        if _depth > bounds.CALL_LEVELS or not any(p.name.value == param for p in _params(func)):
            return None
        names = self.model.names
        scopes = self.model.scopes
        for node in walk(func.body, into_functions=True):
            if not isinstance(node, cst.Call):
                continue
            if modern and runs_only_before(self.model, node, TORCH_04):
                continue
            for arg in node.args:
                if not (isinstance(arg.value, cst.Name) and arg.value.value == param) or arg.star:
                    continue
                reaching = scopes.visible(param, arg.value)
                if not reaching.bindings or reaching.unbound or any(b.form != "param" for b in reaching.bindings):
                    continue  # rebound in between: not the caller's value any more
                own = {id(n) for p in _params(func) for n in (p, p.name)}
                if not all(id(b.node) in own or id(b.name) in own for b in reaching.bindings):
                    continue  # a parameter of a nested function of the same name
                if names.refers_to(node.func, targets) and call_arg(node, position, keyword) is arg:
                    return node
                callee = self.local_function(node)
                if callee is None or callee is func:
                    continue
                inner = _param_for(callee, node, arg)
                if inner is not None:
                    found = self.forwarded_to(callee, inner, keyword, position, targets, _depth + 1, modern)
                    if found is not None:
                        return found
        return None


def _params(func: cst.FunctionDef) -> List[cst.Param]:
    p = func.params
    return [*p.posonly_params, *p.params, *p.kwonly_params]


def _param_for(func: cst.FunctionDef, call: cst.Call, arg: cst.Arg) -> Optional[str]:
    """The name of ``func``'s parameter that ``arg`` of ``call`` binds (a method's
    ``self`` is skipped for a call through an attribute)."""
    if arg.keyword is not None:
        return arg.keyword.value
    positional = [*func.params.posonly_params, *func.params.params]
    if isinstance(call.func, cst.Attribute) and positional:
        positional = positional[1:]
    index = 0
    for a in call.args:
        if a.keyword is not None:
            continue
        if a.star:
            return None
        if a is arg:
            return positional[index].name.value if index < len(positional) else None
        index += 1
    return None


def _is_main_test(test: cst.BaseExpression) -> bool:
    """``__name__ == "__main__"`` (either way round, either quotes)."""
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1):
        return False
    target = test.comparisons[0]
    if not isinstance(target.operator, cst.Equal):
        return False
    sides = (test.left, target.comparator)
    names = [s for s in sides if isinstance(s, cst.Name) and s.value == "__name__"]
    strings = [s for s in sides if isinstance(s, cst.SimpleString) and s.evaluated_value == "__main__"]
    return len(names) == 1 and len(strings) == 1


_PYTEST_RAISES = frozenset({"pytest.raises"})
_CATCHES_RUNTIME = frozenset({"RuntimeError", "Exception", "BaseException"})


def _catches_runtime_error(kind: Optional[cst.BaseExpression]) -> bool:
    """An ``except`` clause that a ``RuntimeError`` (what autograd raises) lands in."""
    if kind is None:
        return True  # a bare ``except:``
    if isinstance(kind, cst.Tuple):
        return any(_catches_runtime_error(e.value) for e in kind.elements)
    name = kind.attr.value if isinstance(kind, cst.Attribute) else kind.value if isinstance(kind, cst.Name) else None
    return name in _CATCHES_RUNTIME


def _asserts(handler: cst.ExceptHandler) -> bool:
    """The handler checks what it caught (``assert "does not require grad" in str(e)``)."""
    return any(isinstance(n, cst.Assert) for n in walk(handler.body))
