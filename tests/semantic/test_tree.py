"""The tree facts (``gradlint.semantic.tree``): parents, order, spans, enclosing nodes."""

from __future__ import annotations

import libcst as cst
from marks import context

from gradlint.semantic.tree import walk

SOURCE = """\
class C:
    def m(self, xs):
        for x in xs:
            while x:
                y = f(x)
        return lambda: g(y)
"""


def _find(ctx, cls, text=None):
    return next(n for n in walk(ctx.module, True) if isinstance(n, cls) and (text is None or ctx.code_for(n) == text))


def test_enclosing_nodes():
    ctx = context(SOURCE)
    tree = ctx.tree
    call = _find(ctx, cst.Call, "f(x)")
    inner = _find(ctx, cst.Call, "g(y)")
    cls, func = _find(ctx, cst.ClassDef), _find(ctx, cst.FunctionDef)
    assert tree.enclosing_function(call) is func
    assert tree.enclosing_function(inner) is None  # inside a lambda
    assert tree.enclosing_class(call) is cls
    assert tree.method_class(func) is cls
    assert isinstance(tree.enclosing_loop(call), cst.While)
    assert tree.enclosing_loop(inner) is None
    assert isinstance(tree.enclosing_statement(call), cst.SimpleStatementLine)
    assert isinstance(tree.function_scope(inner), cst.Lambda)
    assert tree.function_scope(call) is func
    assert tree.is_inside(func, call) and not tree.is_inside(call, func)


def test_order_and_spans():
    ctx = context(SOURCE)
    tree = ctx.tree
    call = _find(ctx, cst.Call, "f(x)")
    ret = _find(ctx, cst.Return)
    assert tree.ends_before(call, ret) and not tree.ends_before(ret, call)
    assert not tree.ends_before(_find(ctx, cst.While), call)  # the loop holds the call
    assert tree.span(call) == ((5, 20), (5, 24))
    assert tree.line(ret) == 6
    assert tree.parent(cst.Name("elsewhere")) is None
