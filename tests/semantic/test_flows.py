"""Whether a local value stays in its function (``gradlint.semantic.flows``)."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from gradlint.semantic import flows
from gradlint.semantic.tree import Tree


def _func(source: str):
    module = cst.parse_module(textwrap.dedent(source))
    tree = Tree(module)
    func = next(s for s in module.body if isinstance(s, cst.FunctionDef))
    return tree, func


STAYS = {
    "printed and turned into numbers": """\
        def f(xs):
            total = 0.0
            for x in xs:
                total += x
            print(total, float(total), f"{total:.3f}", total.item(), total.shape)
        """,
    "a derived value printed": """\
        def f(xs):
            losses = []
            for x in xs:
                losses.append(x)
            mean = sum(losses) / len(losses)
            print(mean)
        """,
    "iterated, each item read": """\
        def f(xs):
            losses = []
            for x in xs:
                losses.append(x)
            for i, l in enumerate(losses):
                print(i, l.item())
            print([round(l.item(), 2) for l in losses])
        """,
    "compared and tested": """\
        def f(xs):
            total = 0
            for x in xs:
                total = total + x
            if total > 0:
                print("positive")
        """,
}

LEAVES = {
    "extended into a global": (
        """\
        def f(xs):
            losses = []
            for x in xs:
                losses.append(x)
            LOG.extend(losses)
        """,
        "`losses` is handed to `LOG.extend`",
    ),
    "a dict's update": (
        """\
        def f(xs, d):
            total = 0
            for x in xs:
                total += x
            d.update(loss=total)
        """,
        "`total` is handed to `d.update`",
    ),
    "a closure": (
        """\
        def f(xs, opt):
            total = 0
            for x in xs:
                total += x
            def closure():
                return total
            opt.step(closure)
        """,
        "`total` is used by a nested function, lambda or class",
    ),
    "an alias kept elsewhere": (
        """\
        def f(xs):
            losses = []
            for x in xs:
                losses.append(x)
            kept = losses
            STORE.append(kept)
        """,
        "`kept` is handed to `STORE.append`",
    ),
    "returned after arithmetic": (
        """\
        def f(xs):
            total = 0
            for x in xs:
                total += x
            mean = total / len(xs)
            return mean
        """,
        "`mean` leaves by a return",
    ),
    "a gradient read through an item": (
        """\
        def f(xs):
            acts = []
            for x in xs:
                acts.append(x)
            print([a.grad for a in acts])
        """,
        "`.grad` reads what the fix changes, or is not known",
    ),
    "put in a container": (
        """\
        def f(xs):
            total = 0
            for x in xs:
                total += x
            out = [total]
            return out
        """,
        "`out` leaves by a return",
    ),
    "compared by identity": (
        """\
        def f(xs, y):
            total = 0
            for x in xs:
                total += x
            print(total is y)
        """,
        "`total` is compared by identity or membership",
    ),
    "declared global": (
        """\
        def f(xs):
            global total
            total = 0
            for x in xs:
                total += x
        """,
        "`total` is declared global",
    ),
}


@pytest.mark.parametrize("source", STAYS.values(), ids=list(STAYS))
def test_values_read_in_place_stay(source):
    tree, func = _func(source)
    name = "total" if "total" in source else "losses"
    assert flows.stays_local(tree, func, name) is None


@pytest.mark.parametrize("source, reason", LEAVES.values(), ids=list(LEAVES))
def test_each_way_out_is_named(source, reason):
    tree, func = _func(source)
    name = next(n for n in ("total", "losses", "acts") if f"{n} = " in source)
    assert flows.stays_local(tree, func, name) == reason


@pytest.mark.parametrize(
    "binding, reason",
    [
        ("losses = []", None),
        ("losses = list()", None),
        ("losses = torch.zeros(3)", None),
        ("losses = self.kept", "`losses` is assigned `self.kept`, which may be another object"),
        ("losses = make()", "`losses` is assigned `make()`, which may be another object"),
        ("losses, other = [], []", "`losses` is unpacked from another value"),
    ],
)
def test_a_store_is_its_own_object_only_when_made_here(binding, reason):
    tree, func = _func(f"def f(self, xs):\n    {binding}\n    for x in xs:\n        losses.append(x)\n")
    assert flows.fresh_bindings(tree, func, "losses") == reason


def test_a_parameter_is_the_callers_object():
    tree, func = _func("def f(xs, losses):\n    for x in xs:\n        losses.append(x)\n")
    assert flows.fresh_bindings(tree, func, "losses") == "`losses` is a parameter: the caller holds the object"


def test_retain_grad_and_hooks_make_the_object_matter():
    tree, func = _func("def f(m, xs):\n    for x in xs:\n        h = m(x)\n        h.retain_grad()\n")
    assert flows.retains_identity(tree, func, ("h",)) == "`h.retain_grad()` is called"
    assert flows.retains_identity(tree, func, ("x",)) is None


def test_a_tensors_text_is_followed_where_it_goes():
    # the text shows ``grad_fn=...``: printed, it is the annotation a fix may remove;
    # returned, it is a value the fix would change
    printed = "def f(xs):\n    total = 0\n    for x in xs:\n        total += x\n    print(f'{total}', str(total))\n"
    returned = "def f(xs):\n    total = 0\n    for x in xs:\n        total += x\n    return f'{total}'\n"
    assert flows.stays_local(*_func(printed), "total") is None
    assert flows.stays_local(*_func(returned), "total") == "`f'{total}'` leaves by a return"
