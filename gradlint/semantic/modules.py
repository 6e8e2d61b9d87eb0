"""Evidence about ``nn.Module``s: which expressions are modules, which calls are
forwards, which modules record no graph, eval/train switches, freezing.

Evidence, not names: a module is built by an ``nn.*`` constructor, a
torchvision/timm/transformers/``torch.hub`` factory, or a class of this file
derived from ``nn.Module`` (``LightningModule`` too); a forward is a call of
such a module, ``self(...)`` or ``self.<submodule>(...)`` in one of its
methods, or a same-file helper (``self.infer(...)``) that makes one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Dict, FrozenSet, Iterator, List, Optional, Sequence, Tuple, Set

import libcst as cst

from gradlint.semantic.frameworks import FRAMEWORK_CLASSES, FRAMEWORK_OBJECTS, LIGHTNING_MODULE, FrameworkObject
from gradlint.semantic.scopes import Binding
from gradlint.semantic.syntax import (
    all_targets,
    bool_value,
    called_module,
    chain_base,
    eval_in_chain,
    false_arg,
    freezes,
    is_eval_call,
    is_generator,
    is_model_ref,
    parameter_target,
    parameters_owner,
)
from gradlint.semantic.torch_api import (
    MODEL_PACKAGES,
    MODULE_COPIES,
    MODULE_SELF_METHODS,
    MODULE_WRAPPERS,
    NN_MODULE,
    is_module_factory,
    is_nn_module_class,
)
from gradlint.semantic.tree import self_attribute_values, walk

if TYPE_CHECKING:
    from gradlint.semantic import SemanticModel

_PARAMETER = frozenset({"torch.nn.Parameter", "torch.nn.parameter.Parameter"})
# Bases that make no class an ``nn.Module``.
_PLAIN_BASES = frozenset({"abc.ABC", "typing.Generic", "typing.Protocol", "typing_extensions.Protocol"})


@dataclass(frozen=True, eq=False)
class EvalSwitch:
    """A statement that puts a model in eval mode (see ``Modules.eval_switch``)."""

    model: str  # the model expression's source text: ``model``, ``self.net``
    call: cst.Call  # the ``.eval()`` / ``.train(False)`` call
    stmt: cst.SimpleStatementLine


@dataclass(frozen=True)
class Forward:
    """Why a call is a module's forward: "instance" (a module built in this file),
    "self" (``self(...)`` in a module's method), "submodule" (``self.<sub>(...)``
    of a module), "container" (``models[k](...)``, ``state["model"](...)``), or
    "helper" (a same-file method or function that makes a forward)."""

    evidence: str
    module: Optional[cst.BaseExpression] = None


class Modules:
    def __init__(self, model: "SemanticModel") -> None:
        self.model = model
        self.tree = model.tree
        self._module_class_cache: Optional[Dict[str, cst.ClassDef]] = None
        self._frozen: Optional[FrozenSet[str]] = None
        self._freezes: List[Tuple[str, Optional[cst.FunctionDef]]] = []
        self._forward_helpers: Dict[int, bool] = {}
        # (function, "eval", depth) -> the model it leaves in eval mode; (function, model, depth) -> whether it may train it
        self._callee_effects: Dict[Tuple[int, str, int], object] = {}
        # class -> its attributes in eval mode whenever its methods run (``eval_attributes``)
        self._eval_attributes: Dict[int, Dict[str, cst.Call]] = {}
        # Parameters whose callers are being asked whether they pass modules (a cycle guard).
        self._params_asked: Set[int] = set()

    # -- classes ----------------------------------------------------------------------

    def derives_from(
        self, cls: cst.ClassDef, bases: FrozenSet[str], base_names: FrozenSet[str] = frozenset(), _depth: int = 0
    ) -> bool:
        """Whether ``cls`` derives from one of ``bases`` (qualified names), directly or
        through classes of this file; a base whose source text ends with one of
        ``base_names`` counts too (star imports, re-exports)."""
        if _depth > 5:
            return False
        names = self.model.names
        for base in cls.bases:
            expr = base.value
            if base.keyword is not None or not isinstance(expr, (cst.Name, cst.Attribute)):
                continue
            if names.refers_to(expr, bases):
                return True
            text = self.tree.code_for(expr)
            if any(text.endswith(n) for n in base_names):
                return True
            if isinstance(expr, cst.Name):
                for stmt in self.model.module.body:
                    if isinstance(stmt, cst.ClassDef) and stmt.name.value == expr.value and stmt is not cls:
                        if self.derives_from(stmt, bases, base_names, _depth + 1):
                            return True
        return False

    def is_lightning_module(self, cls: cst.ClassDef) -> bool:
        return self.derives_from(cls, LIGHTNING_MODULE, frozenset({"LightningModule"}))

    def module_class(self, ref: cst.BaseExpression) -> Optional[cst.ClassDef]:
        """The class of this file, derived from ``nn.Module`` (directly or through other
        classes of the file), that ``ref`` names."""
        if not isinstance(ref, cst.Name):
            return None
        cls = self._module_classes().get(ref.value)
        if cls is None:
            return None
        binds = self.model.scopes.bindings(self.model.module).get(ref.value, [])
        return cls if all(b.node is cls for b in binds) else None

    def module_classes(self) -> Sequence[cst.ClassDef]:
        return list(self._module_classes().values())

    def _module_classes(self) -> Dict[str, cst.ClassDef]:
        if self._module_class_cache is None:
            defs = {stmt.name.value: stmt for stmt in self.model.module.body if isinstance(stmt, cst.ClassDef)}
            found: Dict[str, cst.ClassDef] = {}
            names = self.model.names
            changed = True
            while changed:
                changed = False
                for name, cls in defs.items():
                    if name in found:
                        continue
                    for base in cls.bases:
                        value = base.value
                        if not isinstance(value, (cst.Name, cst.Attribute)) or base.keyword is not None:
                            continue
                        if (
                            names.refers_to(value, NN_MODULE)
                            or names.refers_to(value, LIGHTNING_MODULE)
                            or any(is_nn_module_class(q) for q in names.qualnames_in(value, MODEL_PACKAGES))
                            or (isinstance(value, cst.Name) and value.value in found)
                            or self._module_in_project(value, defs)
                        ):
                            found[name] = cls
                            changed = True
                            break
            self._module_class_cache = found
        return self._module_class_cache

    def _imported_module_class(self, ref: cst.BaseExpression) -> bool:
        """``Net`` imported from another file of the run (or of the project index) whose
        class hierarchy reaches ``nn.Module`` there: ``Net(...)`` builds a module."""
        index = self.model.project
        names = self.model.names
        if index is None or not names.is_imported(ref):
            return False
        return any(index.derives_from_module(q, self.model.path) for q in names.qualnames(ref))

    def _module_in_project(self, base: cst.BaseExpression, defs: Dict[str, cst.ClassDef]) -> bool:
        """Whether the imported base class ``base`` derives from ``nn.Module`` in another
        file of the run (``class Tagger(flair.nn.Model)``): see ``semantic.project``."""
        index = self.model.project
        if index is None or (isinstance(base, cst.Name) and base.value in defs):
            return False
        names = self.model.names
        if not names.is_imported(base):
            return False
        return any(index.derives_from_module(q, self.model.path) for q in names.qualnames(base))

    def records_graph(self, cls: cst.ClassDef) -> Optional[bool]:
        """Whether a forward of ``cls`` records an autograd graph through its own
        parameters: False when its ``forward`` runs under no_grad, or when its
        ``__init__`` registers only buffers and plain values (no parameter, no
        submodule); True when it assigns a parameter or a module; None otherwise."""
        methods = {s.name.value: s for s in cls.body.body if isinstance(s, cst.FunctionDef)}
        forward = methods.get("forward")
        if forward is not None:
            guard = self.model.gradmode.decorator_guard(forward)
            if guard is not None and guard.disables is True:
                return False
        init = methods.get("__init__")
        if init is None:
            return None
        trainable = False
        unknown = False
        for node in walk(init):
            if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
                attr = node.func.attr.value
                if attr in ("register_parameter", "register_module", "add_module"):
                    trainable = True
            if isinstance(node, cst.Assign):
                for t in node.targets:
                    tgt = t.target
                    if isinstance(tgt, cst.Attribute) and isinstance(tgt.value, cst.Name) and tgt.value.value == "self":
                        value = node.value
                        if self.is_parameter(value) or self.is_module(value):
                            trainable = True
                        elif isinstance(value, cst.Call) or not _plain_init_value(init, value):
                            unknown = True
        if trainable:
            return True
        return None if unknown else False

    def is_parameter(self, expr: cst.BaseExpression) -> bool:
        """``nn.Parameter(...)`` (with ``requires_grad`` not False)."""
        if not isinstance(expr, cst.Call) or not isinstance(expr.func, (cst.Name, cst.Attribute)):
            return False
        if not self.model.names.refers_to(expr.func, _PARAMETER):
            return False
        from gradlint.semantic.syntax import call_arg

        flag = call_arg(expr, 1, "requires_grad")
        return flag is None or bool_value(flag.value) is not False

    # -- is this a module? ----------------------------------------------------------------

    def is_module(self, expr: cst.BaseExpression, _depth: int = 0) -> bool:
        """Whether ``expr`` is evidently an ``nn.Module``: built by an ``nn.*`` constructor,
        a torchvision/timm/transformers/``torch.hub`` model factory, a class of this file
        derived from ``nn.Module``, ``copy.deepcopy``/``torch.compile`` of a module, ``.to()``/``.eval()``...
        of one; a variable bound to one, a loop variable over ``.children()``/``.modules()``,
        a parameter annotated ``nn.Module``; ``self.<attr>`` of an ``nn.Module`` subclass
        (or ``model.<attr>`` of an instance of one) assigned a module."""
        if _depth > 8:
            return False
        if isinstance(expr, cst.Call):
            return self._module_call(expr, _depth)
        if isinstance(expr, cst.Name):
            return self._module_name(expr, _depth)
        if isinstance(expr, cst.Attribute):
            cls = self._instance_class(expr.value, _depth)
            if cls is None and isinstance(expr.value, cst.Name) and expr.value.value == "self":
                # ``self.criterion = nn.CrossEntropyLoss()`` in a plain class (a trainer):
                # what every assignment of the attribute in the class builds
                cls = self.tree.enclosing_class(expr)
            return cls is not None and self._class_attr_is_module(cls, expr.attr.value, _depth)
        return False

    def assigned_values(self, ref: cst.BaseExpression) -> List[cst.BaseExpression]:
        """What ``ref`` certainly holds one of: the values of every binding of the name
        that can reach it (a global of the module too), or of every ``self.<attr> = ...``
        of the class; empty when any binding is not a plain assignment."""
        if isinstance(ref, cst.Name):
            seen = self.model.scopes.visible(ref.value, ref)
            if seen.unbound or not seen.bindings or not all(b.kind == "assign" and b.value is not None for b in seen.bindings):
                return []
            return [b.value for b in seen.bindings]  # type: ignore[misc]
        if isinstance(ref, cst.Attribute) and isinstance(ref.value, cst.Name) and ref.value.value == "self":
            cls = self.tree.enclosing_class(ref)
            return self_attribute_values(cls, ref.attr.value) if cls is not None else []
        return []

    def is_loss_module(self, expr: cst.BaseExpression) -> bool:
        """Whether ``expr`` certainly holds an ``nn.*Loss`` instance (no parameters to
        record a graph through): every binding of the name that can reach it, or every
        ``self.<attr> = ...`` of the class, builds one."""
        built = self.assigned_values(expr)
        names = self.model.names
        return bool(built) and all(
            isinstance(v, cst.Call)
            and isinstance(v.func, (cst.Name, cst.Attribute))
            and any(q.startswith("torch.nn.") and q.endswith("Loss") for q in names.qualnames(v.func))
            for v in built
        )

    def passed_for(self, param: cst.Param) -> Optional[List[Optional[cst.BaseExpression]]]:
        """What each call of the function that declares ``param`` in this file passes
        for it (None for a call whose argument cannot be told: ``*args``, missing);
        None when the function is used other than by a call (a callback, stored)."""
        func = self.tree.enclosing(param, (cst.FunctionDef,), stop=(cst.Lambda,))
        if not isinstance(func, cst.FunctionDef):
            return None
        positional = [p.name.value for p in (*func.params.posonly_params, *func.params.params)]
        if self.tree.method_class(func) is not None and positional and positional[0] in ("self", "cls"):
            positional = positional[1:]
        name = param.name.value
        position = positional.index(name) if name in positional else None
        sites = self.model.calls.call_sites(func)
        if sites is None:
            return None
        found: List[Optional[cst.BaseExpression]] = []
        for call in sites:
            arg: Optional[cst.BaseExpression] = None
            for i, a in enumerate(call.args):
                if a.star:
                    arg = None
                    break
                if a.keyword is not None:
                    if a.keyword.value == name:
                        arg = a.value
                elif i == position:
                    arg = a.value
            found.append(arg)
        return found

    def callers_pass_modules(self, param: cst.Param, _seen: FrozenSet[int] = frozenset()) -> Optional[bool]:
        """Whether the calls of the function that declares ``param`` pass a module for
        it: True when every call in this file does, False when one passes something
        evidently else (a function, a number, a config) or the function is used other
        than by a call (a callback: who calls it with what is not shown), None when
        nothing in this file calls or names the function or what a call passes is of
        unknown kind (an imported name, a global of another cell). A callback's ``model`` parameter may be a
        training step or a wrapper; its callers say which. A caller that passes on a
        parameter of its own (``super().f(model, x)``) passes what its callers do
        (None when nothing calls it)."""
        passed = self.passed_for(param)
        if passed is None:
            return False
        if not passed:
            return None
        found: Optional[bool] = True
        for arg in passed:
            if arg is None:
                return False
            if self.is_module(arg):
                continue
            outer = self.model.scopes.reaching_binding(arg) if isinstance(arg, cst.Name) else None
            if outer is None or outer.form != "param" or not isinstance(outer.node, cst.Param):
                kind = self.model.values.value(arg)
                if kind.not_tensor and kind.what not in ("module", "container", "mixed"):
                    return False  # a function, a number, a config: evidently something else
                found = None  # a value of unknown kind (an import, a global): as if not shown
                continue
            if id(outer.node) in _seen or id(param) == id(outer.node):
                continue  # a cycle adds nothing: the other callers decide
            result = self.callers_pass_modules(outer.node, _seen | {id(param)})
            if result is False:
                return False
            if result is None:
                found = None
        return found

    def forward_method(self, expr: cst.BaseExpression) -> Optional[cst.FunctionDef]:
        """The ``forward`` of this file's module class that ``expr`` is an instance of
        (``net`` bound to ``Net()``, ``Net()`` itself, ``self.net``), if it defines one."""
        cls = self.module_class(expr.func) if isinstance(expr, cst.Call) else self.instance_class(expr)
        return class_forward(cls) if cls is not None else None

    def _module_call(self, call: cst.Call, depth: int) -> bool:
        func = call.func
        names = self.model.names
        if isinstance(func, (cst.Name, cst.Attribute)):
            for q in names.qualnames_in(func, MODEL_PACKAGES):
                if is_module_factory(q):
                    return True
            if self.module_class(func) is not None:
                return True
            if self._imported_module_class(func):
                return True
            if names.refers_to(func, MODULE_COPIES | MODULE_WRAPPERS) and call.args:
                return self.is_module(call.args[0].value, depth + 1)
            helper = self.model.calls.local_function(call)
            if helper is not None and self._returns_module(helper, depth):
                return True
        if isinstance(func, cst.Attribute) and func.attr.value in MODULE_SELF_METHODS:
            return self.is_module(func.value, depth + 1)
        given = self._set_up(call, None)
        return given is not None and self.is_module(given, depth + 1)

    def _returns_module(self, func: cst.FunctionDef, depth: int) -> bool:
        """Whether every ``return`` of the file's ``func`` hands back a proven module
        (``_build_mlp`` returning ``nn.Linear(...)`` or ``nn.Sequential(*layers)``)."""
        if depth > 4 or is_generator(func):
            return False
        returns = [r for r in walk(func.body) if isinstance(r, cst.Return) and self.tree.enclosing_function(r) is func]
        return bool(returns) and all(r.value is not None and self.is_module(r.value, depth + 1) for r in returns)

    def _set_up(self, call: cst.Call, position: Optional[int]) -> Optional[cst.BaseExpression]:
        """For a framework's set-up call (``fabric.setup(model, opt)``), the argument whose
        set-up form is the result's item at ``position`` (None: the result itself, from a
        call given one argument); else None."""
        func = call.func
        if not isinstance(func, cst.Attribute) or func.attr.value not in _SETUP_METHODS:
            return None
        args = [a.value for a in call.args if a.keyword is None and not a.star]
        if len(args) != len(call.args):
            return None
        if position is None:
            if len(args) != 1:
                return None  # a tuple of what it was given
            position = 0
        elif not 1 < len(args) or position >= len(args):
            return None
        found = self.framework_object(func.value)
        return args[position] if found is not None and func.attr.value in found.setup else None

    def framework_object(self, expr: cst.BaseExpression) -> Optional[FrameworkObject]:
        """The framework whose driver object ``expr`` evidently is: a variable bound to
        ``L.Fabric(...)`` / ``Accelerator(...)``, a parameter annotated with the class,
        or ``self.<attr>`` that every ``self.<attr> = ...`` of the class binds to one."""
        value: Optional[cst.BaseExpression] = None
        if isinstance(expr, cst.Name):
            b = self.model.scopes.same_object(expr)
            if b is None:
                return None
            if b.kind == "param" and isinstance(b.node, cst.Param) and b.node.annotation is not None:
                value = b.node.annotation.annotation
            elif b.kind == "assign" and isinstance(b.value, cst.Call):
                value = b.value.func
        elif isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name) and expr.value.value == "self":
            func = self.tree.enclosing_function(expr)
            cls = self.tree.method_class(func) if func is not None else None
            values = self_attribute_values(cls, expr.attr.value) if cls is not None else []
            classes = {self._framework_of(v.func) if isinstance(v, cst.Call) else None for v in values}
            return classes.pop() if len(classes) == 1 else None
        return self._framework_of(value) if value is not None else None

    def _framework_of(self, ref: cst.BaseExpression) -> Optional[FrameworkObject]:
        if not isinstance(ref, (cst.Name, cst.Attribute)):
            return None
        names_ = self.model.names
        # refers_to first: it rules most references out without a scope analysis of the file.
        names = names_.qualnames(ref) & FRAMEWORK_CLASSES if names_.refers_to(ref, FRAMEWORK_CLASSES) else frozenset()
        return next((o for o in FRAMEWORK_OBJECTS if names & o.classes), None)

    def _module_name(self, name: cst.Name, depth: int) -> bool:
        scopes = self.model.scopes
        b = scopes.reaching_binding(name)
        if b is not None:
            candidates: List[Binding] = [b]
        else:
            scope = self.tree.function_scope(name)
            candidates = scopes.bindings(scope).get(name.value, [])
            if not candidates and scope is not self.model.module:
                candidates = scopes.bindings(self.model.module).get(name.value, [])  # a module-level global
        if not candidates:
            return False
        return all(self._module_binding(c, name.value, depth) for c in candidates)

    def _module_binding(self, b: Binding, name: str, depth: int) -> bool:
        if b.form == "aug":
            return False
        if b.kind == "assign" and b.value is not None:
            return self.is_module(b.value, depth + 1)
        if b.kind == "unpack" and isinstance(b.value, cst.Call) and isinstance(b.node, cst.Assign) and len(b.node.targets) == 1:
            # ``model, optimizer = fabric.setup(model, optimizer)``
            target = b.node.targets[0].target
            elements = target.elements if isinstance(target, (cst.Tuple, cst.List)) else ()
            position = next((i for i, el in enumerate(elements) if el.value is b.name), None)
            given = self._set_up(b.value, position) if position is not None and len(elements) > 1 else None
            return given is not None and self.is_module(given, depth + 1)
        if b.kind == "param" and isinstance(b.node, cst.Param) and b.node.annotation is not None:
            ann = b.node.annotation.annotation
            if isinstance(ann, (cst.Name, cst.Attribute)):
                return self.model.names.refers_to(ann, NN_MODULE) or self.module_class(ann) is not None
            return False
        if b.kind == "param" and isinstance(b.node, cst.Param) and id(b.node) not in self._params_asked:
            # every call of the function in the file passes a module for it
            self._params_asked.add(id(b.node))
            try:
                return self.callers_pass_modules(b.node) is True
            finally:
                self._params_asked.discard(id(b.node))
        if b.kind == "for" and isinstance(b.node, cst.For):
            return _module_loop_variable(b.node, name, self.model.values.value_of)
        return False

    def _instance_class(self, expr: cst.BaseExpression, depth: int) -> Optional[cst.ClassDef]:
        """The module class of this file that ``expr`` (``self``, or a variable bound to
        ``Net(...)``) is an instance of."""
        if not isinstance(expr, cst.Name):
            return None
        if expr.value == "self":
            func = self.tree.enclosing(expr, (cst.FunctionDef,))
            if func is None:
                return None
            cls = self.tree.method_class(func)  # type: ignore[arg-type]
            return cls if cls is not None and cls in self._module_classes().values() else None
        value = self.model.values.value_of(expr)
        if isinstance(value, cst.Call):
            while isinstance(value.func, cst.Attribute) and value.func.attr.value in MODULE_SELF_METHODS:
                inner = value.func.value
                if not isinstance(inner, cst.Call):
                    return None
                value = inner
            return self.module_class(value.func)
        return None

    def instance_class(self, expr: cst.BaseExpression) -> Optional[cst.ClassDef]:
        """The module class of this file that ``expr`` is an instance of: ``self`` in its
        methods, a variable bound to ``Net(...)``, or ``self.<attr>`` (in any class)
        when every ``self.<attr> = ...`` of that class builds the same module class."""
        if isinstance(expr, cst.Name):
            return self._instance_class(expr, 0)
        if not (isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name) and expr.value.value == "self"):
            return None
        owner = self.tree.enclosing_class(expr)
        if owner is None:
            return None
        found: Optional[cst.ClassDef] = None
        for value in self_attribute_values(owner, expr.attr.value):
            while isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and value.func.attr.value in MODULE_SELF_METHODS:
                value = value.func.value  # Net(...).to(device).eval()
            cls = self.module_class(value.func) if isinstance(value, cst.Call) else None
            if cls is None or found is not None and cls is not found:
                return None
            found = cls
        return found

    def records_no_graph(self, expr: cst.BaseExpression) -> bool:
        """Whether a forward of the module ``expr`` evidently records no graph: its class
        (of this file) has no trainable parameter or runs its ``forward`` under no_grad."""
        cls = self.instance_class(expr)
        return cls is not None and self.records_graph(cls) is False

    def _class_attr_is_module(self, cls: cst.ClassDef, attr: str, depth: int) -> bool:
        """Whether every ``self.<attr> = ...`` in ``cls``'s methods assigns a module."""
        values = []
        for node in walk(cls.body, into_functions=True):
            if isinstance(node, cst.Assign):
                for t in node.targets:
                    tgt = t.target
                    if (
                        isinstance(tgt, cst.Attribute)
                        and tgt.attr.value == attr
                        and isinstance(tgt.value, cst.Name)
                        and tgt.value.value == "self"
                    ):
                        values.append(node.value)
        return bool(values) and all(self.is_module(v, depth + 1) for v in values)

    # -- forwards ---------------------------------------------------------------------------

    def forward(self, call: cst.Call, _depth: int = 0) -> Optional[Forward]:
        """Evidence that ``call`` runs a module's forward, or None."""
        func = call.func
        if isinstance(func, cst.Attribute) and func.attr.value == "forward":
            func = func.value
        if isinstance(func, cst.Name) and func.value == "self":
            cls = self._instance_class(func, _depth)
            return Forward("self", func) if cls is not None else None
        if isinstance(func, (cst.Name, cst.Attribute)) and self.is_module(func):
            if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self":
                return Forward("submodule", func)
            return Forward("instance", func)
        if isinstance(func, cst.Subscript):
            base = func.value
            key = func.slice[0].slice if len(func.slice) == 1 else None
            key_text = key.value.value if isinstance(key, cst.Index) and isinstance(key.value, cst.SimpleString) else ""
            from gradlint.semantic.syntax import looks_like_model

            if looks_like_model(base) or (key_text and looks_like_model(cst.Name(key_text.strip("'\"") or "x"))):
                return Forward("container", func)
        if _depth < 3:
            helper = self.model.calls.local_function(call)
            if helper is not None and self._makes_forward(helper, _depth + 1):
                return Forward("helper", func)
        return None

    def method_forward(self, call: cst.Call) -> Optional[cst.FunctionDef]:
        """For ``m.decode(z)`` where ``m`` is an instance of a module class of the file
        and that class's ``decode`` runs a forward of the module's own layers, that
        method."""
        func = call.func
        if not isinstance(func, cst.Attribute) or func.attr.value == "forward":
            return None
        cls = self.instance_class(func.value)
        if cls is None:
            return None
        method = _class_method(cls, func.attr.value)
        return method if method is not None and self._makes_forward(method, 1) else None

    def imported_method_forward(self, call: cst.Call) -> bool:
        """For ``m.calculate_objective(x, y)`` where every value ``m`` may hold is built
        by a class imported from another file of the project (``m = Attention()`` or
        ``m = GatedAttention()``), whether each such class is an ``nn.Module`` whose own
        method of that name runs the instance's forward (the project index's
        summaries: ``Project.method_runs_forward``)."""
        func = call.func
        index = self.model.project
        if index is None or not isinstance(func, cst.Attribute) or func.attr.value == "forward":
            return False
        classes = self._declared_classes(func.value)
        if not classes:
            return False
        names = self.model.names
        for ref in classes:
            if not names.is_imported(ref):
                return False
            qualnames = names.qualnames(ref)
            if not qualnames or not all(index.method_runs_forward(q, func.attr.value, self.model.path) for q in qualnames):
                return False
        return True

    def _declared_classes(self, expr: cst.BaseExpression, _depth: int = 0) -> List[cst.BaseExpression]:
        """The classes that every value ``expr`` may hold is an instance of, as
        references to them: ``Net`` for ``m = Net(...)`` (``.to(device)`` and the
        like kept), for a parameter annotated ``m: Net``, or for ``self.m`` when every
        ``self.m = ...`` of the class is one of those (``self.model =
        model.to(device)`` in ``__init__(self, model: ECD)``); empty when unknown."""
        if _depth > 3:
            return []
        if isinstance(expr, cst.Name):
            b = self.model.scopes.reaching_binding(expr)
            if b is not None and b.kind == "param" and isinstance(b.node, cst.Param):
                ann = b.node.annotation.annotation if b.node.annotation is not None else None
                return [ann] if isinstance(ann, (cst.Name, cst.Attribute)) else []
        found: List[cst.BaseExpression] = []
        values = self.assigned_values(expr)
        for value in values:
            while isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and value.func.attr.value in MODULE_SELF_METHODS:
                value = value.func.value  # Net(...).to(device)
            if isinstance(value, cst.Call) and isinstance(value.func, (cst.Name, cst.Attribute)):
                found.append(value.func)
                continue
            inner = self._declared_classes(value, _depth + 1) if isinstance(value, cst.Name) else []
            if not inner:
                return []
            found += inner
        return found

    def _makes_forward(self, func: cst.FunctionDef, depth: int) -> bool:
        key = id(func)
        found = self._forward_helpers.get(key)
        if found is None:
            self._forward_helpers[key] = False  # recursion
            found = any(isinstance(n, cst.Call) and self.forward(n, depth) is not None for n in walk(func.body))
            self._forward_helpers[key] = found
        return found

    # -- eval / train -------------------------------------------------------------------------

    def eval_switch(self, stmt: cst.CSTNode, _depth: int = 0) -> Optional[EvalSwitch]:
        """If the statement ``stmt`` puts a model in eval mode, which one and how:
        ``model.eval()``, ``model.train(False)``, ``model.to(dev).eval()``,
        ``self.net = Net().eval()``, and ``test(epoch)`` where that function of the
        file leaves the module's ``model`` in eval mode (its ``call`` is then the
        call of the function)."""
        if not isinstance(stmt, cst.SimpleStatementLine):
            return None
        for small in stmt.body:
            if isinstance(small, cst.Expr):
                call, base = eval_in_chain(small.value)
                if call is not None and is_model_ref(base):
                    return EvalSwitch(self.tree.code_for(base), call, stmt)
                if isinstance(small.value, cst.Call) and _depth < 3:
                    left = self._leaves_in_eval(small.value, _depth + 1)
                    if left is not None and self._module_global(left, stmt):
                        return EvalSwitch(left, small.value, stmt)
                    left = self.method_leaves_in_eval(small.value, _depth + 1)
                    if left is not None:
                        return EvalSwitch(left, small.value, stmt)
            elif isinstance(small, cst.Assign) and len(small.targets) == 1:
                call, _ = eval_in_chain(small.value)
                target = small.targets[0].target
                if call is not None and is_model_ref(target):
                    return EvalSwitch(self.tree.code_for(target), call, stmt)
                if isinstance(small.value, cst.Call) and is_model_ref(target) and _depth < 3:
                    if self.returns_in_eval(small.value, _depth + 1):
                        return EvalSwitch(self.tree.code_for(target), small.value, stmt)
        return None

    def returns_in_eval(self, call: cst.Call, _depth: int = 0) -> bool:
        """Whether ``call``, of a function or method of this file, returns a value it
        put in eval mode: every ``return`` of its body is a statement of the body
        itself (so the switch before it always ran) returning a name that an
        earlier statement of the body switched to eval mode (``model.eval()``), with
        nothing between taking it out again or rebinding it. ``model =
        get_model(conf)`` then binds an eval-mode module, as ``model.eval()`` would."""
        func = self.model.calls.local_function(call)
        if func is None or not isinstance(func.body, cst.IndentedBlock) or func.asynchronous is not None:
            return False
        key = (id(func), "returns-eval", _depth)
        if key in self._callee_effects:
            return bool(self._callee_effects[key])
        self._callee_effects[key] = False  # recursion
        found = self._returns_in_eval(func, _depth)
        self._callee_effects[key] = found
        return found

    def _returns_in_eval(self, func: cst.FunctionDef, depth: int) -> bool:
        if not isinstance(func.body, cst.IndentedBlock):
            return False
        body = func.body.body
        top = {id(stmt.body[0]) for stmt in body if isinstance(stmt, cst.SimpleStatementLine) and stmt.body}
        returns = [n for n in walk(func.body) if isinstance(n, (cst.Return, cst.Yield))]
        if not returns or any(not isinstance(n, cst.Return) or id(n) not in top for n in returns):
            return False  # a generator, a bare fall-through, or a return in a branch
        left: List[str] = []  # names the body has put in eval mode so far
        for stmt in body:
            small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) and stmt.body else None
            if isinstance(small, cst.Return):
                value = small.value
                return isinstance(value, cst.Name) and value.value in left  # the statements after it never run
            left = [m for m in left if not self.ends_eval_mode(stmt, m, depth)]
            switch = self.eval_switch(stmt, depth)
            if switch is not None and switch.model.isidentifier() and switch.model not in left:
                left.append(switch.model)
        return False

    def method_leaves_in_eval(self, call: cst.Call, _depth: int = 0) -> Optional[str]:
        """For ``self.eval_mode()``, a method of the enclosing class, the attribute of
        ``self`` it leaves in eval mode (``self.model``): a statement of its body
        itself (so it always runs) switches it, and nothing after that may take it
        out again. The text means the same object in the caller: the same ``self``."""
        func = call.func
        if not (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self"):
            return None
        method = self.model.calls.local_function(call)
        if method is None or not isinstance(method.body, cst.IndentedBlock) or method.asynchronous is not None:
            return None
        if self.model.gradmode.decorator_guard(method) is not None or method.decorators:
            return None  # a decorator may run it some other way (a property, a cached call)
        key = (id(method), "self-eval", _depth)
        if key in self._callee_effects:
            return self._callee_effects[key]  # type: ignore[return-value]
        self._callee_effects[key] = None  # recursion
        left: List[str] = []
        sure = True  # no statement so far may have returned early: a switch now always runs
        for stmt in method.body.body:
            left = [m for m in left if not self.ends_eval_mode(stmt, m, _depth)]
            switch = self.eval_switch(stmt, _depth) if sure else None
            if switch is not None and switch.model.startswith("self.") and switch.model not in left:
                left.append(switch.model)
            if any(isinstance(n, cst.Return) for n in walk(stmt)):
                sure = False
        self._callee_effects[key] = left[0] if left else None
        return self._callee_effects[key]  # type: ignore[return-value]

    # -- plain classes and the eval mode of their attributes ------------------------------------

    def not_module_class(self, cls: cst.ClassDef, _depth: int = 0) -> bool:
        """Whether instances of ``cls`` are surely no working ``nn.Module``: every base is
        ``object``, a class of this file that is none, or a class of the project that
        the index shows derives from none; or ``cls`` defines ``__init__`` and nothing
        in the class calls any ``__init__`` (``super().__init__()``), so
        ``nn.Module.__init__`` never runs: such an object can be neither called as a
        module nor put in train or eval mode by a parent."""
        if _depth > 5 or cls in self.module_classes():
            return False
        if self._never_initialises_base(cls):
            return True
        index = self.model.project
        names = self.model.names
        for base in cls.bases:
            value = base.value
            if base.keyword is not None:
                continue  # ``metaclass=ABCMeta``
            if isinstance(value, cst.Name) and value.value == "object" and not names.is_imported(value):
                continue
            if isinstance(value, (cst.Name, cst.Attribute)) and names.refers_to(value, _PLAIN_BASES):
                continue
            local = next(
                (s for s in self.model.module.body if isinstance(s, cst.ClassDef) and isinstance(value, cst.Name) and s.name.value == value.value),
                None,
            )
            if local is not None and local is not cls and self.not_module_class(local, _depth + 1):
                continue
            if (
                index is not None
                and isinstance(value, (cst.Name, cst.Attribute))
                and names.is_imported(value)
                and names.qualnames(value)
                and all(index.surely_not_module(q, self.model.path) for q in names.qualnames(value))
            ):
                continue
            return False
        return True

    def _never_initialises_base(self, cls: cst.ClassDef) -> bool:
        if _class_method(cls, "__init__") is None:
            return False
        return not any(
            isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute) and n.func.attr.value == "__init__"
            for n in walk(cls.body, into_functions=True)
        )

    def eval_attributes(self, cls: cst.ClassDef) -> Dict[str, cst.Call]:
        """The attributes of a class that is surely no ``nn.Module`` (``not_module_class``)
        that are in eval mode whenever a method of the class runs them: every method
        that assigns ``self.<attr>`` a value (``None`` aside: calling it would raise)
        leaves it in eval mode (``self._model = torch.jit.load(p)`` then
        ``self._model.eval()``, in its own body, nothing after taking it out again and
        no ``return`` in between), and no method of the class calls its ``train()``,
        itself or through another method. Maps ``self.<attr>`` to the ``eval()`` call.
        A module class is left out: its own ``train()`` would switch the attribute too."""
        key = id(cls)
        cached = self._eval_attributes.get(key)
        if cached is not None:
            return cached
        found: Dict[str, cst.Call] = {}
        self._eval_attributes[key] = found
        if not self.not_module_class(cls):
            return found
        methods = [s for s in cls.body.body if isinstance(s, cst.FunctionDef)]
        assigned: Dict[str, List[cst.FunctionDef]] = {}
        for method in methods:
            for attr in _self_attributes_assigned(method):
                assigned.setdefault(attr, []).append(method)
        for attr, setters in assigned.items():
            text = "self." + attr
            switches = [self._leaves_attribute_in_eval(m, attr) for m in setters]
            if any(sw is None for sw in switches):
                continue
            if any(self.ends_eval_mode(m.body, text, calls_only=True) for m in methods):
                continue  # some method trains it
            last = switches[-1]
            if last is not None:
                found[text] = last
        return found

    def _leaves_attribute_in_eval(self, method: cst.FunctionDef, attr: str) -> Optional[cst.Call]:
        """The ``eval()`` after which ``method`` leaves ``self.<attr>``, which it assigns,
        in eval mode: see ``eval_attributes``."""
        if not isinstance(method.body, cst.IndentedBlock):
            return None
        text = "self." + attr
        state: Optional[cst.Call] = None
        dirty = False  # assigned since the last eval()
        for stmt in method.body.body:
            switch = self.eval_switch(stmt)
            if attr in _self_attributes_assigned(stmt):
                dirty = True
            if switch is not None and switch.model == text:
                state, dirty = switch.call, False
            elif state is not None and self.ends_eval_mode(stmt, text, calls_only=True):
                state = None
            if dirty and any(isinstance(n, (cst.Return, cst.Yield)) for n in walk(stmt)):
                return None  # it may leave with the new value not yet in eval mode
        return None if dirty or state is None else state

    def container_eval_switch(self, loop: cst.CSTNode) -> Optional[EvalSwitch]:
        """If the loop ``for k in ...: models[k].eval()`` puts items of the container
        ``models`` in eval mode, that switch; its ``model`` is ``models[]`` (any item)."""
        if not (isinstance(loop, cst.For) and isinstance(loop.target, cst.Name) and isinstance(loop.body, cst.IndentedBlock)):
            return None
        for stmt in loop.body.body:
            switch = self.eval_switch(stmt)
            if switch is None:
                continue
            base = chain_base(switch.call)
            if isinstance(base, cst.Subscript) and len(base.slice) == 1:
                key = base.slice[0].slice
                if isinstance(key, cst.Index) and isinstance(key.value, cst.Name) and key.value.value == loop.target.value:
                    return EvalSwitch(self.tree.code_for(base.value) + "[]", switch.call, switch.stmt)
        return None

    def _leaves_in_eval(self, call: cst.Call, depth: int) -> Optional[str]:
        """The name of the module-level model that ``call``, a call of a module-level
        function of the file, leaves in eval mode: its body switches it (a statement
        of the body itself, so it always runs) and nothing after that may take it
        out again."""
        func = self.model.calls.local_function(call)
        if func is None or self.tree.method_class(func) is not None or self.tree.enclosing_function(func) is not None:
            return None
        if not isinstance(func.body, cst.IndentedBlock):
            return None
        key = (id(func), "eval", depth)
        if key in self._callee_effects:
            return self._callee_effects[key]  # type: ignore[return-value]
        self._callee_effects[key] = None  # recursion
        left: Optional[str] = None
        for stmt in func.body.body:
            switch = self.eval_switch(stmt, depth)
            if switch is not None:
                left = switch.model if self._module_global(switch.model, stmt) else None
            elif left is not None and self.ends_eval_mode(stmt, left, depth):
                left = None
        self._callee_effects[key] = left
        return left

    def _module_global(self, name: str, node: cst.CSTNode) -> bool:
        """Whether ``name`` at ``node`` denotes a binding of the module itself (not a
        parameter or local of the function around ``node``)."""
        if not name.isidentifier():
            return False
        visible = self.model.scopes.visible(name, node)
        return bool(visible.bindings) and all(
            b.node is not None and b.form != "param" and isinstance(self.tree.function_scope(b.node), cst.Module)
            for b in visible.bindings
        )

    def _may_train(self, call: cst.Call, model: str, depth: int) -> bool:
        """Whether ``call``, of a function or method of the file, may take ``model``
        out of eval mode: something it runs calls ``model.train()`` (same text)."""
        func = self.model.calls.local_function(call)
        if func is None:
            return False
        key = (id(func), model, depth)  # a deeper call may be cut off sooner: not the same answer
        found = self._callee_effects.get(key)
        if found is None:
            self._callee_effects[key] = False  # recursion
            found = self.ends_eval_mode(func.body, model, depth, calls_only=True)
            self._callee_effects[key] = found
        return bool(found)

    def ends_eval_mode(self, stmt: cst.CSTNode, model: str, _depth: int = 0, calls_only: bool = False) -> bool:
        """Whether ``stmt`` may take ``model`` out of eval mode or rebind it:
        ``model.train()``, ``model.train(flag)``, ``model = other``, a call of a
        function of the file that calls ``model.train()``.
        ``model = model.to(device)`` keeps it."""
        code_for = self.tree.code_for
        root = model.split(".")[0].split("[")[0]
        for node in walk(stmt):
            if isinstance(node, cst.Call) and _depth < 3 and self._may_train(node, model, _depth + 1):
                return True
            if calls_only:
                if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "train":
                    if not is_eval_call(node) and code_for(chain_base(node)) == model:
                        return True
                continue
            if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "train":
                base = chain_base(node)
                if not is_eval_call(node) and (
                    code_for(base) == model
                    or model.endswith("[]") and isinstance(base, cst.Subscript) and code_for(base.value) == model[:-2]
                ):
                    return True
            targets: Sequence[cst.BaseExpression] = ()
            value: Optional[cst.BaseExpression] = None
            if isinstance(node, cst.Assign):
                targets, value = [t.target for t in node.targets], node.value
            elif isinstance(node, (cst.AugAssign, cst.AnnAssign)):
                targets, value = [node.target], node.value
            elif isinstance(node, (cst.For, cst.CompFor)):
                targets = [node.target]
            elif isinstance(node, cst.WithItem) and node.asname is not None:
                targets = [node.asname.name]
            for target in targets:
                for t in all_targets(target):
                    text = code_for(t)
                    if text != model and text != root:
                        continue
                    if value is not None and code_for(chain_base(value)) == model:
                        continue  # model = model.to(device).eval()
                    return True
        return False

    def in_eval_mode(self, call: cst.Call) -> bool:
        """Whether the model that ``call`` runs (``m(x)``, ``m.forward(x)``) is surely in
        eval mode there: a statement before it, in a block that holds it within the same
        function, puts that model in eval mode (``m.eval()``), and nothing from there on
        (nor a loop around the call) takes it out again or rebinds it."""
        model = called_module(call)
        if model is None:
            return False
        text = self.tree.code_for(model)
        cur: cst.CSTNode = call
        parent = self.tree.parent(cur)
        while parent is not None and not isinstance(parent, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            if isinstance(parent, (cst.For, cst.While)) and self.ends_eval_mode(parent, text):
                return False
            if isinstance(parent, (cst.IndentedBlock, cst.Module)):
                before = list(parent.body)
                index = next((i for i, stmt in enumerate(before) if stmt is cur), None)
                for stmt in reversed(before[:index] if index is not None else ()):
                    switch = self.eval_switch(stmt)
                    if switch is not None and switch.model == text:
                        return True
                    if self.ends_eval_mode(stmt, text):
                        return False
            cur, parent = parent, self.tree.parent(parent)
        return False

    def forward_calls(self, node: cst.CSTNode, models: FrozenSet[str]) -> Iterator[Tuple[cst.Call, str]]:
        """Calls ``m(...)`` and ``m.forward(...)`` under ``node`` (not in nested functions)
        of a model whose source text is in ``models``."""
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            return  # runs when called, not here
        for sub in walk(node):
            model = called_module(sub) if isinstance(sub, cst.Call) else None
            if model is not None:
                text = self.tree.code_for(model)
                if text in models:
                    yield sub, text  # type: ignore[misc]

    def frozen_models_in(self, scope: cst.CSTNode) -> FrozenSet[str]:
        """``frozen_models`` as seen from ``scope``: a freeze of ``self`` or ``self.<attr>``
        counts only where it surely ran first, in ``scope`` itself or in ``__init__``
        (a ``freeze()`` method elsewhere in the class runs only if someone calls it)."""
        self.frozen_models()
        found = set()
        for text, func in self._freezes:
            if text == "self" or text.startswith(("self.", "self[")):
                if func is not None and func is not scope and func.name.value != "__init__":
                    continue
            found.add(text)
        return frozenset(found)

    def frozen_models(self) -> FrozenSet[str]:
        """Source texts of models whose parameters are frozen somewhere in the module
        (``m.requires_grad_(False)``, or ``p.requires_grad = False`` for every ``p`` in
        ``m.parameters()``): a forward through them records no graph."""
        if self._frozen is None:
            freezes_: List[Tuple[str, Optional[cst.FunctionDef]]] = []
            # Both ways of freezing spell the attribute; most files never do, and
            # looking for them is a walk of the whole module.
            nodes = walk(self.model.module, into_functions=True) if "requires_grad" in self.model.source else ()
            for node in nodes:
                if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
                    if node.func.attr.value == "requires_grad_" and false_arg(node, "requires_grad"):
                        base = chain_base(node.func.value)
                        if is_model_ref(base):
                            freezes_.append((self.tree.code_for(base), self.tree.enclosing_function(node)))
                elif isinstance(node, cst.For):
                    model, param = parameters_owner(node.iter), parameter_target(node.target)
                    if model is not None and param is not None and freezes(node.body, param):
                        freezes_.append((self.tree.code_for(model), self.tree.enclosing_function(node)))
            self._freezes = freezes_
            self._frozen = frozenset(text for text, _ in freezes_)
        return self._frozen


_SETUP_METHODS = frozenset().union(*(o.setup for o in FRAMEWORK_OBJECTS))


def _module_loop_variable(
    loop: cst.For, name: str, value_of: Callable[[cst.Name], Optional[cst.BaseExpression]]
) -> bool:
    """``for m in model.children()``, ``for _, m in model.named_modules()``,
    ``for i, m in enumerate(model.modules())``; the children kept in a variable first
    (``layers = list(model.children())``, then ``for m in layers[:n]``)."""
    it: cst.BaseExpression = loop.iter
    target: cst.BaseExpression = loop.target
    followed = 0
    while True:  # list(model.children())[-2:], enumerate(...), reversed(...)
        if isinstance(it, cst.Name) and followed < 4:
            held = value_of(it)  # the one value certainly bound to it
            if held is None:
                break
            it, followed = held, followed + 1
        elif isinstance(it, cst.Subscript):
            it = it.value
        elif isinstance(it, cst.Call) and isinstance(it.func, cst.Name) and it.args and it.func.value in (
            "enumerate", "list", "tuple", "reversed"
        ):
            if it.func.value == "enumerate":
                if not (isinstance(target, cst.Tuple) and len(target.elements) == 2):
                    return False
                target = target.elements[1].value
            it = it.args[0].value
        else:
            break
    if not (isinstance(it, cst.Call) and isinstance(it.func, cst.Attribute)):
        return False
    method = it.func.attr.value
    if method in ("children", "modules"):
        return isinstance(target, cst.Name) and target.value == name
    if method in ("named_children", "named_modules"):
        return (
            isinstance(target, cst.Tuple)
            and len(target.elements) == 2
            and isinstance(target.elements[1].value, cst.Name)
            and target.elements[1].value.value == name
        )
    return False


_SCALAR_TYPES = frozenset({"int", "float", "str", "bool", "complex", "bytes"})


def _plain_init_value(init: cst.FunctionDef, value: cst.BaseExpression) -> bool:
    """Whether a value that ``__init__`` stores on ``self`` is evidently no module: a
    literal, or a parameter with a literal default or a scalar annotation
    (``self.eps = eps`` for ``eps=1e-5``); ``self.backbone = backbone`` may be one."""
    if isinstance(value, (cst.Attribute, cst.Subscript)):
        return False
    if not isinstance(value, cst.Name):
        return True
    for param in (*init.params.posonly_params, *init.params.params, *init.params.kwonly_params):
        if param.name.value != value.value:
            continue
        ann = param.annotation.annotation if param.annotation is not None else None
        if isinstance(ann, cst.Name) and ann.value in _SCALAR_TYPES:
            return True
        default = param.default
        return isinstance(default, (cst.Integer, cst.Float, cst.SimpleString, cst.Imaginary)) or (
            isinstance(default, cst.Name) and default.value in ("True", "False", "None")
        )
    return False


def _self_attributes_assigned(node: cst.CSTNode) -> Set[str]:
    """The attributes ``x`` that ``node`` binds as ``self.x`` (``self.x = v``, ``self.x
    += v``, ``for self.x in ...``, ``with ... as self.x``), where ``v`` is not ``None``."""
    found: Set[str] = set()
    for sub in walk(node, into_functions=True):
        targets: Sequence[cst.BaseExpression] = ()
        if isinstance(sub, cst.Assign):
            if isinstance(sub.value, cst.Name) and sub.value.value == "None":
                continue
            targets = [t.target for t in sub.targets]
        elif isinstance(sub, (cst.AugAssign, cst.AnnAssign)):
            if sub.value is None or isinstance(sub.value, cst.Name) and sub.value.value == "None":
                continue
            targets = [sub.target]
        elif isinstance(sub, (cst.For, cst.CompFor)):
            targets = [sub.target]
        elif isinstance(sub, cst.WithItem) and sub.asname is not None:
            targets = [sub.asname.name]
        for target in targets:
            for t in all_targets(target):
                if isinstance(t, cst.Attribute) and isinstance(t.value, cst.Name) and t.value.value == "self":
                    found.add(t.attr.value)
    return found


def class_forward(cls: cst.ClassDef) -> Optional[cst.FunctionDef]:
    """The ``forward`` that the body of ``cls`` defines, if it does."""
    return _class_method(cls, "forward")


def _class_method(cls: cst.ClassDef, name: str) -> Optional[cst.FunctionDef]:
    for stmt in cls.body.body:
        if isinstance(stmt, cst.FunctionDef) and stmt.name.value == name:
            return stmt
    return None
