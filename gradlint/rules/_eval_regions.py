"""GL101's evaluation regions: where, in a function body or the module body, a
model is in eval mode (after ``m.eval()``, ``m.train(False)``, an ``eval()`` of
every item of a container, or, in a method of a class that is surely no
``nn.Module``, from the first statement when every method that assigns the
attribute leaves it so) up to what may take it out. Mixed into
``EvalWithoutNoGrad``, which checks what runs in them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Dict, FrozenSet, List, Optional, Sequence, Set, Tuple

import libcst as cst

from gradlint.rules._eval_flow import Block, _assigned_attributes, _Region, bound_targets
from gradlint.rules._mode_calls import duck_eval
from gradlint.rules._mode_flag import deciding_constants, flag_switch
from gradlint.semantic.containers import container_eval_switch
from gradlint.semantic.bindings import Binding
from gradlint.semantic.import_effects import imports_grad_off
from gradlint.semantic.modules import EvalSwitch
from gradlint.semantic.syntax import all_targets, dotted, eval_in_chain, is_inference_name, is_model_ref, last_name
from gradlint.semantic.torch_api import is_nn_module_class
from gradlint.semantic.tree import FunctionScope as Scope, assignment, walk

if TYPE_CHECKING:
    from gradlint.rule import FileContext


class EvalRegions:
    """The methods of ``EvalWithoutNoGrad`` that find its evaluation regions."""

    if TYPE_CHECKING:
        # What the rule supplies (declared for the type checker only).
        ctx: FileContext
        preview: bool
        _ends: Dict[Tuple[int, str], bool]
        _left_found: Optional[Dict[str, Tuple[cst.Call, int]]]
        _declared_names: Optional[FrozenSet[str]]
        _in_callers: bool
        _grad_off: Optional[bool]

        def _under_other_guard(self, node: cst.CSTNode, scope: Scope) -> bool: ...

        def _skip_function(self, func: cst.FunctionDef) -> bool: ...

        def _forwards(self, stmt: cst.CSTNode, models: FrozenSet[str], _depth: int = 0) -> List[Tuple[cst.Call, str]]: ...

    def _regions(self, scope: Scope) -> List[_Region]:
        sem = self.ctx.semantic
        body = scope if isinstance(scope, cst.Module) else scope.body
        regions: List[_Region] = []
        dedicated: List[Block] = []
        if self.preview and isinstance(scope, cst.FunctionDef) and is_inference_name(scope.name.value):
            dedicated.append(scope.body)  # type: ignore[arg-type]
        for node in walk(body):
            # exact types: a miss of isinstance() is a Python-level ABC check (mypy narrows `type(x) is C`)
            if type(node) is cst.IndentedBlock or type(node) is cst.Module:
                for i, stmt in enumerate(node.body):
                    switch = sem.modules.eval_switch(stmt) or container_eval_switch(sem.modules, stmt) or duck_eval(sem, self.ctx.code_for, stmt) or self._left_by_with(stmt)
                    for switch in [switch] if switch is not None else _tuple_of_evals(self.ctx.code_for, stmt):
                        regions.append(self._region(node, i + 1, switch.model, switch.call))
                    if switch is None and type(scope) is cst.FunctionDef:
                        regions += self._flag_region(scope, node, i, stmt)
                    if switch is None and type(stmt) is cst.If:
                        regions += self._conditional_regions(node, i, stmt)
            elif (type(node) is cst.For or type(node) is cst.While) and isinstance(node.body, cst.IndentedBlock):
                if self.preview and type(node) is cst.For and self._inference_loader(node.iter, scope):
                    dedicated.append(node.body)
        for block in dedicated:
            # ``if not keep_mode: model.eval()`` at the top of ``evaluate``
            for i, stmt in enumerate(block.body):
                if isinstance(stmt, cst.SimpleStatementLine):
                    continue
                for sub in walk(stmt):
                    switch = sem.modules.eval_switch(sub)
                    # ``if training: model.train() else: model.eval()`` leaves the mode open
                    if switch is not None and not sem.modules.ends_eval_mode(stmt, switch.model):
                        regions.append(self._region(block, i + 1, switch.model, switch.call))
        regions += self._attribute_regions(scope)
        regions += self._global_regions(scope)
        regions += self._caller_regions(scope)
        return [r for r in regions if r.start < r.end]

    def _flag_region(self, func: cst.FunctionDef, block: Block, i: int, stmt: cst.CSTNode) -> List[_Region]:
        """``model.train(mode=is_train)`` in a step that some caller runs with the flag
        false (``if evaluate: model.eval() else: model.train()``: true): eval mode on
        that path, from the next statement on."""
        found = flag_switch(self.ctx.code_for, stmt)
        if found is None:
            return []
        sem = self.ctx.semantic

        def grad_on(call: cst.Call) -> bool:
            caller = sem.tree.enclosing_function(call)
            if sem.gradmode.guard_at(call) is not None or self._under_other_guard(call, caller or self.ctx.module):
                return False
            return caller is None or not self._skip_function(caller)

        constants = deciding_constants(sem, func, found[1], grad_on, found[3])
        if constants is None:
            return []
        model, flag, call, _ = found
        region = self._region(block, i + 1, model, call)
        region.flag, region.constants = flag, constants
        return [region]

    def _conditional_regions(self, block: Block, i: int, stmt: cst.If) -> List[_Region]:
        """``if answering: answering.eval()``: eval mode from the next statement on, on
        the path where the test held. Only forwards under the same test count (``if
        answering: out = answering(out)``): they run only on that path. A forward
        outside it runs on the other path too, in a mode the code leaves open. The
        test is a name or an attribute that nothing after it rebinds, and the ``if``
        has no ``else`` (which could switch the other way)."""
        module_test = self._module_test(stmt.test)
        key = dotted(stmt.test) if isinstance(stmt.test, (cst.Name, cst.Attribute)) else module_test
        if key is None or stmt.orelse is not None or not isinstance(stmt.body, cst.IndentedBlock):
            return []
        modules = self.ctx.semantic.modules
        body = stmt.body.body
        switches = [(k, s) for k, s in ((k, modules.eval_switch(sub)) for k, sub in enumerate(body)) if s is not None]
        # Asked of every ``if`` of every block: the walk of the statements after it
        # only for the rare one that switches a model.
        if not switches or _rebinds(block.body[i + 1 :], {key, key.split(".")[0]}):
            return []
        found = []
        for k, switch in switches:
            if any(modules.ends_eval_mode(s, switch.model) for s in body[k + 1 :]):
                continue
            region = self._region(block, i + 1, switch.model, switch.call)
            if switch.model != module_test:
                region.constants, region.under = {key: True}, key
            # else ``if isinstance(net, nn.Module): net.eval()`` (d2l's evaluate_accuracy):
            # where the test fails ``net`` is no module, and where it holds every later
            # forward of ``net`` runs in eval mode, under the test or not
            found.append(region)
        return found

    def _module_test(self, test: cst.BaseExpression) -> Optional[str]:
        """``x`` for ``isinstance(x, torch.nn.Module)`` or another ``torch.nn`` module
        class, or ``hasattr(x, "eval")`` (``x`` a name)."""
        if not (isinstance(test, cst.Call) and isinstance(test.func, cst.Name) and test.func.value in ("isinstance", "hasattr") and len(test.args) == 2):
            return None
        subject, kind = test.args[0].value, test.args[1].value
        if not isinstance(subject, cst.Name):
            return None
        if test.func.value == "hasattr":
            return subject.value if isinstance(kind, cst.SimpleString) and kind.evaluated_value == "eval" else None
        if not isinstance(kind, (cst.Name, cst.Attribute)):
            return None
        return subject.value if any(is_nn_module_class(q) for q in self.ctx.semantic.names.qualnames(kind)) else None

    def _left_by_with(self, stmt: cst.CSTNode) -> Optional[EvalSwitch]:
        """``with torch.no_grad(): model.eval()``: eval mode is the module's state, not
        the block's, so a ``with`` whose body switches the model and does not switch it
        back leaves it in eval mode after. Only for torch's context managers: none of
        them swallows an exception, so past the statement its body has run to the end
        (a ``contextlib.suppress`` could skip the ``eval()`` and go on)."""
        if type(stmt) is not cst.With or stmt.asynchronous is not None or type(stmt.body) is not cst.IndentedBlock:
            return None
        sem = self.ctx.semantic
        for item in stmt.items:
            target = item.item.func if type(item.item) is cst.Call else item.item
            names = sem.names.qualnames(target) if type(target) in (cst.Name, cst.Attribute) else ()
            if not names or not all(q.startswith("torch.") for q in names):
                return None
        body = stmt.body.body
        for j in range(len(body) - 1, -1, -1):
            switch = sem.modules.eval_switch(body[j])
            if switch is not None:
                ended = any(sem.modules.ends_eval_mode(later, switch.model) for later in body[j + 1 :])
                return None if ended else switch
        return None

    def _attribute_regions(self, scope: Scope) -> List[_Region]:
        """A method of a class that is surely no ``nn.Module``, run after the method that
        loaded its model (``self._model = torch.jit.load(p); self._model.eval()``):
        ``self._model`` is in eval mode from its first statement, when every method
        that assigns it leaves it so and none trains it (``Modules.eval_attributes``)."""
        sem = self.ctx.semantic
        if not isinstance(scope, cst.FunctionDef) or scope.name.value == "__init__" or not isinstance(scope.body, cst.IndentedBlock):
            return []
        cls = sem.tree.method_class(scope)
        if cls is None:
            return []
        found = []
        for model, call in sem.modules.eval_attributes(cls).items():
            if any(model == "self." + a for a in _assigned_attributes(scope)):
                continue  # it loads the model itself: its own eval() opens its region
            found.append(self._region(scope.body, 0, model, call))
        return found

    def _gradients_off_by_import(self) -> bool:
        """A module of the project that the file imports at module level switches
        gradients off when imported (``semantic.import_effects``): nothing in the
        file is proven to run with gradients on."""
        if self._grad_off is None:
            sem = self.ctx.semantic
            index = sem.project
            self._grad_off = index is not None and imports_grad_off(index, sem.names.index.sole.values(), sem.path)
        return self._grad_off

    def _caller_regions(self, scope: Scope) -> List[_Region]:
        """A method that only its class's own methods call, as ``self.<method>(...)``,
        each call inside a region of the caller where ``self.<m>`` is in eval mode
        (``self.model.eval()`` then ``self.validate_batch(x, y)`` per batch), or
        where ``self`` itself is (a module's ``predict`` running ``self.eval()``
        then ``self.sample(x)``), one of them at least with gradients on: that
        model is in eval mode from the method's first statement. Not for a class whose bases the project does not
        show (a framework's base may call the method itself), nor for a method of a
        name that another file of the project index calls."""
        sem = self.ctx.semantic
        if self._in_callers or not isinstance(scope, cst.FunctionDef) or scope.decorators:
            return []
        cls = sem.tree.method_class(scope)
        name = scope.name.value
        if cls is None or name.startswith("__") or not isinstance(scope.body, cst.IndentedBlock) or not self._bases_shown(cls):
            return []
        names, attrs = sem.calls.references()
        refs = attrs.get(name, [])
        index = sem.project
        if not refs or names.get(name) or (index is not None and index.call_counts(name, sem.path)[0]):
            return []
        common: Optional[Dict[str, cst.CSTNode]] = None
        grad_on = False
        self._in_callers = True
        try:
            for ref in refs:
                call = sem.tree.parent(ref)
                caller = sem.tree.enclosing_function(ref)
                if not (isinstance(call, cst.Call) and call.func is ref and isinstance(ref.value, cst.Name) and ref.value.value == "self"):
                    return []  # handed on, or called on another object
                if caller is None or caller is scope or sem.tree.method_class(caller) is not cls:
                    return []
                here: Dict[str, cst.CSTNode] = {}
                for region in self._regions(caller):
                    if any(any(n is call for n in walk(s)) for s in region.block.body[region.start : region.end]):
                        for m in region.models:
                            line = region.eval_line[m]
                            if (m == "self" or m.startswith("self.")) and not isinstance(line, int):
                                here[m] = line
                if any(c is call for c, _ in self._forwards(call, frozenset(here))):
                    return []  # a forward at the call already (``self.infer(x)``): reported there
                common = here if common is None else {m: c for m, c in common.items() if m in here}
                grad_on = grad_on or sem.gradmode.mode_at(call).disabled is not True
        finally:
            self._in_callers = False
        if not common or not grad_on:
            return []
        return [self._region(scope.body, 0, model, switch) for model, switch in sorted(common.items())]

    def _bases_shown(self, cls: cst.ClassDef) -> bool:
        """Every base of ``cls`` is ``object``, ``nn.Module`` or a class of the file."""
        sem = self.ctx.semantic
        top = {s.name.value for s in self.ctx.module.body if isinstance(s, cst.ClassDef)}
        for base in cls.bases:
            ref = base.value
            if isinstance(ref, cst.Name) and (ref.value == "object" or ref.value in top):
                continue
            if isinstance(ref, (cst.Name, cst.Attribute)) and any(is_nn_module_class(q) for q in sem.names.qualnames(ref)):
                continue
            return False
        return not cls.keywords

    def _global_regions(self, scope: Scope) -> List[_Region]:
        """A function that uses a model its enclosing scope left in eval mode: a function
        or a method of a top-level class using a global that the module's body
        switched (``model = AutoModel.from_pretrained(name)`` or ``model.eval()`` at
        the top level), or a closure defined after its enclosing function switched a
        local (``def predict(x): return model(x)`` handed to a server). The model is
        in eval mode from the function's first statement when the function binds no
        ``model`` of its own and nothing may run it before the switch
        (``_left_in_eval``, ``_referred_before``)."""
        if type(scope) is not cst.FunctionDef or type(scope.body) is not cst.IndentedBlock:
            return []
        sem = self.ctx.semantic
        cls = sem.tree.method_class(scope)
        holder = sem.tree.parent(cls if cls is not None else scope)
        if type(holder) is cst.Module:
            left = {m: s for m, (s, index) in self._left_in_eval().items() if not self._referred_before(scope, index)}
        elif cls is None and type(holder) is cst.IndentedBlock and sem.tree.enclosing_function(holder) is not None:
            left = self._closed_in_eval(cst.ensure_type(sem.tree.enclosing_function(holder), cst.FunctionDef), holder, scope)
        else:
            return []
        local = sem.scopes.bindings(scope)
        return [self._region(scope.body, 0, model, switch) for model, switch in left.items() if not local.get(model)]

    def _closed_in_eval(self, outer: cst.FunctionDef, block: cst.IndentedBlock, func: cst.FunctionDef) -> Dict[str, cst.Call]:
        """The locals of ``outer`` that the closure ``func`` sees in eval mode: a
        statement of ``func``'s own block, before its ``def``, switches the name,
        nothing between takes it out, ``outer`` binds it once, and nothing in
        ``outer`` (its nested functions included) calls its ``train()``."""
        sem = self.ctx.semantic
        body = block.body
        position = next(i for i, s in enumerate(body) if s is func)
        bindings = sem.scopes.bindings(outer)
        declared = self._declared()
        nested: Optional[List[cst.FunctionDef]] = None
        found: Dict[str, cst.Call] = {}
        for i, stmt in enumerate(body[:position]):
            switch = sem.modules.eval_switch(stmt)
            if switch is None or not switch.model.isidentifier() or switch.model in declared or not isinstance(switch.call, cst.Call):
                continue
            model = switch.model
            if not self._owned(bindings, model, switch) or self._region(block, i + 1, model, switch.call).end <= position:
                continue
            if nested is None:
                nested = [n for n in walk(outer.body, into_functions=True) if type(n) is cst.FunctionDef]
            if any(sem.modules.ends_eval_mode(s, model, calls_only=True) for s in [outer.body, *(f.body for f in nested)]):
                continue
            found[model] = switch.call
        return found

    def _owned(self, bindings: Dict[str, List[Binding]], model: str, switch: EvalSwitch) -> bool:
        """Whether the scope owns the model it switched: one assignment binds the name,
        to what a call makes (``torch.load(p)``, ``Net()``, ``from_pretrained``), and
        the scope uses it for inference only, never handing it to other code that
        may train it (``Modules.inference_only``)."""
        found = bindings.get(model, [])
        if len(found) != 1 or found[0].form != "assign" or type(found[0].value) is not cst.Call:
            return False
        sem = self.ctx.semantic
        assigned = assignment(switch.stmt.body[0]) if type(switch.stmt) is cst.SimpleStatementLine else None
        shared = [self.ctx.code_for(t) for t in (assigned[0] if assigned else ()) if type(t) is not cst.Name]
        if shared:  # ``model = self._model = load().eval()``: no method may train it through the attribute
            functions = [n for n in walk(self.ctx.module, into_functions=True) if type(n) is cst.FunctionDef]
            if any(sem.modules.ends_eval_mode(f.body, text, calls_only=True) for f in functions for text in shared):
                return False
        return sem.modules.inference_only(model, switch.stmt)

    def _declared(self) -> FrozenSet[str]:
        """The names some function of the module declares ``global`` or ``nonlocal``."""
        if self._declared_names is None:
            self._declared_names = frozenset(
                n.name.value
                for node in walk(self.ctx.module, into_functions=True)
                if type(node) is cst.Global or type(node) is cst.Nonlocal
                for n in node.names
            )
        return self._declared_names

    def _left_in_eval(self) -> Dict[str, Tuple[cst.Call, int]]:
        """The global names the module's body leaves in eval mode: a top-level statement
        switches the name (``semantic.modules.eval_switch``) and nothing after it in
        the body, nor any function defined before it, may take it out or rebind it,
        and no function declares it ``global`` or ``nonlocal``. Maps the name to the
        switch and its statement's index."""
        if self._left_found is not None:
            return self._left_found
        sem = self.ctx.semantic
        module = self.ctx.module
        found: Dict[str, Tuple[cst.Call, int]] = {}
        self._left_found = found
        declared = self._declared()
        for i, stmt in enumerate(module.body):
            switch = sem.modules.eval_switch(stmt)
            if switch is None or not switch.model.isidentifier() or switch.model in declared or not isinstance(switch.call, cst.Call):
                continue
            if not self._owned(sem.scopes.bindings(module), switch.model, switch):
                continue
            if self._region(module, i + 1, switch.model, switch.call).end != len(module.body):
                continue
            if any(sem.modules.ends_eval_mode(s, switch.model, calls_only=True) for s in module.body[:i]):
                continue  # a function defined before it trains the model
            found[switch.model] = (switch.call, i)
        for name, call in self._set_by_functions(declared).items():
            found.setdefault(name, (call, 0))  # ``None`` until a setter runs: nothing runs it before
        return found

    def _set_by_functions(self, declared: FrozenSet[str]) -> Dict[str, cst.Call]:
        """The global names that functions of the module set and leave in eval mode, as
        a scoring script's entry points do (``def init(): global model; model =
        torch.load(p); model.eval()``, then ``def run(x): return model(x)``). Each
        function binding the name does so in statements of its own body, to what a
        call makes, and switches it after the last of them with nothing after taking
        it out; the module's body binds it only to ``None`` (calling that raises, so
        no forward of it runs before a setter); nothing in the module calls its
        ``train()``, runs a backward or hands it to other code. Maps the name to the
        last setter's switch."""
        sem = self.ctx.semantic
        module = self.ctx.module
        nonlocal_names = {n.name.value for node in walk(module, into_functions=True) if type(node) is cst.Nonlocal for n in node.names}
        bindings = sem.scopes.bindings(module)
        found: Dict[str, cst.Call] = {}
        for name in sorted(declared - nonlocal_names):
            setters: Dict[int, Tuple[cst.FunctionDef, List[int]]] = {}
            for b in bindings.get(name, []):
                if b.node is None:
                    break
                func = sem.tree.enclosing_function(b.node)
                if func is None:
                    if b.form == "assign" and type(b.value) is cst.Name and b.value.value == "None":
                        continue
                    break
                top = _top_statement(func, b.node)
                if top is None or b.form != "assign" or type(b.value) is not cst.Call:
                    break
                setters.setdefault(id(func), (func, []))[1].append(top)
            else:
                switches = [self._leaves_global_in_eval(func, name, max(tops)) for func, tops in setters.values()]
                if switches and all(s is not None for s in switches):
                    functions = [n for n in walk(module, into_functions=True) if type(n) is cst.FunctionDef]
                    outside = [s for s in module.body if type(s) is not cst.FunctionDef and type(s) is not cst.ClassDef]
                    trained = any(sem.modules.ends_eval_mode(s, name, calls_only=True) for s in [*(f.body for f in functions), *outside])
                    # asked at a statement of the module's own: the whole module is read
                    if not trained and outside and sem.modules.inference_only(name, outside[0]):
                        found[name] = cst.ensure_type(switches[-1], cst.Call)
        return found

    def _leaves_global_in_eval(self, func: cst.FunctionDef, name: str, last: int) -> Optional[cst.Call]:
        """The switch after which ``func`` leaves the global ``name``, which the
        statement at ``last`` of its body binds last, in eval mode on every way out."""
        sem = self.ctx.semantic
        body = cst.ensure_type(func.body, cst.IndentedBlock).body
        for k in range(last + 1, len(body)):
            switch = sem.modules.eval_switch(body[k])
            if switch is not None and switch.model == name and type(switch.call) is cst.Call:
                return None if any(sem.modules.ends_eval_mode(s, name) for s in body[k + 1 :]) else switch.call
            if any(type(n) in (cst.Return, cst.Raise, cst.Yield) for n in walk(body[k])):
                return None
        return None

    def _referred_before(self, func: cst.FunctionDef, index: int) -> bool:
        """Whether a top-level statement of the module before ``index`` refers to the
        function or method ``func``: calls it, or hands it on as a callback."""
        sem = self.ctx.semantic
        names, attrs = sem.calls.references()
        refs = attrs.get(func.name.value, []) if sem.tree.method_class(func) is not None else names.get(func.name.value, [])
        before = self.ctx.module.body[:index]
        for ref in refs:
            top: cst.CSTNode = ref
            for ancestor in sem.tree.ancestors(ref):
                if type(ancestor) is cst.Module:
                    break
                top = ancestor
            if type(top) not in (cst.FunctionDef, cst.ClassDef) and any(top is s for s in before):
                return True
        return False

    def _region(self, block: Block, start: int, model: str, switch: cst.CSTNode) -> _Region:
        sem = self.ctx.semantic
        end = start
        ends = self._ends
        while end < len(block.body):
            stmt = block.body[end]
            key = (id(stmt), model)
            found = ends.get(key)
            if found is None:
                found = ends[key] = sem.modules.ends_eval_mode(stmt, model)
            if found:
                break
            end += 1
        return _Region(block, start, end, {model}, {model: switch})

    def _inference_loader(self, expr: cst.BaseExpression, scope: Scope) -> bool:
        sem = self.ctx.semantic
        inner = expr
        while isinstance(inner, cst.Call) and last_name(inner.func) in ("enumerate", "tqdm", "iter") and inner.args:
            inner = inner.args[0].value
        name = last_name(inner)
        return bool(name) and is_inference_name(name) and sem.values.is_loader(expr, scope)  # type: ignore[arg-type]

    def _merged(self, regions: List[_Region]) -> List[_Region]:
        """Overlapping regions of one block are one region (``enc.eval(); dec.eval()``).
        Each keeps the calls found in its own range: a model's region ends at its
        own ``train()``, not at another's."""
        out: List[_Region] = []
        for r in sorted(regions, key=lambda r: (id(r.block), r.start)):
            last = out[-1] if out else None
            if last is not None and last.block is r.block and r.start < last.end and last.flag == r.flag and last.under == r.under:
                last.end = max(last.end, r.end)
                last.models |= r.models
                for m, switch in r.eval_line.items():
                    last.eval_line.setdefault(m, switch)
                known = {id(c) for c, _ in last.calls}
                last.calls += [(c, m) for c, m in r.calls if id(c) not in known]
            else:
                out.append(_Region(r.block, r.start, r.end, set(r.models), dict(r.eval_line), list(r.calls), r.flag, r.constants, r.under))
        order = self.ctx.tree.order
        for r in out:
            r.calls.sort(key=lambda cm: order(cm[0])[0])  # source order, without rendering for positions
        return out


def _tuple_of_evals(code_for: Callable[[cst.CSTNode], str], stmt: cst.CSTNode) -> List[EvalSwitch]:
    """``g.eval(), d.eval()``: a tuple display as a statement evaluates every item, each
    ``eval()`` of it a switch of its model."""
    if type(stmt) is not cst.SimpleStatementLine or len(stmt.body) != 1:
        return []
    small = stmt.body[0]
    if type(small) is not cst.Expr or type(small.value) is not cst.Tuple:
        return []
    found = []
    for element in small.value.elements:
        call, base = eval_in_chain(element.value)
        if call is not None and type(element) is cst.Element and is_model_ref(base):
            found.append(EvalSwitch(code_for(base), call, stmt))
    return found


def _rebinds(stmts: Sequence[cst.CSTNode], names: Set[str]) -> bool:
    """Whether ``stmts`` assign any of ``names`` (dotted), as a target of any kind."""
    return any(
        dotted(t) in names for stmt in stmts for node in walk(stmt) for target in bound_targets(node) for t in all_targets(target)
    )


def under_test(tree, call: cst.Call, test: str) -> bool:
    """Whether ``call`` runs only where an ``if <test>:`` (``test`` dotted) took its body."""
    node: Optional[cst.CSTNode] = call
    while node is not None:
        parent = tree.parent(node)
        if isinstance(parent, cst.If) and node is parent.body and dotted(parent.test) == test:
            return True
        node = parent
    return False


def _top_statement(func: cst.FunctionDef, node: cst.CSTNode) -> Optional[int]:
    """The index in ``func``'s body of the simple statement that holds ``node``; None
    when ``node`` lies under a compound statement (it may not run)."""
    body = func.body.body if type(func.body) is cst.IndentedBlock else ()
    for i, stmt in enumerate(body):
        if type(stmt) is cst.SimpleStatementLine and any(n is node for n in walk(stmt)):
            return i
    return None
