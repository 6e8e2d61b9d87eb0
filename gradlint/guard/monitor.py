"""The torch side of the guard: global module hooks, saved-tensor hooks, a function mode.

Mechanisms (their limits are listed in docs/guard.md):

* Every *outermost* call of a module that has parameters, made with gradients
  enabled, is a forward event. Its saved tensors go through
  ``saved_tensors_hooks`` whose pack hook returns a small holder of
  ``t.detach()`` (never ``t``: a holder of ``t`` makes an uncollectable cycle
  when an op saves its own output). Unique non-parameter storages give the
  bytes saved for backward.
* The output's ``grad_fn`` carries a token in its ``metadata`` dict, which
  lives exactly as long as the C++ node: a weakref to the token says when the
  graph is freed. A pre-hook on the same node, and the unpack hook, say that a
  backward ran through it.
* GL101: an event whose graph is freed and that no backward ran through.
* GL301: when a forward starts while three or more graphs from earlier calls
  at the same line (in the same test) are still alive, something keeps them.
  The user's frames are searched for the local (or attribute of a local) whose
  graph reaches those events; the first statement after the forward call that
  names it is where the accumulation happens. A backward through the kept
  graphs afterwards (gradient accumulation) withdraws the finding.
* GL201/GL202: a ``TorchFunctionMode`` sees in-place ops; an op on a tensor
  that does not require grad but shares the storage of a live saved tensor is
  an edit through an alias. If the saved tensor's version moved, the alias
  shares its version counter (``.detach()``); if not, it is ``.data``.
  Saved-tensor hooks turn off autograd's own version check, so the unpack hook
  raises autograd's RuntimeError itself: code under the guard fails as it does
  without it.
* GL105: ``set_grad_enabled.__init__`` (behind ``torch.set_grad_enabled`` and
  ``no_grad().__enter__``) records where gradients last went from on to off;
  a test that starts with them on and ends with them off is reported there.

The user's frames and sites are ``frames``; what the hooks record,
``records``; the search for who keeps graphs alive, and GL301's finding,
``kept``.
"""

from __future__ import annotations

import contextlib
import gc
import os
import sys
import threading
import weakref
from typing import Any, Callable, Dict, List, Optional, Set, Tuple

import torch
from torch.overrides import TorchFunctionMode

from gradlint.guard.frames import _accumulation_site, _current_statement, _Frames
from gradlint.guard.kept import KeptAlive
from gradlint.guard.records import _META_KEY, _Edit, _Event, _Holder, _Kept, _Token
from gradlint.guard.report import GuardFinding, Site, fmt_bytes

# Graphs from one line alive at once before a forward there counts as accumulation.
KEPT_ALIVE_STEPS = 3
_INPLACE_DUNDERS = frozenset(
    ("__setitem__", "__iadd__", "__isub__", "__imul__", "__itruediv__", "__ifloordiv__", "__imod__", "__ipow__",
     "__iand__", "__ior__", "__ixor__", "__ilshift__", "__irshift__", "__imatmul__")
)


_detach = torch._C.TensorBase.detach


# Trailing-underscore methods that change a tensor's flags, not its values
# (`x.detach().requires_grad_()` makes a new leaf, a common and correct idiom).
_NOT_EDITS = frozenset(("requires_grad_", "detach_", "share_memory_", "rename_", "retain_grad_"))
_OP_NAMES = {"__setitem__": "[...] =", "__iadd__": "+=", "__isub__": "-=", "__imul__": "*=", "__itruediv__": "/="}


class _EditMode(TorchFunctionMode):
    def __init__(self, monitor: "Monitor") -> None:
        super().__init__()
        self.monitor = monitor

    def __torch_function__(self, func, types, args=(), kwargs=None):
        if kwargs is None:
            kwargs = {}
        m = self.monitor
        if not m.saved or not args:
            return func(*args, **kwargs)
        try:
            watch = m.before_edit(func, args)
        except Exception as exc:
            m.note("in-place op", exc)
            watch = None
        result = func(*args, **kwargs)
        if watch is not None:
            try:
                m.edited(*watch)
            except Exception as exc:
                m.note("in-place op", exc)
        return result


class Monitor(KeptAlive):
    """Installs the hooks for a pytest session and turns what they see into findings."""

    def __init__(self) -> None:
        self.frames = _Frames()
        self.findings: List[GuardFinding] = []
        self.test = ""
        self.saved: Dict[int, list] = {}
        self._thread = threading.get_ident()
        self._depth = 0
        self._event: Optional[_Event] = None
        self._hooks_ctx: Optional[torch.autograd.graph.saved_tensors_hooks] = None
        self._site_live: Dict[Tuple[str, Site], Set[_Event]] = {}
        self._unused: Dict[Tuple[str, Site], List[int]] = {}  # (test, site) -> [count, bytes]
        self._kept: Dict[Tuple[str, Site], _Kept] = {}
        self._edits: List[_Edit] = []
        self._last_disable: Optional[Site] = None
        self._grad_at_start = True
        self._mode: Optional[_EditMode] = None
        self._handles: list = []
        self._orig_init: Optional[Callable] = None
        self._patched: Dict[str, Any] = {}
        self._aliases: List[Tuple[Any, int]] = []
        # Regions the guard does not watch (torch.func transforms, torch.compile): how often it stepped aside.
        self.stepped_aside: Dict[str, int] = {}
        # Exceptions raised inside the guard's own hooks, swallowed: (where, what) -> count.
        self.notes: Dict[Tuple[str, str], int] = {}
        self._orig_disable: Optional[Callable] = None
        self._disable_wrapper: Optional[Callable] = None
        self._orig_has_global_hook: Optional[Callable] = None

    def note(self, where: str, exc: BaseException) -> None:
        """Records an exception of the guard's own: the code under test never sees it."""
        key = (where, f"{type(exc).__name__}: {str(exc).splitlines()[0][:200] if str(exc) else ''}")
        self.notes[key] = self.notes.get(key, 0) + 1

    def _step_aside(self, why: str) -> None:
        self.stepped_aside[why] = self.stepped_aside.get(why, 0) + 1

    # --- session ---------------------------------------------------------------------

    def install(self) -> None:
        module = torch.nn.modules.module
        self._handles = [
            module.register_module_forward_pre_hook(self._pre),
            module.register_module_forward_hook(self._post, always_call=True),
        ]
        cls = torch.autograd.grad_mode.set_grad_enabled
        self._orig_init = orig = cls.__init__
        monitor = self

        def __init__(self, mode: bool) -> None:
            was = torch.is_grad_enabled()
            orig(self, mode)
            if was and not mode and not torch.compiler.is_compiling() and threading.get_ident() == monitor._thread:
                try:
                    frame = monitor.frames.user_frame(sys._getframe(1))
                    monitor._last_disable = monitor.frames.site(frame) if frame is not None else None
                except Exception as exc:
                    monitor.note("set_grad_enabled", exc)

        setattr(cls, "__init__", __init__)

        base_detach = torch.Tensor.__dict__["detach"]
        base_data = torch._C.TensorBase.__dict__["data"]

        def detach(tensor):
            alias = base_detach(tensor)
            if monitor.saved and monitor.test:
                try:
                    monitor._alias(tensor, alias)
                except Exception as exc:
                    monitor.note("Tensor.detach", exc)
            return alias

        def get_data(tensor):
            alias = base_data.__get__(tensor)
            if monitor.saved and monitor.test:
                try:
                    monitor._alias(tensor, alias)
                except Exception as exc:
                    monitor.note("Tensor.data", exc)
            return alias

        def set_data(tensor, value) -> None:
            base_data.__set__(tensor, value)

        detach.__doc__ = base_detach.__doc__
        self._patched = {"detach": base_detach, "data": torch.Tensor.__dict__.get("data")}
        setattr(torch.Tensor, "detach", detach)
        setattr(torch.Tensor, "data", property(get_data, set_data, doc=base_data.__doc__))

        # torch.func's transforms refuse to run while any saved-tensor hooks are
        # on (they enter `disable_saved_tensors_hooks`, which raises then): the
        # guard's own hooks are lifted for the transform's duration. The wrapper
        # replaces torch's function only while a watched forward runs: Dynamo
        # recognises the original by identity.
        graph = torch.autograd.graph
        self._orig_disable = orig_disable = graph.disable_saved_tensors_hooks

        @contextlib.contextmanager
        def lifted(error_message: str):
            was_lifted = monitor._lift_hooks()
            try:
                with orig_disable(error_message):
                    yield
            finally:
                if was_lifted:
                    monitor._restore_hooks()

        def disable_saved_tensors_hooks(error_message: str):
            # Under Dynamo the original is what it knows how to trace; outside a
            # watched forward there is nothing to lift.
            if torch.compiler.is_compiling() or monitor._hooks_ctx is None:
                return orig_disable(error_message)
            return lifted(error_message)

        disable_saved_tensors_hooks.__doc__ = orig_disable.__doc__
        self._disable_wrapper = disable_saved_tensors_hooks

        # `torch.compile(module)` warns on every call while any global module hook
        # is registered; the guard steps aside inside compiled modules, so its
        # hooks are not the ones that warning is about.
        self._orig_has_global_hook = orig_has = module._has_any_global_hook

        def _has_any_global_hook():
            if not orig_has():
                return False
            hooks = [*module._global_forward_pre_hooks.values(), *module._global_forward_hooks.values()]
            return (len(hooks) != sum(1 for h in hooks if h == self._pre or h == self._post)
                    or bool(module._global_backward_pre_hooks or module._global_backward_hooks
                            or module._global_forward_hooks_with_kwargs))

        module._has_any_global_hook = _has_any_global_hook

    def uninstall(self) -> None:
        for handle in self._handles:
            handle.remove()
        self._handles = []
        if self._orig_disable is not None:
            torch.autograd.graph.disable_saved_tensors_hooks = self._orig_disable
            self._orig_disable = self._disable_wrapper = None
        if self._orig_has_global_hook is not None:
            torch.nn.modules.module._has_any_global_hook = self._orig_has_global_hook
            self._orig_has_global_hook = None
        for name, original in self._patched.items():
            if original is None:
                delattr(torch.Tensor, name)
            else:
                setattr(torch.Tensor, name, original)
        self._patched = {}
        if self._orig_init is not None:
            setattr(torch.autograd.grad_mode.set_grad_enabled, "__init__", self._orig_init)
            self._orig_init = None

    # --- tests ----------------------------------------------------------------------

    def begin_test(self, test: str) -> None:
        self.test = test
        self._last_disable = None
        self._grad_at_start = torch.is_grad_enabled()

    def end_test(self, test_site: Site) -> None:
        self._aliases = []
        self._pop_mode()
        test = self.test
        if any(k[0] == test and v for k, v in self._site_live.items()):
            # Graphs in reference cycles (a user's own) are freed only by the collector.
            gc.collect()
        if self._grad_at_start and not torch.is_grad_enabled():
            where = "here" if self._last_disable else "during this test (not through `torch.set_grad_enabled`)"
            self._add(GuardFinding(
                "GL105",
                "gradients were enabled when this test started and are still disabled at its end: they were "
                f"switched off {where} and never switched back on, so every later forward in this thread records "
                "nothing and backward fails; use `with torch.no_grad():` or `with torch.set_grad_enabled(False):`",
                self._last_disable or test_site, test,
            ))
        self._flush(test)
        self.test = ""

    def finish(self) -> None:
        if self._site_live:
            gc.collect()
        for test in {k[0] for k in list(self._unused) + list(self._kept)} | {e.test for e in self._edits}:
            self._flush(test, final=True)

    # --- forward events -------------------------------------------------------------

    def _pre(self, module, args) -> None:
        if torch.compiler.is_compiling():
            # Dynamo is tracing this call: nothing here may become part of the graph.
            return
        if threading.get_ident() != self._thread:
            return
        self._depth += 1
        try:
            self._forward_starts(module)
        except Exception as exc:
            self.note("forward pre-hook", exc)

    def _forward_starts(self, module) -> None:
        if self._mode is not None and self._depth == 1 and not self._live_aliases():
            self._pop_mode()
        if self._depth > 1 or not self.test or not torch.is_grad_enabled() or torch.is_inference_mode_enabled():
            return
        why = _unwatchable(module)
        if not why and torch._C._autograd._top_saved_tensors_default_hooks(True) is not None:
            # The code's own saved-tensor hooks (activation checkpointing, offloading):
            # the guard's on top of them would take the tensors they are there to see.
            why = "saved-tensor hooks"
        if why:
            self._step_aside(why)
            return
        try:
            params = {p.untyped_storage().data_ptr() for p in module.parameters() if p.requires_grad}
        except (RuntimeError, NotImplementedError):
            # Parameters without a storage of their own (functorch wrappers, fakes).
            self._step_aside("torch.func")
            return
        if not params:
            # A parameter-free module (a loss, an activation) records a graph only
            # because its input has one: the waste belongs to the forward upstream.
            return
        frame = self.frames.user_frame(sys._getframe(2))
        if frame is None:
            return
        event = _Event(self.frames.site(frame), self.test, params)
        live = self._site_live.get((self.test, event.site))
        if live and len(live) >= KEPT_ALIVE_STEPS and (self.test, event.site) not in self._kept:
            try:
                self._detect_kept(event, list(live), frame)
            except Exception as exc:  # a user's object that fails on inspection must not fail the forward
                self.note("holder search", exc)
        elif live and (self.test, event.site) in self._kept:
            kept = self._kept[(self.test, event.site)]
            kept.steps = max(kept.steps, len(live))
        ctx = torch.autograd.graph.saved_tensors_hooks(self._pack, self._unpack)
        ctx.__enter__()
        self._event, self._hooks_ctx = event, ctx
        if self._disable_wrapper is not None:
            torch.autograd.graph.disable_saved_tensors_hooks = self._disable_wrapper

    def _lift_hooks(self) -> bool:
        """Takes the guard's saved-tensor hooks off the stack when they are on top of it (for torch.func)."""
        try:
            if self._hooks_ctx is None or threading.get_ident() != self._thread:
                return False
            top = torch._C._autograd._top_saved_tensors_default_hooks(True)
            if top is None or top[0] != self._pack:
                return False  # a test's own hooks are above ours: torch.func refuses them, as without the guard
            self._hooks_ctx.__exit__(None, None, None)
            self._step_aside("torch.func")
            return True
        except Exception as exc:
            self.note("torch.func entry", exc)
            return False

    def _restore_hooks(self) -> None:
        try:
            if self._hooks_ctx is not None:
                self._hooks_ctx.__enter__()
        except Exception as exc:
            self.note("torch.func exit", exc)
            self._hooks_ctx = None

    def _post(self, module, args, output) -> None:
        if torch.compiler.is_compiling():
            return
        if threading.get_ident() != self._thread:
            return
        self._depth = max(0, self._depth - 1)
        if self._depth or self._event is None:
            return
        event, self._event = self._event, None
        ctx, self._hooks_ctx = self._hooks_ctx, None
        try:
            if self._orig_disable is not None:
                torch.autograd.graph.disable_saved_tensors_hooks = self._orig_disable
            if ctx is not None:
                ctx.__exit__(None, None, None)
            self._forward_ends(event, output)
        except Exception as exc:
            self.note("forward hook", exc)

    def _forward_ends(self, event: "_Event", output) -> None:
        nodes: Dict[int, Any] = {}
        _graph_roots(output, nodes, 3)
        if not nodes:
            return
        key = (event.test, event.site)
        for node in nodes.values():
            token = _Token()
            node.metadata[_META_KEY] = (token, weakref.ref(event))
            event.refs.append(weakref.ref(token, self._node_freed(event)))
            node.register_prehook(self._backward_seen(event))
        event.live_nodes = len(nodes)
        event.kept = self._kept.get(key)
        self._site_live.setdefault(key, set()).add(event)

    @staticmethod
    def _backward_seen(event: _Event):
        def hook(grad_outputs):
            event.used = True

        return hook

    def _node_freed(self, event: _Event):
        def callback(_ref) -> None:
            try:
                freed(event)
            except Exception as exc:
                self.note("graph freed", exc)

        def freed(event: _Event) -> None:
            event.live_nodes -= 1
            if event.live_nodes:
                return
            # The callbacks hold the event: dropping them breaks the event -> ref -> callback cycle.
            event.refs = []
            key = (event.test, event.site)
            live = self._site_live.get(key)
            if live is not None:
                live.discard(event)
                if not live:
                    del self._site_live[key]
            if not event.used and event.saved_bytes and event.kept is None:
                entry = self._unused.setdefault((event.test, event.site), [0, 0])
                entry[0] += 1
                entry[1] += event.saved_bytes

        return callback

    # --- saved tensors --------------------------------------------------------------

    def _pack(self, tensor):
        event = self._event
        try:
            # TensorBase's own detach: the patched one would take this for a user's alias.
            holder = _Holder(_detach(tensor), event)
        except Exception as exc:
            self.note("pack hook", exc)
            return _Holder.bare(tensor)
        if event is None:
            return holder
        try:
            self._count_saved(tensor, holder, event)
        except Exception as exc:
            self.note("pack hook", exc)
        return holder

    def _count_saved(self, tensor, holder: "_Holder", event: "_Event") -> None:
        try:
            ptr = tensor.untyped_storage().data_ptr()
        except (RuntimeError, NotImplementedError):
            return
        if ptr in event.params:
            return
        if ptr not in event.storages:
            event.storages.add(ptr)
            event.saved_bytes += tensor.untyped_storage().nbytes()
        event.live_holders += 1
        refs = self.saved.setdefault(ptr, [])
        refs.append(weakref.ref(holder, self._holder_freed(ptr, event)))

    def _holder_freed(self, ptr: int, event: _Event):
        def callback(ref) -> None:
            try:
                freed(ref)
            except Exception as exc:
                self.note("saved tensor freed", exc)

        def freed(ref) -> None:
            event.live_holders -= 1
            refs = self.saved.get(ptr)
            if refs is not None:
                try:
                    refs.remove(ref)
                except ValueError:
                    pass
                if not refs:
                    del self.saved[ptr]

        return callback

    def _unpack(self, holder):
        tensor = holder.tensor
        try:
            if holder.event is not None:
                holder.event.used = True
            if holder.edits:
                for edit in holder.edits:
                    edit.outcome = "raised" if edit.code == "GL201" else "used"
        except Exception as exc:
            self.note("unpack hook", exc)
        if holder.version is not None and tensor._version != holder.version:
            # Autograd skips its own check when saved-tensor hooks are on; this is its message.
            raise RuntimeError(
                "one of the variables needed for gradient computation has been modified by an inplace "
                f"operation: [{tensor.type()} {list(tensor.shape)}] is at version {tensor._version}; "
                f"expected version {holder.version} instead. Hint: enable anomaly detection to find the "
                "operation that failed to compute its gradient, with torch.autograd.set_detect_anomaly(True)."
            )
        return tensor

    # --- aliases and the edit mode ---------------------------------------------------
    # The mode sees every torch call, which costs a Python call each: it is on only
    # while a `.detach()` or `.data` alias of a live saved tensor exists.

    def _alias(self, tensor, alias) -> None:
        try:
            ptr = tensor.untyped_storage().data_ptr()
        except (RuntimeError, NotImplementedError):
            return
        if ptr not in self.saved:
            return
        self._aliases.append((weakref.ref(alias), ptr))
        if self._mode is None and torch._C._len_torch_function_stack() == 0:
            # Pushed only on an empty stack: a test's own mode must stay on top of ours.
            self._mode = _EditMode(self)
            self._mode.__enter__()

    def _live_aliases(self) -> bool:
        self._aliases = [(r, ptr) for r, ptr in self._aliases if r() is not None and ptr in self.saved]
        return bool(self._aliases)

    def _pop_mode(self) -> None:
        mode, self._mode = self._mode, None
        if mode is None:
            return
        if torch._C._len_torch_function_stack() == 1 and torch._C._get_function_stack_at(0) is mode:
            mode.__exit__(None, None, None)

    def before_edit(self, func, args):
        """(holders, their versions, their values, op) when ``func`` edits in place a tensor saved for backward."""
        name = getattr(func, "__name__", "")
        if not ((name.endswith("_") and not name.endswith("__")) or name in _INPLACE_DUNDERS) or name in _NOT_EDITS:
            return None
        target = args[0]
        if not isinstance(target, torch.Tensor) or target.requires_grad:
            # An edit of a tensor that requires grad is one autograd tracks itself.
            return None
        try:
            refs = self.saved.get(target.untyped_storage().data_ptr())
        except (RuntimeError, NotImplementedError):
            refs = None
        holders = [h for h in (r() for r in refs or ()) if h is not None]
        if not holders:
            return None
        # The values before the edit: whether it changed any is what GL202 can say for sure.
        values = [h.tensor.clone() for h in holders]
        return holders, [h.tensor._version for h in holders], values, _OP_NAMES.get(name, name)

    def edited(self, holders: List[_Holder], before: List[int], values: list, op: str) -> None:
        frame = self.frames.user_frame(sys._getframe(2))
        if frame is None or not self.test:
            return
        site = self.frames.site(frame)
        for holder, version, old in zip(holders, before, values):
            event = holder.event
            if event is None:
                continue
            code = "GL201" if holder.tensor._version != version else "GL202"
            edit = _Edit(code, site, event.site, op, self.test)
            edit.changed, edit.elements = _changed(old, holder.tensor), holder.tensor.numel()
            self._edits.append(edit)
            holder.edits = (holder.edits or []) + [edit]

    # --- kept alive -----------------------------------------------------------------

    def _detect_kept(self, event: _Event, live: List[_Event], frame) -> None:
        kept = _Kept()
        kept.site = kept.forward = event.site
        kept.test = event.test
        kept.events = list(live)
        kept.unused_then = [e for e in live if not e.used]
        kept.steps = len(live)
        kept.bytes_per_step = sum(e.saved_bytes for e in live if e.live_holders) // max(1, len(live))
        for e in live:
            e.kept = kept
        self._kept[(event.test, event.site)] = kept
        wanted = {id(e) for e in live}
        kept.holder, kept.nodes = None, 0
        frames = []
        f = frame
        while f is not None and not self.frames.is_runner(f.f_code):
            # Up to the frame pytest called (the test or a fixture): beyond it lie the
            # runner's frames, and (for a session run inside a test) another test's.
            if self.frames.is_user(f.f_code):
                frames.append(f)
            f = f.f_back
        for f in frames:
            found = self._find_holder(f, wanted)
            if found is not None:
                name, attr, nodes, mock = found
                kept.holder = f"{name}.{attr}" if attr else name
                kept.nodes = nodes
                kept.kind = {"direct": "mock", "container": "mock-in"}.get(mock, "local")
                if mock and (f is not frame or mock == "container"):
                    # The Mock records inside a call the code under test makes: the
                    # test's (or fixture's) statement running it, not a later read of it.
                    site = _current_statement(frames[-1])
                else:
                    site = _accumulation_site(f, attr or name)
                if site is not None:
                    kept.site = site
                return
        # Not in any frame's locals: a module-level or class-level holder, which
        # outlives the test (and, unless emptied, the session).
        seen_modules: Set[int] = set()
        for f in frames:
            module_globals = f.f_globals
            if id(module_globals) in seen_modules:
                continue
            seen_modules.add(id(module_globals))
            found_global = self._find_global_holder(module_globals, wanted)
            if found_global is None:
                continue
            qualified, search, nodes, is_mock = found_global
            kept.holder, kept.nodes = qualified, nodes
            kept.kind = "mock" if is_mock else "global"
            for g in frames:  # the frame whose code names it: where the accumulation is
                if search in g.f_code.co_names:
                    site = _accumulation_site(g, search)
                    if site is not None:
                        kept.site = site
                        break
            return

    # --- findings -------------------------------------------------------------------

    def _add(self, finding: GuardFinding) -> None:
        from gradlint.guard.report import suppressed

        if not suppressed(finding.code, finding.site.path, finding.site.row):
            self.findings.append(finding)

    def _flush(self, test: str, final: bool = False) -> None:
        for key in [k for k in self._unused if k[0] == test]:
            count, total = self._unused.pop(key)
            site = key[1]
            times = "once" if count == 1 else f"{count} times"
            self._add(GuardFinding(
                "GL101",
                f"this forward recorded an autograd graph that was freed without any backward running through it "
                f"({times}; {fmt_bytes(total)} saved for backward in all, parameters not counted): run it under "
                "`torch.no_grad()`",
                site, test, count=count, details={"saved_bytes": total},
            ))
        for key in [k for k in self._kept if k[0] == test]:
            kept = self._kept[key]
            alive = any(e.live_nodes for e in kept.events)
            if alive and not final:
                continue  # still kept (by a fixture or a global): decided when freed or at session end
            del self._kept[key]
            if kept.unused_then and all(e.used for e in kept.unused_then):
                continue  # a backward ran through the kept graphs: gradient accumulation
            self._add(self._kept_finding(kept, test, alive))
        done = [e for e in self._edits if e.test == test]
        self._edits = [e for e in self._edits if e.test != test]
        merged: Dict[Tuple[str, Site], List[_Edit]] = {}
        for edit in done:
            merged.setdefault((edit.code, edit.site), []).append(edit)
        for (code, site), edits in merged.items():
            edit = edits[0]
            outcomes = {e.outcome for e in edits}
            fwd = f"{os.path.basename(edit.forward.path)}:{edit.forward.row}"
            changed = sum(e.changed for e in edits)
            elements = sum(e.elements for e in edits)
            details: Dict[str, Any] = {}
            if code == "GL201":
                outcome = ("backward raised autograd's RuntimeError (modified by an inplace operation)"
                           if "raised" in outcomes else
                           "no backward ran through it; one would raise autograd's RuntimeError")
                via = "a `.detach()` alias"
                details["outcome"] = "raised" if "raised" in outcomes else "not-run"
            else:
                via = "`.data`"
                # The guard cannot rerun backward on the unedited values, so it says
                # what it measured, not that the gradients are wrong.
                if not changed:
                    outcome = "values unchanged (no element differs from what the forward saved)"
                    details["outcome"] = "unchanged"
                elif "used" in outcomes:
                    outcome = (f"changed {changed} of {elements} elements, autograd did not see the edit, "
                               "and backward used the edited values")
                    details["outcome"] = "used"
                else:
                    outcome = (f"changed {changed} of {elements} elements, autograd did not see the edit; "
                               "no backward ran through it")
                    details["outcome"] = "not-run"
                details.update(changed=changed, elements=elements)
            self._add(GuardFinding(
                code,
                f"`{edit.op}` edited, through {via}, a tensor that the forward at {fwd} saved for backward: {outcome}",
                site, test, related=edit.forward, count=len(edits), details=details,
            ))


def _changed(old, new) -> int:
    """Elements of ``new`` that differ from ``old`` (NaN equals NaN: an edit that keeps a NaN changed nothing)."""
    if old.shape != new.shape:
        return new.numel()
    same = old == new
    if old.is_floating_point() or old.is_complex():
        same |= old.isnan() & new.isnan()
    return int((~same).sum())


def _unwatchable(module) -> str:
    """Why the guard must not watch this forward: "torch.func", "compile", or ""."""
    if torch._C._functorch.maybe_current_level() is not None:
        # Inside grad/vmap/jacrev/functional_call under a transform: tensors are
        # wrappers without storages, and the transforms refuse saved-tensor hooks.
        return "torch.func"
    dynamo = sys.modules.get("torch._dynamo.eval_frame")
    if dynamo is not None:
        # Set while compiled code (or code it falls back to) runs.
        if torch._C._dynamo.eval_frame.get_eval_frame_callback() is not None or dynamo._is_in_optimized_module():
            return "compile"
    return ""


def _graph_roots(value, nodes: Dict[int, Any], depth: int) -> None:
    """The ``grad_fn`` of each tensor in a forward's output (a tensor, or nested tuples, lists, dicts)."""
    if isinstance(value, torch.Tensor):
        node = value.grad_fn
        if node is not None:
            nodes[id(node)] = node
    elif depth and isinstance(value, (tuple, list)):
        for item in value:
            _graph_roots(item, nodes, depth - 1)
    elif depth and isinstance(value, dict):
        for item in value.values():
            _graph_roots(item, nodes, depth - 1)
