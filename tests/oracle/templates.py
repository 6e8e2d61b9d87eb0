"""Generated oracle programs: every fixable rule's finding, placed where its value
flows, in every shape of function, with every binding of the name ``torch``, on
every kind of value the rules meet.

Convention: a program defines ``run()``; the driver calls it and records what it
printed, returned and raised, and the gradient of every parameter and leaf
tensor reachable from the module's globals. Setup code never binds ``torch``
itself (it imports ``from torch import ...``), so that the ``torch`` axis alone
decides what that name is where a fix inserts ``torch.no_grad()``.
"""

from __future__ import annotations

import itertools
import random
import textwrap
from typing import Dict, Iterator, List, Optional, Tuple

from oracle.escape import escape_family
from oracle.nontensor import nontensor_family
from oracle.runner import Program

# What every template program starts with (after its `torch` binding).
SETUP = """\
from torch import nn, optim, randn, zeros, tensor
import asyncio, contextlib, functools


class Escape(Exception):
    pass


def backprop(t):
    t.sum().backward()


def train_step(t):
    opt.zero_grad()
    t.sum().backward()
    opt.step()


model = nn.Linear(4, 2)
opt = optim.SGD(model.parameters(), lr=0.1)
x = randn(3, 4)
sink = []
buf = zeros(3, 2)
holder = type("Holder", (), {})()
"""

# -- where the flagged value goes -------------------------------------------------
# Each flow: (statement that ends the body, code the caller runs with the call
# expression CALL, what the shape must allow: "return", "yield" or None).
FLOWS: Dict[str, Tuple[str, str, Optional[str]]] = {
    "printed": ('print(f"{float(out.sum()):.4f}")', "CALL", None),
    "returned-backprop": ("return out", "backprop(CALL)", "return"),
    "stored-on-self": ("HOLDER.cache = out", "CALL\n    backprop(HOLDER_OUT.cache)", None),
    "appended": ("sink.append(out)", "CALL\n    backprop(sum(t.sum() for t in sink))", None),
    "iadd-param": ("sink += [out]", "CALL\n    backprop(sum(t.sum() for t in sink))", None),
    "copy-into-buffer": ("buf.copy_(out)", "CALL\n    backprop(buf)", None),
    "helper-backward": ("backprop(out)", "CALL", None),
    "helper-step": ("train_step(out)", "CALL", None),
    "lambda": ("return lambda: out.sum()", "(CALL)().backward()", "return"),
    "callback": ("sink.append(out); on_output(out)", "CALL", None),
    "yielded": ("yield out", "for o in CALL:\n        backprop(o)", "yield"),
    "raised": ("raise Escape(out)", "try:\n        CALL\n    except Escape as e:\n        backprop(e.args[0])", None),
}

CALLBACK = "def on_output(t):\n    backprop(t)\n"

# -- the shape of the function that holds the finding -----------------------------
# Each: (definition, with BODYn where the body goes indented by n, the call, the
# flow kinds it allows).
SHAPES = {
    "def": ("def f(model, x, sink):\nBODY4", "f(model, x, sink)", {"return"}),
    "generator": ("def f(model, x, sink):\nBODY4\n    yield None", "list(f(model, x, sink))", {"yield"}),
    "async": ("async def f(model, x, sink):\nBODY4", "asyncio.run(f(model, x, sink))", {"return"}),
    "sync-in-async": (
        "async def g(model, x, sink):\n    def f(model, x, sink):\nBODY8\n    return f(model, x, sink)",
        "asyncio.run(g(model, x, sink))",
        {"return"},
    ),
    "closure": ("def make(model):\n    def f(x, sink):\nBODY8\n    return f", "make(model)(x, sink)", {"return"}),
    "super-method": (
        "class Base:\n    def f(self, model, x, sink):\n        return None\n\n\n"
        "class Net(Base):\nCLASSATTR    def f(self, model, x, sink):\n        super().f(model, x, sink)\nBODY8",
        "Net().f(model, x, sink)",
        {"return"},
    ),
    "staticmethod": (
        "class Net:\nCLASSATTR    @staticmethod\n    def f(model, x, sink):\nBODY8",
        "Net.f(model, x, sink)",
        {"return"},
    ),
    "classmethod": (
        "class Net:\nCLASSATTR    @classmethod\n    def f(cls, model, x, sink):\nBODY8",
        "Net.f(model, x, sink)",
        {"return"},
    ),
    "property": ("class Net:\nCLASSATTR    @property\n    def f(self):\nBODY8", "Net().f", {"return"}),
    "lru_cache": ("@functools.lru_cache(maxsize=None)\ndef f(model, x):\nBODY4", "f(model, x)", {"return"}),
    "contextmanager": (
        "@contextlib.contextmanager\ndef f(model, x, sink):\nBODY4\n    yield",
        "with_cm(f(model, x, sink))",
        set(),
    ),
    "module": ("BODY0", "None", set()),
}
CLASS_SHAPES = {"super-method", "staticmethod", "classmethod", "property"}

# -- what ``torch`` names where the fix puts ``torch.no_grad()`` ------------------
TORCH_NAMES = ("module", "class-attribute", "imported-later", "except-as", "parameter")


def _indent(text: str, n: int) -> str:
    return textwrap.indent(text, " " * n)


def compose(site: str, flow: str, shape: str, torch_name: str, head: str = "") -> Optional[str]:
    """A program with ``site`` (statements that leave the flagged value in ``out``)
    followed by ``flow``, in a function of ``shape``; None when they do not combine."""
    end, caller, needs = FLOWS[flow]
    definition, call, supports = SHAPES[shape]
    if needs is not None and needs not in supports:
        return None
    if shape == "module" and flow == "raised":
        return None
    if torch_name == "class-attribute" and shape not in CLASS_SHAPES:
        return None
    if torch_name == "parameter" and shape in ("module", "property", "lru_cache"):
        return None
    body = f"{site}\n{end}"
    if shape == "generator" and flow == "yielded":
        definition = definition.replace("\n    yield None", "")
    if shape == "module":
        body = body.replace("sink += [out]", "sink.extend([out])")
    holder_in, holder_out = "holder", "holder"
    if shape == "super-method":
        holder_in = "self"
        call = "net.f(model, x, sink)"
        holder_out = "net"
    if shape == "property" and flow == "stored-on-self":
        holder_in, holder_out, call = "self", "net", "net.f"
    body = body.replace("HOLDER", holder_in)
    if torch_name == "parameter":
        definition = definition.replace("x, sink):", "x, sink, torch=None):", 1)
    for n in (0, 4, 8):
        definition = definition.replace(f"BODY{n}", _indent(body, n))
    definition = definition.replace("CLASSATTR", '    torch = "cpu"  # the device these run on\n' if torch_name == "class-attribute" else "")
    caller = caller.replace("HOLDER_OUT", holder_out).replace("CALL", call)
    parts = [head, SETUP]
    if torch_name in ("module", "class-attribute", "parameter"):
        parts.insert(0, "import torch\n")
    if torch_name == "except-as":
        parts.insert(0, "import torch\n")
        parts.append("try:\n    import torch_backend_that_is_not_installed\nexcept ImportError as torch:\n    pass\n")
    if flow == "callback":
        parts.append(CALLBACK)
    parts.append("\ndef with_cm(cm):\n    with cm:\n        pass\n")
    if shape == "super-method" or (shape == "property" and flow == "stored-on-self"):
        parts.append(definition + "\n\nnet = Net()\n")
    else:
        parts.append(definition + "\n")
    if torch_name == "imported-later":
        parts.append("import torch\n")
    if shape == "module" and caller.startswith("None"):
        caller = caller.replace("None", "pass", 1)  # the code ran when the module was executed
    parts.append(f"\n\ndef run():\n    {caller}\n    return model.weight\n")
    return "\n".join(p.strip("\n") + "\n" for p in parts if p)


# -- per-rule sites ---------------------------------------------------------------

GL001_HEAD = "from torch.autograd import Variable\n"
GL001_SITE = "v = Variable(x, volatile=True)\nout = model(v)"
GL101_SITE = "model.eval()\nout = model(x)"
GL002_SITE = "v = Variable(x)\nout = model(v)"


def flow_family(rule: str, site: str, head: str = "") -> Iterator[Program]:
    for flow, shape, tname in itertools.product(FLOWS, SHAPES, TORCH_NAMES):
        text = compose(site, flow, shape, tname, head)
        if text is None:
            continue
        yield Program(f"{rule.lower()}-{flow}-{shape}-{tname}", rule, f"flow={flow} shape={shape} torch={tname}", text)


def _prog(rule: str, family: str, name: str, body: str) -> Program:
    return Program(f"{rule.lower()}-{family}-{name}", rule, family, textwrap.dedent(body).lstrip("\n"))


# GL002: values that carry a graph, and leaves that share a base.
GL002_VALUES = {
    "plain-batch": "x = randn(3, 4)",
    "leaf-requires-grad": "x = randn(3, 4, requires_grad=True)",
    "as-tensor-of-param": "x = torch.as_tensor(model.weight[:, :2].repeat(3, 2)[:3])",
    "model-output-list": "loader = [model(randn(3, 4)).repeat(1, 2) for _ in range(2)]\nx = loader[0]",
    "from-loader-items": "loader = [model(randn(3, 4)).repeat(1, 2) for _ in range(2)]",
}


def gl002_family() -> Iterator[Program]:
    head = "import torch\nfrom torch import nn, randn\nfrom torch.autograd import Variable\n\nmodel = nn.Linear(4, 2)\n"
    for vname, value in GL002_VALUES.items():
        if vname == "from-loader-items":
            body = f"{head}{value}\n\n\ndef run():\n    outs = []\n    for batch in loader:\n        v = Variable(batch)\n        outs.append(v.sum())\n    sum(outs).backward()\n    return outs\n"
        else:
            body = f"{head}{value}\n\n\ndef run():\n    v = Variable(x)\n    out = (v * 2).sum()\n    print(f'{{float(out):.4f}}')\n    if out.requires_grad:\n        out.backward()\n    return out\n"
        yield Program(f"gl002-value-{vname}", "GL002", f"value={vname}", body)
    for rg in ("True", "False"):
        yield _prog("GL002", "shared-base", f"requires-grad-{rg.lower()}", f"""
            import torch
            from torch import randn
            from torch.autograd import Variable

            base = randn(3)


            def run():
                a = Variable(base, requires_grad={rg})
                b = Variable(base, requires_grad={rg})
                total = (a * 2).sum() + (b * 3).sum()
                if total.requires_grad:
                    total.backward()
                return [a.grad, b.grad]
            """)
    yield _prog("GL002", "shared-base", "factory", """
        import torch
        from torch.autograd import Variable


        def run():
            w = Variable(torch.ones(3), requires_grad=True)
            (w * 2).sum().backward()
            return w.grad
        """)


# GL003: the value read with ``.data[0]``.
GL003_VALUES = {
    "0-dim": "loss = (model(x) ** 2).mean()",
    "one-element-1d": "loss = (model(x) ** 2).mean().reshape(1)",
    "n-element": "loss = (model(x) ** 2).mean(0)",
    "numpy": "loss = (model(x) ** 2).mean(0).detach().numpy()",
    "list": "loss = [0.5, 0.25]\nloss = type('Box', (), {'data': loss})()",
    "config-object": "loss = type('Config', (), {'data': [3, 4]})()",
    "sum-reduction": "scores = model(x)",
}
GL003_USES = {
    "accumulated": "total += {read}\nprint(total)",
    "formatted": "print('loss %.4f' % {read})",
    "compared": "print({read} > 0.1)",
    "float": "print(float({read}))",
    "appended": "history.append({read})\nprint(history)",
}


def gl003_family() -> Iterator[Program]:
    head = "import torch\nfrom torch import nn, randn\n\nmodel = nn.Linear(4, 2)\nx = randn(3, 4)\n"
    for (vname, value), (uname, use) in itertools.product(GL003_VALUES.items(), GL003_USES.items()):
        read = "scores.sum().data[0]" if vname == "sum-reduction" else "loss.data[0]"
        stmts = _indent(value + "\n" + use.format(read=read), 4)
        body = f"{head}\n\ndef run():\n    total = 0.0\n    history = []\n{stmts}\n    return total, history\n"
        yield Program(f"gl003-{vname}-{uname}", "GL003", f"value={vname}", body)


# GL003: a loss bound to a 0-dim value, then reshaped in place before it is read.
GL003_RESHAPES = {
    "none": "",
    "same-shape-edit": "loss.mul_(2)",
    "unsqueeze": "loss.unsqueeze_(0)",
    "resize": "loss.resize_(1)",
    "data-view": "loss.data = loss.data.view(1)",
}


def gl003_reshape_family() -> Iterator[Program]:
    head = "import torch\nimport torch.nn.functional as F\nfrom torch import nn, randn\n\ntorch.manual_seed(0)\nmodel = nn.Linear(4, 2)\n"
    for name, edit in GL003_RESHAPES.items():
        yield Program(
            f"gl003-reshape-{name}",
            "GL003",
            f"reshaped={name}",
            f"{head}\n\ndef run():\n    loss = F.mse_loss(model(randn(3, 4)), randn(3, 2))\n    {edit or 'pass'}\n"
            "    value = loss.data[0]\n    print(value)\n    return value\n",
        )


# GL101: escapes named in the issue beyond the generic flows.
def gl101_extra() -> Iterator[Program]:
    yield _prog("GL101", "lazy-generator-input", "graph-building-generator", """
        import torch
        from torch import nn, randn

        model = nn.Linear(4, 4)
        enc = nn.Linear(4, 4)


        def batches():
            for _ in range(2):
                yield enc(randn(3, 4))


        def run():
            model.eval()
            outs = []
            for b in batches():
                outs.append(model(b).sum().item())
            total = sum(o for o in outs)
            print(round(total, 4))
            return outs
        """)
    yield _prog("GL101", "arithmetic-before-eval", "stored-into-list", """
        import torch
        from torch import nn, randn

        model = nn.Linear(4, 2)
        x = randn(3, 4)


        def run():
            kept = []
            scale = model(x).sum() * 2
            model.eval()
            y = model(x)
            kept.append(scale + y.sum())
            kept[0].backward()
            return model.weight.grad
        """)
    yield _prog("GL101", "batchnorm-freeze", "helper-step", """
        import torch
        from torch import nn, optim, randn

        model = nn.Sequential(nn.Linear(4, 4), nn.BatchNorm1d(4), nn.Linear(4, 1))
        opt = optim.SGD(model.parameters(), lr=0.1)


        def step(loss):
            opt.zero_grad()
            loss.backward()
            opt.step()


        def train(data):
            model.eval()  # freeze batch-norm statistics while fine-tuning
            for xb in data:
                loss = model(xb).pow(2).mean()
                step(loss)


        def run():
            train([randn(5, 4) for _ in range(2)])
            return model[0].weight
        """)

    # Unfixed, ``out.numpy()`` raises (the output requires grad); under the guard it
    # does not: an error removed at another line than the flagged forward.
    yield _prog("GL101", "numpy-of-graph-output", "error-on-later-line", """
        import torch
        from torch import nn, randn

        model = nn.Linear(4, 2)


        def run():
            model.eval()
            outs = []
            for xb in [randn(3, 4) for _ in range(2)]:
                out = model(xb)
                outs.append(float(out.numpy().sum()))
            return outs
        """)

    # A decorator of the file that hands back the function it decorates (a registry,
    # a docstring factory): the fix's ``@torch.no_grad()`` goes under it, so the
    # registry holds the guarded function and calls through it run guarded too.
    yield _prog("GL101", "identity-decorator", "registry-and-doc-factory", """
        import torch
        from torch import nn, randn

        REGISTRY = {}
        model = nn.Linear(4, 2)


        def register(fn):
            REGISTRY[fn.__name__] = fn
            return fn


        def documented(header):
            def add_doc(fn):
                fn.__doc__ = header
                return fn

            return add_doc


        @register
        def scores(batches):
            model.eval()
            return [model(xb).sum().item() for xb in batches]


        @documented("Largest logit per batch.")
        def peaks(batches):
            model.eval()
            return [float(model(xb).max()) for xb in batches]


        def run():
            batches = [randn(3, 4) for _ in range(2)]
            return scores(batches), REGISTRY["scores"](batches), peaks(batches), peaks.__doc__
        """)

    # ``if head: head.eval()`` then ``if head: out = head(out)``: the fix decorates the
    # evaluation, so the backbone's forward runs guarded too; only ints come back.
    yield _prog("GL101", "conditional-eval", "same-test-forward", """
        import torch
        from torch import nn, randn

        backbone = nn.Linear(4, 3)
        head = nn.Linear(3, 2)


        def evaluate(batches, gnn, answering):
            if answering:
                answering.eval()
            correct = 0
            for xb in batches:
                out = gnn(xb)
                if answering:
                    out = answering(out)
                correct += int((out.argmax(dim=1) == 0).sum())
            return correct


        def run():
            batches = [randn(5, 4) for _ in range(2)]
            return evaluate(batches, backbone, head), evaluate(batches, backbone, None), backbone.weight.grad
        """)

    # A method handed an eval-mode encoder by one caller and a training student by
    # another: the fix guards its forward, which only ever returns a float, so the
    # student's own training step (outside the helper) gets the same gradients.
    yield _prog("GL101", "method-helper", "shared-with-training", """
        import torch
        from torch import nn, randn


        class Pipeline:
            def __init__(self):
                torch.manual_seed(0)
                self.teacher = nn.Linear(4, 4)
                self.teacher.eval()
                self.student = nn.Linear(4, 4)

            def describe(self, encoder, x):
                return encoder(x).mean().item()

            def log_teacher(self, x):
                return self.describe(self.teacher, x)

            def train_step(self, x):
                seen = self.describe(self.student, x)
                loss = self.student(x).pow(2).mean()
                loss.backward()
                return seen


        def run():
            p = Pipeline()
            x = randn(3, 4)
            return p.log_teacher(x), p.train_step(x), p.student.weight.grad
        """)

    # ``if isinstance(net, nn.Module): net.eval()``: the evaluation is also handed a
    # plain function over a weight that requires grad; either way only a float comes
    # back, and the training step after it gets the same gradients.
    yield _prog("GL101", "isinstance-eval", "module-or-function", """
        import torch
        from torch import nn, randn

        torch.manual_seed(0)
        net = nn.Linear(4, 3)
        weight = torch.ones(4, 3, requires_grad=True)


        def scratch(x):
            return x @ weight


        def evaluate_accuracy(model, batches):
            if isinstance(model, torch.nn.Module):
                model.eval()
            correct = 0.0
            for xb in batches:
                correct += float((model(xb).argmax(dim=1) == 0).sum())
            return correct


        def run():
            batches = [randn(5, 4) for _ in range(2)]
            a, b = evaluate_accuracy(net, batches), evaluate_accuracy(scratch, batches)
            net.train()
            net(batches[0]).pow(2).mean().backward()
            scratch(batches[0]).sum().backward()
            return a, b, net.weight.grad, weight.grad
        """)

    # A base class's method leaves ``self.model`` in eval mode; the subclass's
    # validation, called between training steps, keeps detached outputs only.
    yield _prog("GL101", "inherited-eval", "super-method-then-training", """
        import torch
        from torch import nn, randn


        class Base:
            def __init__(self):
                torch.manual_seed(0)
                self.model = nn.Linear(4, 2)
                self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.1)

            def prepare_validation(self):
                self.model.eval()


        class Trainer(Base):
            def validate(self, batches):
                super().prepare_validation()
                outputs = []
                for xb in batches:
                    out = self.model(xb).detach()
                    outputs.extend(out)
                return torch.stack(outputs).numpy()

            def loop(self, batches):
                seen = []
                for xb in batches:
                    self.model.train()
                    self.optimizer.zero_grad()
                    self.model(xb).pow(2).mean().backward()
                    self.optimizer.step()
                    seen.append(float(self.validate(batches).mean()))
                return seen, self.model.weight.grad


        def run():
            return Trainer().loop([randn(3, 4) for _ in range(2)])
        """)

    # An owner whose network ``__init__`` switched and then moved (the move keeps the
    # mode); ``process`` returns only what NumPy computes from the detached output.
    yield _prog("GL101", "numpy-result-returned", "owner-moved-model", """
        import numpy as np
        import torch
        from torch import nn, randn


        class Owner:
            def __init__(self):
                self.net = nn.Linear(4, 2)
                self.net.eval()
                if not torch.cuda.is_available():
                    self.net = self.net.to("cpu")

            def process(self, image):
                pos = self.net(torch.from_numpy(image))
                pos = pos.cpu().detach().numpy()
                return np.reshape(np.transpose(pos), (-1,))


        def run():
            owner = Owner()
            return [owner.process(randn(3, 4).numpy()) for _ in range(2)]
        """)

    # A forward that runs once at module level, on data the script reads (a function of
    # the file, not a torch factory), its output kept as the result: the default tier
    # reports it, and the safe fix guards the statement; the result's values are the same.
    yield _prog("GL101", "one-off-on-data", "module-level-result", """
        import torch
        from torch import nn

        torch.manual_seed(0)
        model = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2))


        def load_images():
            g = torch.Generator().manual_seed(1)
            return torch.rand(2, 4, generator=g)


        images = load_images()
        model.eval()
        restored = model(images)
        RESULT = restored.softmax(1)


        def run():
            return RESULT, float(model[0].weight.sum())
        """)

    # A scoring script's ``init()`` sets the global model in eval mode; ``score`` runs it
    # for each request. The safe fix guards the forward: the same labels come back.
    yield _prog("GL101", "global-set-by-function", "init-and-score", """
        import torch
        from torch import nn, randn

        model = None


        def init():
            global model
            torch.manual_seed(0)
            model = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2))
            model.eval()


        def score(batch):
            output = model(batch)
            return output.argmax(1).tolist()


        def run():
            init()
            return score(randn(5, 4)), score(randn(2, 4))
        """)

    # An ensemble keeps its eval-mode models in a plain list; ``predict`` runs each on an
    # input that requires grad, detaching every output: the fix changes no value and no
    # gradient (none reaches the input either way).
    yield _prog("GL101", "list-of-eval-models", "ensemble-predict", """
        import torch
        from torch import nn, randn


        class Ensemble:
            def __init__(self):
                torch.manual_seed(0)
                self._models = []
                for _ in range(2):
                    m = nn.Linear(4, 2)
                    m.eval()
                    self._models.append(m)

            def predict(self, x):
                result = [torch.sigmoid(model(x)).detach() for model in self._models]
                return torch.stack(result, dim=1).mean(dim=1)


        def run():
            e = Ensemble()
            x = randn(3, 4, requires_grad=True)
            return e.predict(x), x.grad, len(e._models)
        """)

    # ``if evaluate: eval() else: train()`` with ``test`` passing True, outputs joined to a
    # running tensor: reported without a fix (no guard fits both phases).
    yield _prog("GL101", "flag-true-eval", "prediction-loop-cat", """
        import torch
        from torch import nn, randn


        class Trainer:
            def __init__(self):
                torch.manual_seed(0)
                self.model = nn.Linear(4, 2)

            def test(self, batches):
                predictions = self._prediction_loop(batches, True)
                return predictions.detach().argmax(1).tolist()

            def _prediction_loop(self, batches, evaluate):
                if evaluate:
                    self.model.eval()
                else:
                    self.model.train()
                out = torch.Tensor()
                for xb in batches:
                    out = torch.cat([out, self.model(xb)])
                return out


        def run():
            t = Trainer()
            batches = [randn(3, 4) for _ in range(2)]
            return t.test(batches), t.model.weight.grad
        """)

# GL106: a guard that looked redundant but was the only one in effect.
def gl106_family() -> Iterator[Program]:
    yield _prog("GL106", "async-decorator", "inner-guard", """
        import asyncio
        import torch
        from torch import nn, randn

        model = nn.Linear(4, 2)
        x = randn(3, 4)


        @torch.no_grad()
        async def predict(x):
            with torch.no_grad():
                out = model(x)
            return out


        def run():
            out = asyncio.run(predict(x))
            print(out.requires_grad)
            return out
        """)
    yield _prog("GL106", "enabled-in-if", "inner-guard", """
        import torch
        from torch import nn, randn

        model = nn.Linear(4, 2)
        x = randn(3, 4)


        def run(finetune=True):
            with torch.no_grad():
                if finetune:
                    torch.set_grad_enabled(True)
                with torch.no_grad():
                    out = model(x)
            torch.set_grad_enabled(True)
            print(out.requires_grad)
            return out
        """)
    yield _prog("GL106", "nested", "plain", """
        import torch
        from torch import nn, randn

        model = nn.Linear(4, 2)
        x = randn(3, 4)


        def run():
            with torch.no_grad():
                with torch.no_grad():
                    out = model(x)
            print(out.requires_grad)
            return out
        """)


# GL301: where the accumulated total goes.
def gl301_family() -> Iterator[Program]:
    head = "import torch\nfrom torch import nn, randn\n\nmodel = nn.Linear(4, 1)\nbatches = [randn(3, 4) for _ in range(3)]\n"
    cases = {
        "returned-backprop": ("def total_loss(batches):\n    total = 0\n    for xb in batches:\n        loss = model(xb).pow(2).mean()\n        total += loss\n    return total\n", "t = total_loss(batches)\n    t.backward()\n    print(f'{float(t):.4f}')"),
        "self-stats": ("class Tracker:\n    def __init__(self):\n        self.stats = {'loss': 0}\n\n    def update(self, batches):\n        for xb in batches:\n            loss = model(xb).pow(2).mean()\n            self.stats['loss'] += loss\n\n    def backprop(self):\n        self.stats['loss'].backward()\n", "tr = Tracker()\n    tr.update(batches)\n    tr.backprop()"),
        "float-total-printed": ("def evaluate(batches):\n    total = 0.0\n    for xb in batches:\n        loss = model(xb).pow(2).mean()\n        total += loss\n    print(total)\n    return total\n", "evaluate(batches)"),
        "tensor-total-printed": ("def evaluate(batches):\n    total = torch.zeros(())\n    for xb in batches:\n        loss = model(xb).pow(2).mean()\n        total += loss\n    print(total)\n    return total\n", "evaluate(batches)"),
        "list-of-losses": ("def evaluate(batches):\n    losses = []\n    for xb in batches:\n        loss = model(xb).pow(2).mean()\n        losses.append(loss)\n    print(losses)\n    return losses\n", "evaluate(batches)"),
        "module-appended": ("def collect(batches):\n    mods = []\n    for xb in batches:\n        layer = nn.Linear(4, 1)\n        mods.append(layer)\n    return len(mods)\n", "collect(batches)"),
        "dict-values": ("def evaluate(batches):\n    hist = {}\n    for i, xb in enumerate(batches):\n        loss = model(xb).pow(2).mean()\n        hist[i] = loss\n    print(hist)\n    return hist\n", "evaluate(batches)"),
        "none-appended": ("def evaluate(batches):\n    seen = []\n    for xb in batches:\n        out = model(xb)\n        seen.append(out if xb.sum() > 100 else None)\n    return seen\n", "evaluate(batches)"),
        "training-loop-logging": ("def train(batches):\n    opt = torch.optim.SGD(model.parameters(), lr=0.1)\n    running = 0.0\n    for xb in batches:\n        loss = model(xb).pow(2).mean()\n        opt.zero_grad()\n        loss.backward()\n        opt.step()\n        running += loss\n    print(f'{float(running):.4f}')\n    return running\n", "train(batches)"),
        # The default tier's proof: the loop runs backward from the loss it keeps; the
        # total stays in the function (printed), so the fix is safe and changes no step.
        "training-loop-printed": ("def train(batches):\n    opt = torch.optim.SGD(model.parameters(), lr=0.1)\n    running = 0.0\n    for xb in batches:\n        opt.zero_grad()\n        loss = torch.nn.functional.mse_loss(model(xb), xb[:, :1])\n        (loss / 2).backward()\n        opt.step()\n        running += loss\n    print(running)\n", "train(batches)"),
        # A helper of the file ran backward from the loss it hands back: kept in a list.
        "helper-trained-kept": ("def step(xb, opt):\n    opt.zero_grad()\n    loss = model(xb).pow(2).mean()\n    loss.backward()\n    opt.step()\n    return loss, float(loss)\n\n\ndef train(batches):\n    opt = torch.optim.SGD(model.parameters(), lr=0.1)\n    kept = []\n    for xb in batches:\n        loss, value = step(xb, opt)\n        kept.append(loss)\n    print(len(kept), value)\n", "train(batches)"),
    }
    for name, (defs, call) in cases.items():
        yield Program(f"gl301-{name}", "GL301", f"total={name}", f"{head}\n\n{defs}\n\ndef run():\n    {call}\n    return model.weight\n")


# GL302/GL303: attribute writes.
def gl30x_family() -> Iterator[Program]:
    for rhs in ("False", "None", "0", "flag"):
        for reads in (False, True):
            back = "    print(model.requires_grad)\n" if reads else ""
            yield Program(
                f"gl302-rhs-{rhs.lower()}-{'read' if reads else 'noread'}",
                "GL302",
                f"rhs={rhs} readback={reads}",
                "import torch\nfrom torch import nn, randn\n\nmodel = nn.Linear(4, 2)\nflag = False\n\n\n"
                f"def run():\n    model.requires_grad = {rhs}\n{back}    model(randn(3, 4)).sum().backward()\n    return model.weight.grad\n",
            )
    targets = {
        "leaf": "t = torch.ones(3)",
        "non-leaf": "w = torch.ones(3, requires_grad=True)\n    t = w * 2",
        "integer": "t = torch.arange(3)",
        "argparse": "import argparse\n    t = argparse.Namespace(lr=0.1)",
        "dataclass": "import dataclasses\n    t = dataclasses.make_dataclass('Cfg', [('lr', float)])(0.1)",
        "module": "t = nn.Linear(4, 2)",
    }
    for tname, setup in targets.items():
        for value in ("True", "False"):
            yield Program(
                f"gl303-{tname}-{value.lower()}",
                "GL303",
                f"target={tname}",
                "import torch\nfrom torch import nn\n\n\n"
                f"def run():\n    {setup}\n    t.require_grad = {value}\n    print(getattr(t, 'require_grad', 'unset'), getattr(t, 'requires_grad', 'unset'))\n    return t if isinstance(t, torch.Tensor) else None\n",
            )


# GL302 `= True`: parameters frozen before it by any route, and the attribute read
# back by any route. Each program freezes or reads in one way, then backpropagates.
GL302_STATE_HEAD = "import torch\nfrom torch import nn, randn\n"
# Helpers a program defines only where it uses them: a freeze anywhere in the file
# already makes the fix unsafe.
GL302_HELPERS = {
    "freeze(": "def freeze(m):\n    for p in m.parameters():\n        p.requires_grad = False\n",
    "log_flag(": 'def log_flag(m):\n    print("flag", getattr(m, "requires_grad", "unset"))\n',
    "Gated(": """\
class Gated(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x) * (2.0 if getattr(self, "requires_grad", False) else 1.0)
""",
}


def _gl302_program(name: str, family: str, body: str) -> Program:
    helpers = "".join(f"\n\n{text}" for key, text in GL302_HELPERS.items() if key in body)
    return Program(name, "GL302", family, f"{GL302_STATE_HEAD}{helpers}\n\ndef run():\n{body}")


GL302_BEFORE = {
    "nothing": "",
    "param-loop": "for p in model[0].parameters():\n        p.requires_grad = False",
    "submodule-call": "model[0].requires_grad_(False)",
    "named-parameters": "for n, p in model.named_parameters():\n        p.requires_grad_('bias' in n)",
    "helper": "freeze(model[0])",
    "setattr": "setattr(model[0].weight, 'requires_grad', False)",
    "frozen-parameter": "model[0].scale = nn.Parameter(randn(1), requires_grad=False)",
}
GL302_AFTER = {
    "nothing": "",
    "getattr": "print(getattr(model, 'requires_grad', 'unset'))",
    "hasattr": "print(hasattr(model, 'requires_grad'))",
    "vars": "print(sorted(vars(model)))",
    "dict": "print('requires_grad' in model.__dict__)",
    "helper": "log_flag(model)",
}


def gl302_state_family() -> Iterator[Program]:
    for before, after in itertools.product(GL302_BEFORE, GL302_AFTER):
        if before != "nothing" and after != "nothing":
            continue
        yield _gl302_program(
            f"gl302-state-{before}-{after}",
            f"unfreeze before={before} read={after}",
            f"    model = nn.Sequential(nn.Linear(4, 4), nn.Linear(4, 2))\n"
            f"    {GL302_BEFORE[before] or 'pass'}\n    model.requires_grad = True\n    {GL302_AFTER[after] or 'pass'}\n"
            "    model(randn(3, 4)).sum().backward()\n    return [p.grad for p in model.parameters()]\n",
        )
    yield _gl302_program(
        "gl302-state-self-flag",
        "unfreeze read=self-flag",
        "    model = Gated()\n    model.requires_grad = True\n    model(randn(3, 4)).sum().backward()\n    return model.fc.weight.grad\n",
    )
    yield _gl302_program(
        "gl302-state-self-flag-library-model",
        "unfreeze read=self-flag-elsewhere",
        "    gated = Gated()\n    model = nn.Linear(4, 2)\n    model.requires_grad = True\n"
        "    print(gated(randn(3, 4)).sum().item() != 0)\n    model(randn(3, 4)).sum().backward()\n    return model.weight.grad\n",
    )
    # the fix stays safe where nothing freezes or reads: a device move, an optimizer, a print
    yield _gl302_program(
        "gl302-state-optimizer-print",
        "unfreeze before=optimizer read=print",
        "    model = nn.Linear(4, 2).to('cpu')\n    opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    model.requires_grad = True\n    print(model)\n    model(randn(3, 4)).sum().backward()\n    opt.step()\n"
        "    return list(model.parameters())\n",
    )


# What a grad guard changes besides the graph: forwards that need grad mode (a hook
# or retain_grad in a module class of the file, or in a hook registered on the model)
# and modules whose eval-mode numbers differ under no_grad. Each is evaluated by
# GL101's shape (`model.eval()` then a forward) and GL001's (a volatile input).
GUARD_MODELS = {
    "linear": ("model = nn.Linear(8, 8)", "randn(3, 8)"),
    "attention": ("model = Attn()", "randn(3, 5, 8)"),
    "encoder-layer": ("model = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True)", "randn(3, 5, 8)"),
    "encoder": (
        "model = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True), 2, "
        "enable_nested_tensor=False)",
        "randn(3, 5, 8)",
    ),
    "decoder-layer": ("model = Dec()", "randn(3, 5, 8)"),
    "lstm": ("model = Rnn()", "randn(3, 5, 8)"),
    "register-hook": ("model = Hooked()", "randn(3, 8)"),
    "retain-grad": ("model = Kept()", "randn(3, 8)"),
    "forward-hook": ("model = nn.Linear(8, 8)\nmodel.register_forward_hook(keep_grad)", "randn(3, 8)"),
}
GUARD_HEAD = """\
import torch
from torch import nn, randn
from torch.autograd import Variable

torch.manual_seed(0)
GRADS = []
"""
# Definitions a program carries only where it uses them: the file is what the
# fixes read, and a hook anywhere in it already makes them unsafe.
GUARD_DEFS = {
    "Attn(": """\
class Attn(nn.Module):
    def __init__(self):
        super().__init__()
        self.mha = nn.MultiheadAttention(8, 2, batch_first=True)

    def forward(self, x):
        return self.mha(x, x, x, need_weights=False)[0]
""",
    "Dec(": """\
class Dec(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, batch_first=True)
        self.memory = randn(3, 5, 8)

    def forward(self, x):
        return self.layer(x, self.memory)
""",
    "Rnn(": """\
class Rnn(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(8, 8, num_layers=2, batch_first=True)

    def forward(self, x):
        return self.rnn(x)[0]
""",
    "Hooked(": """\
class Hooked(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        y = self.fc(x)
        y.register_hook(GRADS.append)
        return y
""",
    "Kept(": """\
class Kept(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        y = self.fc(x)
        y.retain_grad()
        return y * 2
""",
    "keep_grad)": """\
def keep_grad(module, inputs, output):
    output.retain_grad()
""",
}


def _guard_head(build: str) -> str:
    return GUARD_HEAD + "".join(f"\n\n{text}" for key, text in GUARD_DEFS.items() if key in build)


def guard_effect_family() -> Iterator[Program]:
    for mname, (build, data) in GUARD_MODELS.items():
        setup = build.replace("\n", "\n    ")
        yield Program(
            f"gl101-guard-effect-{mname}",
            "GL101",
            f"guard-effect model={mname}",
            f"{_guard_head(build)}\n\ndef run():\n    {setup}\n    x = {data}\n    model.eval()\n    out = model(x)\n"
            '    print(f"{float(out.sum()):.17g}")\n',
        )
        yield Program(
            f"gl001-guard-effect-{mname}",
            "GL001",
            f"guard-effect model={mname}",
            f"{_guard_head(build)}\n\ndef evaluate(model, x):\n    out = model(Variable(x, volatile=True))\n"
            '    print(f"{float(out.sum()):.17g}")\n\n\n'
            f"def run():\n    {setup}\n    model.eval()\n    evaluate(model, {data})\n",
        )


# `fix-grad-guard = "inference_mode"`: the guarded results edited in place or used
# with autograd after the guard raise; read as plain values they do not.
INFERENCE_USES = {
    "printed": ("preds = model(x).argmax(1)", 'print(preds.tolist())'),
    "item": ("loss = model(x).pow(2).mean()", "print(round(loss.item(), 6))"),
    "edited-in-place": ("labels = model(x).argmax(1)", "labels[labels == 1] = 0\n    print(labels.tolist())"),
    "meets-autograd": ("feats = model(x)", "head(feats).sum().backward()\n    print(head.weight.grad.shape)"),
    "appended": ("kept.append(model(x))", "torch.cat(kept).sum().mul_(2)\n    print(len(kept))"),
    "returned-index": ("idx = model(x).argmax(1)", "return idx"),
}


def inference_mode_family() -> Iterator[Program]:
    from gradlint.rule import RuleOptions

    options = RuleOptions(fix_grad_guard="inference_mode")
    head = "import torch\nfrom torch import nn, randn\n\ntorch.manual_seed(0)\nhead = nn.Linear(4, 2)\n"
    for uname, (compute, use) in INFERENCE_USES.items():
        yield Program(
            f"gl101-inference-mode-{uname}",
            "GL101",
            f"inference-mode use={uname}",
            f"{head}\n\ndef run():\n    model = nn.Linear(4, 4)\n    x = randn(3, 4)\n    kept = []\n    model.eval()\n"
            f"    {compute}\n    {use}\n",
            options=options,
        )
        ret = "return idx" if uname == "returned-index" else f"{use}"
        yield Program(
            f"gl001-inference-mode-{uname}",
            "GL001",
            f"inference-mode use={uname}",
            f"{head}from torch.autograd import Variable\n\n\ndef evaluate(model, x, kept):\n"
            f"    x = Variable(x, volatile=True)\n    {compute}\n"
            + ("    return idx\n" if uname == "returned-index" else "    return None\n")
            + f"\n\ndef run():\n    model = nn.Linear(4, 4)\n    kept = []\n    got = evaluate(model, randn(3, 4), kept)\n"
            + ("    got[got == 1] = 0\n    print(got.tolist())\n" if uname == "returned-index" else "    print(len(kept))\n"),
            options=options,
        )


# GL102: a bare guard inside a try that relied on the TypeError.
def gl102_family() -> Iterator[Program]:
    for exc in ("TypeError", "AttributeError", "(TypeError, AttributeError)", "Exception"):
        yield _prog("GL102", "try-fallback", exc.strip("()").replace(", ", "-").lower(), f"""
            import torch
            from torch import nn, randn

            model = nn.Linear(4, 2)
            x = randn(3, 4)


            def run():
                try:
                    with torch.no_grad:
                        out = model(x)
                except {exc}:
                    out = model(x)
                out.sum().backward()
                return model.weight.grad
            """)
    yield _prog("GL102", "plain", "no-try", """
        import torch
        from torch import nn, randn

        model = nn.Linear(4, 2)


        def run():
            with torch.no_grad:
                out = model(randn(3, 4))
            return out
        """)


# GL102: handlers the original relied on, beyond a `try` naming the error.
GL102_CATCHERS = {
    "tuple-constant": ("ERRORS = (TypeError, AttributeError)\n", "try:\n        {call}\n    except ERRORS:\n        out = model(x)"),
    "tuple-constant-other": ("ERRORS = (ValueError, KeyError)\n", "try:\n        {call}\n    except ERRORS:\n        out = model(x)"),
    "suppress": ("", "out = model(x)\n    with contextlib.suppress(TypeError):\n        {call}"),
    "caller-handler": ("", "try:\n        out = guarded()\n    except Exception:\n        out = model(x)"),
    "caller-plain": ("", "out = guarded()"),
}


def gl102_handler_family() -> Iterator[Program]:
    # the fallback gives a result that requires grad, the guard one that does not
    guarded = "\n\ndef guarded():\n    with torch.no_grad:\n        return model(x)\n"
    for name, (defs, body) in GL102_CATCHERS.items():
        call = "with torch.no_grad:\n            out = model(x)"
        yield Program(
            f"gl102-handler-{name}",
            "GL102",
            f"handler={name}",
            "import contextlib\nimport torch\nfrom torch import nn, randn\n\nmodel = nn.Linear(4, 2)\nx = randn(3, 4)\n"
            f"{defs}{guarded if 'guarded' in body else ''}\n\n"
            f"def run():\n    {body.format(call=call)}\n    print(out.requires_grad)\n",
        )


# GL106: grad switched back on between the guards by code the inner `with` does
# not show, and a generator resumed by a consumer with grad on.
GL106_BETWEEN = {
    "plain-call": "scale(x)",
    "helper-enables": "enable()",
    "helper-through-helper": "relay()",
    "forward-enables": "Tuner()(x)",
}


def gl106_between_family() -> Iterator[Program]:
    head = (
        "import torch\nfrom torch import nn, randn\n\nmodel = nn.Linear(4, 2)\nx = randn(3, 4)\n\n\n"
        "def scale(t):\n    return t * 2\n\n\ndef enable():\n    torch.set_grad_enabled(True)\n\n\n"
        "def relay():\n    enable()\n\n\nclass Tuner(nn.Module):\n    def forward(self, t):\n"
        "        torch.set_grad_enabled(True)\n        return t\n"
    )
    for name, call in GL106_BETWEEN.items():
        yield Program(
            f"gl106-between-{name}",
            "GL106",
            f"between={name}",
            f"{head}\n\ndef run():\n    with torch.no_grad():\n        {call}\n        with torch.no_grad():\n"
            "            out = model(x)\n    torch.set_grad_enabled(True)\n    print(out.requires_grad)\n",
        )
    yield Program(
        "gl106-between-generator-resumed",
        "GL106",
        "between=generator-resumed",
        "import torch\nfrom torch import nn, randn\n\nmodel = nn.Linear(4, 2)\n\n\n"
        "def outputs(batches):\n    with torch.no_grad():\n        for b in batches:\n            yield b\n"
        "            with torch.no_grad():\n                kept.append(model(b))\n\n\nkept = []\n\n\n"
        "def run():\n    for b in outputs([randn(3, 4), randn(3, 4)]):\n        torch.set_grad_enabled(True)\n"
        "    torch.set_grad_enabled(True)\n    print([k.requires_grad for k in kept])\n",
    )


# migrate's trusted rewrites where the common case does not hold: a second value
# returned beside the volatile one, a wrapped batch changed as an object, a loss per
# sample read the 0.3 way.
MIGRATE_TRUSTED = {
    "gl001-second-value-before": ("GL001", """
        def evaluate(model, x):
            penalty = reg(x).pow(2).mean()
            out = model(Variable(x, volatile=True))
            return out.argmax(1), penalty


        def run():
            idx, penalty = evaluate(model, randn(3, 4))
            penalty.backward()
            print(idx.tolist())
            return reg.weight.grad
        """),
    "gl001-second-value-after": ("GL001", """
        def evaluate(model, x):
            out = model(Variable(x, volatile=True))
            penalty = reg(x).pow(2).mean()
            return out.argmax(1), penalty


        def run():
            idx, penalty = evaluate(model, randn(3, 4))
            penalty.backward()
            print(idx.tolist())
            return reg.weight.grad
        """),
    "gl002-requires-grad": ("GL002", """
        def run():
            for epoch in range(2):
                for x, y in loader:
                    x = Variable(x)
                    x.requires_grad = True
                    loss = ((model(x) - y) ** 2).mean()
                    loss.backward()
            print(loader[0][0].grad is None)
            return model.weight.grad
        """),
    "gl002-in-place": ("GL002", """
        def run():
            for x, y in loader:
                x = Variable(x)
                x.mul_(2)
                print(round(model(x).sum().item(), 4))
            return loader[0][0]
        """),
    "gl003-per-sample": ("GL003", """
        def run():
            losses = per_sample(model(randn(3, 4)), randn(3, 2))
            print(losses.data[0])
            return losses
        """),
}
MIGRATE_TRUSTED_HEAD = """\
import torch
from torch import nn, randn
from torch.autograd import Variable

torch.manual_seed(0)
model = nn.Linear(4, 2)
reg = nn.Linear(4, 1)
loader = [(randn(3, 4), randn(3, 2)) for _ in range(2)]
per_sample = nn.MSELoss(reduce=False)
"""


def migrate_trusted_family() -> Iterator[Program]:
    for name, (rule, body) in MIGRATE_TRUSTED.items():
        yield Program(
            f"migrate-trusted-{name}", rule, f"trusted-migration {name}",
            MIGRATE_TRUSTED_HEAD + "\n\n" + textwrap.dedent(body).lstrip("\n"),
        )


# migrate: GL202 on a PackedSequence's data.
def migrate_family() -> Iterator[Program]:
    yield _prog("GL202", "packed-sequence", "row-edit", """
        import torch
        from torch.nn.utils.rnn import pack_sequence


        def run():
            packed = pack_sequence([torch.ones(3, 2), torch.ones(2, 2)])
            packed.data[0].mul_(2)
            return packed.data
        """)
    yield _prog("GL202", "optimizer-update", "sgd", """
        import torch
        from torch import nn, randn

        model = nn.Linear(4, 2)


        def run():
            model(randn(3, 4)).sum().backward()
            for p in model.parameters():
                p.data.add_(-0.1, p.grad.data)
            return model.weight
        """)


# migrate: GL001's flag that follows a module's eval mode, dropped with the wrapper.
def eval_mode_flag_family() -> Iterator[Program]:
    yield _prog("GL001", "eval-mode-flag", "self-training", """
        import torch
        from torch import nn
        from torch.autograd import Variable


        class Head(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 2)

            def wrap(self, x):
                return Variable(x, volatile=not self.training)

            def forward(self, x):
                return self.fc(self.wrap(x))


        def run():
            torch.manual_seed(0)
            head = Head()
            x = torch.randn(3, 4, requires_grad=True)
            y = head(x * 2)
            y.sum().backward()
            head.eval()
            z = head(x)
            return y, z, x.grad, head.fc.weight.grad
        """)
    yield _prog("GL001", "eval-mode-flag", "module-training", """
        import torch
        from torch import nn
        from torch.autograd import Variable

        rnn = nn.GRU(3, 2)


        def run():
            torch.manual_seed(0)
            rnn.eval()
            h = Variable(torch.zeros(1, 4, 2), volatile=not rnn.training)
            out, h = rnn(torch.randn(5, 4, 3), h)
            return out.requires_grad, out, h
        """)


# (a) A callback whose ``model`` parameter is called like a model: what it is,
# and the grad mode it runs in, are the callers' to say.
CALLBACK_HEAD = """\
import torch
from torch import nn, optim, randn
from torch.autograd import Variable

net = nn.Linear(4, 1)
opt = optim.SGD(net.parameters(), lr=0.1)
batches = [randn(3, 4) for _ in range(2)]


def train_step(batch):
    loss = net(batch).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    return loss


class Step(nn.Module):
    # a training step wrapped as a module (its forward trains)
    def forward(self, batch):
        return train_step(batch)


def fit(step, callbacks):
    for batch in batches:
        for cb in callbacks:
            cb(step, batch)
        train_step(batch)
"""
CALLBACK_SITES = {
    "GL001": "v = Variable(batch, volatile=True)\n    out = model(v)",
    "GL101": "model.eval()\n    out = model(batch)",
}
CALLBACK_CALLERS = {
    "module-in-training-loop": "for b in batches:\n        on_batch(net, b)\n        train_step(b)",
    "training-step": "for b in batches:\n        on_batch(train_step, b)",
    "step-module": "for b in batches:\n        on_batch(Step(), b)",
    "registered-with-step": "fit(train_step, [on_batch])",
    "registered-with-module": "fit(net, [on_batch])",
}


def callback_family() -> Iterator[Program]:
    for rule, site in CALLBACK_SITES.items():
        for cname, caller in CALLBACK_CALLERS.items():
            if rule == "GL101" and cname in ("training-step", "registered-with-step"):
                continue  # a function has no eval(): the program would only raise
            body = (
                f"{CALLBACK_HEAD}\n\ndef on_batch(model, batch):\n    {site}\n"
                f"    print(f\"{{float(out.sum()):.4f}}\")\n\n\ndef run():\n    {caller}\n    return net.weight\n"
            )
            yield Program(f"{rule.lower()}-callback-param-{cname}", rule, f"callback-param caller={cname}", body)


# (b) ``self.log(name, out)`` and a submodule's result that is logged: a method
# that may keep what it is given is not a forward.
LOGGED_HEAD = """\
import torch
from torch import nn, randn
from torch.autograd import Variable


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(4, 4)
        self.head = nn.Linear(4, 1)
        self.logged = []

    def log(self, name, value):
LOG

    def evaluate(self, x, outs):
SITE
USE
"""
LOGGED_LOGS = {
    "keeps": "        self.logged.append(value)",
    "prints": "        print(name, f'{float(value.sum()):.4f}')",
}
LOGGED_SITES = {
    "GL001": "        out = self.body(Variable(x, volatile=True))",
    "GL101": "        self.body.eval()\n        out = self.body(x)",
}
LOGGED_USES = {
    "self-log": "        self.log('features', out)",
    "head-logged": "        outs.append(self.head(out))",
    "head-log": "        self.log('score', self.head(out))",
}


def logged_family() -> Iterator[Program]:
    for rule, site in LOGGED_SITES.items():
        for lname, log in LOGGED_LOGS.items():
            for uname, use in LOGGED_USES.items():
                if uname == "head-logged" and lname == "prints":
                    continue  # the log method plays no part
                head = LOGGED_HEAD.replace("LOG", log).replace("SITE", site).replace("USE", use)
                body = (
                    f"{head}\n\ndef run():\n    net = Net()\n    outs = []\n    net.evaluate(randn(3, 4), outs)\n"
                    "    kept = net.logged + outs\n    if kept:\n        sum(t.sum() for t in kept).backward()\n"
                    "    return [net.body.weight.grad, net.head.weight.grad]\n"
                )
                yield Program(f"{rule.lower()}-logged-{uname}-{lname}", rule, f"logged use={uname} log={lname}", body)


# (c) GL001 where gradients are already off: the wrapper goes, no guard is added.
DISABLED_PATHS = {
    "inside-guard": (
        "def predict(model, x):\n    with torch.no_grad():\n        v = Variable(x, volatile=True)\n        out = model(v)\n    return out\n",
        "out = predict(model, x)",
    ),
    "callers-guard": (
        "def predict(model, x):\n    v = Variable(x, volatile=True)\n    return model(v)\n",
        "with torch.no_grad():\n        out = predict(model, x)",
    ),
    "decorated": (
        "@torch.no_grad()\ndef predict(model, x):\n    v = Variable(x, volatile=True)\n    return model(v)\n",
        "out = predict(model, x)",
    ),
    "helper-of-decorated": (
        "def forward_once(model, x):\n    v = Variable(x, volatile=True)\n    return model(v)\n\n\n"
        "@torch.no_grad()\ndef predict(model, x):\n    return forward_once(model, x)\n",
        "out = predict(model, x)",
    ),
    "wrapped-after-the-fact": (
        "def predict(model, x):\n    v = Variable(x, volatile=True)\n    return model(v)\n\n\npredict = torch.no_grad()(predict)\n",
        "out = predict(model, x)",
    ),
}


def disabled_path_family() -> Iterator[Program]:
    head = "import torch\nfrom torch import nn, randn\nfrom torch.autograd import Variable\n\nmodel = nn.Linear(4, 2)\nx = randn(3, 4)\n"
    for name, (defs, call) in DISABLED_PATHS.items():
        body = f"{head}\n\n{defs}\n\ndef run():\n    {call}\n    print(out.requires_grad, f'{{float(out.sum()):.4f}}')\n    return out\n"
        yield Program(f"gl001-disabled-path-{name}", "GL001", f"disabled-path {name}", body)


# The notebook shape: module-level code in cells that share one namespace, the
# flagged value made in one cell and used in the next.
NOTEBOOK_FLOWS = ("printed", "stored-on-self", "appended", "copy-into-buffer", "helper-backward", "callback")


def notebook_family() -> Iterator[Program]:
    for rule, site, head in (("GL101", GL101_SITE, ""), ("GL002", GL002_SITE, GL001_HEAD), ("GL001", GL001_SITE, GL001_HEAD)):
        first, rest = site.split("\n", 1)
        for flow in NOTEBOOK_FLOWS:
            for tname in ("module", "imported-later", "except-as"):
                text = compose(site, flow, "module", tname, head)
                assert text is not None
                # cell 1: imports and setup; cell 2: the site's first statement; cell 3:
                # the rest of the site and where its value goes; cell 4: run()
                a = text.index("\n" + first + "\n") + 1
                b = text.index("\n" + rest.split("\n")[0] + "\n", a) + 1
                c = text.index("\nimport torch\n", b) + 1 if tname == "imported-later" else text.index("\n\ndef run():", b) + 1
                cells = (text[:a], text[a:b], text[b:c], text[c:])
                yield Program(
                    f"{rule.lower()}-notebook-{flow}-{tname}", rule, f"flow={flow} shape=notebook torch={tname}", "".join(cells), cells
                )


# Every catalog example and every fixture, fixed and run as they are.
def catalog_family() -> Iterator[Program]:
    from gradlint import catalog

    for code, doc in sorted(catalog.load().items()):
        for i, example in enumerate(doc.examples):
            yield Program(f"catalog-{code.lower()}-{i}", code, "catalog-example", textwrap.dedent(example.bad).lstrip("\n"))


def fixture_family() -> Iterator[Program]:
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "fixtures"
    for path in sorted(root.glob("*/*.py")):
        if path.name.endswith(".fixed.py"):
            continue
        rule = path.parent.name
        yield Program(f"fixture-{rule.lower()}-{path.stem}", rule, "fixture", path.read_text(encoding="utf-8"))


def generate() -> List[Program]:
    programs: List[Program] = []
    programs += flow_family("GL001", GL001_SITE, GL001_HEAD)
    programs += flow_family("GL101", GL101_SITE)
    programs += flow_family("GL002", GL002_SITE, GL001_HEAD)
    programs += gl002_family()
    programs += gl003_family()
    programs += gl003_reshape_family()
    programs += gl101_extra()
    programs += gl106_family()
    programs += gl106_between_family()
    programs += gl301_family()
    programs += gl30x_family()
    programs += gl302_state_family()
    programs += guard_effect_family()
    programs += inference_mode_family()
    programs += gl102_family()
    programs += gl102_handler_family()
    programs += migrate_family()
    programs += migrate_trusted_family()
    programs += eval_mode_flag_family()
    programs += callback_family()
    programs += logged_family()
    programs += disabled_path_family()
    programs += notebook_family()
    programs += catalog_family()
    programs += fixture_family()
    programs += nontensor_family()
    programs += escape_family()
    names = [p.name for p in programs]
    assert len(names) == len(set(names)), "program names must be unique"
    return programs


# The defect classes the oracle was built to close, each with the generated family
# that holds it (rule, family prefix): the CI sample always runs a few of each.
DEFECT_CLASSES = {
    "tensor-method fixes fed a non-tensor receiver": ("GL301", "receiver="),
    "GL001 result reaches a backward elsewhere": ("GL001", "flow=returned-backprop"),
    "GL001 sync def nested in an async def": ("GL001", "flow=printed shape=sync-in-async"),
    "GL001 torch is a class attribute": ("GL001", "flow=printed shape=staticmethod torch=class-attribute"),
    "GL001 torch imported after the def": ("GL001", "flow=printed shape=def torch=imported-later"),
    "GL001/GL101 torch bound by except ... as": ("GL101", "flow=printed shape=def torch=except-as"),
    "GL101 torch is a parameter": ("GL101", "flow=appended shape=def torch=parameter"),
    "GL101 backward/step in a helper": ("GL101", "flow=helper-step"),
    "GL101 outs += [...] on a parameter": ("GL101", "flow=iadd-param"),
    "GL101 copy_ into a buffer": ("GL101", "flow=copy-into-buffer"),
    "GL101 returned lambda": ("GL101", "flow=lambda"),
    "GL101 passed to a callback": ("GL101", "flow=callback"),
    "GL101 raised": ("GL101", "flow=raised"),
    "GL101 batch norm frozen while training": ("GL101", "batchnorm-freeze"),
    "GL101 lazy generator input": ("GL101", "lazy-generator-input"),
    "GL101 arithmetic before eval() stored into a list": ("GL101", "arithmetic-before-eval"),
    "GL002 values that carry a graph": ("GL002", "value="),
    "GL002 two leaves sharing a base": ("GL002", "shared-base"),
    "GL003 non-scalar receivers": ("GL003", "value="),
    "GL003 a 0-dim loss reshaped in place": ("GL003", "reshaped="),
    "GL106 the only guard in effect": ("GL106", "async-decorator"),
    "GL106 grad enabled in an if": ("GL106", "enabled-in-if"),
    "GL106 grad enabled by a helper, a forward, a consumer between the guards": ("GL106", "between="),
    "GL301 totals that leave the function": ("GL301", "total="),
    "GL302 non-bool value, read back": ("GL302", "rhs="),
    "GL303 non-leaf, integer, config objects": ("GL303", "target="),
    "GL302 = True after parameters were frozen, or with the attribute read back": ("GL302", "unfreeze "),
    "GL101 guard around hooks, retain_grad, grad-dependent fast paths": ("GL101", "guard-effect "),
    "GL001 guard around hooks, retain_grad, grad-dependent fast paths": ("GL001", "guard-effect "),
    "GL101 inference_mode results edited or used with autograd later": ("GL101", "inference-mode "),
    "GL001 inference_mode results edited or used with autograd later": ("GL001", "inference-mode "),
    "GL102 try/except TypeError fallback": ("GL102", "try-fallback"),
    "GL102 tuple constant, suppress, a caller's handler": ("GL102", "handler="),
    "migrate GL202 on a PackedSequence": ("GL202", "packed-sequence"),
    "migrate GL001 second returned value": ("GL001", "trusted-migration "),
    "migrate GL002 wrapped batch changed as an object": ("GL002", "trusted-migration "),
    "migrate GL003 per-sample loss": ("GL003", "trusted-migration "),
    "GL001 flag that follows a module's eval mode": ("GL001", "eval-mode-flag"),
    "GL001 callback parameter called like a model": ("GL001", "callback-param"),
    "GL101 callback parameter called like a model": ("GL101", "callback-param"),
    "GL001 logged by a method that keeps it": ("GL001", "logged"),
    "GL101 self.log / a logged submodule result": ("GL101", "logged"),
    "GL001 on a path where gradients are already off": ("GL001", "disabled-path"),
    "GL101 notebook cells": ("GL101", "flow=stored-on-self shape=notebook"),
    "GL002 notebook cells": ("GL002", "flow=printed shape=notebook"),
    "catalog examples": ("GL001", "catalog-example"),
    "GL101 a method of the file's classes trains (test-time adaptation)": ("GL101", "trainer "),
    "GL001 a method of the file's classes trains (test-time adaptation)": ("GL001", "trainer "),
    "GL101 outputs kept through an alias, a global, a parameter, a computed getattr, a hook": ("GL101", "holder "),
    "GL001 outputs kept through an alias, a global, a parameter, a computed getattr, a hook": ("GL001", "holder "),
}


def sample(programs: List[Program], per_family_rule: int = 40, seed: int = 14) -> List[Program]:
    """CI's fixed sample: every hand-written family whole, and a seeded draw of the
    generated flow × shape × torch combinations of each rule (every flow, shape and
    torch binding at least once)."""
    rng = random.Random(seed)
    out: List[Program] = []
    flows: Dict[str, List[Program]] = {}
    for p in programs:
        if p.family.startswith("flow="):
            flows.setdefault(p.rule, []).append(p)
        else:
            out.append(p)
    for rule, progs in flows.items():
        chosen = {p.name: p for p in rng.sample(progs, min(per_family_rule, len(progs)))}
        # the plain cases, where a safe fix is expected, in every binding of `torch`
        chosen.update((p.name, p) for p in progs if p.family.startswith("flow=printed shape=def "))
        for rule_, prefix in DEFECT_CLASSES.values():
            if rule_ == rule:
                members = sorted((p for p in progs if p.family.startswith(prefix)), key=lambda p: p.name)
                step = max(1, len(members) // 3)
                chosen.update((p.name, p) for p in members[::step][:3])
        for axis in (0, 1, 2):
            values = {p.family.split()[axis] for p in progs}
            for v in sorted(values):
                if not any(c.family.split()[axis] == v for c in chosen.values()):
                    pick = rng.choice([p for p in progs if p.family.split()[axis] == v])
                    chosen[pick.name] = pick
        out.extend(sorted(chosen.values(), key=lambda p: p.name))
    return out
