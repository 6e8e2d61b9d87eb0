"""GL105 global-grad-switch: a bare ``torch.set_grad_enabled(False)`` in a function
switches autograd off for the rest of the thread, not for the function."""

from __future__ import annotations

import builtins
from typing import Dict, FrozenSet, List, Optional, Sequence, Set, Union, cast

import libcst as cst

from gradlint.rule import Rule
from gradlint.semantic import bounds
from gradlint.semantic.test_code import computes_gradients, in_test_module
from gradlint.semantic.torch_api import OPTIMIZER_PREFIX, SCHEDULER_PREFIX
from gradlint.semantic.tree import walk

# A program's entry point may switch gradients off for the whole run: that is
# what the statement does, so it is not a leak there. A script's function that
# its ``__main__`` block calls last is an entry point too (``semantic.calls``).
_ENTRY_POINTS = frozenset({"main", "__main__"})

# Grad mode is per thread: a process's or a thread's ``run`` (or ``target=``) owns its thread.
_PROCESS = frozenset(
    {"multiprocessing.Process", "torch.multiprocessing.Process", "multiprocessing.context.Process", "threading.Thread"}
)

# What registers a command-line command, and what makes a group (or app) of them.
_CLI_COMMAND = frozenset({"click.command", "click.decorators.command"})
_CLI_GROUP = frozenset({"click.group", "click.decorators.group"})
_CLI_APPS = frozenset({"click.Group", "click.core.Group", "typer.Typer", "typer.main.Typer"})

# What an optimizer proven by its constructor does that trains.
_OPTIMIZER_METHODS = frozenset({"step", "zero_grad"})
_OPTIMIZER_BASES = frozenset({"torch.optim.Optimizer", "torch.optim.optimizer.Optimizer"})

_BUILTINS = frozenset(dir(builtins))


class GlobalGradSwitch(Rule):
    code = "GL105"
    triggers = ("set_grad_enabled",)

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        sem = self.ctx.semantic
        switch = sem.gradmode.global_switch(node)
        if switch is None or switch.disables is not True:
            return
        func = sem.tree.enclosing_function(node)
        if func is None or func.name.value in _ENTRY_POINTS or sem.calls.is_script_entry(func):
            return
        if self._switched_back(func, node):
            return
        small = node.body[0]
        if isinstance(small, cst.Assign) and self._used_later(func, small):
            return  # ``ctx = set_grad_enabled(False)`` ... ``with ctx:`` restores the mode on exit
        # The premises below are proven from the code, not guessed; the preview
        # tier reports these switches too, for whoever wants every switch seen.
        if not self.preview and (
            self._switched_on_before(func, node)
            or self._class_switches_on_for_updates(func)
            or self._cli_command(func)
            or self._process_thread(func)
            or sem.calls.is_fire_command(func)
            # Every caller already runs it with grad off (a guard whose exit restores
            # the caller's mode, a framework's no_grad hook): the switch leaves the mode
            # as the caller had it.
            or sem.gradmode.callers_keep_grad_off(func)
            or self._followed_by_grad_free(func, 0, set())
            # A test module's setUp or test leaves the rest of the thread to the test
            # runner; only a backward in the same file proves later work needs grad.
            or (in_test_module(sem) and not computes_gradients(sem))
        ):
            return
        # ``global_switch`` found the call as this statement's value (an ``Expr`` or ``Assign``).
        call = cast(Union[cst.Expr, cst.Assign], small).value
        self.report(call, call=self.ctx.code_for(call), func=func.name.value)

    def _used_later(self, func: cst.FunctionDef, assign: cst.Assign) -> bool:
        names = {t.target.value for t in assign.targets if isinstance(t.target, cst.Name)}
        targets = {id(t.target) for t in assign.targets}
        return any(
            isinstance(n, cst.Name) and n.value in names and id(n) not in targets for n in walk(func.body)
        )

    def _switched_back(self, func: cst.FunctionDef, switch: cst.SimpleStatementLine) -> bool:
        """A later ``torch.set_grad_enabled(True)`` / ``(prev)`` statement in the function:
        the author restores the mode (hopefully in a ``finally``)."""
        sem = self.ctx.semantic
        seen = False
        for node in walk(func.body):
            if node is switch:
                seen = True
            elif seen and isinstance(node, cst.SimpleStatementLine):
                g = sem.gradmode.global_switch(node)
                if g is not None and g.disables is not True:
                    return True
        return False

    def _switched_on_before(self, func: cst.FunctionDef, switch: cst.SimpleStatementLine) -> bool:
        """A ``torch.set_grad_enabled(True)`` statement earlier in the same function
        (``update_net`` switching on for its optimizer steps, a loop switching on
        around each update): the False then restores the mode the function's own
        protocol expects its caller to have, and nothing shows a caller with grad on.
        Not for a method of a class that may be an ``nn.Module``: its methods run in
        forwards, and training calls those with grad on (a denoiser switching on for
        ``autograd.grad`` and back off leaves its trainer's thread without grad)."""
        sem = self.ctx.semantic
        cls = sem.tree.method_class(func)
        if cls is not None and not sem.modules.not_module_class(cls):
            return False
        for node in walk(func.body):
            if node is switch:
                return False
            if isinstance(node, cst.SimpleStatementLine) and sem.gradmode.global_switch(node) is not None:
                g = sem.gradmode.global_switch(node)
                if g is not None and g.disables is False:
                    return True
        return False

    # -- a class that keeps grad off outside its updates ------------------------------

    def _class_switches_on_for_updates(self, func: cst.FunctionDef) -> bool:
        """``evaluate`` of a trainer whose ``optimize``, its way to a backward, switches
        grad on first: each other method of the class that code outside it may call
        (not called as ``self.<name>(...)`` by its own methods) and that may reach a
        backward or an optimizer step switches grad on, as a statement of its body,
        before it does; at least one does. The class's protocol is grad off outside
        its updates, as premise 1's for one function. Not for a class that may be an
        ``nn.Module`` (its methods run in forwards that training calls with grad on),
        nor one with bases (their methods are not seen here)."""
        sem = self.ctx.semantic
        cls = sem.tree.method_class(func)
        if cls is None or any(not (isinstance(b.value, cst.Name) and b.value.value == "object") for b in cls.bases):
            return False
        if not sem.modules.not_module_class(cls):
            return False
        methods = {s.name.value: s for s in cls.body.body if isinstance(s, cst.FunctionDef)}
        called_on_self = {
            n.func.attr.value
            for m in methods.values()
            for n in walk(m.body, into_functions=True)
            if isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute) and _on_self(n.func)
        }
        updates = 0
        for name, method in methods.items():
            if method is func or name in called_on_self:
                continue
            first = self._switch_on_first(method, methods)
            if first is False:
                return False
            updates += first is True
        return updates > 0

    def _switch_on_first(self, method: cst.FunctionDef, methods: Dict[str, cst.FunctionDef]) -> Optional[bool]:
        """True when a ``set_grad_enabled(True)`` statement of ``method``'s body comes
        before anything that may train; False when something that may train comes
        first; None when nothing in it may train."""
        sem = self.ctx.semantic
        seen: Set[int] = {id(method)}
        for stmt in method.body.body if isinstance(method.body, cst.IndentedBlock) else ():
            if isinstance(stmt, cst.SimpleStatementLine):
                g = sem.gradmode.global_switch(stmt)
                if g is not None and g.disables is False:
                    return True
            if any(isinstance(n, cst.Call) and self._may_train(n, methods, seen) for n in walk(stmt, into_functions=True)):
                return False
        return None

    def _may_train(self, call: cst.Call, methods: Dict[str, cst.FunctionDef], seen: Set[int]) -> bool:
        """A backward (``semantic.calls``), ``step``/``zero_grad`` of an optimizer proven
        by its constructor (any arguments), or a method of the class or function of the
        file that calls one. Not a method judged by its name (``env.step(action)``,
        ``fit``, ``.train()``): the preview tier, which reports without this premise,
        needs none."""
        sem = self.ctx.semantic
        if sem.calls.is_backward_call(call):
            return True
        func = call.func
        if isinstance(func, cst.Attribute):
            name = func.attr.value
            if name in _OPTIMIZER_METHODS and self._proven_optimizer(func.value, 0):
                return True
            called = methods.get(name) if _on_self(func) else None
        else:
            called = sem.calls.local_function(call)
        if called is None or id(called) in seen:
            return False
        seen.add(id(called))
        return any(isinstance(n, cst.Call) and self._may_train(n, methods, seen) for n in walk(called.body, into_functions=True))

    def _proven_optimizer(self, ref: cst.BaseExpression, depth: int) -> bool:
        """Whether ``ref`` (a name, ``self.<attr>``) certainly holds an optimizer: every
        value it is assigned is built by a ``torch.optim`` class (not a scheduler) or by
        a class of the file that derives from ``torch.optim.Optimizer``."""
        sem = self.ctx.semantic
        built = sem.modules.assigned_values(ref)
        return bool(built) and all(self._builds_optimizer(v, depth) for v in built)

    def _builds_optimizer(self, value: cst.BaseExpression, depth: int) -> bool:
        if not (isinstance(value, cst.Call) and isinstance(value.func, (cst.Name, cst.Attribute))):
            return False
        sem = self.ctx.semantic
        names = sem.names.qualnames(value.func)
        if any(q.startswith(OPTIMIZER_PREFIX) and not q.startswith(SCHEDULER_PREFIX) and q[len(OPTIMIZER_PREFIX) :][:1].isupper() for q in names):
            return True
        cls = sem.calls._class_named(value.func, value)
        return cls is not None and self._derives(cls, _OPTIMIZER_BASES, depth)

    def _derives(self, cls: cst.ClassDef, bases: FrozenSet[str], depth: int = 0) -> bool:
        """Whether ``cls`` derives from one of ``bases``, through classes of the file."""
        if depth > bounds.SEARCH_BASE_LEVELS:
            return False
        sem = self.ctx.semantic
        for base in cls.bases:
            if sem.names.refers_to(base.value, bases):
                return True
            parent = sem.calls._class_named(base.value, cls)
            if parent is not None and self._derives(parent, bases, depth + 1):
                return True
        return False

    # -- a command-line command ---------------------------------------------------------

    def _cli_command(self, func: cst.FunctionDef) -> bool:
        """A module-level function registered as a ``click`` or ``typer`` command
        (``@click.command()``, ``@cli.command()`` on a ``@click.group()``, ``@app.command()``
        on ``app = typer.Typer()``) that nothing of the file or of the project index
        calls as a function: the command is the process's whole work, as a script's
        entry point is, and the process ends when it returns."""
        sem = self.ctx.semantic
        if sem.tree.enclosing_function(func) is not None or sem.tree.enclosing_class(func) is not None:
            return False
        if not any(self._registers_command(d.decorator, func, 0) for d in func.decorators):
            return False
        if sem.calls.call_sites(func):
            return False
        return sem.gradmode.project_call_counts(func)[0] == 0

    def _registers_command(self, decorator: cst.BaseExpression, at: cst.CSTNode, depth: int) -> bool:
        """``click.command()``, or ``<group>.command()`` of a click group or typer app."""
        target = decorator.func if isinstance(decorator, cst.Call) else decorator
        sem = self.ctx.semantic
        if sem.names.refers_to(target, _CLI_COMMAND):
            return True
        if not (isinstance(target, cst.Attribute) and target.attr.value == "command" and isinstance(target.value, cst.Name)):
            return False
        return self._cli_group(target.value, at, depth)

    def _cli_group(self, name: cst.Name, at: cst.CSTNode, depth: int) -> bool:
        """Every binding of ``name`` is a click group (a ``def`` decorated with
        ``@click.group()`` or ``@<group>.group()``) or builds one (``typer.Typer()``,
        ``click.Group()``)."""
        sem = self.ctx.semantic
        if depth > bounds.SEARCH_BASE_LEVELS:
            return False
        seen = sem.scopes.visible(name.value, at)
        if not seen.bindings or seen.unbound:
            return False
        for b in seen.bindings:
            if isinstance(b.node, cst.FunctionDef):
                if not any(self._makes_group(d.decorator, b.node, depth) for d in b.node.decorators):
                    return False
            elif not (b.kind == "assign" and isinstance(b.value, cst.Call) and sem.names.refers_to(b.value.func, _CLI_APPS)):
                return False
        return True

    def _makes_group(self, decorator: cst.BaseExpression, at: cst.CSTNode, depth: int) -> bool:
        target = decorator.func if isinstance(decorator, cst.Call) else decorator
        if self.ctx.semantic.names.refers_to(target, _CLI_GROUP):
            return True
        return (
            isinstance(target, cst.Attribute)
            and target.attr.value == "group"
            and isinstance(target.value, cst.Name)
            and self._cli_group(target.value, at, depth + 1)
        )

    # -- a process's own thread ----------------------------------------------------

    def _process_thread(self, func: cst.FunctionDef) -> bool:
        """``run`` of a ``multiprocessing.Process`` subclass, or a function given as
        ``target=`` to a Process: the rest of that thread is the child process."""
        sem = self.ctx.semantic
        cls = sem.tree.method_class(func)
        if cls is not None:
            return func.name.value == "run" and self._derives(cls, _PROCESS)
        if sem.tree.enclosing_function(func) is not None or sem.tree.enclosing_class(func) is not None:
            return False
        targets = [
            n
            for n in walk(self.ctx.module, into_functions=True)
            if isinstance(n, cst.Name) and n.value == func.name.value
        ]
        uses = [n for n in targets if n is not func.name]
        if not uses:
            return False
        for use in uses:
            arg = sem.tree.parent(use)
            call = sem.tree.parent(arg) if isinstance(arg, cst.Arg) else None
            if not (
                isinstance(arg, cst.Arg)
                and arg.keyword is not None
                and arg.keyword.value == "target"
                and isinstance(call, cst.Call)
                and self._is_process_ref(call.func)
            ):
                return False  # also called or passed elsewhere: that thread's rest is unknown
        return True

    def _is_process_ref(self, ref: cst.BaseExpression) -> bool:
        sem = self.ctx.semantic
        if sem.names.refers_to(ref, _PROCESS):
            return True
        cls = sem.calls._class_named(ref, ref)
        return cls is not None and self._derives(cls, _PROCESS)

    # -- a script's entry, followed only by work that needs no grad ---------------

    def _followed_by_grad_free(self, func: cst.FunctionDef, depth: int, seen: Set[int]) -> bool:
        """Every call of ``func`` in the file is a statement of the script's
        ``__main__`` block or of an entry function (``main``, the block's last call,
        or one proven so in turn), outside loops, and all that runs after it there
        is code of the file proven not to train."""
        sem = self.ctx.semantic
        if depth > bounds.ENTRY_CALLER_LEVELS or id(func) in seen or sem.calls.main_block() is None:
            return False
        seen.add(id(func))
        if sem.tree.enclosing_function(func) is not None or sem.tree.method_class(func) is not None:
            return False
        sites = sem.calls.call_sites(func)
        if not sites:
            return False
        block = sem.calls.main_block()
        for site in sites:
            outer = sem.tree.enclosing_function(site)
            if outer is None:
                if block is None or not sem.tree.is_inside(block, site):
                    return False
            elif not (
                outer.name.value in _ENTRY_POINTS
                and sem.tree.enclosing_function(outer) is None
                and sem.tree.method_class(outer) is None
                or sem.calls.is_script_entry(outer)
                or sem.calls.is_fire_command(outer)
                or self._followed_by_grad_free(outer, depth + 1, seen)
            ):
                return False
            root: Optional[cst.CSTNode] = block if outer is None else outer
            if root is None:
                return False
            later = self._statements_after(site, root)
            if later is None or not self._grad_free(later, set()):
                return False
        return True

    def _statements_after(self, site: cst.CSTNode, root: cst.CSTNode) -> Optional[List[cst.CSTNode]]:
        """The statements that run after the one holding ``site``, up to the end of
        ``root``; None when a loop around the call runs its body again."""
        sem = self.ctx.semantic
        later: List[cst.CSTNode] = []
        cur: cst.CSTNode = site
        parent = sem.tree.parent(cur)
        while parent is not None and cur is not root:
            if isinstance(parent, (cst.For, cst.While)):
                return None
            if isinstance(parent, cst.Lambda):
                return None
            body: Sequence[cst.CSTNode] = ()
            if isinstance(parent, (cst.IndentedBlock, cst.Module)):
                body = parent.body
            if body:
                idx = next((i for i, s in enumerate(body) if s is cur), None)
                if idx is not None:
                    later.extend(body[idx + 1 :])
            cur, parent = parent, sem.tree.parent(parent)
        return later

    def _grad_free(self, nodes: Sequence[cst.CSTNode], seen: Set[int]) -> bool:
        sem = self.ctx.semantic
        for stmt in nodes:
            for node in walk(stmt):
                if isinstance(node, cst.SimpleStatementLine):
                    g = sem.gradmode.global_switch(node)
                    if g is not None and g.disables is not True:
                        return False  # switches grad on: the code expects training there
                if not isinstance(node, cst.Call):
                    continue
                if not self._call_grad_free(node, seen):
                    return False
        return True

    def _call_grad_free(self, call: cst.Call, seen: Set[int]) -> bool:
        sem = self.ctx.semantic
        if sem.calls.is_backward_call(call):
            return False
        func = call.func
        local = sem.calls.local_function(call)
        if local is not None:
            return self._body_grad_free(local, seen)
        if sem.calls.may_train(call):
            return False  # after training, the grad mode a switch left behind matters
        if isinstance(func, cst.Attribute):
            name = func.attr.value
            if name == "train" and (not call.args or self._truthy(call.args[0].value)):
                return False
            methods = sem.calls.methods_called(call)
            if methods is None:
                methods = sem.calls.methods_named(name)
            return all(self._body_grad_free(m, seen) for m in methods)
        if isinstance(func, cst.Name):
            if sem.names.is_imported(func):
                return False  # imported work: what it does is not known here
            cls = sem.calls._class_named(func, call)
            if cls is not None:
                init = sem.calls._method_of(cls, "__init__", 0)
                return init is None or self._body_grad_free(init, seen)
            if func.value in sem.names.index.defined:
                return False  # a function of the file that is not resolved to one ``def``
            if func.value in _BUILTINS:
                return True
            # a parameter or local value called (``agent_class(...)``): a constructor
            # passed in; a star import may bind anything, though
            return not sem.names.index.star_modules
        return True

    def _body_grad_free(self, func: cst.FunctionDef, seen: Set[int]) -> bool:
        if id(func) in seen:
            return True
        seen.add(id(func))
        return self._grad_free([func.body], seen)

    @staticmethod
    def _truthy(expr: cst.BaseExpression) -> bool:
        return not (isinstance(expr, cst.Name) and expr.value in ("False", "None"))


def _on_self(attr: cst.Attribute) -> bool:
    return isinstance(attr.value, cst.Name) and attr.value.value == "self"
