"""``nn.Module`` evidence (``gradlint.semantic.modules``).

``# module m: yes`` marks a read of ``m``: whether it is evidently a module.
``# forward: self`` marks the call on its line whose source is the subject
(``# forward self(x): self``): the evidence that it runs a forward, or ``none``.
"""

from __future__ import annotations

import libcst as cst
import pytest
from marks import context, each, node_on, read_on, statement_on

from gradlint.semantic.tree import walk


@pytest.mark.parametrize(
    "code,expected",
    [
        ("import torch.nn as nn\nm = nn.Conv2d(3, 8, 3)\nm\n", True),
        ("from torch import nn\nm = nn.ModuleList([])\nm\n", True),
        ("import torch.nn as nn\nm = nn.Parameter(t)\nm\n", False),
        ("import torch.nn as nn\nm = nn.functional.relu(t)\nm\n", False),
        ("import torchvision.models as tvm\nm = tvm.vit_b_16()\nm\n", True),
        ("from torchvision.models import get_weight\nm = get_weight('x')\nm\n", False),
        ("from transformers import AutoConfig\nm = AutoConfig.from_pretrained('x')\nm\n", False),
        ("from transformers import T5ForConditionalGeneration as T5\nm = T5.from_pretrained('t5')\nm\n", True),
        ("import torch.nn as nn\nclass A(nn.Module):\n    pass\nm = A().cuda()\nm\n", True),
        ("import lightning as L\nclass A(L.LightningModule):\n    pass\nm = A()\nm\n", True),
        ("class A:\n    pass\nm = A()\nm\n", False),
        # a class of the file derived from a layer of torch.nn is a module too
        ("import torch.nn as nn\nclass L(nn.Linear):\n    pass\nm = L(2, 2)\nm\n", True),
        ("from torch import nn\nclass S(nn.Sequential):\n    pass\nclass T(S):\n    pass\nm = T()\nm\n", True),
        ("import torch.nn as nn\nclass P(nn.Parameter):\n    pass\nm = P(t)\nm\n", False),
        ("import torch.nn as nn\nclass F(nn.functional.Foo):\n    pass\nm = F()\nm\n", False),
        # what a function of the file returns on every path
        ("import torch.nn as nn\ndef build(n):\n    if n:\n        return nn.Linear(n, n)\n    return nn.Sequential()\nm = build(2)\nm\n", True),
        ("import torch.nn as nn\ndef build(n):\n    if n:\n        return nn.Linear(n, n)\n    return None\nm = build(2)\nm\n", False),
        ("import torch.nn as nn\ndef build(n):\n    def inner():\n        return nn.Linear(n, n)\n    return inner\nm = build(2)\nm\n", False),
        ("import torch.nn as nn\ndef build(n):\n    yield nn.Linear(n, n)\nm = build(2)\nm\n", False),
        # torch.nn.utils reparametrisations return the module they are given
        ("import torch.nn as nn\nfrom torch.nn.utils import weight_norm\nm = weight_norm(nn.Linear(2, 2))\nm\n", True),
        ("import torch\nm = torch.nn.utils.parametrizations.spectral_norm(torch.nn.Linear(2, 2))\nm\n", True),
        ("from torch.nn.utils import weight_norm\nm = weight_norm(layer)\nm\n", False),
        ("import torch.nn as nn\nm = nn.Linear(2, 2)\ndef f():\n    m\n", True),  # a global
        ("m = make_model()\nm\n", False),
        ("import torch\nm = torch.compile(torch.nn.Linear(2, 2))\nm\n", True),
        ("import torch\nm = torch.compile(fn)\nm\n", False),
        ("import torch.nn as nn\nm = nn.Linear(2, 2)\nif c:\n    m = None\nm\n", False),  # not on every path
        ("import torch.nn as nn\nm = None\nm = nn.Linear(2, 2)\nm\n", True),  # the None never reaches
        ("import torch.nn as nn\ndef f(m: nn.Module):\n    m\n", True),
        ("import torch.nn as nn\nnet = nn.Sequential()\nfor m in net.children():\n    m\n", True),
        # the children kept in a variable first, sliced or not
        ("import torch.nn as nn\nnet = nn.Sequential()\nkids = list(net.children())\nfor m in kids[:2]:\n    m\n", True),
        ("import torch.nn as nn\nnet = nn.Sequential()\nkids = net.children()\nfor m in kids:\n    m\n", True),
        ("import torch.nn as nn\nnet = nn.Sequential()\nkids = net.parameters()\nfor m in kids:\n    m\n", False),
        ("import torch.nn as nn\nnet = nn.Sequential()\nkids = list(net.children())\nif c:\n    kids = []\nfor m in kids:\n    m\n", False),
        # a loop variable reused: each loop binds it anew
        ("import torch.nn as nn\nnet = nn.Sequential()\nfor m in xs:\n    pass\nfor m in net.modules():\n    m\n", True),
        ("import torch.nn as nn\nnet = nn.Sequential()\nfor m in net.modules():\n    pass\nfor m in xs:\n    m\n", False),
        # a framework's set-up hands back the module it is given
        ("import lightning as L\nimport torch.nn as nn\nfabric = L.Fabric()\nm = fabric.setup(nn.Linear(2, 2))\nm\n", True),
        ("import lightning as L\nimport torch.nn as nn\nfabric = L.Fabric()\nm, opt = fabric.setup(nn.Linear(2, 2), o)\nm\n", True),
        ("import lightning as L\nimport torch.nn as nn\nfabric = L.Fabric()\nopt, m = fabric.setup(nn.Linear(2, 2), o)\nm\n", False),
        ("import lightning as L\nimport torch.nn as nn\nfabric = L.Fabric()\nm = fabric.setup(nn.Linear(2, 2), o)\nm\n", False),  # a tuple
        ("from lightning.fabric import Fabric\nimport torch.nn as nn\ndef f(fabric: Fabric):\n    m = fabric.setup_module(nn.Linear(2, 2))\n    m\n", True),
        ("from accelerate import Accelerator\nimport torch.nn as nn\nacc = Accelerator()\nm, d = acc.prepare(nn.Linear(2, 2), data)\nm\n", True),
        ("import torch.nn as nn\nm = runner.setup(nn.Linear(2, 2))\nm\n", False),  # no framework's object
    ],
)
def test_is_module(code, expected):
    ctx = context(code)
    last = max(ctx.tree.line(n) for n in walk(ctx.module, True) if isinstance(n, cst.Name) and n.value == "m")
    assert ctx.semantic.modules.is_module(read_on(ctx, last, "m")) is expected


FORWARDS = """\
    import torch
    from torch import nn
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(2, 2)
            self.scale = 2.0
        def forward(self, x):
            return self.fc(x)  # forward self.fc(x): submodule
        def infer(self, x):
            return self(x)  # forward self(x): self
        def _forward(self, x):
            return self.infer(x)  # forward self.infer(x): helper
        def other(self, x):
            return self.describe(x)  # forward self.describe(x): none
        def describe(self, x):
            return str(x)
    net = Net()
    y = net(x)  # forward net(x): instance
    z = net.forward(x)  # forward net.forward(x): instance
    models = {"g": Net()}
    w = models["g"](x)  # forward models["g"](x): none
    state = {}
    v = state["model"](x)  # forward state["model"](x): none
    u = helper(x)  # forward helper(x): none
    """


def test_forward_evidence():
    for ctx, fact in each(FORWARDS, "forward"):
        call = node_on(ctx, fact.line, fact.subject, cst.Call)
        found = ctx.semantic.modules.forward(call)
        assert (found.evidence if found is not None else "none") == fact.expected, fact


def test_container_forward_by_name_is_preview():
    """``models["g"](x)`` is a forward only by the container's (or the key's) name:
    the preview tier's evidence (issue 26)."""
    ctx = context(FORWARDS)
    ctx.semantic.preview = True
    found = {}
    for line_text in ('models["g"](x)', 'state["model"](x)'):
        row = next(i for i, l in enumerate(ctx.source.splitlines(), 1) if line_text in l and "#" in l)
        call = node_on(ctx, row, line_text, cst.Call)
        forward = ctx.semantic.modules.forward(call)
        found[line_text] = forward.evidence if forward is not None else "none"
    assert found == {'models["g"](x)': "container", 'state["model"](x)': "container"}


def test_records_graph():
    ctx = context(
        """\
        import torch
        from torch import nn
        class Trainable(nn.Module):
            def __init__(self):
                super().__init__()
                self.w = nn.Parameter(torch.zeros(3))
        class Buffers(nn.Module):
            def __init__(self):
                super().__init__()
                self.register_buffer("mean", torch.zeros(3))
                self.eps = 1e-5
        class NoGradForward(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(2, 2)
            @torch.no_grad()
            def forward(self, x):
                return self.fc(x)
        class Unknown(nn.Module):
            def __init__(self, make):
                super().__init__()
                self.body = make()
        """
    )
    classes = {c.name.value: c for c in ctx.module.body if isinstance(c, cst.ClassDef)}
    records = {name: ctx.semantic.modules.records_graph(c) for name, c in classes.items()}
    assert records == {"Trainable": True, "Buffers": False, "NoGradForward": False, "Unknown": None}


def test_eval_switches_and_freezing():
    ctx = context(
        """\
        model.eval()
        self.net = Net().to(dev).eval()
        model.train(False)
        model.train()
        model = model.to(dev)
        enc.requires_grad_(False)
        for p in dec.parameters():
            p.requires_grad = False
        """
    )
    mods = ctx.semantic.modules
    stmts = ctx.module.body
    assert [(s.model if s else None) for s in map(mods.eval_switch, stmts)] == [
        "model", "self.net", "model", None, None, None, None
    ]
    assert [mods.ends_eval_mode(s, "model") for s in stmts[:5]] == [False, False, False, True, False]
    assert mods.frozen_models() == {"enc", "dec"}


def test_a_file_that_never_spells_requires_grad_freezes_nothing_without_a_walk(monkeypatch):
    from gradlint.semantic import modules

    ctx = context(
        """\
        for p in dec.parameters():
            p.grad = None
        enc.train(False)
        """
    )
    monkeypatch.setattr(modules, "walk", lambda *a, **k: pytest.fail("walked the module"))
    assert ctx.semantic.modules.frozen_models() == frozenset()
    assert ctx.semantic.modules.frozen_models_in(ctx.module) == frozenset()

def test_in_eval_mode_follows_the_switch_before_the_forward():
    ctx = context(
        """\
        def check(self, items, other):
            self.model.eval()
            outs = []
            for item in items:
                outs.append(self.model(item))
                other(item)
            self.model.train()
            self.model(items)


        def toggled(model, items):
            model.eval()
            for item in items:
                model(item)
                model.train()


        def branch(model, x, flag):
            if flag:
                model.eval()
            model(x)
        """
    )
    calls = [n for n in walk(ctx.module, into_functions=True) if isinstance(n, cst.Call) and ctx.code_for(n.func) in ("self.model", "other", "model")]
    found = [(ctx.tree.line(c), ctx.semantic.modules.in_eval_mode(c)) for c in calls]
    assert found == [(5, True), (6, False), (8, False), (14, False), (21, False)]


def test_functions_of_the_file_switch_the_modules_model_for_their_callers():
    ctx = context(
        """\
        import torch

        model = torch.nn.Linear(3, 3)


        def evaluate():
            model.eval()
            print(model(x).sum().item())


        def evaluate_then_train():
            model.eval()
            print(model(x).sum().item())
            model.train()


        def train_one():
            model.train()


        def fit():
            train_one()


        def run(model):
            evaluate()
            model(x)


        for epoch in range(2):
            fit()
            evaluate()
            model(x)
            evaluate_then_train()
            model(x)

        model.eval()
        fit()
        model(x)
        evaluate()
        model(x)
        """
    )
    calls = [n for n in walk(ctx.module, into_functions=True) if isinstance(n, cst.Call) and ctx.code_for(n.func) == "model"]
    found = [(ctx.tree.line(c), ctx.semantic.modules.in_eval_mode(c)) for c in calls]
    # evaluate() leaves the module's model in eval mode for the code after its call; a
    # function that calls model.train(), itself or through another, takes it out; a
    # parameter named model is another object.
    assert found == [(8, True), (13, True), (27, False), (33, True), (35, False), (39, False), (41, True)]
    switch = ctx.semantic.modules.eval_switch(statement_on(ctx, 32))
    assert switch is not None and (switch.model, ctx.code_for(switch.call)) == ("model", "evaluate()")
    assert ctx.semantic.modules.eval_switch(statement_on(ctx, 26)) is None  # run's model is its parameter
    assert ctx.semantic.modules.ends_eval_mode(statement_on(ctx, 31), "model")  # fit() -> train_one()


def test_a_method_that_runs_the_modules_layers_is_a_forward():
    ctx = context(
        """\
        import torch.nn as nn


        class VAE(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(2, 8)

            def decode(self, z):
                return self.fc(z).sigmoid()

            def init_hidden(self, n):
                return z.new_zeros(n, 8)


        class Plain:
            def decode(self, z):
                return self.fc(z)


        model = VAE()
        other = Plain()
        model.decode(z)
        model.init_hidden(4)
        other.decode(z)
        model.forward(z)
        """
    )
    texts = {23: "model.decode(z)", 24: "model.init_hidden(4)", 25: "other.decode(z)", 26: "model.forward(z)"}
    found = {text: ctx.semantic.modules.method_forward(node_on(ctx, line, text, cst.Call)) for line, text in texts.items()}
    assert {k: (v.name.value if v is not None else None) for k, v in found.items()} == {
        "model.decode(z)": "decode",
        "model.init_hidden(4)": None,  # runs no layer
        "other.decode(z)": None,  # no module
        "model.forward(z)": None,  # the forward itself, counted as such elsewhere
    }


def test_derives_from_through_the_files_classes():
    ctx = context(
        """\
        import pytorch_lightning as pl
        class Base(pl.LightningModule):
            pass
        class Model(Base):
            pass
        class Plain:
            pass
        """
    )
    base, model, plain = ctx.module.body[1:]
    mods = ctx.semantic.modules
    assert mods.is_lightning_module(model) and mods.is_lightning_module(base)
    assert not mods.is_lightning_module(plain)
    assert {c.name.value for c in mods.module_classes()} == {"Base", "Model"}


def test_framework_objects():
    ctx = context(
        """\
        import lightning as L
        from accelerate import Accelerator
        fabric = L.Fabric(devices=2)
        fabric
        other = make()
        other
        class Loop:
            def __init__(self, accelerator):
                self.acc = Accelerator()
                self.given = accelerator
            def run(self):
                self.acc
                self.given
        def f(fabric: L.Fabric):
            fabric
        """
    )
    mods = ctx.semantic.modules
    found = {}
    for line, text in ((4, "fabric"), (6, "other"), (15, "fabric")):
        obj = mods.framework_object(read_on(ctx, line, text))
        found[line] = obj.framework if obj else None
    for line, attr in ((12, "acc"), (13, "given")):
        node = next(n for n in walk(ctx.module, True) if isinstance(n, cst.Attribute) and n.attr.value == attr and ctx.tree.line(n) == line)
        obj = mods.framework_object(node)
        found[line] = obj.framework if obj else None
    assert found == {4: "Lightning Fabric", 6: None, 15: "Lightning Fabric", 12: "Hugging Face Accelerate", 13: None}


def test_callers_pass_modules():
    """``# callers model: yes`` marks a ``def``: whether its calls in the file pass a
    module for the parameter ``model`` (``no``: one passes something else, or the
    function is used as a callback; ``unknown``: nothing in the file calls it, or a
    call passes a value of unknown kind)."""
    code = """\
        from torch import nn
        net = nn.Linear(4, 2)
        def step(batch):
            return net(batch)
        def evaluate(model, x):  # callers model: yes
            return model(x)
        def on_batch(model, x):  # callers model: no
            return model(x)
        def hook(model, x):  # callers model: no
            return model(x)
        def entry(model, x):  # callers model: unknown
            return model(x)
        def given(model, x):  # callers model: unknown
            return model(x)
        def counted(model, x):  # callers model: no
            return model(x)
        class Base:
            def f(self, model, x):  # callers model: yes
                return model(x)
        class Child(Base):
            def f(self, model, x):  # callers model: yes
                return super().f(model, x)
        def run(x, hooks):
            evaluate(net, x)
            evaluate(model=nn.Linear(4, 2), x=x)
            on_batch(net, x)
            on_batch(step, x)
            hooks.append(hook)
            Child().f(net, x)
            given(make_model(), x)  # of unknown kind: as if not shown
            counted(3, x)
        """
    shown = {True: "yes", False: "no", None: "unknown"}
    for ctx, fact in each(code, "callers"):
        func = statement_on(ctx, fact.line)
        param = next(p for p in func.params.params if p.name.value == fact.subject)
        assert shown[ctx.semantic.modules.callers_pass_modules(param)] == fact.expected, fact


def test_a_function_that_returns_its_value_in_eval_mode_makes_the_callers_binding_an_eval_switch():
    ctx = context(
        """\
        def get_model(conf):
            model, _ = build(conf)
            if conf["gpu"]:
                model.cuda()
            model.eval()
            return model


        def get_trained(conf):
            model = build(conf)
            model.eval()
            model.train()
            return model


        def get_other(conf):
            model = build(conf)
            model.eval()
            other = build(conf)
            return other


        def get_maybe(conf):
            model = build(conf)
            if conf["eval"]:
                model.eval()
                return model
            return model


        def get_branch(conf):
            model = build(conf)
            if conf["eval"]:
                return model
            model.eval()
            return model


        def main(conf):
            model = get_model(conf)
            a = get_trained(conf)
            b = get_other(conf)
            c = get_maybe(conf)
            d = get_branch(conf)
        """
    )
    mods = ctx.semantic.modules
    found = [mods.eval_switch(statement_on(ctx, line)) for line in range(40, 45)]
    # only get_model surely returns what it switched to eval mode: get_trained trains
    # it again, get_other returns another object, get_maybe and get_branch return
    # from a branch (the eval() before it may not have run)
    assert [(s.model, ctx.code_for(s.call)) if s else None for s in found] == [
        ("model", "get_model(conf)"), None, None, None, None
    ]


def test_a_method_that_leaves_an_attribute_in_eval_mode_switches_it_for_its_callers():
    ctx = context(
        """\
        class Trainer:
            def eval_mode(self):
                self.model.eval()
                if self.criterion is not None:
                    self.criterion.eval()
                return self

            def eval_then_train(self):
                self.model.eval()
                self.train_mode()

            def train_mode(self):
                self.model.train()

            def maybe_eval(self, flag):
                if not flag:
                    return
                self.model.eval()

            def validate(self, batch):
                self.eval_mode()
                self.eval_then_train()
                self.maybe_eval(True)
        """
    )
    mods = ctx.semantic.modules
    found = [mods.eval_switch(statement_on(ctx, line)) for line in (21, 22, 23)]
    # eval_then_train calls a method that trains it again; maybe_eval may return first
    assert [(s.model, ctx.code_for(s.call)) if s else None for s in found] == [
        ("self.model", "self.eval_mode()"), None, None
    ]


def test_classes_that_are_surely_no_module_and_the_attributes_they_keep_in_eval_mode():
    ctx = context(
        """\
        import torch
        import torch.nn as nn
        from cvu.interface import IModel


        class Yolo(IModel):
            def __init__(self, weight):
                self._model = None
                self._load(weight)

            def _load(self, weight):
                self._model = torch.jit.load(weight)
                if self.gpu:
                    self._model.half()
                self._model.eval()

            def __call__(self, x):
                return self._model(x)


        class Initialised(IModel):
            def __init__(self, weight):
                super().__init__()
                self.model = torch.jit.load(weight).eval()


        class Trains:
            def __init__(self, weight):
                self.model = torch.jit.load(weight)
                self.model.eval()
                self.head = torch.jit.load(weight)

            def fit(self, batch):
                self.model.train()

            def reload(self, weight):
                self.head = torch.jit.load(weight)
                self.head.eval()


        class Early:
            def load(self, weight, fast):
                self.model = torch.jit.load(weight)
                if fast:
                    return
                self.model.eval()


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.enc = nn.Linear(2, 2)
                self.enc.eval()
        """
    )
    mods = ctx.semantic.modules
    classes = {c.name.value: c for c in ctx.module.body if isinstance(c, cst.ClassDef)}
    # Yolo never runs a base __init__ (IModel is unknown); Initialised does, so its
    # base decides, and it is unknown
    assert {n: mods.not_module_class(c) for n, c in classes.items()} == {
        "Yolo": True, "Initialised": False, "Trains": True, "Early": True, "Net": False
    }
    found = {n: {a: ctx.tree.line(c) for a, c in mods.eval_attributes(c).items()} for n, c in classes.items()}
    # Trains: fit() trains self.model; __init__ assigns self.head and leaves it in
    # train mode. Early may return before the eval().
    assert found == {"Yolo": {"self._model": 15}, "Initialised": {}, "Trains": {}, "Early": {}, "Net": {}}


def test_a_base_named_by_a_class_of_the_file_is_its_first_class_of_that_name():
    # The first top-level class of the name decides (a plain K, not the K redefined
    # on an unknown base after it); a class nested in a function is no such class.
    ctx = context(
        "from lib import Unknown\n"
        "class K:\n    pass\n"
        "class K(Unknown):\n    pass\n"
        "class G(K):\n    pass\n"
        "def f():\n    class Plain:\n        pass\n    return Plain\n"
        "class B(Plain):\n    pass\n"
        "class Plain2:\n    pass\n"
        "class E(Plain2):\n    pass\n"
    )
    mods = ctx.semantic.modules
    classes = [c for c in ctx.module.body if isinstance(c, cst.ClassDef)]
    assert [(c.name.value, mods.not_module_class(c)) for c in classes] == [
        ("K", True), ("K", False), ("G", True), ("B", False), ("Plain2", True), ("E", True)
    ]
