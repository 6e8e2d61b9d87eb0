"""The shapes that the rules got wrong on code nobody had tuned them on.

Each false shape must give no finding in the default tier (its premises are not
proven: the value is not a tensor, nothing grows, a backward uses it, the call is
no forward, grad mode is off); each true shape that the semantic model can prove
must give its finding.
"""

from __future__ import annotations

import textwrap

import pytest

from gradlint.rule import RuleOptions

from harness import fix, lint

PREVIEW = RuleOptions(preview=True)


def src(code: str) -> str:
    return textwrap.dedent(code)


# -- GL301: not tensors, not growth, used by a backward ------------------------------

GL301_FALSE = {
    "modules collected for a ModuleList": """\
        import torch.nn as nn


        def build(block, params):
            layers = []
            for p in params:
                layer = block(**p)
                layers.append(layer)
            return nn.ModuleList(layers)
        """,
    "learning rates are floats": """\
        def train(model, loader, opt, criterion):
            lrs = []
            for x, y in loader:
                loss = criterion(model(x), y)
                loss.backward()
                opt.step()
                lrs.append(opt.param_groups[0]["lr"])
            return lrs
        """,
    "a generator's artifacts are lists": """\
        def render(generator, mels):
            audio_list = []
            for m in mels:
                audio, imgs = generator.generate_artifacts(m)
                audio_list += audio
            return audio_list
        """,
    "parts of a string": """\
        def keys(state, i):
            out = []
            for key in state:
                parts = key.split("_")
                out.append(parts[i])
            return out
        """,
    "futures of remote calls": """\
        def push(rrefs, w):
            futures = []
            for rref in rrefs:
                futures.append(rref.rpc_async().update(w))
            return [f.wait() for f in futures]
        """,
    "numpy embeddings": """\
        import numpy as np


        def embed(model, loader):
            vectors = []
            for x in loader:
                vectors.append(np.asarray(model(x).detach().cpu()))
            return np.concatenate(vectors)
        """,
    "dataclass records": """\
        from dataclasses import dataclass


        @dataclass
        class Record:
            loss: float
            step: int


        def log_steps(model, loader, criterion):
            records = []
            for step, (x, y) in enumerate(loader):
                records.append(Record(criterion(model(x), y).item(), step))
            return records
        """,
    "a slot of a buffer updated in place": """\
        import torch
        import torch.nn as nn


        def roll(net: nn.Module, xs):
            buf = torch.zeros(4, 8)
            for x in xs:
                buf[..., :-1] += net(x)
            return buf.sum().item()
        """,
    "losses kept for accelerator.backward": """\
        import torch.nn as nn
        import torch.nn.functional as F


        def step(model: nn.Module, batches, accelerator):
            losses = []
            for x, y in batches:
                losses.append(F.cross_entropy(model(x), y))
            for i in range(len(losses)):
                accelerator.backward(losses[i])
        """,
    "a total for manual_backward": """\
        import lightning as L
        import torch.nn.functional as F


        class Model(L.LightningModule):
            def training_step(self, batch, batch_idx):
                total = 0
                for x, y in batch:
                    total = total + F.cross_entropy(self(x), y)
                self.manual_backward(total)
        """,
}


@pytest.mark.parametrize("code", GL301_FALSE.values(), ids=list(GL301_FALSE))
def test_gl301_false_shapes_are_silent(code):
    assert lint(src(code), ["GL301"]) == []


GL301_TRUE = {
    # a module built here, a torch loss: the total holds each batch's graph
    "a sum of torch losses of a built model": (
        """\
        import torch.nn as nn
        import torch.nn.functional as F

        model = nn.Linear(4, 2)


        def evaluate(loader):
            total = 0.0
            for x, y in loader:
                total += F.cross_entropy(model(x), y)
            return total.item()
        """,
        [(10, 9, "GL301")],
        "        total += F.cross_entropy(model(x), y).detach()\n",
    ),
    # an instance of a module class of the file: proven a module, its output is not a proven tensor
    "outputs of a module class of the file": (
        """\
        import torch
        import torch.nn as nn


        class RNN(nn.Module):
            def __init__(self):
                super().__init__()
                self.cell = nn.GRU(4, 4)

            def forward(self, x):
                return self.cell(x)


        def run(xs):
            rnn = RNN()
            outs = []
            for x in xs:
                outs.append(rnn(x))
            return len(outs)
        """,
        [(18, 9, "GL301")],
        None,  # ``rnn(x)`` gives ``(out, h)``: no ``.detach()`` on a tuple
    ),
}


@pytest.mark.parametrize("code,expected,fixed", GL301_TRUE.values(), ids=list(GL301_TRUE))
def test_gl301_true_shapes_are_reported(code, expected, fixed):
    # No backward runs from these values: what computed them proves the graph, which
    # the preview tier takes (the default tier asks for a backward from the value).
    source = src(code)
    assert lint(source, ["GL301"]) == []
    assert lint(source, ["GL301"], PREVIEW) == expected
    out = fix(source, ["GL301"], unsafe=True, options=PREVIEW)
    if fixed is None:
        assert out == source
    else:
        assert fixed in out


# -- GL202: `.data` of what is not a tensor, or that no pending backward saved ------------

GL202_FALSE = {
    "a recipe's data is a datamodule": """\
        def configure(recipe, datamodule, model, x):
            out = model(x)
            recipe.data = datamodule
            out.sum().backward()
        """,
    "a fresh tensor no graph saved": """\
        import torch


        def scale(model, x):
            w = torch.ones(3)
            out = model(x)
            w.data.mul_(2)
            out.sum().backward()
            return w
        """,
    "a tensor of unknown kind after an untyped forward": """\
        def clip(netD, real, opt):
            loss = netD(real).mean()
            for p in netD.parameters():
                p.data.clamp_(-0.01, 0.01)
            loss.backward()
        """,
}


@pytest.mark.parametrize("code", GL202_FALSE.values(), ids=list(GL202_FALSE))
def test_gl202_false_shapes_are_silent(code):
    assert lint(src(code), ["GL202"]) == []


def test_gl202_true_shape_with_a_typed_module():
    code = """\
        import torch


        def clip(netD: torch.nn.Module, real, opt):
            loss = netD(real).mean()
            for p in netD.parameters():
                p.data.clamp_(-0.01, 0.01)
            loss.backward()
        """
    assert lint(src(code), ["GL202"]) == [(7, 9, "GL202")]


# -- GL101: guards by what they do; forwards by types --------------------------------------

GL101_FALSE = {
    "no_grad entered on an ExitStack": """\
        import contextlib

        import torch


        def evaluate(model, x):
            model.eval()
            with contextlib.ExitStack() as stack:
                stack.enter_context(torch.no_grad())
                out = model(x)
            return out.argmax(1).tolist()
        """,
    "the project's own context manager enters no_grad": """\
        import contextlib

        import torch


        @contextlib.contextmanager
        def eval_mode(model):
            model.eval()
            with torch.no_grad():
                yield
            model.train()


        def evaluate(model, x):
            model.eval()
            with eval_mode(model):
                out = model(x)
            return out.argmax(1).tolist()
        """,
    "constructors and getters are no forwards": """\
        class Runner:
            def __init__(self, model_class, trainer, accelerator):
                self.model_class = model_class
                self.trainer = trainer
                self.accelerator = accelerator

            def evaluate(self, kw, m):
                model = self.model_class(**kw)
                net = self.trainer.get_model()
                raw = self.accelerator.unwrap_model(m)
                return model, net, raw
        """,
    "a test that only constructs a model": """\
        import torch.nn as nn


        def test_build():
            model = nn.Linear(2, 2)
            assert model.weight.shape == (2, 2)
        """,
}


@pytest.mark.parametrize("code", GL101_FALSE.values(), ids=list(GL101_FALSE))
def test_gl101_false_shapes_are_silent(code):
    assert lint(src(code), ["GL101"]) == []
    assert lint(src(code), ["GL101"], options=PREVIEW) == []


def test_gl101_predict_of_a_module_subclass_is_a_forward():
    code = """\
        import torch.nn as nn


        class Classifier(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 2)

            def forward(self, x):
                return self.fc(x)

            def predict(self, x):
                return self(x).argmax(-1)


        def score(xs):
            clf = Classifier()
            clf.eval()
            out = clf.predict(xs)
            return out.tolist()
        """
    assert lint(src(code), ["GL101"]) == [(19, 11, "GL101")]


DECORATED = """\
    import functools

    import torch


    def smart_inference_mode():
        def decorate(fn):
            return (torch.inference_mode if USE_IM else torch.no_grad)()(fn)
        return decorate


    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(4, 2)

        def forward(self, x):
            return self.fc(x)


    class Runner:
        {decorator}
        def run(loader):
            model = Net()
            model.eval()
            preds = []
            for x in loader:
                preds.append(model(x).argmax(1).tolist())
            return preds
    """


@pytest.mark.parametrize(
    "decorator,found",
    [
        # the project's decorator picks inference_mode or no_grad at import: grad mode
        # is unknown in the function, so only the preview tier reports
        ("@smart_inference_mode()", []),
        ("@functools.wraps(print)", [(28, 26, "GL101")]),
        ("@staticmethod", [(28, 26, "GL101")]),
    ],
)
def test_gl101_grad_mode_under_a_decorator_is_proven_or_silent(decorator, found):
    code = src(DECORATED).replace("{decorator}", decorator)
    assert lint(code, ["GL101"]) == found
    assert lint(code, ["GL101"], options=PREVIEW) == [(28, 26, "GL101")]


def test_gl101_inference_judged_by_names_is_preview_only():
    code = """\
        def evaluate(net, loader):
            correct = 0
            for x, y in loader:
                correct += (net(x).argmax(1) == y).sum().item()
            return correct
        """
    assert lint(src(code), ["GL101"]) == []
    assert lint(src(code), ["GL101"], options=PREVIEW) == [(4, 21, "GL101")]


# -- types across the project ---------------------------------------------------------


def test_a_module_class_of_another_file_is_a_module(tmp_path, monkeypatch):
    import json

    from click.testing import CliRunner

    from gradlint.cli import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "nets.py").write_text(
        "import torch.nn as nn\n\n\nclass Base(nn.Module):\n    pass\n\n\nclass Net(Base):\n"
        "    def forward(self, x):\n        return x\n"
    )
    (tmp_path / "run.py").write_text(
        "from nets import Net\n\n\ndef collect(xs):\n    block = Net()\n    outs = []\n    for x in xs:\n"
        "        outs.append(block(x))\n    return len(outs)\n"
    )

    def found(*paths):
        result = CliRunner().invoke(main, ["check", "--no-cache", "--preview", "--select", "GL301", "--output-format", "json", *paths])
        return [(f["filename"].rsplit("/", 1)[-1], f["location"]["row"]) for f in json.loads(result.stdout)]

    # ``Net`` reaches ``nn.Module`` through ``Base`` in nets.py: its forward's output has a
    # graph (GL301 is a preview rule; ``block`` is named like no model, so no guess from
    # names stands in for the proof)
    assert found("run.py", "nets.py") == [("run.py", 8)]
    (tmp_path / "nets.py").write_text("class Net:\n    def __call__(self, x):\n        return x\n")
    assert found("run.py", "nets.py") == []


@pytest.mark.parametrize(
    "caller",
    [
        "import torch\nfrom helpers import evaluate\n\n\ndef main(model, loader):\n    torch.set_grad_enabled(False)\n    print(evaluate(model, loader))\n",
        "import torch\nfrom helpers import evaluate\n\n\n@torch.inference_mode()\ndef main(model, loader):\n    print(evaluate(model, loader))\n",
        "import torch\nfrom helpers import evaluate\n\n\ndef main(model, loader):\n    with torch.set_grad_enabled(False):\n        print(evaluate(model, loader))\n",
    ],
    ids=["after-set_grad_enabled-False", "under-inference_mode", "with-set_grad_enabled-False"],
)
def test_callers_in_other_files_that_turn_gradients_off(tmp_path, monkeypatch, caller):
    import json

    from click.testing import CliRunner

    from gradlint.cli import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "helpers.py").write_text(
        "def evaluate(model, loader):\n    model.eval()\n    total = 0\n    for x, y in loader:\n"
        "        total += (model(x).argmax(1) == y).sum().item()\n    return total\n"
    )
    (tmp_path / "run.py").write_text(caller)

    def found():
        result = CliRunner().invoke(main, ["check", "--no-cache", "--preview", "--select", "GL101", "--output-format", "json", "helpers.py", "run.py"])
        return [(f["filename"].rsplit("/", 1)[-1], f["location"]["row"]) for f in json.loads(result.stdout)]

    assert found() == []
    (tmp_path / "run.py").write_text(caller.replace("False", "True").replace("inference_mode()", "enable_grad()"))
    assert found() == [("helpers.py", 5)]


def test_a_lightning_eval_step_called_only_from_validation_step():
    code = """\
        import lightning as L
        import torch.nn.functional as F


        class Model(L.LightningModule):
            def eval_step(self, batch):
                total = 0.0
                for x, y in batch:
                    total += F.cross_entropy(self(x), y)
                return total.item()

            def validation_step(self, batch, batch_idx):
                self.log("val", self.eval_step(batch))
        """
    assert lint(src(code), ["GL301"], PREVIEW) == []
    assert lint(src(code).replace("def validation_step", "def training_step"), ["GL301"], PREVIEW) == [(9, 13, "GL301")]


def test_gl301_a_method_forward_of_a_module_class_is_judged_by_what_it_returns():
    code = """\
        import torch.nn as nn


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 2)

            def forward(self, x):
                return self.fc(x)

            def forward_features(self, x):
                return self.fc(x).relu()

            def predict(self, x):
                return self(x).argmax(-1)


        def collect(xs):
            net = Net()
            feats = []
            labels = []
            for x in xs:
                feats.append(net.forward_features(x))
                labels.append(net.predict(x))
            print(len(feats), len(labels))
        """
    assert lint(src(code), ["GL301"], PREVIEW) == [(24, 9, "GL301")]


@pytest.mark.parametrize(
    "layer,fixed",
    [
        ("nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.MaxPool1d(2))", True),
        ("nn.LSTM(4, 4)", False),  # (output, (h, c))
        ("nn.Sequential(nn.Linear(4, 4), nn.Identity())", False),  # Identity returns its input
        ("nn.MaxPool1d(2, return_indices=True)", False),  # (output, indices)
    ],
)
def test_gl301_fix_on_the_output_of_a_torch_layer_only_when_it_is_one_tensor(layer, fixed):
    code = f"""\
import torch.nn as nn

net = {layer}


def collect(xs):
    outs = []
    for x in xs:
        outs.append(net(x))
    print(len(outs))
"""
    assert lint(code, ["GL301"], PREVIEW) == [(9, 9, "GL301")]
    out = fix(code, ["GL301"], options=PREVIEW)
    assert ("outs.append(net(x).detach())" in out) is fixed
    assert (out == code) is not fixed


def test_a_parameter_every_caller_passes_a_module_for_is_a_module():
    code = """\
        import torch.nn as nn

        model = nn.Linear(4, 2)


        def predict(model, x):
            x.requires_grad = False
            return model(x).argmax(1)


        print(predict(model, x))
        """
    assert lint(src(code), ["GL104"]) == [(7, 5, "GL104")]
    # a caller that passes something else: the parameter's kind is unknown
    assert lint(src(code) + "print(predict(lambda t: t, x))\n", ["GL104"]) == []


def test_gl104_a_loss_module_records_no_graph_through_parameters():
    code = """\
        import torch.nn as nn


        class TacotronLoss(nn.Module):
            def __init__(self):
                super().__init__()
                self.mse_loss = nn.MSELoss()

            def forward(self, mel_out, mel_target):
                mel_target.requires_grad = False
                return self.mse_loss(mel_out, mel_target)
        """
    assert lint(src(code), ["GL104"]) == []
