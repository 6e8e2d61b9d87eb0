"""Scopes, bindings and reaching definitions (``gradlint.semantic.scopes``).

``# reaches y: 1 3`` marks a read of ``y``: the lines of the bindings that may
reach it, and ``unbound`` where some path reaches it with ``y`` unbound (or
deleted); ``none`` for no binding at all. ``# certain y: 3`` names the line
of the one binding that holds on every path, or ``none``.
"""

from __future__ import annotations

import libcst as cst
import pytest
from marks import context, each, facts, read_on

from gradlint.semantic.tree import walk


def _reaches(ctx, fact):
    name = read_on(ctx, fact.line, fact.subject)
    reaching = ctx.semantic.scopes.reaching(name)
    lines = [str(ctx.tree.line(b.name if b.name is not None else b.node)) for b in reaching.bindings]
    return " ".join(sorted(lines, key=int) + (["unbound"] if reaching.unbound else [])) or "none", reaching


REACHING = {
    "straight line": """\
        y = a
        y = b
        print(y)  # reaches y: 2; certain y: 2
        """,
    "if without else": """\
        y = a
        if c:
            y = b
        print(y)  # reaches y: 1 3; certain y: none
        """,
    "if/elif/else all bind": """\
        if c:
            y = 1
        elif d:
            y = 2
        else:
            y = 3
        print(y)  # reaches y: 2 4 6
        """,
    "bound in one branch only": """\
        if c:
            y = 1
        print(y)  # reaches y: 2 unbound; certain y: none
        """,
    "loop back edge": """\
        y = a
        for i in r:
            print(y)  # reaches y: 1 4; certain y: none
            y = b
        """,
    "inside the loop after the binding": """\
        for i in r:
            y = a
            print(y)  # reaches y: 2; certain y: 2
        print(y)  # reaches y: 2 unbound
        """,
    "for target, and after the loop": """\
        for y in r:
            print(y)  # reaches y: 1
        print(y)  # reaches y: 1 unbound
        """,
    "while with break and else": """\
        while c:
            if d:
                y = 1
                break
        else:
            y = 2
        print(y)  # reaches y: 3 6; certain y: none
        """,
    "while True leaves only by break": """\
        y = 0
        while True:
            y = 1
            if c:
                break
        print(y)  # reaches y: 3; certain y: 3
        """,
    "continue skips the rest of the body": """\
        y = 0
        for i in r:
            if c:
                continue
            y = 1
        print(y)  # reaches y: 1 5
        """,
    "with binds in its body": """\
        y = a
        with m():
            y = b
        print(y)  # reaches y: 3; certain y: 3
        """,
    "with-as": """\
        y = a
        with m() as y:
            print(y)  # reaches y: 2; certain y: 2
        """,
    "try body may stop anywhere": """\
        y = a
        try:
            y = b
        except E:
            pass
        print(y)  # reaches y: 1 3; certain y: none
        """,
    "try/else": """\
        try:
            f()
        except E:
            y = 1
        else:
            y = 2
        print(y)  # reaches y: 4 6
        """,
    "handler that raises": """\
        try:
            y = f()
        except E:
            raise
        print(y)  # reaches y: 2; certain y: 2
        """,
    "finally runs on the normal path": """\
        y = a
        try:
            f()
        finally:
            g(y)  # reaches y: 1
        print(y)  # reaches y: 1; certain y: 1
        """,
    "except-as is deleted after the handler": """\
        try:
            pass
        except E as y:
            print(y)  # reaches y: 3
        print(y)  # reaches y: unbound
        """,
    "return ends the path": """\
        def f(c):
            if c:
                y = 1
                return y  # reaches y: 3
            y = 2
            return y  # reaches y: 5; certain y: 5
        """,
    "the right-hand side reads the old value": """\
        y = a
        y = y * 2  # reaches y: 1
        """,
    "augmented assignment reads, then rebinds": """\
        y = 1
        y += 2  # reaches y: 1
        print(y)  # reaches y: 2
        """,
    "use before the binding": """\
        print(y)  # reaches y: unbound
        y = a
        """,
    "parameters": """\
        def f(y, *, z=1):
            print(y)  # reaches y: 1; certain y: 1
        """,
    "del unbinds": """\
        def f(y):
            del y
            print(y)  # reaches y: unbound
        """,
    "walrus binds in the enclosing scope": """\
        if (y := g()):
            pass
        print(y)  # reaches y: 1; certain y: 1
        """,
    "walrus in a comprehension binds outside it, maybe": """\
        [(y := v) for v in w]
        print(y)  # reaches y: 1 unbound
        """,
    "walrus on the right of and": """\
        y = 0
        ok = c and (y := 1)
        print(y)  # reaches y: 1 2
        """,
    "comprehension variables stay inside": """\
        y = 0
        zs = [y for y in r]  # reaches y: 2
        print(y)  # reaches y: 1
        """,
    "match captures": """\
        match p:
            case [y]:
                pass
            case _:
                y = 3
        print(y)  # reaches y: 2 5
        """,
    "match without a catch-all": """\
        match p:
            case {"k": y}:
                pass
        print(y)  # reaches y: 2 unbound
        """,
    "imports, defs and classes bind": """\
        import y
        print(y)  # reaches y: 1
        def y():
            pass
        print(y)  # reaches y: 3
        class y:
            pass
        print(y)  # reaches y: 6
        """,
    "unpacking": """\
        a, (b, y) = t
        print(y)  # reaches y: 1
        """,
    "class body is its own scope": """\
        y = 1
        class C:
            y = 2
            z = y  # reaches y: 3
        print(y)  # reaches y: 1
        """,
}


@pytest.mark.parametrize("name", sorted(REACHING))
def test_reaching(name):
    code = REACHING[name]
    for ctx, fact in each(code, "reaches"):
        got, _ = _reaches(ctx, fact)
        assert got == fact.expected, (name, fact.line)
    ctx = context(code)
    if "certain" in code:
        for fact in facts(ctx, "certain"):
            name_node = read_on(ctx, fact.line, fact.subject)
            b = ctx.semantic.scopes.reaching_binding(name_node)
            got = str(ctx.tree.line(b.name if b.name is not None else b.node)) if b is not None else "none"
            assert got == fact.expected, (name, fact.line)


def test_binding_forms():
    ctx = context(
        """\
        import a.b
        from c import d as e
        f = 1
        g, h = 1, 2
        i, *j = k
        l += 1
        m: int
        n: int = 1
        for o in p: pass
        with q() as r: pass
        try: pass
        except E as s: pass
        def t(u): pass
        class V: pass
        (w := 1)
        del f
        match x:
            case [y, *z]: pass
        """
    )
    scopes = ctx.semantic.scopes
    forms = {name: [b.form for b in binds] for name, binds in scopes.root.bindings.items()}
    assert forms == {
        "a": ["import"], "e": ["import"], "f": ["assign", "del"], "g": ["assign"], "h": ["assign"],
        "i": ["unpack"], "j": ["unpack"], "l": ["aug"], "m": ["annotation"], "n": ["assign"], "o": ["for"],
        "r": ["with"], "s": ["except"], "t": ["def"], "V": ["class"], "w": ["walrus"], "y": ["match"], "z": ["match"],
    }
    func = next(n for n in walk(ctx.module) if isinstance(n, cst.FunctionDef))
    assert [b.form for b in scopes.bindings(func)["u"]] == ["param"]


def test_global_and_nonlocal_bind_where_they_name():
    ctx = context(
        """\
        def f():
            global g
            g = 1
            def inner():
                nonlocal x
                x = 2
            x = 0
        """
    )
    scopes = ctx.semantic.scopes
    f = next(n for n in walk(ctx.module) if isinstance(n, cst.FunctionDef))
    assert [b.form for b in scopes.root.bindings["g"]] == ["assign"]
    assert "g" not in scopes.bindings(f) or not scopes.scope(f).is_local("g")
    assert len(scopes.bindings(f)["x"]) == 2  # ``x = 0`` and the inner function's ``x = 2``


def test_scope_of_decorators_defaults_and_comprehensions():
    ctx = context(
        """\
        class C:
            @dec
            def m(self, a=default):
                return [v for v in it]
        """
    )
    scopes = ctx.semantic.scopes
    kind = lambda text: scopes.scope_of(next(n for n in walk(ctx.module, True) if isinstance(n, cst.Name) and n.value == text)).kind  # noqa: E731
    assert kind("dec") == "class"  # decorators run where the def stands
    assert kind("default") == "class"
    assert kind("self") == "function"
    assert kind("it") == "function"  # the first iterable is evaluated outside the comprehension
    assert kind("v") == "comprehension"


def test_same_object_follows_augmented_assignments():
    ctx = context("y = a\ny += 1\ny -= 2\nprint(y)\n")
    use = read_on(ctx, 4, "y")
    assert ctx.semantic.scopes.reaching_binding(use).form == "aug"
    b = ctx.semantic.scopes.same_object(use)
    assert (b.form, ctx.code_for(b.value)) == ("assign", "a")


def test_visible_follows_pythons_rules():
    ctx = context(
        """\
        x = 1
        class C:
            x = 2
            def m(self):
                return x
            y = x
        def outer():
            x = 3
            def inner():
                return x
        """
    )
    scopes = ctx.semantic.scopes
    lines = lambda node: sorted(ctx.tree.line(b.node) for b in scopes.visible("x", node).bindings)  # noqa: E731
    ret_m, ret_inner = [n for n in walk(ctx.module, True) if isinstance(n, cst.Return)]
    assign_y = next(n for n in walk(ctx.module, True) if isinstance(n, cst.Assign) and ctx.code_for(n.targets[0].target) == "y")
    assert lines(ret_m) == [1]  # a method does not see the class body's names
    assert lines(assign_y) == [3]
    assert lines(ret_inner) == [8]


LAZY_SOURCE = """\
import torch
x = 1


def deco(f):
    return f


@deco
def outer(a, b=x, *args, k: int = 2, **kw):
    y = a + b
    def inner(c=y):
        z = [w * c for w in range(3) if (v := w)]
        f = lambda q, r=z: q + r + v
        return f(y) + z[0]
    return inner(y)


class Model:
    scale = 2

    def forward(self, t):
        t = t * self.scale
        for i in range(3):
            t = t + i
        return t

    def helper(self):
        return {k: v for k, v in self.__dict__.items()}


def other():
    y = 3
    return y
"""


def test_function_bodies_are_read_when_a_question_reaches_them():
    ctx = context(LAZY_SOURCE)
    scopes = ctx.semantic.scopes
    defs = {n.name.value: n for n in walk(ctx.module, True) if isinstance(n, cst.FunctionDef)}
    known = {name for name, d in defs.items() if id(d) in scopes._by_node}
    assert known == {"deco", "outer", "forward", "helper", "other"}  # not ``inner``, inside ``outer``
    assert all(scopes._by_node[id(defs[name])].pending is not None for name in known)
    assert set(scopes.bindings(defs["other"])) == {"y"}
    assert scopes._by_node[id(defs["forward"])].pending is not None  # still unread
    # A question about a function nested in an unread one reads both.
    assert set(scopes.bindings(defs["inner"])) == {"c", "z", "f", "v"}
    assert scopes._by_node[id(defs["outer"])].pending is None
    assert scopes._by_node[id(defs["helper"])].pending is not None


def test_lazy_scopes_answer_what_reading_every_body_at_once_answers():
    """Every name's scope and reaching bindings, asked in an order that reaches
    into nested functions first, equal those of scopes built with every body read."""
    from gradlint.semantic.scopes import Scopes
    from gradlint.semantic.tree import Tree

    module = cst.parse_module(LAZY_SOURCE)
    tree = Tree(module)
    lazy = Scopes(module, tree, LAZY_SOURCE)
    eager = Scopes(module, tree, None)  # no source: ``global`` may be anywhere, so every body is read
    assert not eager._pending and lazy._pending
    names = [n for n in walk(module, True) if isinstance(n, cst.Name)]
    for name in reversed(names):
        assert lazy.scope_of(name).node is eager.scope_of(name).node, name.value
        if lazy.is_read(name):
            got, want = lazy.reaching(name), eager.reaching(name)
            assert [b.node for b in got.bindings] == [b.node for b in want.bindings] and got.unbound == want.unbound, name.value
    for node in walk(module, True):
        if type(node) in (cst.Module, cst.FunctionDef, cst.ClassDef, cst.Lambda, cst.ListComp, cst.DictComp):
            assert {k: [b.node for b in v] for k, v in lazy.bindings(node).items()} == {
                k: [b.node for b in v] for k, v in eager.bindings(node).items()
            }
    assert not lazy._pending


def test_one_reaching_binding_needs_no_order(monkeypatch):
    """Where one binding reaches a read, nothing is sorted: ordering a binding the
    engine's walk has not reached would cost a walk of the whole file."""
    from gradlint.semantic.tree import Tree

    ctx = context(
        """\
        y = 1
        print(y)
        z = 1
        if c:
            z = 2
        print(z)
        """
    )
    y, z = read_on(ctx, 2, "y"), read_on(ctx, 6, "z")
    monkeypatch.setattr(Tree, "order", lambda self, node: pytest.fail("ordered"))
    assert [b.node for b in ctx.semantic.scopes.reaching(y).bindings] == [ctx.module.body[0].body[0]]
    monkeypatch.undo()
    assert len(ctx.semantic.scopes.reaching(z).bindings) == 2


def test_a_function_sees_every_module_binding_and_a_del_makes_it_maybe_unbound():
    # Asked once per function that reads the name, answered from the module's bindings
    # remembered per name: each reader gets them all, the global one from g's body too.
    from gradlint.semantic.scopes import Scopes
    from gradlint.semantic.tree import Tree

    source = "x = 1\ndef f():\n    return x\ndef g():\n    global x\n    x = 2\ndel x\ndef h():\n    return x\n"
    module = cst.parse_module(source)
    tree = Tree(module)
    scopes = Scopes(module, tree, source)
    seen = []
    for name in (n for n in walk(module, True) if isinstance(n, cst.Name) and n.value == "x"):
        visible = scopes.visible("x", name)
        seen.append((tree.line(name), [tree.line(b.node) for b in visible.bindings], visible.unbound))
    assert seen == [(1, [], True), (3, [1, 6], True), (5, [1, 6], True), (6, [1, 6], True), (7, [1], False), (9, [1, 6], True)]
