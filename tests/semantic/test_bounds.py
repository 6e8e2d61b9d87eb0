"""The semantic model's bounds (``gradlint.semantic.bounds``): the table is the
only place that limits how far a question is followed, the model obeys it, and
questions that could go on for ever (long chains, cycles through helpers,
methods and bases) end with an answer instead of a ``RecursionError``."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import libcst as cst
import pytest
from marks import context, node_on

from gradlint.catalog_index import RULES
from gradlint.engine import lint_source
from gradlint.options import LintSettings
from gradlint.semantic import bounds

ROOT = Path(__file__).resolve().parents[2]


def _depth_limits_outside_the_table():
    """Comparisons of a depth with a number, and module-level depth constants,
    in the semantic model and the rules (``depth == 0``, "at the top", is no limit)."""
    found = []
    for package in ("semantic", "rules"):
        for path in sorted((ROOT / "gradlint" / package).glob("*.py")):
            if path.name == "bounds.py":
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                where = f"{path.relative_to(ROOT).as_posix()}:{getattr(node, 'lineno', 0)}"
                if isinstance(node, ast.Compare):
                    operands = [node.left, *node.comparators]
                    depth = any(isinstance(o, ast.Name) and "depth" in o.id.lower() for o in operands)
                    number = [o for o in operands if isinstance(o, ast.Constant) and type(o.value) is int]
                    top = all(isinstance(op, (ast.Eq, ast.NotEq)) for op in node.ops) and all(o.value == 0 for o in number)
                    if depth and number and not top:
                        found.append(where)
                elif isinstance(node, ast.Assign) and path.parent.name == "semantic":
                    names = [t.id for t in node.targets if isinstance(t, ast.Name)]
                    if any("DEPTH" in n for n in names):
                        found.append(where)
    return found


def test_every_depth_is_compared_with_a_bound_of_the_table():
    assert _depth_limits_outside_the_table() == []


def test_the_table_names_numbers_only():
    table = {k: v for k, v in vars(bounds).items() if k.isupper()}
    assert table and all(type(v) is int and v >= 0 for v in table.values())


@pytest.mark.parametrize(
    "bound, proven, kind",
    [("GRAPH_STEPS", False, "tensor"), ("KIND_STEPS", False, "unknown")],
)
def test_the_model_obeys_the_table(monkeypatch, bound, proven, kind):
    source = """\
        import torch
        x = torch.ones(2)
        y = x
        z = y
        print(z)
    """

    def ask():
        ctx = context(source)
        z = node_on(ctx, 5, "z", cst.Name)
        return ctx.semantic.values.proven_tensor(z), ctx.semantic.values.value(z).kind

    assert ask() == (True, "tensor")
    monkeypatch.setattr(bounds, bound, 1)
    assert ask() == (proven, kind)


def _findings(source: str):
    result = lint_source(textwrap.dedent(source), "m.py", LintSettings(frozenset(RULES)))
    return [(f.code, f.start) for f in result.findings]


_LONG = 400  # past what any bound follows, and past Python's recursion limit if followed link by link

ENDLESS = {
    # The outputs of a self-check followed name by name: a cut chain is no proof
    # that they are only checked, so the forward stays reported (in a loop, so
    # that it is no one-off forward either).
    "a long chain of names": (
        "import torch\nfrom torch import nn\nmodel = nn.Linear(2, 2)\nmodel.eval()\nfor _ in range(2):\n    h0 = model(torch.ones(2))\n"
        + "".join(f"    h{i} = h{i - 1}\n" for i in range(1, _LONG))
        + f"    print(h{_LONG - 1})\n",
        [("GL101", (6, 9))],
    ),
    "a long chain of helpers": (
        "import torch\nfrom torch import nn\n"
        + "".join(f"def f{i}(m):\n    return f{i + 1}(m)\n" for i in range(_LONG))
        + f"def f{_LONG}(m):\n    return m\nnet = f0(nn.Linear(2, 2))\nnet.eval()\nout = net(torch.ones(2))\n",
        [],
    ),
    "a long chain of bases": (
        "import torch\nfrom torch import nn\nclass C0(nn.Module):\n    def forward(self, x):\n        return x\n"
        + "".join(f"class C{i}(C{i - 1}):\n    pass\n" for i in range(1, _LONG))
        + f"net = C{_LONG - 1}()\nnet.eval()\nout = net(torch.ones(2))\n",
        [],
    ),
    "cycles through helpers, methods, bases and names": (
        """\
        import torch
        from torch import nn
        def f(m):
            return g(m)
        def g(m):
            return f(m)
        class A(B):
            def forward(self, x):
                return self.helper(x)
            def helper(self, x):
                return self.forward(x)
        class B(A):
            pass
        net = f(nn.Linear(2, 2))
        net.eval()
        a = A()
        a.eval()
        x = torch.ones(2)
        y = x
        x = y
        out = net(x) + a(x)
        total = 0
        for _ in range(3):
            total += out.sum()
        """,
        [],
    ),
}


@pytest.mark.parametrize("name", list(ENDLESS))
def test_questions_that_could_go_on_for_ever_end(name):
    source, expected = ENDLESS[name]
    assert _findings(source) == expected
