"""Answers the semantic model keeps per model (a file of many modules rebinds a name
hundreds of times at module level): the same as made afresh, where what is kept
could go stale. Each answer is asked in one model, in order, and of a model made
for it alone (nothing kept yet), and with the keeping switched off."""

from __future__ import annotations

import libcst as cst
from marks import context

from gradlint.semantic import kinds as kinds_mod
from gradlint.semantic.lattice import join
from gradlint.semantic.tree import walk

# ``x`` is read in function bodies, which see every module-level binding of it (one
# tuple, whose join is kept), and in ``inner``, which sees ``outer``'s binding instead.
# ``h`` (a tensor, then ``step()``, whose value reads ``h`` again): asked in ``later``
# first, its join in ``step`` is cut short by the recursion, and is made again in ``again``.
REBOUND = """\
import torch
import torch as th
from torch.autograd import Variable
x = 1
x = 2.0


def f():
    return x + 1


def outer():
    x = torch.zeros(3)

    def inner():
        return x * 2

    return inner


def k():
    return x * 2


h = torch.zeros(3)


def step():
    return torch.zeros(3) + h


h = step()


def again():
    return h, th, Variable


def later():
    return h


def inner():
    import torch as th

    return th.ones(1)
"""


def _reads(ctx):
    return [n for n in walk(ctx.module, into_functions=True) if isinstance(n, cst.Name) and ctx.semantic.scopes.is_read(n)]


def _values(ctx):
    return [(ctx.tree.line(n), n.value, ctx.semantic.values.value(n)) for n in _reads(ctx)]


def _unkept(monkeypatch):
    monkeypatch.setattr(
        kinds_mod.Kinds, "_join_bindings", lambda self, bindings, depth: join(self._binding(b, depth) for b in bindings)
    )


def test_joined_bindings_are_what_joining_gives(monkeypatch):
    kept_ctx = context(REBOUND)
    kept = _values(kept_ctx)
    assert kept_ctx.semantic.values._joined  # the join of the module's bindings was kept
    by_line = {(line, name): v for line, name, v in kept}
    assert by_line[(9, "x")].not_tensor and by_line[(9, "x")].what == "number"
    assert by_line[(16, "x")].is_tensor  # ``outer``'s binding, not the module's
    assert by_line[(22, "x")] == by_line[(9, "x")]
    _unkept(monkeypatch)
    assert _values(context(REBOUND)) == kept


def _call_first(ctx):
    # ``step()`` of ``h = step()`` first: ``h`` in ``step`` is joined while it is in progress
    # (not kept then), and read again in ``again`` and ``later`` once it is done.
    call = next(n for n in walk(ctx.module) if isinstance(n, cst.Call) and getattr(n.func, "value", None) == "step")
    values = ctx.semantic.values
    return [values.value(call)] + [(ctx.tree.line(n), values.value(n)) for n in reversed(_reads(ctx))]


def test_joined_bindings_cut_short_are_joined_again(monkeypatch):
    kept = _call_first(context(REBOUND))
    assert (40, kept[0]) in kept[1:] and kept[0].is_tensor  # ``later``'s ``h``: the tensor or the result of ``step()``
    _unkept(monkeypatch)
    assert _call_first(context(REBOUND)) == kept


def _statements(ctx):
    return [n for n in walk(ctx.module, into_functions=True) if isinstance(n, (cst.SimpleStatementLine, cst.FunctionDef))]


def test_import_facts_kept_per_name():
    # ``th`` is imported at module level and in ``inner``: the statements see different bindings.
    ctx = context(REBOUND)
    names = ctx.semantic.names
    kept = [names.is_imported(n) for n in _reads(ctx)] + [names.torch_ref_at(n) for n in _statements(ctx)]
    fresh = []
    for i in range(len(_reads(ctx))):
        alone = context(REBOUND)
        fresh.append(alone.semantic.names.is_imported(_reads(alone)[i]))
    for i in range(len(_statements(ctx))):
        alone = context(REBOUND)
        fresh.append(alone.semantic.names.torch_ref_at(_statements(alone)[i]))
    assert kept == fresh
    read = dict(zip([(ctx.tree.line(n), n.value) for n in _reads(ctx)], kept))
    assert read[(36, "Variable")] is True and read[(36, "th")] is True and read[(46, "th")] is True
    assert read[(36, "h")] is False
    refs = {ctx.tree.line(n): ref for n, ref in zip(_statements(ctx), kept[len(_reads(ctx)):])}
    assert refs[9] == ("torch", ()) and refs[46] == ("torch", ())


def _leaving_key(routes):
    return [(r.kind, id(r.node)) for r in routes]


def test_leaving_kept_per_function_is_what_a_fresh_model_answers():
    # ``Escape.leaving`` is kept by function: asked again (in another order, after other
    # questions) it is the same list, and each answer is a fresh model's on the same tree.
    from harness import FIX_CORPUS
    from gradlint.rule import FileContext

    leaving_somewhere = 0
    for path in FIX_CORPUS:
        source = path.read_text(encoding="utf-8")
        try:
            module = cst.parse_module(source)
        except cst.ParserSyntaxError:
            continue
        funcs = [n for n in walk(module, into_functions=True) if isinstance(n, cst.FunctionDef)]
        kept = FileContext(str(path), source, module).semantic.escape
        first = [kept.leaving(f) for f in funcs]
        assert [kept.leaving(f) for f in reversed(funcs)] == first[::-1], path
        assert all(kept.leaving(f) is routes for f, routes in zip(funcs, first)), path
        for func, routes in zip(funcs, first):
            fresh = FileContext(str(path), source, module).semantic.escape.leaving(func)
            assert _leaving_key(fresh) == _leaving_key(routes), (path, func.name.value)
            leaving_somewhere += bool(routes)
    assert leaving_somewhere > 50
