"""The grad mode at any node, and the mode a function is entered with.

Looking outward from a node: ``with`` guards (a name bound to a guard counts,
through every binding that may reach the ``with``: ``ctx = inference_mode()``
in a ``try`` and ``ctx = no_grad()`` in its ``except``), preceding
``set_grad_enabled(flag)`` statements of the same block (one inside an ``if``
or loop before the node makes the mode unknown), and the enclosing function's
decorator. Past the function, the mode it is entered with decides: a
framework hook that runs under no_grad (``frameworks``), a function wrapped
after the fact (``f = torch.no_grad()(f)``), or a function every call site of
which in the file runs under no_grad.

Measured on torch 2.13: a grad-mode decorator on an ``async def`` covers none
of its body. ``torch.no_grad()`` (like ``inference_mode()`` and the bare
``@torch.no_grad``) wraps the function in a plain one that enters the guard,
calls the coroutine function (which only creates the coroutine) and leaves the
guard; the body runs later, when awaited, with the caller's mode
(``torch.is_grad_enabled()`` is True before and after an ``await`` inside it,
and so for an async generator). So a decorator on an ``async def`` sets no mode
here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Dict, FrozenSet, List, Optional, Set, Tuple, Union, cast

import libcst as cst

from gradlint.semantic.frameworks import NO_GRAD_HOOKS
from gradlint.semantic.syntax import bool_value, call_arg, is_optimizer_name, switch_call
from gradlint.semantic.torch_api import (
    AUTOGRAD_GRAD,
    ENABLE_GRAD,
    GRAD_MODE_GUARDS,
    INFERENCE_MODE,
    NO_GRAD,
    PROFILERS,
    SET_GRAD_ENABLED,
    TORCH,
)
from gradlint.semantic.tree import walk

if TYPE_CHECKING:
    from gradlint.semantic import SemanticModel
    from gradlint.semantic.calls import Calls


@dataclass(frozen=True)
class Guard:
    """A grad-mode context manager or decorator expression."""

    kind: str  # "no_grad" | "inference_mode" | "enable_grad" | "set_grad_enabled"
    called: bool  # ``torch.no_grad()`` rather than ``torch.no_grad``
    # True: gradients are off inside; False: on; None: decided at run time.
    disables: Optional[bool]


@dataclass(frozen=True, eq=False)
class GuardSite:
    """Where a grad mode is set: the guard, the statement, ``with`` or decorator
    that applies it, and the guard expression itself (``torch.no_grad()``)."""

    guard: Guard
    node: cst.CSTNode
    expr: cst.BaseExpression


@dataclass(frozen=True)
class Mode:
    """The grad mode code runs in: ``disabled`` True (no_grad), False, or None
    (unknown); ``site`` is what decides it where that is in this file's code."""

    disabled: Optional[bool]
    site: Optional[GuardSite] = None
    reason: str = ""  # "guard", "module", "framework", "callers", "project", "wrapped", "default"


# ``nn.Module``'s own methods: a call of one on a module is not a method of the file.
_MODULE_METHODS = frozenset(
    "train eval to cuda cpu half float double type parameters named_parameters buffers named_buffers modules "
    "named_modules children named_children state_dict load_state_dict zero_grad apply requires_grad_ "
    "register_buffer register_parameter add_module".split()
)


class GradMode:
    def __init__(self, model: "SemanticModel") -> None:
        self.model = model
        self.tree = model.tree
        source = model.source
        # Qualified names cost a scope analysis of the whole file; a name can only
        # resolve to torch's grad-mode guards or to torch.autograd if the source
        # spells them somewhere (in an import at least).
        self._may_name_guards = any(n in source for n in ("no_grad", "inference_mode", "enable_grad", "set_grad_enabled"))
        self._may_name_autograd = "autograd" in source
        self._module_grad_off: Optional[bool] = None
        self._script_entry_off: Optional[bool] = None
        self._entry_modes: Dict[int, Mode] = {}
        self._computes: Dict[int, bool] = {}
        self._trains: Dict[int, bool] = {}
        self._own_managers_seen: Set[int] = set()
        # id(block) -> (the block, id(statement) -> its place, the guard site set before each place)
        self._blocks: Dict[int, Tuple[cst.CSTNode, Dict[int, int], List[Optional[GuardSite]]]] = {}

    # -- guards -------------------------------------------------------------------

    def guard(self, expr: cst.BaseExpression) -> Optional[Guard]:
        called = isinstance(expr, cst.Call)
        func = expr.func if isinstance(expr, cst.Call) else expr
        if not isinstance(func, (cst.Name, cst.Attribute)) or not self._may_name_guards:
            return None
        names_ = self.model.names
        if not names_.refers_to(func, GRAD_MODE_GUARDS):
            return None
        names = names_.qualnames(func)
        if names & NO_GRAD:
            return Guard("no_grad", called, True)
        if names & ENABLE_GRAD:
            return Guard("enable_grad", called, False)
        if names & INFERENCE_MODE:
            mode = call_arg(expr, 0, "mode") if isinstance(expr, cst.Call) else None
            return Guard("inference_mode", called, True if mode is None else bool_value(mode.value))
        if names & SET_GRAD_ENABLED:
            mode = call_arg(expr, 0, "mode") if isinstance(expr, cst.Call) else None
            value = bool_value(mode.value) if mode is not None else None
            return Guard("set_grad_enabled", called, None if value is None else not value)
        return None

    def entered_guard(self, expr: cst.BaseExpression) -> Optional[Guard]:
        """The guard a ``with`` item enters: a guard call, or a name every binding of
        which that may reach the ``with`` is one (a ``try``/``except`` fallback)."""
        g = self.guard(expr)
        if g is not None:
            return g if g.called or g.kind == "set_grad_enabled" else None
        if isinstance(expr, cst.Call) and self._may_name_guards:
            own = self._own_context_manager(expr)
            if own is not None:
                return own
        if isinstance(expr, cst.IfExp) and self._may_name_guards:
            # ``torch.no_grad() if evaluating else nullcontext()``: decided at run time
            branches = [self.entered_guard(expr.body), self.entered_guard(expr.orelse)]
            either = [b for b in branches if b is not None]
            if not either:
                return None
            if len(either) == 2 and either[0].disables == either[1].disables:
                return either[0]
            return Guard(either[0].kind, True, None)
        if not isinstance(expr, cst.Name) or not self._may_name_guards:
            return None
        reaching = self.model.scopes.reaching(expr)
        if reaching.unbound or not reaching.bindings:
            return None
        found: List[Guard] = []
        for b in reaching.bindings:
            if b.kind != "assign" or b.value is None:
                return None
            inner = self.entered_guard(b.value) if isinstance(b.value, (cst.Call, cst.IfExp)) else None
            if inner is None:
                return None
            found.append(inner)
        disables = {g.disables for g in found}
        first = found[0]
        if len({g.kind for g in found}) == 1 and len(disables) == 1:
            return first
        return Guard(first.kind, True, disables.pop() if len(disables) == 1 else None)

    def _own_context_manager(self, call: cst.Call) -> Optional[Guard]:
        """The guard a context manager of this file enters by what it does, not by its
        name: ``with eval_mode(model):`` for a ``@contextmanager`` function whose every
        ``yield`` runs under a guard that disables gradients (``with torch.no_grad():
        yield``, or after ``torch.set_grad_enabled(False)``)."""
        func = self.model.calls.local_function(call)
        if func is None or id(func) in self._own_managers_seen:
            return None
        if not any(
            isinstance(d.decorator, (cst.Name, cst.Attribute)) and self.tree.code_for(d.decorator).split(".")[-1] == "contextmanager"
            for d in func.decorators
        ):
            return None
        self._own_managers_seen.add(id(func))
        try:
            yields = [n for n in walk(func.body) if isinstance(n, cst.Yield)]
            sites = [self.guard_at(y) for y in yields]
            if yields and all(site is not None and site.guard.disables is True for site in sites):
                return Guard("no_grad", True, True)
            return None
        finally:
            self._own_managers_seen.discard(id(func))

    def _stack_entered(self, stmt: cst.CSTNode) -> Optional[GuardSite]:
        """``stack.enter_context(torch.no_grad())`` as a statement: the guard holds until
        the ``ExitStack`` closes, past the rest of the block."""
        if not (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Expr)):
            return None
        call = stmt.body[0].value
        if not (
            isinstance(call, cst.Call)
            and isinstance(call.func, cst.Attribute)
            and call.func.attr.value == "enter_context"
            and len(call.args) == 1
            and call.args[0].keyword is None
        ):
            return None
        g = self.entered_guard(call.args[0].value)
        return GuardSite(g, stmt, call.args[0].value) if g is not None else None

    def with_guard(self, node: cst.With) -> Optional[Guard]:
        """The innermost grad-mode guard a ``with`` statement enters, if any."""
        found = None
        for item in node.items:
            g = self.entered_guard(item.item)
            if g is not None:
                found = g
        return found

    def decorator_guard(self, func: cst.FunctionDef) -> Optional[Guard]:
        """The grad-mode decorator that sets the mode of ``func``'s body (none for an
        ``async def``: see the module's docstring)."""
        site = self._decorator_site(func)
        return site.guard if site is not None else None

    def _decorator_site(self, func: cst.FunctionDef) -> Optional[GuardSite]:
        if func.asynchronous is not None:
            return None
        for dec in reversed(func.decorators):
            g = self.guard(dec.decorator)
            # Bare @torch.no_grad / @torch.inference_mode / @torch.enable_grad work;
            # bare @torch.set_grad_enabled fails at definition time.
            if g is not None and (g.called or g.kind != "set_grad_enabled"):
                return GuardSite(g, dec, dec.decorator)
        return None

    def global_switch(self, stmt: cst.CSTNode) -> Optional[Guard]:
        """``torch.set_grad_enabled(x)`` called as a statement (or assigned): it acts at once."""
        if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
            return None
        small = stmt.body[0]
        value = small.value if type(small) is cst.Expr or type(small) is cst.Assign else None
        if type(value) is cst.Call:
            g = self.guard(value)
            if g is not None and g.kind == "set_grad_enabled":
                return g
        return None

    def _switch_inside(self, stmt: cst.CSTNode) -> Optional[cst.SimpleStatementLine]:
        """A ``set_grad_enabled`` statement nested in the compound statement ``stmt``
        (not in a function defined there)."""
        if not self._may_name_guards or type(stmt) in (cst.SimpleStatementLine, cst.FunctionDef, cst.ClassDef):
            return None
        for node in walk(stmt):
            if type(node) is cst.SimpleStatementLine and self.global_switch(node) is not None:
                return node
        return None

    # -- the mode at a node ----------------------------------------------------------

    def profiled(self, node: cst.CSTNode) -> bool:
        """Whether ``node`` runs inside a profiler's ``with`` in its own function (or
        module): ``with torch.profiler.profile(with_flops=True) as p:``, ``with
        FlopCounterMode(model):``. The code there runs to be measured."""
        for ancestor in self.tree.ancestors(node):
            if isinstance(ancestor, (cst.FunctionDef, cst.Lambda)):
                return False
            if isinstance(ancestor, cst.With) and any(
                isinstance(i.item, cst.Call)
                and isinstance(i.item.func, (cst.Name, cst.Attribute))
                and self.model.names.refers_to(i.item.func, PROFILERS)
                for i in ancestor.items
            ):
                return True
        return False

    def guard_at(self, node: cst.CSTNode) -> Optional[GuardSite]:
        """The guard that decides the grad mode ``node`` runs in, and where it is;
        None when nothing in the enclosing function (or module) sets the mode, so
        that the mode the function is entered with applies. A switch inside an
        ``if`` or loop before the node gives a guard whose ``disables`` is None."""
        tree = self.tree
        cur = node
        parent = tree.parent(cur)
        while parent is not None:
            if type(parent) is cst.With and cur is parent.body:
                found = None
                for item in parent.items:
                    g = self.entered_guard(item.item)
                    if g is not None:
                        found = GuardSite(g, parent, item.item)
                if found is not None:
                    return found
            elif type(parent) in (cst.IndentedBlock, cst.Module):
                found = self._set_before(cast(Union[cst.IndentedBlock, cst.Module], parent), cur)
                if found is not None:
                    return found
            elif type(parent) is cst.FunctionDef and cur is parent.body:
                return self._decorator_site(parent)
            elif type(parent) in (cst.Lambda, cst.ClassDef):
                return None
            cur, parent = parent, tree.parent(parent)
        return None

    def _set_before(self, block: Union[cst.IndentedBlock, cst.Module], stmt: cst.CSTNode) -> Optional[GuardSite]:
        """The last statement of ``block`` before ``stmt`` that sets the mode for the
        statements after it (see :meth:`_sets_mode`), or None.

        Asked for every node of a long module-level script, a scan back over the
        statements before it is quadratic: each block's answers are made once, for all
        of its statements. Not while a context manager of the file is being judged:
        its recursion guard may hide a guard for that time."""
        body = block.body
        if self._own_managers_seen:
            for i in range(len(body) - 1, -1, -1):
                if body[i] is stmt:
                    for prev in reversed(body[:i]):
                        site = self._sets_mode(prev)
                        if site is not None:
                            return site
                    break
            return None
        found = self._blocks.get(id(block))
        if found is None:
            places: Dict[int, int] = {}
            before: List[Optional[GuardSite]] = [None]
            for i, prev in enumerate(body):
                places[id(prev)] = i
                site = self._sets_mode(prev)
                before.append(site if site is not None else before[-1])
            found = self._blocks[id(block)] = (block, places, before)
        _, places, before = found
        place = places.get(id(stmt))
        return before[place] if place is not None else None

    def _sets_mode(self, stmt: cst.CSTNode) -> Optional[GuardSite]:
        """Where ``stmt`` sets the grad mode for the statements after it in its block:
        a ``set_grad_enabled`` statement, a guard entered on an ``ExitStack``, or a
        switch nested in it (an ``if`` or a loop: then whether it disables is unknown)."""
        g = self.global_switch(stmt)
        if g is not None:
            return GuardSite(g, stmt, switch_call(stmt))
        stacked = self._stack_entered(stmt) if self._may_name_guards else None
        if stacked is not None:
            return stacked
        nested = self._switch_inside(stmt)
        if nested is not None:
            g = self.global_switch(nested)
            assert g is not None
            return GuardSite(Guard(g.kind, g.called, None), nested, switch_call(nested))
        return None

    def grad_disabled(self, node: cst.CSTNode) -> Optional[bool]:
        """Whether gradients are off when ``node`` runs, from the code around it in its
        function only: True, False (nothing sets the mode: the caller's applies,
        on by default), or None (unknown)."""
        site = self.guard_at(node)
        return site.guard.disables if site is not None else False

    def mode_at(self, node: cst.CSTNode, _seen: FrozenSet[int] = frozenset()) -> Mode:
        """The grad mode ``node`` runs in, callers and frameworks included."""
        site = self.guard_at(node)
        if site is not None:
            return Mode(site.guard.disables, site, "guard")
        if self.module_grad_off():
            return Mode(True, None, "module")
        func = self.tree.enclosing_function(node)
        if func is None:
            return Mode(False, None, "default")
        return self.entry_mode(func, _seen)

    def entry_mode(self, func: cst.FunctionDef, _seen: FrozenSet[int] = frozenset()) -> Mode:
        """The mode ``func`` is entered with: no_grad when a framework calls it so, when
        it is wrapped in a guard after the fact, or when every call site of it in
        this file (at least one) runs under no_grad; else on (False)."""
        if not _seen:
            found = self._entry_modes.get(id(func))
            if found is None:
                found = self._entry_modes[id(func)] = self._entry_mode(func, _seen)
            return found
        return self._entry_mode(func, _seen)

    def _entry_mode(self, func: cst.FunctionDef, _seen: FrozenSet[int]) -> Mode:
        if self.framework_hook(func) is not None:
            return Mode(True, None, "framework")
        if self._wrapped_by_guard(func):
            return Mode(True, None, "wrapped")
        if id(func) in _seen or len(_seen) > 6:
            return Mode(False, None, "default")
        sites = self.model.calls.call_sites(func)
        if sites is not None and not sites:
            return self._project_entry_mode(func)
        if not sites:
            return Mode(False, None, "default")
        seen = _seen | {id(func)}
        if all(self.mode_at(call, seen).disabled is True for call in sites):
            return Mode(True, None, "callers")
        return Mode(False, None, "default")

    def _project_entry_mode(self, func: cst.FunctionDef) -> Mode:
        """A function this file never calls, entered as the other files of the run
        call it: no_grad when every call site of its name there (at least one) runs
        under a no_grad guard (``semantic.project``)."""
        if func.name.value not in ("forward", "__call__", "__init__"):
            total, disabled = self.project_call_counts(func)
            if total and total == disabled:
                return Mode(True, None, "project")
        return Mode(False, None, "default")

    def project_call_counts(self, func: cst.FunctionDef) -> Tuple[int, int]:
        """(call sites, of them under no_grad) of ``func`` in the other files of the
        project index: a method's by its name (``x.act(...)``, whatever ``x`` is); a
        function's where the call resolves to it (``predict(x)`` imported from this
        module, ``cli.predict(x)``), not a method that shares its name."""
        index = self.model.project
        if index is None:
            return 0, 0
        if self.tree.method_class(func) is not None:
            return index.call_counts(func.name.value, self.model.path)
        return index.function_call_counts(func.name.value, self.model.path)

    def script_runs_without_grad(self, func: cst.FunctionDef) -> bool:
        """A module-level function that nothing calls, of a script whose module-level
        code runs the file's functions only under a no_grad guard (``with
        torch.no_grad(): export_2("v4")``, an ``if __name__ == "__main__":`` block
        inside one): the script's guarded entry is the only place it is written to
        run from (its call there commented out), so grad mode is not proven on.
        Not proven off either: a rule may stay silent on it, not report from it,
        so it is no part of ``entry_mode``."""
        if self.tree.parent(func) is not self.model.module:
            return False
        if self.model.calls.call_sites(func) != []:
            return False
        if self.project_call_counts(func)[0]:
            return False
        if self._script_entry_off is None:
            defined = {s.name.value for s in self.model.module.body if isinstance(s, cst.FunctionDef)}
            calls = [
                n
                for stmt in self.model.module.body
                if type(stmt) not in (cst.FunctionDef, cst.ClassDef)
                for n in walk(stmt)
                if type(n) is cst.Call and type(n.func) is cst.Name and n.func.value in defined
            ]
            self._script_entry_off = bool(calls) and all(self.mode_at(c).disabled is True for c in calls)
        return self._script_entry_off

    def runs_without_grad(self, node: cst.CSTNode) -> bool:
        """Whether gradients are certainly off when ``node`` runs."""
        return self.mode_at(node).disabled is True

    def always_called_without_grad(self, func: cst.FunctionDef) -> bool:
        return self.entry_mode(func).disabled is True

    def callers_keep_grad_off(self, func: cst.FunctionDef) -> bool:
        """Whether every caller of ``func`` that the file and the project index show
        runs it with grad already off, and at least one is shown: a framework's
        no_grad hook, a guard wrapped round it after the fact, or call sites each
        under no_grad, ``inference_mode`` or a ``set_grad_enabled(False)`` statement
        (their callers' modes counted, as ``entry_mode`` does). A method counts only
        when a call of this file is proven to reach it (``self.f(...)`` in its class,
        an instance of the class's ``obj.f(...)``): a method of its name on another
        object proves nothing about who calls this one. Code that switches grad off
        there leaves the mode as its caller had it."""
        mode = self.entry_mode(func)
        if mode.disabled is not True:
            return False
        if mode.reason in ("framework", "wrapped"):
            return True
        total, disabled = self.project_call_counts(func)
        if total != disabled:
            return False  # ``entry_mode`` asks the other files only when this one never calls it
        if self.tree.method_class(func) is None:
            return True
        calls = self.model.calls
        return any(func in _reached(calls, site) for site in calls.call_sites(func) or ())

    def framework_hook(self, func: cst.FunctionDef) -> Optional[str]:
        """The framework that calls the method ``func`` under no_grad, if one does."""
        cls = self.tree.method_class(func)
        if cls is None:
            return None
        name = func.name.value
        for hooks in NO_GRAD_HOOKS:
            if hooks.runs(name) and self.model.modules.derives_from(cls, hooks.bases, hooks.base_names):
                return hooks.framework
        return None

    def is_lightning_eval_hook(self, func: cst.FunctionDef) -> bool:
        return self.framework_hook(func) is not None

    def _wrapped_by_guard(self, func: cst.FunctionDef) -> bool:
        """``evaluate = torch.no_grad()(evaluate)``: decorated after the fact."""
        names, _ = self.model.calls.references()
        for ref in names.get(func.name.value, []):
            arg = self.tree.parent(ref)
            call = self.tree.parent(arg) if isinstance(arg, cst.Arg) else None
            if isinstance(call, cst.Call) and isinstance(call.func, cst.Call):
                g = self.guard(call.func)
                if g is not None and g.disables is True:
                    return True
        return False

    def module_grad_off(self) -> bool:
        """Whether the module switches gradients off for the whole program with a
        top-level ``torch.set_grad_enabled(False)`` statement (and never back on)."""
        if self._module_grad_off is None:
            switches = [g for g in map(self.global_switch, self.model.module.body) if g is not None]
            self._module_grad_off = bool(switches) and all(g.disables is True for g in switches)
        return self._module_grad_off

    def computed_under(self, value: cst.BaseExpression, use: cst.CSTNode) -> Mode:
        """The mode ``value`` (an expression read at ``use``) was computed in: for a
        name, the mode at every binding that may reach the use, when they agree;
        for any other expression, the mode at ``use``."""
        if not isinstance(value, cst.Name):
            return self.mode_at(use)
        reaching = self.model.scopes.reaching(value)
        if reaching.unbound or not reaching.bindings:
            return Mode(None)
        modes = [self.mode_at(b.node) for b in reaching.bindings if b.node is not None]
        disabled = {m.disabled for m in modes}
        if len(disabled) != 1:
            return Mode(None)
        return Mode(disabled.pop(), next((m.site for m in modes if m.site is not None), None))

    # -- what needs gradients --------------------------------------------------------------

    def may_compute_gradients(self, func: cst.FunctionDef) -> bool:
        """Whether running ``func`` may compute or request gradients: its own body does
        (``needs_gradients``), or it calls a function of this file that may, a module
        of this file whose ``forward`` may, or one of its parameters that is not
        evidently a module (a callback's ``model`` may be a training step:
        ``modules.callers_pass_modules``) or is bound to such a module. Callees
        defined elsewhere are not known and not counted."""
        found = self._computes.get(id(func))
        if found is None:
            self._computes[id(func)] = False  # recursion
            found = self.needs_gradients(func.body) or any(
                isinstance(n, cst.Call) and self._call_may_compute(n) for n in walk(func.body)
            )
            self._computes[id(func)] = found
        return found

    def _call_may_compute(self, call: cst.Call) -> bool:
        local = self.model.calls.local_function(call)
        if local is not None:
            return self.may_compute_gradients(local)
        methods = self._methods(call)
        if methods is not None and any(self.may_compute_gradients(m) for m in methods):
            return True
        modules = self.model.modules
        func = call.func
        if isinstance(func, (cst.Name, cst.Attribute, cst.Call)):
            forward = modules.forward_method(func)
            if forward is not None:
                return self.may_compute_gradients(forward)
        if isinstance(func, cst.Name):
            binding = self.model.scopes.reaching_binding(func)
            if binding is not None and binding.form == "param" and isinstance(binding.node, cst.Param):
                if modules.callers_pass_modules(binding.node) is False:
                    return True
                # a module of this file whose forward trains (a step wrapped as a module)
                for arg in modules.passed_for(binding.node) or ():
                    forward = modules.forward_method(arg) if arg is not None else None
                    if forward is not None and self.may_compute_gradients(forward):
                        return True
        return False

    def _methods(self, call: cst.Call) -> Optional[List[cst.FunctionDef]]:
        """The methods of this file's classes that ``obj.meth(...)`` may run: those of
        the classes ``obj`` is known to hold an instance of, else (what ``obj`` holds
        is not known) every method of that name in the file's classes. None for a call
        of no such method."""
        func = call.func
        if not isinstance(func, cst.Attribute) or func.attr.value.startswith("__"):
            return None
        calls = self.model.calls
        known = calls.methods_called(call)
        if known is not None:
            return known
        receiver = func.value
        while isinstance(receiver, (cst.Attribute, cst.Subscript, cst.Call)):
            receiver = receiver.func if isinstance(receiver, cst.Call) else receiver.value
        if (
            func.attr.value in _MODULE_METHODS
            or isinstance(receiver, cst.Name) and self.model.names.is_imported(receiver)
            or self.model.modules.is_module(func.value)
        ):
            return None  # ``model.train()``, ``torch.cuda.synchronize()``: not a method of the file
        return calls.methods_named(func.attr.value) or None

    def call_may_train(self, call: cst.Call) -> bool:
        """Whether the function or method of this file that ``call`` runs (a method
        through an instance of a class of the file, or a parameter annotated with
        one; a method of that name of any class of the file where the instance is
        not known) may, directly or through what it calls, compute gradients, step
        an optimizer, put a module back in training mode (``.train()``) or switch
        gradients on (``torch.set_grad_enabled(True)``, ``torch.enable_grad()``):
        code that trains, which a guard around the call would break."""
        if self._call_may_compute(call):
            return True
        local = self.model.calls.local_function(call)
        callees = [local] if local is not None else (self._methods(call) or [])
        return any(self._may_train(f) for f in callees)

    def _may_train(self, func: cst.FunctionDef) -> bool:
        found = self._trains.get(id(func))
        if found is None:
            self._trains[id(func)] = False  # recursion
            found = self.may_compute_gradients(func) or any(
                isinstance(n, cst.Call) and (self._switches_training_on(n) or self.call_may_train(n))
                for n in walk(func.body)
            )
            self._trains[id(func)] = found
        return found

    def _switches_training_on(self, call: cst.Call) -> bool:
        func = call.func
        if isinstance(func, cst.Attribute) and func.attr.value == "train":
            mode = call_arg(call, 0, "mode")
            return mode is None or bool_value(mode.value) is not False
        g = self.guard(call)
        return g is not None and g.disables is False

    def needs_gradients(self, node: cst.CSTNode) -> bool:
        """Whether code under ``node`` (not nested functions) computes or requests gradients."""
        names = self.model.names
        calls = self.model.calls
        for sub in walk(node):
            kind = type(sub)
            # Exact types first: most nodes are neither, and an isinstance() against a
            # LibCST node class (an ABC) is a Python-level call.
            if kind is not cst.Call and kind is not cst.Assign and kind is not cst.AnnAssign:
                continue
            if isinstance(sub, cst.Call):
                if calls.is_backward_call(sub):
                    return True  # ``fabric.backward(loss)``, ``self.manual_backward(loss)`` too
                func = sub.func
                if isinstance(func, cst.Attribute):
                    attr = func.attr.value
                    if attr == "step" and (
                        is_optimizer_name(func.value) or any(is_optimizer_name(a.value) for a in sub.args)
                    ):
                        return True
                    if attr == "requires_grad_":
                        flag = call_arg(sub, 0, "requires_grad")
                        if flag is None or bool_value(flag.value) is not False:
                            return True
                qualified = (
                    names.qualnames_in(func, TORCH)
                    if self._may_name_autograd and isinstance(func, (cst.Name, cst.Attribute))
                    else frozenset()
                )
                if qualified & AUTOGRAD_GRAD or any(n.startswith("torch.autograd.functional.") for n in qualified):
                    return True
                flag = call_arg(sub, None, "requires_grad")
                if flag is not None and bool_value(flag.value) is not False:
                    return True
            elif isinstance(sub, (cst.Assign, cst.AnnAssign)) and sub.value is not None:
                targets = [t.target for t in sub.targets] if isinstance(sub, cst.Assign) else [sub.target]
                for t in targets:
                    if isinstance(t, cst.Attribute) and t.attr.value == "requires_grad":
                        if bool_value(sub.value) is not False:
                            return True
        return False


def _reached(calls: "Calls", site: cst.Call) -> List[cst.FunctionDef]:
    """The methods of the file that ``site`` is proven to call."""
    local = calls.local_function(site)
    return [local] if local is not None else calls.methods_called(site) or []
