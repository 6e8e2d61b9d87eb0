"""The flow facts of gradlint.semantic that GL201-GL303 share (and ``migrate`` may reuse)."""

from __future__ import annotations

import textwrap
from typing import Optional

import libcst as cst
import pytest

from gradlint.rule import FileContext
from gradlint.semantic.tree import walk


def context(code: str) -> FileContext:
    source = textwrap.dedent(code)
    return FileContext("x.py", source, cst.parse_module(source))


def marked(ctx: FileContext, cls=cst.Name, text: Optional[str] = None) -> cst.CSTNode:
    """The last node of type ``cls`` (whose code is ``text``) on the line that ends with ``# <-``,
    in the order a pre-order walk meets them (for nested calls: the innermost)."""
    line = next(i for i, l in enumerate(ctx.source.splitlines(), 1) if l.rstrip().endswith("# <-"))
    found = [
        n
        for n in walk(ctx.module, into_functions=True)
        if isinstance(n, cls) and ctx.position(n).start.line == line and (text is None or ctx.code_for(n) == text)
    ]
    return found[-1]


def reaching_value(code: str) -> Optional[str]:
    ctx = context(code)
    b = ctx.semantic.scopes.same_object(marked(ctx, text="y"))
    if b is None:
        return None
    return ctx.code_for(b.value) if b.value is not None else b.kind


@pytest.mark.parametrize(
    "code,value",
    [
        ("y = a\ny = b\nprint(y)  # <-\n", "b"),
        ("y = a\ny += 1\nprint(y)  # <-\n", "a"),  # augmented assignment keeps the object
        ("def f(y):\n    print(y)  # <-\n", "param"),
        ("y = a\nif c:\n    y = b\nprint(y)  # <-\n", None),  # not on every path
        ("if c:\n    y = a\n    print(y)  # <-\n", "a"),
        ("y = a\nfor i in r:\n    print(y)  # <-\n    y = b\n", None),  # rebound by the loop
        ("for i in r:\n    y = a\n    print(y)  # <-\n", "a"),
        ("y = a\nwith m() as y:\n    print(y)  # <-\n", "other"),
        ("y = a\ny = y * 2  # <-\n", "a"),  # the right-hand side reads the old value
        ("y = a\ntry:\n    y = b\nexcept E:\n    pass\nprint(y)  # <-\n", None),
        ("print(y)  # <-\ny = a\n", None),
    ],
)
def test_reaching_binding(code, value):
    assert reaching_value(code) == value


@pytest.mark.parametrize(
    "code,kind,source,through_name",
    [
        ("h.detach().add_(1)  # <-\n", "detach", "h", False),
        ("y = h.detach()\ny.add_(1)  # <-\n", "detach", "h", True),
        ("y = h.detach().view(-1)[0:2].t()\ny.add_(1)  # <-\n", "detach", "h", True),
        ("y = p.grad.data\ny.add_(1)  # <-\n", "data", "p.grad", True),
        ("p.data[0].add_(1)  # <-\n", "data", "p", False),
        ("y = h.detach().clone()\ny.add_(1)  # <-\n", None, None, None),
        ("y = h.detach()[idx]\ny.add_(1)  # <-\n", None, None, None),
        ("y = self.data\ny.add_(1)  # <-\n", None, None, None),
    ],
)
def test_storage_alias(code, kind, source, through_name):
    ctx = context(code)
    edit = next(n for n in walk(ctx.module) if isinstance(n, cst.Call) and ctx.code_for(n.func).endswith(".add_"))
    alias = ctx.semantic.values.storage_alias(edit.func.value)
    if kind is None:
        assert alias is None
    else:
        assert (alias.kind, ctx.code_for(alias.source), alias.through_name) == (kind, source, through_name)


@pytest.mark.parametrize(
    "code,expected",
    [
        ("loss = criterion(model(x), y)\nf(loss)  # <-\n", "criterion(model(x), y)"),
        ("out = self.net(x)\nf(out.mean() * 2)  # <-\n", "self.net(x)"),
        ("import torch.nn.functional as F\nf(F.mse_loss(a, b))  # <-\n", "F.mse_loss(a, b)"),
        ("import torch\nw = torch.ones(3, requires_grad=True)\nf(w * 2)  # <-\n", "torch.ones(3, requires_grad=True)"),
        ("import torch\nw = torch.ones(3, requires_grad=True)\nf(w)  # <-\n", None),  # a leaf has no history
        ("loss = criterion(model(x), y)\nf(loss.item())  # <-\n", None),
        ("loss = criterion(model(x), y)\nf(loss.detach() + 1)  # <-\n", None),
        ("out = model(x)\nf(out.argmax(1) == y)  # <-\n", None),
        ("import torch\nwith torch.no_grad():\n    out = model(x)\nf(out)  # <-\n", None),
        ("f(accuracy(x, y))  # <-\n", None),
        ("import numpy as np\nf(np.mean(model(x)))  # <-\n", None),
        ("f(model.state_dict())  # <-\n", None),
    ],
)
def test_graph_source(code, expected):
    ctx = context(code)
    call = next(n for n in walk(ctx.module, into_functions=True) if isinstance(n, cst.Call) and ctx.code_for(n.func) == "f")
    found = ctx.semantic.values.graph_source(call.args[0].value)
    assert (ctx.code_for(found) if found is not None else None) == expected


@pytest.mark.parametrize(
    "code,expected",
    [
        ("import torch.nn as nn\nm = nn.Conv2d(3, 8, 3)\nm  # <-\n", True),
        ("from torch import nn\nm = nn.ModuleList([])\nm  # <-\n", True),
        ("import torch.nn as nn\nm = nn.Parameter(t)\nm  # <-\n", False),
        ("import torch.nn as nn\nm = nn.functional.relu(t)\nm  # <-\n", False),
        ("import torchvision.models as tvm\nm = tvm.vit_b_16()\nm  # <-\n", True),
        ("from torchvision.models import get_weight\nm = get_weight('x')\nm  # <-\n", False),
        ("from transformers import AutoConfig\nm = AutoConfig.from_pretrained('x')\nm  # <-\n", False),
        ("from transformers import T5ForConditionalGeneration as T5\nm = T5.from_pretrained('t5')\nm  # <-\n", True),
        ("import torch.nn as nn\nclass A(nn.Module):\n    pass\nm = A().cuda()\nm  # <-\n", True),
        ("class A:\n    pass\nm = A()\nm  # <-\n", False),
        ("import torch.nn as nn\nm = nn.Linear(2, 2)\ndef f():\n    m  # <-\n", True),  # a global
        ("m = make_model()\nm  # <-\n", False),
        ("import torch\nm = torch.compile(torch.nn.Linear(2, 2))\nm  # <-\n", True),
        ("import torch\nm = torch.compile(fn)\nm  # <-\n", False),
    ],
)
def test_is_module(code, expected):
    ctx = context(code)
    assert ctx.semantic.modules.is_module(marked(ctx, text="m")) is expected


@pytest.mark.parametrize(
    "code,expected",
    [
        # a function of the file: what it returns decides, not its name
        ("def memory_efficient_loss(o):\n    total = 0\n    total += o.sum().item()\n    return total, None\n"
         "loss, _ = memory_efficient_loss(out)\nf(loss)  # <-\n", None),
        ("def compute_loss(m, x):\n    return criterion(m(x), 0)\nf(compute_loss(m, x))  # <-\n", "compute_loss(m, x)"),
        ("class T:\n    def step_loss(self, x):\n        return self.model(x).mean()\n    def run(self, x):\n"
         "        f(self.step_loss(x))  # <-\n", "self.step_loss(x)"),
        ("def loss_of(x):\n    return loss_of(x)\nf(loss_of(x))  # <-\n", None),  # recursion
    ],
)
def test_graph_source_reads_local_functions(code, expected):
    test_graph_source(code, expected)


@pytest.mark.parametrize(
    "call,evidence",
    [
        ("model(x)", True),
        ("netD(fake)", True),
        ("self.criterion(out, y)", True),
        ("model.fc(x)", True),
        ("loss_fn(pred, y)", True),
        ("get_model(cfg)", False),  # a factory
        ("build_criterion()", False),
        ("Net()", False),  # builds a module
        ("LSTMLayer.from_float(m)", False),
        ("model.predict(x)", False),  # scikit-learn style APIs
        ("model.parameters()", False),
        ("module.graph.placeholder('x')", False),
    ],
)
def test_graph_source_callee_names(call, evidence):
    test_graph_source(f"f({call})  # <-\n", call if evidence else None)
