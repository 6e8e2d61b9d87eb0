"""Evidence about ``nn.Module``s: which expressions are modules, which calls are
forwards, which modules record no graph, eval/train switches, freezing.

Which expressions are modules and which calls are forwards is the lower layer,
``module_evidence.ModuleEvidence``; ``Modules`` adds what is said of those
modules: eval/train switches, classes that are no modules, freezing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Dict, FrozenSet, Iterator, List, Optional, Sequence, Tuple

import libcst as cst

from gradlint.semantic import bounds
from gradlint.semantic.containers import container_item
from gradlint.semantic.frameworks import OTHER_FRAMEWORK_PACKAGES, is_other_framework_class
from gradlint.semantic.eval_attributes import Facts, empty_list_attributes, items_in_eval, leaves_attribute_in_eval
from gradlint.semantic.forwarders import wrapped_argument
from gradlint.semantic.inherited_eval import inherited_leaves_in_eval
from gradlint.semantic.module_evidence import ModuleEvidence, _class_method
from gradlint.semantic.syntax import (
    all_targets,
    called_module,
    chain_base,
    eval_in_chain,
    false_arg,
    freezes,
    frozen_in_chain,
    is_eval_call,
    is_model_ref,
    last_name,
    parameter_target,
    parameters_owner,
    self_attributes_assigned,
)
from gradlint.semantic.torch_api import MODE_KEEPING_COPIES, PRETRAINED_NOT_FORWARDS, PRETRAINED_NOT_SUBMODULES, is_module_factory
from gradlint.semantic.tree import assignment, walk

if TYPE_CHECKING:
    from gradlint.semantic import SemanticModel

# Bases that make no class an ``nn.Module``: ``abc``'s and typing's, and ROS 2's
# node class (plain Python: rclpy does not depend on torch).
_PLAIN_BASES = frozenset({"abc.ABC", "typing.Generic", "typing.Protocol", "typing_extensions.Protocol", "rclpy.node.Node"})

# Methods of a model that prepare it for training or hand its weights to an optimizer.
_TRAINING_USES = frozenset("train parameters named_parameters gradient_checkpointing_enable enable_input_require_grads".split())
# Builtins that only look at the object they are given.
_INSPECTING_BUILTINS = frozenset("hasattr getattr isinstance type id print len str repr callable".split())
# Module methods that return the module itself and leave its mode alone.
_MODE_KEEPING_CHAIN = frozenset("to cuda cpu half float double bfloat16".split())


@dataclass(frozen=True, eq=False)
class EvalSwitch:
    """A statement that puts a model in eval mode (see ``Modules.eval_switch``)."""

    model: str  # the model expression's source text: ``model``, ``self.net``
    call: cst.Call  # the ``.eval()`` / ``.train(False)`` call
    stmt: cst.SimpleStatementLine


class Modules(ModuleEvidence):
    def __init__(self, model: "SemanticModel") -> None:
        super().__init__(model)
        self._frozen: Optional[FrozenSet[str]] = None
        self._freezes: List[Tuple[str, Optional[cst.FunctionDef]]] = []
        # (function, "eval", depth) -> the model it leaves in eval mode; (function, model, depth) -> whether it may train it
        self._callee_effects: Dict[Tuple[int, str, int], object] = {}
        # class -> its attributes in eval mode whenever its methods run (``eval_attributes``)
        self._eval_attributes: Dict[int, Dict[str, cst.Call]] = {}
        self._top_classes_by_name: Optional[Dict[str, cst.ClassDef]] = None
        self._other_framework_file: Optional[bool] = None

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
                if isinstance(small.value, cst.Call) and _depth < bounds.CALL_LEVELS:
                    left = self._leaves_in_eval(small.value, _depth + 1)
                    if left is not None and self._module_global(left, stmt):
                        return EvalSwitch(left, small.value, stmt)
                    left = self.method_leaves_in_eval(small.value, _depth + 1)
                    if left is not None:
                        return EvalSwitch(left, small.value, stmt)
            elif (assigned := assignment(small)) is not None:
                targets, value = assigned
                call, base = eval_in_chain(value)
                if call is not None and len(targets) == 1 and isinstance(targets[0], cst.Name) and targets[0].value == "_":
                    # ``_ = generator.eval()``: the returned module is dropped, the switch stays
                    if is_model_ref(base):
                        return EvalSwitch(self.tree.code_for(base), call, stmt)
                    continue
                if len(targets) > 1:  # ``model = self.model = load().eval()``: the local name
                    if call is None or not any(isinstance(t, cst.Name) for t in targets):
                        continue
                    targets = [next(t for t in targets if isinstance(t, cst.Name))]
                target = targets[0]
                if call is not None and is_model_ref(target):
                    return EvalSwitch(self.tree.code_for(target), call, stmt)
                if isinstance(value, cst.Call) and is_model_ref(target) and _depth < bounds.CALL_LEVELS:
                    if self.returns_in_eval(value, _depth + 1):
                        return EvalSwitch(self.tree.code_for(target), value, stmt)
                if isinstance(value, cst.Call) and isinstance(target, cst.Tuple) and _depth < bounds.CALL_LEVELS:
                    # ``model, vocab = load_model()``: unpacked from the position that holds it
                    els = [e.value for e in target.elements if isinstance(e, cst.Element)]
                    for i, el in enumerate(els):
                        if is_model_ref(el) and self.returns_in_eval(value, _depth + 1, (i, len(els))):
                            return EvalSwitch(self.tree.code_for(el), value, stmt)
                if _depth == 0 and isinstance(target, cst.Name) and isinstance(value, cst.Call):
                    if (self._loads_pretrained(value) and not _trains_in_chain(value)) or self.returns_pretrained(value):
                        if self.inference_only(target.value, stmt):
                            return EvalSwitch(target.value, value, stmt)
        return None

    def returns_pretrained(self, call: cst.Call) -> bool:
        """Whether ``call``, of a function of this file, returns a model that transformers'
        ``from_pretrained`` loaded, in eval mode: every ``return`` is a statement of the
        body itself, returning such a load (``return AutoModel.from_pretrained(p)``) or a
        name whose every binding in the function is one, with no ``train()`` of it."""
        func = self.model.calls.local_function(call)
        if func is None or not isinstance(func.body, cst.IndentedBlock) or func.asynchronous is not None or func.decorators:
            return False
        top = {id(stmt.body[0]) for stmt in func.body.body if isinstance(stmt, cst.SimpleStatementLine) and stmt.body}
        returns = [n for n in walk(func.body) if isinstance(n, (cst.Return, cst.Yield))]
        if not returns or any(not isinstance(n, cst.Return) or id(n) not in top or n.value is None for n in returns):
            return False  # a generator, a bare fall-through, or a return in a branch
        for ret in returns:
            value: cst.BaseExpression = ret.value  # type: ignore[assignment]
            values = self.assigned_values(value) if isinstance(value, cst.Name) else [value]
            if not values or not all(self._loads_pretrained(v) and not _trains_in_chain(v) for v in values):
                return False
            if isinstance(value, cst.Name) and self.ends_eval_mode(func.body, value.value, calls_only=True):
                return False
        return True

    def inference_only(self, name: str, stmt: cst.CSTNode) -> bool:
        """Whether the function (or module) around ``stmt`` surely uses the model it
        binds to ``name`` for inference: nothing in it runs a backward, calls the
        model's ``train()``, reads its parameters (an optimizer's), or hands the model
        itself to other code (a trainer, ``accelerator.prepare``, a helper of another
        file), which may fine-tune it. Forwarding wrappers aside (``DDP(model)``)."""
        func_ = self.tree.enclosing_function(stmt)
        for node in walk(func_.body if func_ is not None else self.model.module, into_functions=True):
            if type(node) is not cst.Call:
                continue
            func = node.func
            if isinstance(func, cst.Attribute):
                attr = func.attr.value
                if attr == "backward":
                    return False
                if self.tree.code_for(chain_base(func.value)) == name and attr in _TRAINING_USES and not is_eval_call(node):
                    return False
            if any(isinstance(a.value, cst.Name) and a.value.value == name for a in node.args):
                if isinstance(func, cst.Name) and func.value in _INSPECTING_BUILTINS and not self.model.names.is_imported(func):
                    continue
                if wrapped_argument(self.model, node) is None:
                    return False
        return True

    def returns_in_eval(self, call: cst.Call, _depth: int = 0, position: Tuple[int, int] = (-1, 0)) -> bool:
        """Whether ``call``, of a function or method of this file, returns a value it
        put in eval mode: every ``return`` of its body is a statement of the body
        itself (so the switch before it always ran) returning a name that an
        earlier statement of the body switched to eval mode (``model.eval()``), with
        nothing between taking it out again or rebinding it. ``model =
        get_model(conf)`` then binds an eval-mode module, as ``model.eval()`` would.
        With ``position`` (index, length): the return is a tuple display of that
        length (``return model, vocab``) whose element there is such a name."""
        func = self.model.calls.local_function(call)
        if func is None:
            return position in self._project_returns_eval(call.func)
        if not isinstance(func.body, cst.IndentedBlock) or func.asynchronous is not None:
            return False
        key = (id(func), "returns-eval", _depth)
        if key not in self._callee_effects:
            self._callee_effects[key] = frozenset()  # recursion
            self._callee_effects[key] = self._returns_in_eval(func, _depth)
        return position in self._callee_effects[key]  # type: ignore[operator]

    def _project_returns_eval(self, func: cst.BaseExpression) -> FrozenSet[Tuple[int, int]]:
        """For a call of ``func``, a function imported from another file of the project,
        where what it returns holds a model it put in eval mode (``Project.returns_eval``)."""
        index, names = self.model.project, self.model.names
        if index is None or not isinstance(func, (cst.Name, cst.Attribute)) or not names.is_imported(func):
            return frozenset()
        qualnames = names.qualnames(func)
        return index.returns_eval(next(iter(qualnames)), self.model.path) if len(qualnames) == 1 else frozenset()

    def _returns_in_eval(self, func: cst.FunctionDef, depth: int) -> FrozenSet[Tuple[int, int]]:
        """The positions (index, tuple length; (-1, 0) for the whole value) at which the
        one return that runs gives a name the body left in eval mode."""
        if not isinstance(func.body, cst.IndentedBlock):
            return frozenset()
        body = func.body.body
        top = {id(stmt.body[0]) for stmt in body if isinstance(stmt, cst.SimpleStatementLine) and stmt.body}
        returns = [n for n in walk(func.body) if isinstance(n, (cst.Return, cst.Yield))]
        if not returns or any(not isinstance(n, cst.Return) or id(n) not in top for n in returns):
            return frozenset()  # a generator, a bare fall-through, or a return in a branch
        left: List[str] = []  # names the body has put in eval mode so far
        for stmt in body:
            small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) and stmt.body else None
            if isinstance(small, cst.Return):  # the statements after it never run
                value = small.value
                if isinstance(value, cst.Tuple) and all(isinstance(e, cst.Element) for e in value.elements):
                    n = len(value.elements)
                    return frozenset((i, n) for i, e in enumerate(value.elements) if isinstance(e.value, cst.Name) and e.value.value in left)
                return frozenset({(-1, 0)}) if isinstance(value, cst.Name) and value.value in left else frozenset()
            left = [m for m in left if not self.ends_eval_mode(stmt, m, depth)]
            switch = self.eval_switch(stmt, depth)
            if switch is not None and switch.model.isidentifier() and switch.model not in left:
                left.append(switch.model)
        return frozenset()

    def method_leaves_in_eval(self, call: cst.Call, _depth: int = 0) -> Optional[str]:
        """For ``self.eval_mode()``, a method of the enclosing class, the attribute of
        ``self`` it leaves in eval mode (``self.model``): a statement of its body
        itself (so it always runs) switches it, and nothing after that may take it
        out again. The text means the same object in the caller: the same ``self``."""
        func = call.func
        if not (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self"):
            return inherited_leaves_in_eval(self.model, call)  # ``super().m()``
        method = self.model.calls.local_function(call)
        if method is None:
            return inherited_leaves_in_eval(self.model, call)
        if not isinstance(method.body, cst.IndentedBlock) or method.asynchronous is not None:
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

    def _top_classes(self) -> Dict[str, cst.ClassDef]:
        """The first class of each name among the module's own statements: a file made
        of many modules has thousands of statements, and each base of each class
        looked for its class among all of them."""
        if self._top_classes_by_name is None:
            found: Dict[str, cst.ClassDef] = {}
            for stmt in self.model.module.body:
                if isinstance(stmt, cst.ClassDef):
                    found.setdefault(stmt.name.value, stmt)
            self._top_classes_by_name = found
        return self._top_classes_by_name

    def not_module_class(self, cls: cst.ClassDef, _depth: int = 0) -> bool:
        """Whether instances of ``cls`` are surely no working ``nn.Module``: every base is
        ``object``, a class of this file that is none, or a class of the project that
        the index shows derives from none; or ``cls`` defines ``__init__`` and nothing
        in the class calls any ``__init__`` (``super().__init__()``), so
        ``nn.Module.__init__`` never runs: such an object can be neither called as a
        module nor put in train or eval mode by a parent."""
        if _depth > bounds.BASE_LEVELS or cls in self.module_classes():
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
            local = self._top_classes().get(value.value) if isinstance(value, cst.Name) else None
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

    # -- which framework -------------------------------------------------------------

    def other_framework_file(self) -> bool:
        """Whether the file imports a deep-learning framework other than PyTorch and no
        ``torch``: a model whose class it does not show gives no proof of being a
        PyTorch module there (a PaddlePaddle trainer's ``self.model``)."""
        if self._other_framework_file is None:
            packages = {r.package for r in self.model.names.index.records}
            self._other_framework_file = "torch" not in packages and bool(packages & OTHER_FRAMEWORK_PACKAGES)
        return self._other_framework_file

    def other_framework_model(self, expr: cst.BaseExpression) -> bool:
        """Whether the model ``expr`` is not proven a PyTorch module: its class (of this
        file or, through the project index, of another) derives from another
        framework's model base (``paddle.nn.Layer``, ``keras.Model``); or its class is
        unknown and the file imports such a framework and no ``torch``."""
        ref: Optional[cst.BaseExpression] = None
        if isinstance(expr, cst.Name) and expr.value == "self":
            cls = self.tree.enclosing_class(expr)
            if cls is not None:
                return self._other_framework_class(cls, 0)
        classes = self.declared_classes(expr)
        if not classes:
            return self.other_framework_file()
        for ref in classes:
            local = self._top_classes().get(ref.value) if isinstance(ref, cst.Name) and not self.model.names.is_imported(ref) else None
            if local is not None:
                if not self._other_framework_class(local, 0):
                    return False
            elif not self._other_framework_ref(ref):
                return False
        return True

    def _other_framework_class(self, cls: cst.ClassDef, depth: int) -> bool:
        if depth > bounds.BASE_LEVELS or cls in self.module_classes():
            return False
        for base in cls.bases:
            if base.keyword is not None:
                continue
            value = base.value
            local = self._top_classes().get(value.value) if isinstance(value, cst.Name) and not self.model.names.is_imported(value) else None
            if local is not None and local is not cls:
                if self._other_framework_class(local, depth + 1):
                    return True
            elif self._other_framework_ref(value):
                return True
        return False

    def _other_framework_ref(self, ref: cst.BaseExpression) -> bool:
        """Whether ``ref`` names another framework's model class, or a class of the
        project that the index shows derives from one."""
        if not isinstance(ref, (cst.Name, cst.Attribute)):
            return False
        names = self.model.names
        qualnames = names.qualnames(ref)
        if not qualnames:
            return False
        index = self.model.project
        return all(
            is_other_framework_class(q) or (index is not None and index.derives_from_other_framework(q, self.model.path))
            for q in qualnames
        )

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
        A module class is left out: its own ``train()`` would switch the attribute too.
        Not the items of a plain list (``items_in_eval``, mapped as ``self.<attr>[]``),
        which no module registers as submodules."""
        key = id(cls)
        cached = self._eval_attributes.get(key)
        if cached is not None:
            return cached
        found: Dict[str, cst.Call] = {}
        self._eval_attributes[key] = found
        plain = self.not_module_class(cls)
        methods = [s for s in cls.body.body if isinstance(s, cst.FunctionDef)]
        assigned: Dict[str, List[cst.FunctionDef]] = {}
        for method in methods:
            for attr in self_attributes_assigned(method):
                assigned.setdefault(attr, []).append(method)
        lists = empty_list_attributes(cls) if assigned else []
        for attr, setters in sorted(assigned.items()):  # ``self_attributes_assigned`` is a set: keep the order fixed
            text = "self." + attr
            items = items_in_eval(self._attribute_facts(), cls, attr) if attr in lists else None
            if items is not None:
                found[text + "[]"] = items  # ``for m in self.models: m(x)`` runs one of them
                continue
            if not plain:
                continue
            switches = [self._leaves_attribute_in_eval(m, attr) for m in setters]
            if any(sw is None for sw in switches):
                continue
            if any(self.ends_eval_mode(m.body, text, calls_only=True) for m in methods):
                continue  # some method trains it
            last = switches[-1]
            if last is not None:
                found[text] = last
        # ``super().__init__(model)`` of a base whose constructor leaves ``self.model`` in
        # eval mode and whose methods never train it (``semantic.inherited_eval``)
        init = None if not plain else next((m for m in methods if m.name.value == "__init__" and isinstance(m.body, cst.IndentedBlock)), None)
        for stmt in init.body.body if init is not None else ():
            small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 else None
            if not isinstance(small, cst.Expr) or not isinstance(small.value, cst.Call) or last_name(small.value.func) != "__init__":
                continue
            left = inherited_leaves_in_eval(self.model, small.value, untrained=True)
            if left is not None and left not in found and left[5:] not in assigned:
                if not any(self.ends_eval_mode(m.body, left, calls_only=True) for m in methods):
                    found[left] = small.value
        return found

    def _leaves_attribute_in_eval(self, method: cst.FunctionDef, attr: str) -> Optional[cst.Call]:
        """The ``eval()`` after which ``method`` leaves ``self.<attr>``, which it assigns,
        in eval mode: see ``eval_attributes``."""
        return leaves_attribute_in_eval(self._attribute_facts(), method, attr)

    def _attribute_facts(self) -> Facts:
        def switch(stmt: cst.CSTNode) -> Optional[Tuple[str, cst.Call]]:
            found = self.eval_switch(stmt)
            return (found.model, found.call) if found is not None and isinstance(found.call, cst.Call) else None

        ends = lambda stmt, model, calls_only: self.ends_eval_mode(stmt, model, calls_only=calls_only)  # noqa: E731
        return Facts(switch, ends, self.pretrained_loads)

    def pretrained_loads(self, stmt: cst.CSTNode, attr: str) -> List[cst.Call]:
        """The transformers ``from_pretrained`` calls ``stmt`` assigns to ``self.<attr>``
        (``self.model = AutoModel.from_pretrained(p).to(device)``), when every value it
        assigns the attribute (``None`` aside) is one; else none."""
        loads: List[cst.Call] = []
        for sub in walk(stmt, into_functions=True):
            assigned = assignment(sub)
            if assigned is None and isinstance(sub, (cst.AugAssign, cst.For, cst.CompFor, cst.WithItem)):
                if attr in self_attributes_assigned(sub):
                    return []
            if assigned is None or attr not in self_attributes_assigned(sub):
                continue
            targets, value = assigned
            base = chain_base(value)
            if len(targets) != 1 or not isinstance(targets[0], cst.Attribute) or not isinstance(base, cst.Call):
                return []
            if not self._loads_pretrained(value) or _trains_in_chain(value):
                return []
            loads.append(base)
        return loads

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

    def wrapped_model(self, ref: cst.BaseExpression) -> Optional[str]:
        """The source text of the model that ``ref`` (a name or ``self.<attr>``) wraps
        when every value it may hold is a forwarding wrapper built around that same
        model (``ddp = DDP(model)``, ``torch.compile(model.to(dev))``, nested
        wrappers too); None otherwise. A name whose bindings differ where it is
        wrapped and where ``ref`` is read may be another object there: None."""
        if not isinstance(ref, (cst.Name, cst.Attribute)):
            return None
        values = self.assigned_values(ref)
        found = {self._wrapped(v, ref, 0) for v in values}
        if len(found) != 1:
            return None
        return found.pop()

    def _copies(self, value: cst.BaseExpression, model: str) -> bool:
        """``copy.deepcopy(model)``, ``torch.compile(model)``, ``quantize_dynamic(model, ...)``."""
        if not (isinstance(value, cst.Call) and isinstance(value.func, (cst.Name, cst.Attribute)) and value.args):
            return False
        first = value.args[0]
        return (first.keyword is None and not first.star and self.tree.code_for(first.value) == model
                and self.model.names.refers_to(value.func, MODE_KEEPING_COPIES))

    def _wraps(self, value: cst.BaseExpression, model: str) -> bool:
        """``DataParallel(model)``: a forwarding wrapper of ``model`` itself, whose forward runs it in its mode."""
        given = wrapped_argument(self.model, value) if isinstance(value, cst.Call) else None
        return given is not None and self.tree.code_for(chain_base(given)) == model and not _trains_in_chain(given)

    def _wrapped(self, value: cst.BaseExpression, ref: cst.BaseExpression, depth: int) -> Optional[str]:
        if isinstance(value, cst.IfExp) and depth <= bounds.CALL_LEVELS:
            # ``net = nn.DataParallel(model) if n > 1 else model``: each branch runs the
            # same module's forward, wrapped or not, so the name holds that module's mode.
            branches = {self._wrapped_or_same(v, ref, depth + 1) for v in (value.body, value.orelse)}
            return branches.pop() if len(branches) == 1 else None
        given = wrapped_argument(self.model, value) if depth <= bounds.CALL_LEVELS and isinstance(value, cst.Call) else None
        if given is None:
            return None
        inner = given
        while isinstance(inner, cst.Call) and isinstance(inner.func, cst.Attribute) and inner.func.attr.value in _MODE_KEEPING_CHAIN:
            inner = inner.func.value
        if isinstance(inner, cst.Call):
            return self._wrapped(inner, ref, depth + 1)
        return self._same_module(inner, ref)

    def _wrapped_or_same(self, value: cst.BaseExpression, ref: cst.BaseExpression, depth: int) -> Optional[str]:
        """A branch of a conditional wrapper: a forwarding wrapper of a module, or the
        module itself (possibly moved: ``model.to(dev)``)."""
        inner = value
        while isinstance(inner, cst.Call) and isinstance(inner.func, cst.Attribute) and inner.func.attr.value in _MODE_KEEPING_CHAIN:
            inner = inner.func.value
        if isinstance(inner, cst.Call) or isinstance(inner, cst.IfExp):
            return self._wrapped(inner, ref, depth)
        return self._same_module(inner, ref)

    def _same_module(self, inner: cst.BaseExpression, ref: cst.BaseExpression) -> Optional[str]:
        """The text of the module ``inner`` (a name or ``self.<attr>``) when it denotes
        the same object where ``ref`` is read."""
        if isinstance(inner, cst.Name):
            there = self.model.scopes.visible(inner.value, inner)
            here = self.model.scopes.visible(inner.value, ref)
            if there.unbound or here.unbound or {id(b) for b in there.bindings} != {id(b) for b in here.bindings}:
                return None
            return inner.value
        if isinstance(inner, cst.Attribute) and isinstance(inner.value, cst.Name) and inner.value.value == "self":
            return self.tree.code_for(inner)
        return None

    def pretrained_submodule_forward(self, call: cst.Call, models: FrozenSet[str], remote_methods: bool = False) -> Optional[str]:
        """The model of ``models`` whose submodule ``call`` runs: ``self.asr_model.speecht5.encoder(x)``
        where every value ``self.asr_model`` may hold is loaded by a transformers
        model class's ``from_pretrained`` (possibly moved: ``.to(dev)``). Its
        attributes reached by name are submodules (which ``eval()`` switched with
        it) unless they are known to be something else: its config, a parameter
        or buffer, or a method of ``nn.Module``, ``PreTrainedModel`` or a tensor.
        For a model loaded with ``trust_remote_code=True``, an attribute of the model
        itself may be a method of its remote class: only with ``remote_methods``."""
        func = call.func
        if not isinstance(func, cst.Attribute):
            return None
        path = [func.attr.value]
        cur: cst.BaseExpression = func.value
        code_for = self.tree.code_for
        while isinstance(cur, cst.Attribute) and code_for(cur) not in models:
            path.append(cur.attr.value)
            cur = cur.value
        model = code_for(cur)
        if model not in models or path[0] in PRETRAINED_NOT_FORWARDS:
            return None
        if any(p.startswith("_") or p in PRETRAINED_NOT_SUBMODULES or p in PRETRAINED_NOT_FORWARDS for p in path):
            return None
        values = self.assigned_values(cur)
        if not values or not all(self._loads_pretrained(v) for v in values):
            return None
        if len(path) == 1 and not remote_methods and any(_trusts_remote_code(v) for v in values):
            # ``trust_remote_code=True``: the model's class comes with the checkpoint and
            # may define any method (Qwen's ``model.chat(tokenizer, prompt)``, which
            # calls ``generate`` under no_grad); an attribute called on the model itself
            # is not proven a submodule. One reached through another (``m.transformer.h[0]``) is.
            return None
        return model

    def loaded_pretrained(self, ref: cst.BaseExpression) -> bool:
        """Whether every value ``ref`` (a name or ``self.<attr>``) may hold is a model
        that a transformers model class's ``from_pretrained`` loaded."""
        values = self.assigned_values(ref)
        return bool(values) and all(self._loads_pretrained(v) for v in values)

    def _loads_pretrained(self, value: cst.BaseExpression) -> bool:
        value = chain_base(value)
        if not isinstance(value, cst.Call) or not isinstance(value.func, cst.Attribute) or value.func.attr.value != "from_pretrained":
            return False
        # transformers' ``from_pretrained`` returns the model in eval mode, an ``nn.Module``.
        return any(is_module_factory(q) for q in self.model.names.qualnames_in(value.func, frozenset({"transformers"})))

    def ends_eval_mode(self, stmt: cst.CSTNode, model: str, _depth: int = 0, calls_only: bool = False) -> bool:
        """Whether ``stmt`` may take ``model`` out of eval mode or rebind it:
        ``model.train()``, ``model.train(flag)``, ``model = other``, a call of a
        function of the file that calls ``model.train()``.
        ``model = model.to(device)`` keeps it."""
        code_for = self.tree.code_for
        root = model.split(".")[0].split("[")[0]
        for node in walk(stmt):
            # Exact types, not isinstance(): each node of the walk was asked about up to
            # eight of them, and a miss is a Python-level ABC check (CSTNode is an ABC);
            # these classes are concrete, and a parse or a fix makes no subclass of them.
            if type(node) is cst.Call:
                if _depth < bounds.CALL_LEVELS and self._may_train(node, model, _depth + 1):
                    return True
                if isinstance(node.func, cst.Attribute) and node.func.attr.value == "train" and not is_eval_call(node):
                    base = chain_base(node)
                    if code_for(base) == model:
                        return True
                    if not calls_only and model.endswith("[]") and isinstance(base, cst.Subscript) and code_for(base.value) == model[:-2]:
                        return True
                    if not calls_only and model.endswith("[]") and container_item(self.tree, self.model.scopes, base) == model:
                        return True  # ``for m in models.values(): m.train()``
                    if not calls_only and self.wrapped_model(base) == model:  # ``ddp.train()`` trains the module it wraps
                        return True
                continue
            if calls_only:
                continue
            targets: Sequence[cst.BaseExpression] = ()
            value: Optional[cst.BaseExpression] = None
            if type(node) is cst.Assign:
                targets, value = [t.target for t in node.targets], node.value
            elif type(node) is cst.AugAssign or type(node) is cst.AnnAssign:
                targets, value = [node.target], node.value
            elif type(node) is cst.For or type(node) is cst.CompFor:
                targets = [node.target]
            elif type(node) is cst.WithItem and node.asname is not None:
                targets = [node.asname.name]
            else:
                continue
            for target in targets:
                for t in all_targets(target):
                    text = code_for(t)
                    if text != model and text != root:
                        continue
                    if value is not None and code_for(chain_base(value)) == model:
                        continue  # model = model.to(device).eval()
                    if value is not None and text == model and self._wraps(value, model):
                        continue  # model = DataParallel(model): its forward runs the module in its mode
                    if value is not None and text == model and self._copies(value, model):
                        continue  # model = copy.deepcopy(model): a copy in the same mode
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
                if type(node) is cst.Call and isinstance(node.func, cst.Attribute):
                    if node.func.attr.value == "requires_grad_" and false_arg(node, "requires_grad"):
                        base = chain_base(node.func.value)
                        if is_model_ref(base):
                            freezes_.append((self.tree.code_for(base), self.tree.enclosing_function(node)))
                elif type(node) is cst.For:
                    model, param = parameters_owner(node.iter), parameter_target(node.target)
                    if model is not None and param is not None and freezes(node.body, param):
                        freezes_.append((self.tree.code_for(model), self.tree.enclosing_function(node)))
                elif type(node) is cst.Assign and frozen_in_chain(node.value) and self._frozen_attribute(node) is not None:
                    freezes_.append((self.tree.code_for(node.targets[0].target), self.tree.enclosing_function(node)))
            self._freezes = freezes_
            self._frozen = frozenset(text for text, _ in freezes_)
        return self._frozen

    def _frozen_attribute(self, node: cst.Assign) -> Optional[str]:
        """``self.m = Net().eval().requires_grad_(False)`` in ``__init__``, the one binding of
        ``self.m`` in its class: ``m``, whose forwards record a graph only through inputs."""
        target, func = node.targets[0].target if len(node.targets) == 1 else None, self.tree.enclosing_function(node)
        if not (isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) and target.value.value == "self"):
            return None
        cls = self.tree.method_class(func) if func is not None and func.name.value == "__init__" else None
        if func is None or cls is None:
            return None
        attr = target.attr.value
        binds = [m for m in cls.body.body if type(m) is cst.FunctionDef and attr in self_attributes_assigned(m)]
        # Bound once: in ``__init__`` only, by this statement alone (nothing rebinds it unfrozen).
        once = binds == [func] and all(n is node for n in walk(func, True) if type(n) is cst.Assign and attr in self_attributes_assigned(n))
        return attr if once else None


def _trains_in_chain(expr: cst.BaseExpression) -> bool:
    """``AutoModel.from_pretrained(p).train()``: a module method of the chain may take it
    out of eval mode (``train()`` without ``False``, ``requires_grad_`` aside)."""
    while isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute):
        if expr.func.attr.value == "train" and not is_eval_call(expr):
            return True
        expr = expr.func.value
    return False


def _trusts_remote_code(value: cst.BaseExpression) -> bool:
    """Whether the ``from_pretrained`` call ``value`` (possibly moved: ``.to(dev)``) may
    load a model class shipped with the checkpoint: ``trust_remote_code`` given and
    not literally ``False``."""
    call = chain_base(value)
    if not isinstance(call, cst.Call):
        return False
    for arg in call.args:
        if arg.star == "**":
            return True  # ``**load_kwargs`` may hold it
        if arg.keyword is not None and arg.keyword.value == "trust_remote_code":
            return not (isinstance(arg.value, cst.Name) and arg.value.value == "False")
    return False

