"""Evidence that an expression is an ``nn.Module`` and that a call is its forward.

Evidence, not names: a module is built by an ``nn.*`` constructor, a
torchvision/timm/transformers/``torch.hub`` factory, or a class of this file
derived from ``nn.Module`` (``LightningModule`` too); a forward is a call of
such a module, ``self(...)`` or ``self.<submodule>(...)`` in one of its
methods, or a same-file helper (``self.infer(...)``) that makes one.

The lower layer of ``modules.Modules``, whose eval/train and freezing facts
ask it which expressions are modules; it asks nothing of them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Dict, FrozenSet, List, Optional, Sequence, Set

import libcst as cst

from gradlint.semantic import bounds, frozen_classes
from gradlint.semantic.frameworks import FRAMEWORK_CLASSES, FRAMEWORK_OBJECTS, LIGHTNING_MODULE, OTHER_FRAMEWORK_PACKAGES, FrameworkObject
from gradlint.semantic.scopes import Binding
from gradlint.semantic.syntax import bool_value, is_generator
from gradlint.semantic.torch_api import (
    MODEL_PACKAGES,
    MODULE_COPIES,
    MODULE_SELF_METHODS,
    MODULE_WRAPPERS,
    NN_MODULE,
    is_module_factory,
    is_nn_module_class,
)
from gradlint.semantic.tree import assignment, self_attribute_values, walk

if TYPE_CHECKING:
    from gradlint.semantic import SemanticModel

_UNASKED = object()
_PARAMETER = frozenset({"torch.nn.Parameter", "torch.nn.parameter.Parameter"})


@dataclass(frozen=True)
class Forward:
    """Why a call is a module's forward: "instance" (a module built in this file),
    "self" (``self(...)`` in a module's method), "submodule" (``self.<sub>(...)``
    of a module), "container" (``models[k](...)``, ``state["model"](...)``), or
    "helper" (a same-file method or function that makes a forward)."""

    evidence: str
    module: Optional[cst.BaseExpression] = None


class ModuleEvidence:
    """Modules, module classes and forwards (the lower layer of ``modules.Modules``)."""

    def __init__(self, model: "SemanticModel") -> None:
        self.model = model
        self.tree = model.tree
        self._module_class_cache: Optional[Dict[str, cst.ClassDef]] = None
        self._forward_helpers: Dict[int, bool] = {}
        # Parameters whose callers are being asked whether they pass modules (a cycle guard).
        self._params_asked: Set[int] = set()
        # ``callers_pass_modules`` answers, kept only when no cycle guard cut the search
        # that gave them (a cut answer depends on where the search entered the cycle).
        self._passes_modules: Dict[int, Optional[bool]] = {}
        self._cuts = 0
        # Parameters asked about in the outermost ``callers_pass_modules`` search now
        # running: each adds to it; past ``bounds.CALLER_SEARCH`` the answer is unknown.
        self._caller_search = 0
        self._searching = 0

    # -- classes ----------------------------------------------------------------------

    def derives_from(
        self, cls: cst.ClassDef, bases: FrozenSet[str], base_names: FrozenSet[str] = frozenset(), _depth: int = 0
    ) -> bool:
        """Whether ``cls`` derives from one of ``bases`` (qualified names), directly or
        through classes of this file; a base whose source text ends with one of
        ``base_names`` counts too (star imports, re-exports)."""
        if _depth > bounds.BASE_LEVELS:
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

    def names_subclass_of(self, ref: cst.BaseExpression, bases: FrozenSet[str]) -> bool:
        """Whether ``ref`` names a class of the project that derives from one of
        ``bases`` (qualified names): a class of this file whose bases reach one,
        through this file's classes or those of the project index, or a class
        imported from a file of the index that does (``from machina.utils import
        Variable``, a subclass of ``autograd.Variable``)."""
        names = self.model.names
        index = self.model.project
        if isinstance(ref, cst.Name):
            binds = self.model.scopes.bindings(self.model.module).get(ref.value, [])
            cls = binds[0].node if len(binds) == 1 else None
            if isinstance(cls, cst.ClassDef) and cls in self.model.module.body:
                if self.derives_from(cls, bases):
                    return True
                return index is not None and any(
                    any(index.derives_from(q, self.model.path, bases) for q in names.qualnames(b.value))
                    for b in cls.bases
                    if b.keyword is None and names.is_imported(b.value)
                )
        return (
            index is not None
            and names.is_imported(ref)
            and any(index.derives_from(q, self.model.path, bases) for q in names.qualnames(ref))
        )

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
        class hierarchy reaches ``nn.Module`` there: ``Net(...)`` builds a module; so
        does a function there that builds and returns one (``create_model(opt)``)."""
        index = self.model.project
        names = self.model.names
        if index is None or not names.is_imported(ref):
            return False
        path = self.model.path
        return any(index.derives_from_module(q, path) or index.factory_returns_module(q, path) for q in names.qualnames(ref))

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
            assigned = assignment(node)
            if assigned is not None:
                for tgt in assigned[0]:
                    if isinstance(tgt, cst.Attribute) and isinstance(tgt.value, cst.Name) and tgt.value.value == "self":
                        value = assigned[1]
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
        if _depth > bounds.EXPRESSION_STEPS:
            return False
        if isinstance(expr, cst.Call):
            return self._module_call(expr, _depth)
        if isinstance(expr, cst.Name):
            return self._module_name(expr, _depth) or self._module_self(expr)
        if type(expr) is cst.Subscript and type(expr.value) is cst.Attribute and expr.value.attr.value == "_modules":
            # ``net._modules[name]``: ``nn.Module``'s own dict of its children, in a file of
            # PyTorch alone (OneFlow's modules mirror the name)
            packages = {r.package for r in self.model.names.index.records}
            return "torch" in packages and not packages & OTHER_FRAMEWORK_PACKAGES
        if isinstance(expr, cst.Attribute):
            cls = self._instance_class(expr.value, _depth)
            if cls is None and isinstance(expr.value, cst.Name) and expr.value.value == "self":
                # ``self.criterion = nn.CrossEntropyLoss()`` in a plain class (a trainer):
                # what every assignment of the attribute in the class builds
                cls = self.tree.enclosing_class(expr)
            return cls is not None and self._class_attr_is_module(cls, expr.attr.value, _depth)
        return False

    def _module_self(self, name: cst.Name) -> bool:
        """``self`` in a method of a class whose bases reach ``nn.Module`` (in this file
        or through the project index: ``class MeanShift(nn.Conv2d)``): the instance the
        method runs on is a module. Only the method's own first parameter, named
        ``self``, of a method that is neither a ``staticmethod`` nor a ``classmethod``."""
        if name.value != "self" or self._instance_class(name, 0) is None:
            return False
        func = self.tree.enclosing(name, (cst.FunctionDef,))
        if not isinstance(func, cst.FunctionDef):
            return False
        params = [*func.params.posonly_params, *func.params.params]
        if not params or params[0].name.value != "self":
            return False
        if any(b.form != "param" for b in self.model.scopes.bindings(func).get("self", [])):
            return False  # rebound in the method: it may hold anything
        return not any(
            isinstance(d.decorator, cst.Name) and d.decorator.value in ("staticmethod", "classmethod") for d in func.decorators
        )

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
        known = self._passes_modules.get(id(param), _UNASKED)
        if known is not _UNASKED:
            return known  # type: ignore[return-value]
        if not self._searching:
            self._caller_search = 0
        self._caller_search += 1
        if self._caller_search > bounds.CALLER_SEARCH:
            # Chains of helpers that hand a parameter on, called from many places (a
            # data layer's ``expression(instrument, field, start, end, freq)`` in every
            # provider class) branch at every level: unknown, not an exhaustive search.
            self._cuts += 1
            return None
        cuts = self._cuts
        self._searching += 1
        try:
            found = self._callers_pass_modules(param, _seen)
        finally:
            self._searching -= 1
        if self._cuts == cuts:
            self._passes_modules[id(param)] = found
        return found

    def _callers_pass_modules(self, param: cst.Param, _seen: FrozenSet[int]) -> Optional[bool]:
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
                self._cuts += 1
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
        if depth > bounds.RETURN_LEVELS or is_generator(func):
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
        if b.kind == "param" and isinstance(b.node, cst.Param) and id(b.node) in self._params_asked:
            self._cuts += 1
            return False
        if b.kind == "param" and isinstance(b.node, cst.Param):
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
        (of this file) has no trainable parameter or runs its ``forward`` under no_grad,
        or its class (of this file or the project's) freezes every parameter it makes."""
        cls = self.instance_class(expr)
        return cls is not None and self.records_graph(cls) is False or frozen_classes.built_frozen(self.model, expr)

    def _class_attr_is_module(self, cls: cst.ClassDef, attr: str, depth: int) -> bool:
        """Whether every ``self.<attr> = ...`` in ``cls``'s methods assigns a module."""
        values = self_attribute_values(cls, attr)
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
        if isinstance(func, cst.Subscript) and self.model.preview:
            # ``models["g"](x)``: a container taken for one of modules by its name, the
            # preview tier's guess (issue 26)
            base = func.value
            key = func.slice[0].slice if len(func.slice) == 1 else None
            key_text = key.value.value if isinstance(key, cst.Index) and isinstance(key.value, cst.SimpleString) else ""
            from gradlint.semantic.syntax import looks_like_model

            if looks_like_model(base) or (key_text and looks_like_model(cst.Name(key_text.strip("'\"") or "x"))):
                return Forward("container", func)
        if _depth < bounds.CALL_LEVELS:
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
        classes = self.declared_classes(func.value)
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

    def of_other_files(self, module: cst.BaseExpression) -> bool:
        """Whether every value ``module`` may hold is built by a class that another file
        of the project index defines: its forward is not read here, so nothing is
        known of what it returns."""
        index = self.model.project
        if index is None:
            return False
        classes = self.declared_classes(module)
        names = self.model.names
        return bool(classes) and all(
            names.is_imported(ref) and bool(qualnames) and all(index.has_class(q, self.model.path) for q in qualnames)
            for ref in classes
            for qualnames in (names.qualnames(ref),)
        )

    def declared_classes(self, expr: cst.BaseExpression, _depth: int = 0) -> List[cst.BaseExpression]:
        """The classes that every value ``expr`` may hold is an instance of, as
        references to them: ``Net`` for ``m = Net(...)`` (``.to(device)`` and the
        like kept), for a parameter annotated ``m: Net``, or for ``self.m`` when every
        ``self.m = ...`` of the class is one of those (``self.model =
        model.to(device)`` in ``__init__(self, model: ECD)``); empty when unknown."""
        if _depth > bounds.CALL_LEVELS:
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
            inner = self.declared_classes(value, _depth + 1) if isinstance(value, cst.Name) else []
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


_SETUP_METHODS = frozenset().union(*(o.setup for o in FRAMEWORK_OBJECTS))


def _module_loop_variable(
    loop: cst.For, name: str, value_of: Callable[[cst.Name], Optional[cst.BaseExpression]]
) -> bool:
    """``for m in model.children()``, ``for _, m in model.named_modules()``,
    ``for i, m in enumerate(model.modules())``; the children kept in a variable first
    (``layers = list(model.children())``, then ``for m in layers[:n]``), also as a
    comprehension that keeps each as it is (``bns = [m for m in model.modules() if ...]``)."""
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
        elif (
            isinstance(it, (cst.ListComp, cst.GeneratorExp, cst.SetComp))
            and isinstance(it.elt, cst.Name)
            and it.for_in.inner_for_in is None
            and isinstance(target, cst.Name)
            and target.value == name
        ):
            # ``[m for m in model.modules() if isinstance(m, nn.BatchNorm1d)]``: a filter
            # keeps only some of the modules, each still a module
            target, name, it = it.for_in.target, it.elt.value, it.for_in.iter
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


def class_forward(cls: cst.ClassDef) -> Optional[cst.FunctionDef]:
    """The ``forward`` that the body of ``cls`` defines, if it does."""
    return _class_method(cls, "forward")


def _class_method(cls: cst.ClassDef, name: str) -> Optional[cst.FunctionDef]:
    for stmt in cls.body.body:
        if isinstance(stmt, cst.FunctionDef) and stmt.name.value == name:
            return stmt
    return None
