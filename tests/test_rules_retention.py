"""GL301-GL303: graphs kept alive across iterations, and freezing that freezes nothing."""

from __future__ import annotations

import textwrap

import pytest

from gradlint.engine import LintSettings, lint_source
from gradlint.rule import RuleOptions

from harness import fix, lint, messages

PREVIEW = RuleOptions(preview=True)

LOOP = """\
import torch
import torch.nn.functional as F


def train(model, loader, optimizer, criterion):
{body}"""


def train(code: str) -> str:
    return LOOP.format(body=textwrap.indent(textwrap.dedent(code), "    "))


# The same loop where the semantic model proves what the names above only suggest:
# ``model`` is an ``nn.Module``, ``criterion`` an ``nn`` loss. Rows are 2 lower.
TYPED_LOOP = """\
import torch
import torch.nn as nn
import torch.nn.functional as F


def train(model: nn.Module, loader, optimizer):
    criterion = nn.CrossEntropyLoss()
{body}"""


def typed(code: str) -> str:
    return TYPED_LOOP.format(body=textwrap.indent(textwrap.dedent(code), "    "))


# -- GL301 ------------------------------------------------------------------------

STEP = "    loss = criterion(model(x), y)\n    loss.backward()\n    optimizer.step()\n"


@pytest.mark.parametrize(
    "code,row",
    [
        ("total = 0.0\nfor x, y in loader:\n" + STEP + "    total += loss\n", 11),
        ("total = 0\nfor x, y in loader:\n" + STEP + "    total = total + loss\n", 11),
        ("losses = []\nfor x, y in loader:\n" + STEP + "    losses.append(loss)\n", 11),
        ("hist = {}\nfor i, (x, y) in enumerate(loader):\n" + STEP + "    hist[i] = loss\n", 11),
        ("for x, y in loader:\n" + STEP + "    self.losses.append(loss)\n", 10),
        ("total = 0.0\nfor x, y in loader:\n" + STEP + "    total += loss * x.size(0)\n", 11),
        ("total = 0.0\nfor x, y in loader:\n    total += F.cross_entropy(model(x), y)\n", 8),
        ("total = 0.0\nfor x, y in loader:\n    out = model(x)\n    total += (out - y).pow(2).mean()\n", 9),
        ("outs = []\nfor x, y in loader:\n    outs.append(model(x).cpu())\n", 8),
        ("total = 0.0\nfor batch in loader:\n    outputs = model(**batch)\n    total += outputs.loss\n", 9),
        ("total = 0.0\nwhile True:\n    x, y = next(it)\n    total += criterion(model(x), y)\n", 9),
        ("total = 0.0\nfor x, y in loader:\n    out, _ = model.rnn(x)\n    total += out.sum()\n", 9),
        # returned, but a loop over batches that trains: the total is for logging
        ("total = 0.0\nfor x, y in loader:\n" + STEP + "    total += loss\nreturn total\n", 11),
    ],
)
def test_gl301_findings(code, row):
    # ``model`` and ``criterion`` are parameters of unknown type: only their names say
    # model and loss, which is the preview tier's evidence; typed, what computed the
    # value proves its graph, which is the preview tier's too. The default tier asks
    # for a backward from the kept value itself (``STEP``), typed or not.
    assert lint(train(code), ["GL301"], options=PREVIEW) == [(row, 9, "GL301")]
    if "model.rnn" in code:  # an attribute of a module of unknown class: a submodule or a method
        assert lint(typed(code), ["GL301"], options=PREVIEW) == [(row + 2, 9, "GL301")]  # by its name
    else:
        assert lint(typed(code), ["GL301"], options=PREVIEW) == [(row + 2, 9, "GL301")]
    if STEP in code:
        assert lint(train(code), ["GL301"]) == [(row, 9, "GL301")]
        assert lint(typed(code), ["GL301"]) == [(row + 2, 9, "GL301")]
    else:
        assert lint(train(code), ["GL301"]) == []
        assert lint(typed(code), ["GL301"]) == []


@pytest.mark.parametrize(
    "code",
    [
        "total = 0.0\nfor x, y in loader:\n" + STEP + "    total += loss.item()\n",
        "total = 0.0\nfor x, y in loader:\n" + STEP + "    total += float(loss)\n",
        "losses = []\nfor x, y in loader:\n" + STEP + "    losses.append(loss.detach())\n",
        "losses = []\nfor x, y in loader:\n" + STEP + "    losses.append(loss.data)\n",
        "total = 0\nfor x, y in loader:\n    total += y.size(0)\n",
        "correct = 0\nfor x, y in loader:\n    correct += (model(x).argmax(1) == y).sum()\n",
        "with torch.no_grad():\n    total = 0.0\n    for x, y in loader:\n        total += criterion(model(x), y)\n",
        "total = 0.0\nfor x, y in loader:\n    with torch.no_grad():\n        loss = criterion(model(x), y)\n    total += loss\n",
        # the accumulator is new in each iteration
        "for x, y in loader:\n    losses = []\n    losses.append(criterion(model(x), y))\n",
        # gradient accumulation: the total is differentiated
        "total = 0\nfor x, y in loader:\n    total = total + criterion(model(x), y) / 4\n    total.backward()\n",
        "total = 0\nfor x, y in loader:\n    total += criterion(model(x), y)\ntotal.backward()\n",
        "losses = []\nfor x, y in loader:\n    losses.append(criterion(model(x), y))\nloss = torch.stack(losses).mean()\nloss.backward()\n",
        "total = 0\nfor x, y in loader:\n    total += criterion(model(x), y)\ntorch.autograd.grad(total, model.parameters())\n",
        "total = 0\nfor x, y in loader:\n    total += criterion(model(x), y)\nscaler.scale(total).backward()\n",
        # a sum over heads returned for the caller's backward()
        "total = 0.0\nfor head in model.heads:\n    total += criterion(head(x), y)\nreturn total\n",
        "losses = []\nfor head in model.heads:\n    losses.append(criterion(head(x), y))\nreturn sum(losses)\n",
        # unknown helpers and plain values
        "accs = []\nfor x, y in loader:\n    accs.append(accuracy(x, y))\n",
        "times = []\nfor x, y in loader:\n    times.append(time.time())\n",
        "states = []\nfor x, y in loader:\n    states.append(model.state_dict())\n",
        # not in a loop
        "total = 0.0\ntotal += criterion(model(x), y)\n",
    ],
)
def test_gl301_negatives(code):
    assert lint(train(code), ["GL301"], options=PREVIEW) == []
    assert lint(typed(code), ["GL301"]) == []


@pytest.mark.parametrize(
    "code,fixed",
    [
        # `.detach()`, never `.item()`: the total stays a tensor, printed and summed as before
        ("total = 0.0\nfor x, y in loader:\n" + STEP + "    total += loss\n", "    total += loss.detach()\n"),
        ("total = 0\nfor x, y in loader:\n" + STEP + "    total = total + loss\n", "    total = total + loss.detach()\n"),
        ("total = 0.\nfor x, y in loader:\n" + STEP + "    total += loss * x.size(0)\n", "    total += loss.detach() * x.size(0)\n"),
        ("total = torch.zeros(())\nfor x, y in loader:\n" + STEP + "    total += loss\n", "    total += loss.detach()\n"),
        (
            "total = 0.0\nfor x, y in loader:\n" + STEP + "    total += loss\nprint(total.item())\n",
            "    total += loss.detach()\nprint(total.item())\n",
        ),
        ("losses = []\nfor x, y in loader:\n" + STEP + "    losses.append(loss)\n", "    losses.append(loss.detach())\n"),
        ("total = 0.0\nfor x, y in loader:\n    total += -criterion(model(x), y)\n", "    total += -criterion(model(x), y).detach()\n"),
        ("total = 0.0\nfor x, y in loader:\n    total += (model(x).logits - y).abs().mean()\n", None),
        ("total = 0.0\nfor x, y in loader:\n    total += F.mse_loss(model(x), y).abs().mean()\n", "    total += F.mse_loss(model(x), y).abs().mean().detach()\n"),
    ],
)
def test_gl301_fix(code, fixed):
    out = fix(typed(code), ["GL301"], options=PREVIEW)
    if fixed is None:  # a forward's output: a tuple or a dataclass, for all the file shows
        assert lint(typed(code), ["GL301"], options=PREVIEW) == [(10, 9, "GL301")]
        assert out == typed(code)
    else:
        assert out.endswith(textwrap.indent(fixed, "    "))


@pytest.mark.parametrize(
    "code",
    [
        "total = 0.0\nfor x, y in loader:\n" + STEP + "    total += loss\n",
        "losses = []\nfor x, y in loader:\n" + STEP + "    losses.append(loss)\n",
        "total = 0.0\nfor x, y in loader:\n    total += (model(x) - y).abs().mean()\n",
        "outs = []\nfor x, y in loader:\n    outs.append(model(x))\n",
    ],
)
def test_gl301_no_tensor_method_fix_on_what_is_not_proven_a_tensor(code):
    # ``criterion(...)`` of unknown type may return a float, ``model(x)`` a tuple or
    # a dataclass: ``.detach()`` would raise there. Reported in preview, never fixed.
    source = train(code)
    assert lint(source, ["GL301"], options=PREVIEW)
    assert fix(source, ["GL301"], unsafe=True, options=PREVIEW) == source
    # typed, ``model(x)`` is still a forward's output of unknown structure
    typed_source = typed(code)
    fixed = fix(typed_source, ["GL301"], unsafe=True, options=PREVIEW)
    if "outs.append" in code:
        assert lint(typed_source, ["GL301"], options=PREVIEW) == [(10, 9, "GL301")]
        assert fixed == typed_source


@pytest.mark.parametrize(
    "code,fixed",
    [
        # kept on an object: another method may differentiate it
        ("for x, y in loader:\n" + STEP + "    self.total += loss\n", "    self.total += loss.detach()\n"),
        ("for x, y in loader:\n" + STEP + "    self.stats['loss'] += loss\n", "    self.stats['loss'] += loss.detach()\n"),
        # returned: the caller may backpropagate the total
        (
            "total = 0\nfor x, y in loader:\n    total += criterion(model(x), y)\nreturn total\n",
            "    total += criterion(model(x), y).detach()\nreturn total\n",
        ),
    ],
)
def test_gl301_fix_unsafe_where_the_total_leaves_the_function(code, fixed):
    assert fix(typed(code), ["GL301"], options=PREVIEW) == typed(code)
    assert fix(typed(code), ["GL301"], unsafe=True, options=PREVIEW).endswith(textwrap.indent(fixed, "    "))


def test_gl301_message():
    assert messages(typed("total = 0.0\nfor x, y in loader:\n" + STEP + "    total += loss\n"), ["GL301"]) == [
        "`total += loss` keeps the autograd graph of `loss` alive in `total` after the iteration ends "
        "(`backward()` frees its saved activations, but its graph nodes stay referenced): memory grows with "
        "every iteration; keep `loss.detach()`"
    ]


# GL301 on real code: what is not loop-carried growth of a graph nobody uses. Each
# source has the shape of code that was reported in released libraries.

GL301_NOT_GROWTH = {
    "modules appended to a ModuleList in __init__": """\
import torch.nn as nn


class Stack(nn.Module):
    def __init__(self, width, depth, attention_cls, norm_layer=nn.LayerNorm):
        super().__init__()
        self.blocks = nn.ModuleList()
        self.norms = nn.ModuleList()
        for _ in range(depth):
            self.blocks.append(attention_cls(width, heads=4))
            self.norms.append(norm_layer(width))
""",
    "weights read from a config held in an attribute": """\
class MixedLoss:
    def __init__(self, loss_cfg, parts=("ce", "dice")):
        self.loss_cfg = loss_cfg
        self.weights = []
        self.weight_sum = 0.0
        for part in parts:
            self.weights.append(self.loss_cfg.get(part + "_weight", 1.0))
            self.weight_sum += self.loss_cfg.get(part + "_weight", 1.0)
""",
    "learning rates logged from a scheduler": """\
def fit(generator, loader, opt, generator_scheduler, criterion):
    rates = []
    for x, y in loader:
        loss = criterion(generator(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        generator_scheduler.step()
        rates.append(generator_scheduler.get_last_lr()[0])
    return rates
""",
    "text from a speech model": """\
class Evaluator:
    def __init__(self, speech_model, files):
        self.speech_model = speech_model
        self.files = files
        self.lines = []
        self.log = ""

    def run(self):
        for chunk in range(0, len(self.files), 8):
            texts = self.speech_model.transcribe(self.files[chunk : chunk + 8])
            self.lines.append(texts[0])
            self.log += "%s\\n" % texts[0]
""",
    "hook handles": """\
def attention_maps(model, x):
    maps = []

    def keep(module, inputs, output):
        maps.append(output.detach())

    handles = []
    for module in model.modules():
        handles.append(module.register_forward_hook(keep))
    model(x)
    for h in handles:
        h.remove()
    return maps
""",
    "a helper whose only caller runs under no_grad": """\
import torch


class Pipeline:
    def __init__(self, image_encoder, decoder):
        self.image_encoder = image_encoder
        self.decoder = decoder

    def _embed_images(self, images, copies):
        embeds = []
        for image in images:
            embeds.append(self.image_encoder(image)[None, :])
        repeated = []
        for e in embeds:
            repeated.append(torch.cat([e] * copies))
        return repeated

    @torch.no_grad()
    def __call__(self, images, latents):
        embeds = self._embed_images(images, 2)
        return self.decoder(latents, torch.cat(embeds))
""",
    "Lightning validation_step": """\
import pytorch_lightning as pl
import torch.nn.functional as F


class Segmenter(pl.LightningModule):
    def __init__(self, net):
        super().__init__()
        self.net = net
        self.crop_losses = []

    def validation_step(self, batch, batch_idx):
        images, masks = batch
        total = 0.0
        for crop, mask in zip(images.split(128, -1), masks.split(128, -1)):
            loss = F.cross_entropy(self.net(crop), mask)
            total += loss
            self.crop_losses.append(loss)
        self.log("val_loss", total)
""",
    "a Lightning callback's validation hook": """\
import lightning.pytorch as pl
import torch


class SampleGrid(pl.Callback):
    def __init__(self, noise):
        self.noise = noise

    def on_validation_epoch_end(self, trainer, pl_module):
        samples = []
        for z in self.noise.split(8):
            samples.append(pl_module.generator(z))
        trainer.logger.log_image("samples", torch.cat(samples))
""",
    "tiles concatenated into the returned image": """\
import torch


def decode_in_tiles(decoder, latents, tile=32):
    rows = []
    for top in range(0, latents.shape[-2], tile):
        row = []
        for left in range(0, latents.shape[-1], tile):
            row.append(decoder(latents[..., top : top + tile, left : left + tile]))
        rows.append(torch.cat(row, dim=-1))
    return torch.cat(rows, dim=-2).clamp(-1, 1)
""",
    "per-layer outputs stacked into a forward's result": """\
import torch
import torch.nn as nn


class Encoder(nn.Module):
    def __init__(self, layers):
        super().__init__()
        self.layers = nn.ModuleList(layers)

    def forward(self, x, states):
        outputs, finals = [], []
        for layer, state in zip(self.layers, states):
            x, state = layer(x, state)
            outputs.append(torch.cat([x, x], -1))
            finals.append(state)
        self.last_states = [s.detach() for s in finals]
        return torch.stack(outputs)
""",
    "a slot replaced in a cache passed in": """\
class Decoder:
    def prefill(self, tokens, cache):
        h = self.embed(tokens)
        for i, decoder in enumerate(self.decoders):
            h, kv = decoder(h, cache[i])
            cache[i] = kv
""",
    "a ring of the last few losses": """\
def train(model, loader, opt, criterion):
    recent = [None] * 4
    for step, (x, y) in enumerate(loader):
        loss = criterion(model(x), y)
        loss.backward()
        opt.step()
        recent[step % 4] = loss
    return recent
""",
}


@pytest.mark.parametrize("source", GL301_NOT_GROWTH.values(), ids=list(GL301_NOT_GROWTH))
def test_gl301_not_growth(source):
    assert lint(source, ["GL301"]) == []


GL301_KEPT = {
    # the helper has a caller with gradients on: its graph is kept there
    "a helper called with and without no_grad": (
        """\
import torch


def collect(model, batches):
    outs = []
    for b in batches:
        outs.append(model(b))
    return torch.cat(outs).argmax(-1)


def evaluate(model, batches):
    with torch.no_grad():
        return collect(model, batches)


def report(model, batches):
    return collect(model, batches)
""",
        [(7, 9, "GL301")],
    ),
    # a dict of its own, keyed by the step: it grows every iteration
    "a dict keyed by the step": (
        """\
def train(model, loader, optimizer, criterion):
    history = {}
    for step, (x, y) in enumerate(loader):
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        history[step] = loss
    return history
""",
        [(7, 9, "GL301")],
    ),
    # validation_step of a class that is not a LightningModule runs as its caller says
    "validation_step outside Lightning": (
        """\
import torch.nn.functional as F


class Runner:
    def validation_step(self, net, loader):
        total = 0.0
        for x, y in loader:
            total += F.cross_entropy(net(x), y)
        return total.item()
""",
        [(8, 13, "GL301")],
    ),
}


@pytest.mark.parametrize("source,expected", GL301_KEPT.values(), ids=list(GL301_KEPT))
def test_gl301_kept_on_real_shapes(source, expected):
    assert lint(source, ["GL301"], options=PREVIEW) == expected


# -- GL302 ------------------------------------------------------------------------

IMPORTS = """\
import copy

import timm
import torch
import torch.nn as nn
import torchvision
from torchvision import models
from transformers import AutoModel, AutoTokenizer, BertForSequenceClassification

"""


@pytest.mark.parametrize(
    "code",
    [
        "m = nn.Linear(4, 4)\nm.requires_grad = False\n",
        "m = torch.nn.Sequential(nn.Linear(4, 4), nn.ReLU())\nm.requires_grad = False\n",
        "m = models.resnet18(weights='DEFAULT')\nm.requires_grad = False\n",
        "m = torchvision.models.detection.fasterrcnn_resnet50_fpn()\nm.requires_grad = False\n",
        "m = timm.create_model('resnet50', pretrained=True)\nm.requires_grad = False\n",
        "m = AutoModel.from_pretrained('bert-base-uncased')\nm.requires_grad = False\n",
        "m = BertForSequenceClassification.from_pretrained('bert')\nm.requires_grad = False\n",
        "m = torch.hub.load('repo', 'model')\nm.requires_grad = False\n",
        "m = nn.Linear(4, 4).to('cuda').eval()\nm.requires_grad = False\n",
        "m = copy.deepcopy(nn.Linear(4, 4))\nm.requires_grad = False\n",
        "def f(m: nn.Module):\n    m.requires_grad = False\n",
        "def f(m: torch.nn.Module):\n    m.requires_grad = False\n",
        "def f(model):\n    for c in model.children():\n        c.requires_grad = False\n",
        "def f(model):\n    for n, c in model.named_modules():\n        c.requires_grad = False\n",
        "def f(model):\n    for i, c in enumerate(model.children()):\n        c.requires_grad = False\n",
        "def f(model):\n    for c in list(model.children())[:-1]:\n        c.requires_grad = False\n",
        # a comprehension that keeps some of the modules as they are
        "def f(model):\n    bns = [m for m in model.modules() if isinstance(m, nn.BatchNorm1d)]\n"
        "    for bn in bns:\n        bn.requires_grad = False\n",
        "def f(model):\n    for c in (m for _, m in model.named_children() if _ != 'head'):\n        c.requires_grad = False\n",
        "class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.enc = nn.GRU(4, 4)\n"
        "        self.enc.requires_grad = False\n",
        "class Net(nn.Module):\n    pass\n\n\nclass Big(Net):\n    pass\n\n\nm = Big()\nm.requires_grad = False\n",
        "class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.enc = nn.GRU(4, 4)\n\n\n"
        "net = Net()\nnet.enc.requires_grad = False\n",
        # ``nn.Module``'s own dict of its children holds modules
        "def f(trainer, layers):\n    for name in layers:\n        trainer.model._modules[name].requires_grad = False\n",
    ],
)
def test_gl302_modules(code):
    src = IMPORTS + code
    found = lint(src, ["GL302"])
    assert len(found) == 1, found
    # freezing for real changes the gradients (the intended effect): unsafe
    assert fix(src, ["GL302"]) == src
    assert fix(src, ["GL302"], unsafe=True).count(".requires_grad_(False)") == 1


@pytest.mark.parametrize(
    "code",
    [
        "for p in model.parameters():\n    p.requires_grad = False\n",
        "x = torch.zeros(3)\nx.requires_grad = True\n",
        "w = nn.Parameter(torch.ones(3))\nw.requires_grad = False\n",
        "m = nn.Linear(4, 4)\nm.weight.requires_grad = False\n",
        "def f(model):\n    model.requires_grad = False\n",  # no evidence
        # an element made from each module is no module
        "def f(model):\n    for w in [m.weight for m in model.modules()]:\n        w.requires_grad = False\n",
        "def f(model):\n    for layer in model.layers:\n        layer.requires_grad = False\n",
        "t = AutoTokenizer.from_pretrained('bert')\nt.requires_grad = False\n",
        "w = models.ResNet18_Weights.DEFAULT.transforms()\nw.requires_grad = False\n",
        "m = nn.functional.relu(x)\nm.requires_grad = False\n",
        "m = models.resnet18()\nm.requires_grad_(False)\n",
        "class Net:\n    def __init__(self):\n        self.enc = nn.GRU(4, 4)\n        self.enc.weight_ih_l0.requires_grad = False\n",
        "class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.scale = nn.Parameter(torch.ones(1))\n"
        "        self.scale.requires_grad = False\n",
        # another framework's file: its layers' dict is not PyTorch's
        "import oneflow\ndef f(trainer, name):\n    trainer.model._modules[name].requires_grad = False\n",
    ],
)
def test_gl302_negatives(code):
    assert lint(IMPORTS + code, ["GL302"]) == []


def test_gl302_fix_and_message():
    src = IMPORTS + "backbone = models.resnet50()\nbackbone.requires_grad = not finetune\n"
    assert lint(src, ["GL302"]) == [(11, 1, "GL302")]
    assert fix(src, ["GL302"]) == src  # `not finetune` may freeze: unsafe
    assert fix(src, ["GL302"], unsafe=True).endswith("backbone.requires_grad_(not finetune)\n")
    assert messages(src, ["GL302"]) == [
        "`backbone.requires_grad = not finetune` only sets a plain Python attribute on the `nn.Module` `backbone`: "
        "none of its parameters changes and all still get gradients; call `backbone.requires_grad_(not finetune)`"
    ]


@pytest.mark.parametrize(
    "code,safety",
    [
        ("m = nn.Linear(4, 4)\nm.requires_grad = True\n", "safe"),
        # read back: the call does not set the attribute, so the read would raise
        ("m = nn.Linear(4, 4)\nm.requires_grad = True\nprint(m.requires_grad)\n", "unsafe"),
        # not a bool: `requires_grad_(None)` raises TypeError
        ("m = nn.Linear(4, 4)\nm.requires_grad = None\n", "unsafe"),
        ("m = nn.Linear(4, 4)\nm.requires_grad = False\n", "unsafe"),
    ],
)
def test_gl302_safe_only_for_true_never_read_back(code, safety):
    findings = lint_source(IMPORTS + code, "x.py", LintSettings(frozenset({"GL302"}))).findings
    assert [f.fix.applicability for f in findings] == [safety]


def test_gl302_chained_assignment_has_no_fix():
    src = IMPORTS + "a = nn.Linear(2, 2)\nb = nn.Linear(2, 2)\na.requires_grad = b.requires_grad = False\n"
    assert lint(src, ["GL302"]) == [(12, 1, "GL302"), (12, 19, "GL302")]
    assert fix(src, ["GL302"]) == src


# -- GL303 ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "code,out",
    [
        ("for p in model.parameters():\n    p.require_grad = False\n", "for p in model.parameters():\n    p.requires_grad = False\n"),
        ("x = torch.zeros(3)\nx.require_grad = True\n", "x = torch.zeros(3)\nx.requires_grad = True\n"),
        ("def f(net):\n    net.require_grad = False\n", "def f(net):\n    net.requires_grad = False\n"),
        ("m = models.resnet18()\nm.require_grad = False\n", "m = models.resnet18()\nm.requires_grad_(False)\n"),
        ("def f(m: nn.Module, t):\n    m.require_grad = t\n", "def f(m: nn.Module, t):\n    m.requires_grad_(t)\n"),
        (
            "def f(model):\n    for c in model.children():\n        c.require_grad = False\n",
            "def f(model):\n    for c in model.children():\n        c.requires_grad_(False)\n",
        ),
        ("a.require_grad = b.require_grad = False\n", "a.requires_grad = b.requires_grad = False\n"),
    ],
)
def test_gl303_fix(code, out):
    src = IMPORTS + code
    assert lint(src, ["GL303"])
    assert fix(src, ["GL303"]) == src  # the attribute may be read back by name: unsafe
    assert fix(src, ["GL303"], unsafe=True) == IMPORTS + out


def test_gl303_module_fix_is_not_what_torchfix_does():
    # TorchFix's TOR002 would write `model.requires_grad = False`, which GL302 reports again.
    src = IMPORTS + "model = models.resnet18()\nmodel.require_grad = False\n"
    assert fix(src, ["GL302", "GL303"], unsafe=True) == IMPORTS + "model = models.resnet18()\nmodel.requires_grad_(False)\n"


@pytest.mark.parametrize(
    "code",
    [
        "p.requires_grad = False\n",
        "require_grad = False\n",
        "opts = {'require_grad': False}\n",
        "f(require_grad=False)\n",
        "flag = getattr(m, 'require_grad', None)\n",
        # the file reads the attribute too: it is the code's own name, not a typo
        "cfg.require_grad = False\nif cfg.require_grad:\n    pass\n",
        "self.require_grad = flag\nmodel.requires_grad_(self.require_grad)\n",
    ],
)
def test_gl303_negatives(code):
    assert lint(IMPORTS + code, ["GL303"]) == []


def test_gl303_messages():
    src = IMPORTS + "p.require_grad = False\nm = nn.Linear(2, 2)\nm.require_grad = False\n"
    assert lint(src, ["GL303"]) == [(10, 1, "GL303"), (12, 1, "GL303")]
    assert messages(src, ["GL303"]) == [
        "`p.require_grad` is a misspelling of `requires_grad`: the assignment creates an unused attribute and changes "
        "nothing; assign `p.requires_grad`",
        "`m.require_grad` is a misspelling of `requires_grad`: the assignment creates an unused attribute and changes "
        "nothing; `m` is an `nn.Module`: call `m.requires_grad_(False)` (`.requires_grad = ...` would not freeze its "
        "parameters either)",
    ]
