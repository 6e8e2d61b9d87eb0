"""Abstract values, graph evidence and storage aliases (``gradlint.semantic.values``).

``# value <expr>: <facts>`` marks an expression on its line (a variable read,
or any expression's source text) with what must hold of its value:
``tensor``/``not_tensor``/``unknown``, and for tensors ``graph=yes|no|maybe``,
``shape=scalar|batch|unknown``, ``leaf``; for the rest ``what=<kind>``;
``dims<=N`` for a proven bound on the number of dimensions, ``dims=?`` for none.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst
import pytest
from marks import context, each, node_on

from gradlint.semantic.tree import walk

_GRAPH = {True: "yes", False: "no", None: "maybe"}


def _subject(ctx, fact):
    scopes = ctx.semantic.scopes
    names = [
        n
        for n in walk(ctx.module, into_functions=True)
        if isinstance(n, cst.Name) and n.value == fact.subject and ctx.tree.line(n) == fact.line and scopes.is_read(n)
    ]
    return names[-1] if names else node_on(ctx, fact.line, fact.subject)


def _check(ctx, fact):
    v = ctx.semantic.values.value(_subject(ctx, fact))
    for token in fact.expected.split():
        if token in ("tensor", "not_tensor", "unknown"):
            assert v.kind == token, (fact, v)
        elif token == "leaf":
            assert v.leaf, (fact, v)
        elif token.startswith("graph="):
            assert _GRAPH[v.graph] == token[6:], (fact, v)
        elif token.startswith("shape="):
            assert v.shape == token[6:], (fact, v)
        elif token.startswith("what="):
            assert v.what == token[5:], (fact, v)
        elif token == "dims=?":
            assert v.max_dims is None, (fact, v)
        elif token.startswith("dims<="):
            assert v.max_dims == int(token[6:]), (fact, v)
        else:
            raise AssertionError(f"unknown fact {token!r}")


VALUES = {
    "plain Python values": """\
        n = 3
        s = f"{n}"
        d = {"lr": 0.1}
        print(n, s, d)  # value n: not_tensor what=number; value s: not_tensor what=string; value d: not_tensor what=container
        k = len(d) + 1  # value len(d) + 1: not_tensor what=number
        """,
    "configs": """\
        import argparse
        from dataclasses import dataclass
        @dataclass
        class Config:
            lr: float = 0.1
        parser = argparse.ArgumentParser()
        args = parser.parse_args()
        cfg = Config()
        def f(config, opt):
            a = config.get("lr")  # value config.get("lr"): not_tensor what=config
            b = opt.batch_size  # value opt.batch_size: not_tensor what=config
        print(args, cfg, parser)  # value args: not_tensor what=namespace; value cfg: not_tensor what=config; value parser: not_tensor what=parser
        lr = args.lr  # value args.lr: not_tensor what=config
        """,
    "configs held in attributes, rates, text, hook handles": """\
        class Trainer:
            def f(self, sched, asr, layer, hook):
                w = self.loss_cfg.get("weight", 1.0)  # value self.loss_cfg.get("weight", 1.0): not_tensor what=config
                lr = sched.get_last_lr()[0]  # value sched.get_last_lr(): not_tensor what=numbers; value sched.get_last_lr()[0]: not_tensor what=number
                texts = asr.transcribe(self.paths)  # value asr.transcribe(self.paths): not_tensor what=string
                line = "%s\\n" % texts[0]  # value "%s\\n" % texts[0]: not_tensor what=string
                handle = layer.register_forward_hook(hook)  # value layer.register_forward_hook(hook): not_tensor what=handle
                tag = self.model_tag.strip("*")  # value self.model_tag.strip("*"): not_tensor what=string
                state = self.decoder.decode(h)  # value self.decoder.decode(h): unknown
        """,
    "modules, optimizers, schedulers": """\
        import torch
        from torch import nn
        model = nn.Linear(2, 2)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        sched = torch.optim.lr_scheduler.StepLR(opt, 1)
        print(model, opt, sched)  # value model: not_tensor what=module; value opt: not_tensor what=optimizer; value sched: not_tensor what=scheduler
        """,
    "factories": """\
        import torch
        a = torch.zeros(3)
        w = torch.ones(3, requires_grad=True)
        s = torch.tensor(2.0)
        print(a, w, s)  # value a: tensor graph=no; value w: tensor graph=no leaf; value s: tensor graph=no shape=scalar
        p = torch.nn.Parameter(a)  # value torch.nn.Parameter(a): tensor leaf
        """,
    "as_tensor can return its argument itself": """\
        import torch
        from torch import nn
        model = nn.Linear(2, 2)
        out = model(x)
        t = torch.as_tensor(out)
        u = torch.as_tensor([1.0, 2.0])
        v = torch.from_numpy(arr)
        print(t, u, v)  # value t: tensor graph=yes; value u: tensor graph=no; value v: tensor graph=no
        """,
    "conversions": """\
        import torch
        from torch import nn
        model = nn.Linear(2, 2)
        out = model(x)
        print(out)  # value out: tensor graph=yes shape=batch
        a = out.item()  # value out.item(): not_tensor what=number
        b = out.detach()  # value out.detach(): tensor graph=no
        c = out.data  # value out.data: tensor graph=no
        d = out.clone()  # value out.clone(): tensor graph=yes
        e = out.cpu().numpy()  # value out.cpu().numpy(): not_tensor what=array
        f = out.tolist()  # value out.tolist(): not_tensor what=numbers
        g = out.argmax(1)  # value out.argmax(1): tensor graph=no
        h = out.shape  # value out.shape: not_tensor
        i = out.max(1)[1]  # value out.max(1)[1]: tensor graph=no
        j = out.topk(2)[1]  # value out.topk(2)[1]: tensor graph=no
        k = out.max(dim=-1)[0]  # value out.max(dim=-1)[0]: tensor graph=yes
        m = out.max(out)[1]  # value out.max(out)[1]: tensor graph=yes
        """,
    "reductions with and without dim": """\
        import torch
        from torch import nn
        model = nn.Linear(2, 2)
        out = model(x)
        a = out.sum()  # value out.sum(): tensor graph=yes shape=scalar
        b = out.mean(dim=1)  # value out.mean(dim=1): tensor graph=yes shape=unknown
        c = torch.sum(out)  # value torch.sum(out): tensor graph=yes shape=scalar
        d = out.max(0)  # value out.max(0): tensor shape=unknown
        """,
    "losses": """\
        import torch.nn.functional as F
        from torch import nn
        criterion = nn.CrossEntropyLoss()
        per_item = nn.MSELoss(reduction="none")
        a = F.cross_entropy(logits, y)  # value F.cross_entropy(logits, y): tensor graph=yes shape=scalar
        b = F.mse_loss(p, q, reduction="none")  # value F.mse_loss(p, q, reduction="none"): tensor graph=yes shape=unknown
        c = criterion(logits, y)  # value criterion(logits, y): tensor graph=yes shape=scalar
        d = per_item(p, q)  # value per_item(p, q): tensor shape=unknown
        """,
    "a loss instance moved to the device keeps its 0-dim output": """\
        import torch
        from torch import nn
        criterion = nn.MSELoss()
        if torch.cuda.is_available():
            criterion = criterion.cuda()
        per_item = nn.L1Loss(reduction="none")
        per_item = per_item.to("cpu")
        maybe = nn.MSELoss()
        if flag:
            maybe = make_loss()
        def step(model, x, y):
            loss = criterion(model(x), y)
            print(loss)  # value loss: tensor graph=yes shape=scalar
            print(per_item(x, y), maybe(x, y))  # value per_item(x, y): tensor shape=unknown; value maybe(x, y): unknown
        """,
    "a loss class of another package proves no 0-dim output": """\
        from torch import nn
        from speechctc import SpeechLoss
        ctc_loss = SpeechLoss(blank=0)
        criterion = nn.CTCLoss()
        loss_fn = build_loss()
        a = ctc_loss(x, y, n, m)  # value ctc_loss(x, y, n, m): unknown
        b = criterion(x, y, n, m)  # value criterion(x, y, n, m): tensor graph=yes shape=scalar
        c = loss_fn(x, y)  # value loss_fn(x, y): tensor graph=yes shape=unknown
        """,
    "a loss module passed by every call of the file gives its 0-dim output": """\
        from torch import nn
        def train(model, criterion, x, y):
            loss = criterion(model(x), y)
            print(loss)  # value loss: tensor graph=yes shape=scalar
        def evaluate(model, criterion, x, y):
            print(criterion(model(x), y))  # value criterion(model(x), y): tensor shape=unknown
        def check(model, head, x, y):
            print(head(model(x), y))  # value head(model(x), y): tensor graph=yes shape=batch
        def main(model, x, y, other):
            criterion = nn.CrossEntropyLoss()
            train(model, criterion, x, y)
            train(model, nn.CrossEntropyLoss().cuda(), x, y)
            evaluate(model, criterion, x, y)
            evaluate(model, nn.MSELoss(reduction="none"), x, y)
            check(model, criterion, x, y)
            check(model, nn.Linear(2, 2), x, y)
        """,
    "integer casts keep the shape and carry no graph": """\
        import torch
        def count(mask, model, x):
            n = torch.sum(mask[:, 0]).int()  # value torch.sum(mask[:, 0]).int(): tensor graph=no shape=scalar
            idx = torch.ones(4).view(-1).long()  # value torch.ones(4).view(-1).long(): tensor graph=no shape=batch
        """,
    "t() bounds the dimensions by 2 and iterating takes one away": """\
        def check(numericalized):
            for i, example in enumerate(numericalized.t()):
                print(example)  # value example: unknown dims<=1 shape=unknown
                for j, token in enumerate(example):
                    print(token)  # value token: unknown dims<=0 shape=scalar
                    print(token.data)  # value token.data: tensor graph=no dims<=0 shape=scalar
            for row in numericalized.t():
                print(row)  # value row: unknown dims<=1
            for i, (a, b) in enumerate(numericalized.t()):
                print(a)  # value a: unknown dims<=0 shape=scalar
            for whole in numericalized:
                print(whole, numericalized.t)  # value whole: unknown dims=?
        """,
    "arithmetic and elementwise torch functions keep a bound on the dimensions": """\
        import torch
        def began(d_real, real, d_fake, fake, gamma, x):
            a = torch.mean(torch.abs(d_real - real))
            b = torch.mean(gamma * a - torch.abs(d_fake - fake).mean())
            print(a, b)  # value a: tensor dims<=0 shape=scalar; value b: tensor dims<=0 shape=scalar
            print(torch.abs(b))  # value torch.abs(b): tensor dims<=0 shape=scalar
            print(torch.pow(b, 2), torch.clamp(b, 0, 1))  # value torch.pow(b, 2): tensor dims<=0; value torch.clamp(b, 0, 1): tensor dims<=0
            print(a + torch.abs(b))  # value a + torch.abs(b): tensor dims<=0 shape=scalar
            print(a * 2 - 1, a @ b)  # value a * 2 - 1: tensor dims<=0; value a @ b: tensor dims<=0
            v = torch.ones(3).view(-1)
            print(a + v, a + x)  # value a + v: tensor dims<=1 shape=batch; value a + x: dims=?
            print(torch.abs(x), torch.mul(a, v), torch.add(a, x))  # value torch.abs(x): dims=?; value torch.mul(a, v): dims=?; value torch.add(a, x): dims=?
        """,
    "an integer index takes a dimension away": """\
        import torch
        def pick(x, k):
            v = torch.ones(3).view(-1)  # value torch.ones(3).view(-1): tensor graph=no shape=batch dims<=1
            print(v[0], v[k], v[-1])  # value v[0]: tensor dims<=0 shape=scalar; value v[-1]: tensor shape=scalar
            print(v[len(x)])  # value v[len(x)]: tensor shape=scalar dims<=0
            print(v[1:], v[x], v[None])  # value v[1:]: tensor dims=?; value v[x]: tensor dims=?; value v[None]: tensor dims=?
            m = x.t()[0]  # value x.t()[0]: unknown dims<=1
            print(x.view(-1)[-1], x.flatten()[0], x.view(2, -1)[0], x.view(-1)[k])  # value x.view(-1)[-1]: unknown dims<=0 shape=scalar; value x.view(-1)[k]: dims=?; value x.flatten()[0]: unknown dims<=0; value x.view(2, -1)[0]: dims=?
            print(x[0])  # value x[0]: unknown dims=?
        """,
    "view(-1), reshape(-1), flatten() and ravel() make one dimension": """\
        import torch
        from torch import nn
        model = nn.Linear(2, 2)
        def f(x, n):
            out = model(x)
            print(out.view(-1), out.reshape(-1), out.flatten(), out.ravel())  # value out.view(-1): tensor dims<=1 shape=batch; value out.reshape(-1): tensor dims<=1; value out.flatten(): tensor dims<=1; value out.ravel(): tensor dims<=1
            print(out.view(2, -1), out.flatten(1), out.view(n))  # value out.view(2, -1): tensor dims=?; value out.flatten(1): tensor dims=?; value out.view(n): tensor dims=?
            print(out.view(-1)[3].data)  # value out.view(-1)[3].data: tensor shape=scalar dims<=0
        """,
    "reductions over everything are 0-dim, and stay so": """\
        import torch
        from torch import nn
        model = nn.Linear(2, 2)
        def f(x, criterion):
            out = model(x)
            s = out.sum()  # value out.sum(): tensor graph=yes shape=scalar dims<=0
            print(s.cpu(), s.detach(), s.float(), s.pow(2), s * 2)  # value s.cpu(): tensor dims<=0; value s.detach(): tensor dims<=0; value s.float(): tensor dims<=0; value s.pow(2): tensor dims<=0
            print(s.add(out), out.sum(1), out.sum(dtype=torch.float64))  # value s.add(out): tensor dims=?; value out.sum(1): tensor dims=?; value out.sum(dtype=torch.float64): tensor dims<=0
            print(torch.mean(out), torch.max(out, x), torch.sum(out, axis=0))  # value torch.mean(out): tensor dims<=0; value torch.max(out, x): tensor dims=?; value torch.sum(out, axis=0): tensor dims=?
            print(out.t().t(), out.t().select(0, 1), out.t().transpose(0, 1))  # value out.t().t(): tensor dims<=2; value out.t().select(0, 1): tensor dims<=1; value out.t().transpose(0, 1): tensor dims<=2
            print(criterion(out, x))  # value criterion(out, x): tensor shape=unknown dims=?
        """,
    "forwards under no_grad record nothing": """\
        import torch
        from torch import nn
        model = nn.Linear(2, 2)
        with torch.no_grad():
            out = model(x)
        print(out)  # value out: tensor graph=no
        """,
    "a module whose forward runs under no_grad": """\
        import torch
        from torch import nn
        class Frozen(nn.Module):
            def __init__(self):
                super().__init__()
                self.register_buffer("mean", torch.zeros(3))
            @torch.no_grad()
            def forward(self, x):
                return x - self.mean
        m = Frozen()
        y = m(x)  # value m(x): tensor graph=no
        """,
    "arithmetic and indexing": """\
        import torch
        from torch import nn
        model = nn.Linear(2, 2)
        out = model(x)
        a = out * 2 + 1  # value out * 2 + 1: tensor graph=yes
        b = out[0]  # value out[0]: tensor graph=yes
        c = out.detach() * 2  # value out.detach() * 2: tensor graph=no
        d = out > 0  # value out > 0: tensor graph=no
        e = 2 * 3  # value 2 * 3: not_tensor what=number
        """,
    "comprehensions and containers": """\
        xs = [x * 2 for x in range(3)]
        print(xs)  # value xs: not_tensor what=container
        """,
    "functions of the file": """\
        import torch
        from torch import nn
        model = nn.Linear(2, 2)
        def forward_loss(x):
            return model(x).sum()
        def count(x):
            return len(x)
        a = forward_loss(x)  # value forward_loss(x): tensor graph=yes shape=scalar
        b = count(x)  # value count(x): not_tensor what=number
        """,
    "names joined over paths": """\
        import torch
        if c:
            y = torch.zeros(1)
        else:
            y = 3
        print(y)  # value y: unknown
        """,
    "loss outputs and arithmetic of scalars are 0-dim": """\
        import torch.nn.functional as F
        def step(model, criterion, batch, beta=0.5):
            out = criterion(model(batch), batch)
            aux = F.smooth_l1_loss(batch, batch)
            total = out + beta * aux
            print(out, total, beta)  # value out: tensor graph=yes shape=unknown; value total: tensor graph=yes shape=unknown; value beta: not_tensor what=number
            ppl = aux.exp()  # value aux.exp(): tensor graph=yes shape=scalar
            first = aux.unsqueeze(0)  # value aux.unsqueeze(0): tensor shape=unknown
            row = aux.view(-1)  # value aux.view(-1): tensor shape=batch
        """,
    "a difference of flattened outputs has a dimension": """\
        def gap(netD, real, fake):
            d_real = netD(real).view(-1)
            d_fake = netD(fake).flatten()
            g = d_real - d_fake
            print(g, d_real - 1)  # value g: unknown shape=batch; value d_real - 1: unknown shape=batch
            s = netD(real).view(())  # value netD(real).view(()): unknown shape=unknown
        """,
    "an accumulator of 0-dim tensors": """\
        def run(loader, criterion):
            total = 0
            for x, y in loader:
                loss = criterion(x, y)
                total += loss.data
            print(total)  # value total: tensor graph=no shape=unknown
        """,
    "an argument of unknown type": """\
        def f(x, n: int):
            print(x, n)  # value x: unknown; value n: not_tensor what=number
        """,
    "self of a class without bases": """\
        import torch
        class Pairs:
            def __init__(self, data):
                self.data = data
            def __len__(self):
                return len(self.data[0])  # value self: not_tensor what=object
            @staticmethod
            def make(x):
                return x  # value x: unknown
        class Box(object):
            def size(self):
                return self  # value self: not_tensor what=object
        class Wrapped(torch.Tensor):
            def first(self):
                return self  # value self: unknown
        class Meta(metaclass=Base):
            def first(self):
                return self  # value self: unknown
        """,
}


@pytest.mark.parametrize("name", sorted(VALUES))
def test_value(name):
    for ctx, fact in each(VALUES[name], "value"):
        _check(ctx, fact)


# -- storage aliases and graph evidence (what GL201-GL301 ask) ---------------------


@pytest.mark.parametrize(
    "code,kind,source,through_name",
    [
        ("h.detach().add_(1)\n", "detach", "h", False),
        ("y = h.detach()\ny.add_(1)\n", "detach", "h", True),
        ("y = h.detach().view(-1)[0:2].t()\ny.add_(1)\n", "detach", "h", True),
        ("y = p.grad.data\ny.add_(1)\n", "data", "p.grad", True),
        ("p.data[0].add_(1)\n", "data", "p", False),
        ("y = h.detach()\ny += 1\ny.add_(1)\n", "detach", "h", True),  # ``+=`` edits the same tensor
        ("y = h.detach()\nwith m():\n    y.add_(1)\n", "detach", "h", True),
        ("y = h.detach().clone()\ny.add_(1)\n", None, None, None),
        ("y = h.detach()[idx]\ny.add_(1)\n", None, None, None),
        ("y = self.data\ny.add_(1)\n", None, None, None),
        ("y = h.detach()\nif c:\n    y = g\ny.add_(1)\n", None, None, None),
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


def _graph_source(code: str) -> Optional[str]:
    ctx = context(code)
    call = next(n for n in walk(ctx.module, into_functions=True) if isinstance(n, cst.Call) and ctx.code_for(n.func) == "f")
    found = ctx.semantic.values.graph_source(call.args[0].value)
    return ctx.code_for(found) if found is not None else None


@pytest.mark.parametrize(
    "code,expected",
    [
        ("loss = criterion(model(x), y)\nf(loss)\n", "criterion(model(x), y)"),
        ("out = self.net(x)\nf(out.mean() * 2)\n", "self.net(x)"),
        ("import torch.nn.functional as F\nf(F.mse_loss(a, b))\n", "F.mse_loss(a, b)"),
        ("import torch\nw = torch.ones(3, requires_grad=True)\nf(w * 2)\n", "torch.ones(3, requires_grad=True)"),
        ("import torch\nw = torch.ones(3, requires_grad=True)\nf(w)\n", None),  # a leaf has no history
        ("loss = criterion(model(x), y)\nf(loss.item())\n", None),
        ("loss = criterion(model(x), y)\nf(loss.detach() + 1)\n", None),
        ("out = model(x)\nf(out.argmax(1) == y)\n", None),
        ("import torch\nwith torch.no_grad():\n    out = model(x)\nf(out)\n", None),
        ("f(accuracy(x, y))\n", None),
        ("import numpy as np\nf(np.mean(model(x)))\n", None),
        ("f(model.state_dict())\n", None),
        # a function of the file: what it returns decides, not its name
        ("def memory_efficient_loss(o):\n    total = 0\n    total += o.sum().item()\n    return total, None\n"
         "loss, _ = memory_efficient_loss(out)\nf(loss)\n", None),
        ("def compute_loss(m, x):\n    return criterion(m(x), 0)\nf(compute_loss(m, x))\n", "compute_loss(m, x)"),
        ("class T:\n    def step_loss(self, x):\n        return self.model(x).mean()\n    def run(self, x):\n"
         "        f(self.step_loss(x))\n", "self.step_loss(x)"),
        ("def loss_of(x):\n    return loss_of(x)\nf(loss_of(x))\n", None),  # recursion
        # building a module of the file (named like a model) runs no forward
        ("import torch.nn as nn\nclass TextClassifier(nn.Module):\n    pass\nmodel = TextClassifier()\nf(model.head.bias)\n", None),
        ("import torch.nn as nn\nclass TextClassifier(nn.Module):\n    pass\nmodel = TextClassifier()\nf(model(x))\n", "model(x)"),
        # only the bindings that reach the read count
        ("loss = 0\nloss = criterion(out, y)\nf(loss)\n", "criterion(out, y)"),
        ("loss = criterion(out, y)\nif c:\n    loss = 0\nf(loss)\n", None),
        # a helper's returned tuple, part by part: the loss has history, the float not
        ("def step(m, x):\n    loss = criterion(m(x), 0)\n    return loss, loss.item()\nl, a = step(m, x)\nf(l)\n", "step(m, x)"),
        ("def step(m, x):\n    loss = criterion(m(x), 0)\n    return loss, loss.item()\nl, a = step(m, x)\nf(a)\n", None),
        ("def step(m, x):\n    return (criterion(m(x), 0), 1), 2\n(l, n), k = step(m, x)\nf(l)\n", "step(m, x)"),
        ("def step(m, x):\n    return (criterion(m(x), 0), 1), 2\n(l, n), k = step(m, x)\nf(n)\n", None),
        # unpacked from a name that holds the call
        ("out = step_of_other_file(m, x)\nl, a = out\nf(a)\n", None),
        ("out = model(x)\nl, a = out\nf(a)\n", "model(x)"),
        ("x, y = batch\nf(y)\n", None),
        # the values of a mapping: a helper's dict of losses, a forward's dict of outputs
        ("def parts(m, x):\n    return {'a': criterion(m(x), 0), 'n': 1}\nfor k, v in parts(m, x).items():\n    f(v)\n", "parts(m, x)"),
        ("def parts(m, x):\n    return {'a': criterion(m(x), 0)}\nfor k, v in parts(m, x).items():\n    f(k)\n", None),
        ("def parts(m, x):\n    return {'a': criterion(m(x), 0).item()}\nd = parts(m, x)\nfor v in d.values():\n    f(v)\n", None),
        ("outs = model(x)\nfor v in outs.values():\n    f(v)\n", "model(x)"),
        ("for i, (k, v) in enumerate(model(x).items()):\n    f(v)\n", None),  # not followed through enumerate
        ("for v in model(x):\n    f(v)\n", None),
        # ``self(x)`` in a module's method: the class's forward decides
        ("import torch.nn as nn\nimport torch.nn.functional as F\nclass M(nn.Module):\n    def forward(self, x, y):\n"
         "        return F.mse_loss(self.fc(x), y)\n    def fit(self, x, y):\n        f(self(x, y))\n", "self(x, y)"),
        ("import torch.nn as nn\nclass M(nn.Module):\n    def forward(self, x):\n        return x.argmax(-1).tolist()\n"
         "    def fit(self, x):\n        f(self(x))\n", None),
        ("import torch.nn as nn\nclass M(nn.Module):\n    def fit(self, x):\n        f(self(x))\n", "self(x)"),  # forward inherited
        ("class M:\n    def fit(self, x):\n        f(self(x))\n", None),  # not a module
        # a step method, by the frameworks' contract (Lightning, skorch, mmcv)
        ("out = trainer.train_step(images, targets)\nf(out)\n", "trainer.train_step(images, targets)"),
        ("f(module.training_step(batch, 0))\n", "module.training_step(batch, 0)"),
        # pyro's SVI returns floats
        ("from pyro.infer import SVI\nsvi = SVI(m, g, o)\nf(svi.evaluate_loss(x))\n", None),
        ("svi = make()\nf(svi.evaluate_loss(x))\n", "svi.evaluate_loss(x)"),  # not known to be pyro's: a loss by its name
    ],
)
def test_graph_source(code, expected):
    assert _graph_source(code) == expected


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
        ("model.load_pretrained_embeddings(vectors)", False),  # set-up methods of a model
        ("self.model._init_weights(m)", False),
        ("model.encode(x)", True),
        ("demo_model.predictor()", False),  # a forward takes inputs
        ("self.decoder.decode(state, step)", True),  # a decoder's decode is not a tokenizer's
        ("model.parameters()", False),
        ("module.graph.placeholder('x')", False),
    ],
)
def test_graph_source_callee_names(call, evidence):
    assert _graph_source(f"f({call})\n") == (call if evidence else None)


def test_library_methods_that_return_numbers():
    for ctx, fact in each(
        """\
        import pyro.infer
        svi = pyro.infer.SVI(model, guide, optim, loss="ELBO")
        n = svi.step(x)
        print(n, svi.evaluate_loss(x))  # value n: not_tensor what=number; value svi.evaluate_loss(x): not_tensor what=number
        """,
        "value",
    ):
        _check(ctx, fact)


@pytest.mark.parametrize(
    "code,checked",
    [
        ("if isinstance(v, torch.Tensor):\n        f(v)\n", True),
        ("if isinstance(v, (torch.Tensor, np.ndarray)):\n        f(v)\n", True),
        ("if isinstance(v, Tensor):\n        f(v)\n", True),
        ("if isinstance(v, torch.Tensor):\n        pass\n    else:\n        f(v)\n", False),
        ("if isinstance(w, torch.Tensor):\n        f(v)\n", False),
        ("if isinstance(v, torch.Tensor):\n        v = g(v)\n        f(v)\n", False),  # rebound inside
        ("if isinstance(v, dict):\n        f(v)\n", False),
        ("f(v)\n", False),
    ],
)
def test_tensor_checked_by_isinstance(code, checked):
    ctx = context(f"import numpy as np\nimport torch\nfrom torch import Tensor\ndef h(v, w):\n    {code}")
    call = next(n for n in walk(ctx.module, into_functions=True) if isinstance(n, cst.Call) and ctx.code_for(n.func) == "f")
    assert ctx.semantic.values.tensor_checked(call.args[0].value) is checked


@pytest.mark.parametrize(
    "iterable,batches",
    [
        ("[xs[i : i + n] for i in range(0, len(xs), n)]", True),
        ("(xs[i : i + n] for i in range(0, len(xs), n))", True),
        ("[xs[i] for i in range(0, len(xs), n)]", False),  # one item each
        ("[xs[j : j + n] for i in range(0, len(xs), n)]", False),  # not sliced at the stride
        ("[xs[i : i + n] for i in range(len(xs))]", False),  # overlapping windows, not a partition
    ],
)
def test_loader_of_batches_sliced_by_hand(iterable, batches):
    ctx = context(f"def f(xs, n):\n    batches = {iterable}\n    for b in batches:\n        pass\n")
    loop = next(n for n in walk(ctx.module, into_functions=True) if isinstance(n, cst.For))
    assert ctx.semantic.values.is_loader(loop.iter, ctx.tree.function_scope(loop)) is batches


def test_values_are_lazy_and_memoised():
    ctx = context("import torch\nx = torch.zeros(1)\ny = x + 1\n")
    assert "values" not in vars(ctx.semantic)  # nothing built until asked
    y = ctx.module.body[2].body[0].value
    first = ctx.semantic.values.value(y)
    assert ctx.semantic.values.value(y) is first


def test_an_edit_in_place_can_give_a_factory_tensor_history():
    for ctx, fact in each(
        """\
        import torch
        def f(h, w, n):
            out = torch.zeros(n)
            out[0] = torch.matmul(h, w)
            fresh = torch.zeros(n)
            print(out, fresh)  # value out: tensor graph=maybe; value fresh: tensor graph=no
        """,
        "value",
    ):
        _check(ctx, fact)


def test_an_edit_of_an_earlier_value_does_not_reach_a_later_binding():
    # The edits count only where they may run after the binding that reaches the read:
    # later in the source, or in a loop that also holds the binding.
    for ctx, fact in each(
        """\
        import torch
        def f(extractor, batch, h, w, n, steps):
            feats = extractor(batch)
            for k in feats:
                feats[k] = torch.flatten(feats[k], 1)
            feats = torch.cat(list(feats.values())).detach()
            print(feats)  # value feats: tensor graph=no
            late = torch.zeros(n)
            print(late)  # value late: tensor graph=maybe
            late[0] = torch.matmul(h, w)
            for _ in range(steps):
                again = torch.zeros(n)
                again.add_(torch.matmul(h, w))
                print(again)  # value again: tensor graph=maybe
            for _ in range(steps):
                again[0] = torch.matmul(h, w)
                again = torch.zeros(n)
                print(again)  # value again: tensor graph=maybe
            both = torch.zeros(n)
            print(both)  # value both: tensor graph=no
        """,
        "value",
    ):
        _check(ctx, fact)


def test_what_may_hold_tensors_is_not_plain():
    for ctx, fact in each(
        """\
        def f(trainer, tokenizer, ids, c):
            out = {}
            if c:
                out = trainer.decode(ids)
            text = tokenizer.decode(ids)
            print(out, text)  # value out: unknown; value text: not_tensor what=string
            both = [] if c else "none"
            print(both)  # value both: not_tensor what=container
        """,
        "value",
    ):
        _check(ctx, fact)


# -- forward outputs: activations (non-leaf) versus leaves (what GL202/GL204 divide by) ----


def _forward_output(code: str) -> Optional[str]:
    """The evidence ``forward_output`` gives for the receiver of the last ``.data`` in ``code``."""
    ctx = context(code)
    data = [n for n in walk(ctx.module, into_functions=True) if isinstance(n, cst.Attribute) and n.attr.value == "data"]
    found = ctx.semantic.values.forward_output(data[-1].value)
    return ctx.code_for(found) if found is not None else None


@pytest.mark.parametrize(
    "code,expected",
    [
        # produced in the same function, on one path at least
        ("h = model(x)\nh.data.mul_(m)\n", "model(x)"),
        ("h = x\nif c:\n    h = net(x)\nh.data.mul_(m)\n", "net(x)"),
        ("out, hidden = rnn(x)\nhidden.data.zero_()\n", "rnn(x)"),
        ("h = model(x)\ng = h\ng.data.mul_(m)\n", "model(x)"),
        # views of it share its storage: basic indexing (with a loop counter too), .T, .view()
        ("h = model(x)\nh[0, :, 1:].data.mul_(m)\n", "model(x)"),
        ("h = model(x)\nfor i in range(3):\n    h[i].data.mul_(m)\n", "model(x)"),
        ("h = model(x)\nh.view(-1).T.data.mul_(m)\n", "model(x)"),
        ("h = model(x)\nh[idx].data.mul_(m)\n", None),  # advanced indexing copies
        # handed in by a caller of this file
        ("def scale(d, s):\n    d.data *= s\n\ndelta = netG(z)\nscale(delta, 0.5)\n", "netG(z)"),
        ("def scale(d, s):\n    d.data *= s\n\nscale(s=2, d=netG(z))\n", "netG(z)"),
        ("def scale(d, s):\n    d.data *= s\n\nscale(torch.load(p), 2)\nscale(netG(z), 2)\n", "netG(z)"),
        ("class G:\n    def norm(self, d):\n        d.data += 1\n        return d\n    def forward(self, z):\n"
         "        return self.norm(self.net(z))\n", "self.net(z)"),
        # an op recorded on it is an activation too
        ("import torch\ndef norm(d):\n    d = torch.tanh(d) * 2\n    d.data[:, 0] = 0\n\nnorm(netG(z))\n", "netG(z)"),
        ("def norm(d):\n    d = d.clamp(0, 1)\n    d.data += 1\n\nnorm(netG(z))\n", "netG(z)"),
        ("def norm(d):\n    d = d.detach()\n    d.data += 1\n\nnorm(netG(z))\n", None),
        ("import torch\ndef norm(d):\n    with torch.no_grad():\n        e = torch.tanh(d)\n    e.data += 1\n\nnorm(netG(z))\n", None),
        ("def scale(d, s):\n    d.data *= s\n\nscale(torch.zeros(3), 2)\n", None),
        ("def scale(d, s):\n    d.data *= s\n\nhooks.append(scale)\nscale(netG(z), 2)\n", None),  # other callers unknown
        ("def scale(d, s):\n    d.data *= s\n\nscale(*args)\n", None),
        ("import torch\ndef scale(d, s):\n    d.data *= s\n\nwith torch.no_grad():\n    scale(netG(z), 2)\n", None),
        # leaves: parameters, buffers, fresh tensors
        ("for p in model.parameters():\n    p.data.clamp_(-c, c)\n", None),
        ("self.proj.weight.data.clamp_(-1, 1)\n", None),
        ("import torch\nh = torch.zeros(3)\nh.data.add_(1)\n", None),
        ("import torch\nw = torch.nn.Parameter(torch.zeros(3))\nw.data.add_(1)\n", None),
    ],
)
def test_forward_output(code, expected):
    assert _forward_output(code) == expected


def test_adds_up_numbers():
    ctx = context(
        """\
        def run(model, batches, t):
            total, n, acc = 0.0, 0, 0.0
            for x in batches:
                total += model(x).sum().item()
                n += 1
                acc += model(x).sum()
            print(total, n, acc, t)
        """
    )
    reads = {n.value: n for n in walk(ctx.module, into_functions=True) if isinstance(n, cst.Name) and ctx.tree.line(n) == 7}
    assert {k: ctx.semantic.values.adds_up_numbers(reads[k]) for k in ("total", "n", "acc", "t")} == {
        "total": True, "n": True, "acc": False, "t": False
    }


@pytest.mark.parametrize(
    "expr, free",
    [
        ("h.new(2, 3).zero_()", True),  # a fresh tensor (the 0.3 hidden-state idiom), zeroed in place
        ("h.data.new(1, 4)", True),
        ("h.new_zeros(2)", True),
        ("h.new_tensor(y)", True),  # copies ``y`` without its history
        ("h.clone()", False),
        ("torch.zeros(2).cuda()", True),
        ("h", False),
    ],
)
def test_carries_no_graph(expr, free):
    ctx = context(f"import torch\ndef f(h, y):\n    return {expr}\n")
    ret = next(n for n in walk(ctx.module, into_functions=True) if isinstance(n, cst.Return))
    scope = ctx.semantic.tree.function_scope(ret.value)
    assert ctx.semantic.values.carries_no_graph(ret.value, scope) is free
