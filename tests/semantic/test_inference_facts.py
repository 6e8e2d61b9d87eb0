"""Facts GL101 asks about inference code: modules that record no graph, freezes seen
from a scope, eval mode set item by item over a container, and values whose graph is
dropped before it can leave (``gradlint.semantic.modules``, ``gradlint.semantic.escape``)."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest
from marks import context

from gradlint.semantic.containers import container_eval_switch
from gradlint.semantic.tree import walk

_CLASSES = """\
import torch
import torch.nn as nn

class Norm(nn.Module):
    def __init__(self, dim, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.register_buffer("mean", torch.zeros(dim))

class Teacher(nn.Module):
    def __init__(self, net):
        super().__init__()
        self.net = net
    @torch.no_grad()
    def forward(self, x):
        return self.net(x)

class Wrapped(nn.Module):
    def __init__(self, backbone, lr=1e-3):
        super().__init__()
        self.backbone = backbone
        self.lr = lr

class Holder:
    def __init__(self, net):
        self.teacher = Teacher(net).eval()
        self.wrapped = Wrapped(net)
"""


def _call_on_last_line(ctx) -> cst.Call:
    last = len(ctx.source.splitlines())
    return next(n for n in walk(ctx.module, True) if isinstance(n, cst.Call) and ctx.tree.line(n) == last)


@pytest.mark.parametrize(
    "use,expected",
    [
        ("norm = Norm(8)\nnorm(x)\n", True),  # buffers and a scalar with a literal default
        ("Teacher(net)(x)\n", False),  # a call, not a name or attribute: not followed
        ("teacher = Teacher(net)\nteacher(x)\n", True),  # forward decorated no_grad
        ("wrapped = Wrapped(net)\nwrapped(x)\n", False),  # `self.backbone = backbone` may be a module
        ("class User(Holder):\n    pass\nclass Other(Holder):\n    def go(self, x):\n        self.teacher(x)\n", False),
        ("class Mine(Holder):\n    def __init__(self, net):\n        self.teacher = Teacher(net)\n    def go(self, x):\n        self.teacher(x)\n", True),
    ],
)
def test_records_no_graph(use, expected):
    ctx = context(_CLASSES + use)
    call = _call_on_last_line(ctx)
    assert ctx.semantic.modules.records_no_graph(call.func) is expected


def test_freeze_in_another_method_is_not_seen_from_this_one():
    ctx = context(
        """\
        import torch.nn as nn
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.head = nn.Linear(2, 2)
                self.head.requires_grad_(False)
            def freeze(self):
                for p in self.parameters():
                    p.requires_grad = False
            def export(self, x):
                self.eval()
                return self(x)
        backbone = nn.Linear(2, 2)
        def setup():
            backbone.requires_grad_(False)
        """
    )
    cls = ctx.module.body[1]
    freeze, export = cls.body.body[1], cls.body.body[2]
    assert ctx.semantic.modules.frozen_models() == {"self", "self.head", "backbone"}
    assert ctx.semantic.modules.frozen_models_in(export) == {"self.head", "backbone"}
    assert ctx.semantic.modules.frozen_models_in(freeze) == {"self", "self.head", "backbone"}


@pytest.mark.parametrize(
    "loop,expected",
    [
        ("for k in self.models:\n    self.models[k].eval()\n", "self.models[]"),
        ("for name in ('g', 'd'):\n    state[name].eval()\n", "state[]"),
        ("for name in names:\n    state[name].to(dev).eval()\n", "state[]"),
        ("for name in names:\n    state['model'].eval()\n", None),  # the same item every time
        ("for m in models.values():\n    m.eval()\n", "models[]"),
        ("for name, m in self.nets.items():\n    m.eval()\n", "self.nets[]"),
        ("for m in nets:\n    m.eval()\n", "nets[]"),
        ("for m in get_models():\n    m.eval()\n", None),  # a call's items: no container to name
        ("for name, m in models.items():\n    name.eval()\n", None),  # the keys
        ("for m in models.values():\n    other.eval()\n", None),
    ],
)
def test_container_eval_switch(loop, expected):
    ctx = context(loop)
    switch = container_eval_switch(ctx.semantic.modules, ctx.module.body[0])
    assert (switch.model if switch is not None else None) == expected


def test_container_eval_mode_ends_at_an_item_train():
    ctx = context("state['model'].train()\nstate.clear()\n")
    assert ctx.semantic.modules.ends_eval_mode(ctx.module.body[0], "state[]") is True
    assert ctx.semantic.modules.ends_eval_mode(ctx.module.body[1], "state[]") is False


@pytest.mark.parametrize(
    "expr,expected",
    [
        ("model(x).argmax(1).tolist()", True),
        ("model(x).data.numpy()", True),
        ("model(x).item()", True),
        ("float(model(x))", True),
        ("model(x).softmax(1)", False),
        ("model(x)[0]", False),
        ("keep(model(x))", False),  # an unknown callee may keep it
    ],
)
def test_drops_graph(expr, expected):
    ctx = context(f"import torch\ndef f(model, x):\n    y = {expr}\n")
    call = next(n for n in walk(ctx.module, True) if isinstance(n, cst.Call) and ctx.code_for(n.func) == "model")
    assert ctx.semantic.escape.drops_graph(call) is expected


def test_an_edge_does_not_follow_a_value_whose_graph_is_dropped():
    # ``ids`` holds token ids chosen by argmax, not the logits' graph.
    ctx = context(
        textwrap.dedent(
            """\
            import torch
            def generate(model, ids):
                for _ in range(8):
                    logits = model(ids)
                    ids = torch.cat([ids, logits[:, -1].argmax(-1, keepdim=True)], dim=1)
                return ids
            """
        )
    )
    func = ctx.module.body[1]
    flows = ctx.semantic.escape.flows(func)
    assert flows.routes(["logits"], frozenset({"return"})) == []
    assert [r.kind for r in flows.routes(["ids"], frozenset({"return"}))] == ["return"]
