"""The project index in a run of ``gradlint check``: facts from the other files
of the run (and, for a run of few files, of their directories) decide findings,
and a cached finding is checked again when a fact it may depend on changes."""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from gradlint.cli import main
from gradlint.semantic import bounds, neighbours, project

HELPER = """\
def evaluate(model, loader):
    model.eval()
    total = 0
    for x, y in loader:
        total += (model(x).argmax(1) == y).sum().item()
    return total
"""

CALLER = """\
import torch
from helpers import evaluate


def main(model, loader):
    with torch.no_grad():
        print(evaluate(model, loader))
"""


@pytest.fixture
def tree(tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text("[tool.gradlint]\n")
    (tmp_path / "helpers.py").write_text(HELPER)
    (tmp_path / "run.py").write_text(CALLER)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def findings(*args: str):
    result = CliRunner().invoke(main, ["check", "--preview", "--output-format", "json", *args])
    assert result.exit_code in (0, 1), result.output
    assert not hasattr(project, "current")  # no index in force globally: each run passes its own
    return [(Path(f["filename"]).name, f["code"], f["location"]["row"]) for f in json.loads(result.stdout)]


def proven(code: str, *names: str):
    """What the rule ``code`` reports without the preview tier's guesses, on a run of
    ``names`` with their project index: the part of a preview-only rule (GL101) that
    rests on proof alone, which only an explicit selection of the engine reaches."""
    import dataclasses

    from gradlint.config import Settings
    from gradlint.engine import lint_source
    from gradlint.session import Session

    paths = [Path(name) for name in names]
    session = Session(Settings(cwd=Path.cwd())).indexed(paths)
    found = []
    for path in paths:
        rules = dataclasses.replace(session.rules(path), codes=frozenset({code}))
        assert not rules.options.preview
        found += [(path.name, f.code, f.start[0]) for f in lint_source(path.read_text(), str(path), rules).findings]
    return found


def test_a_helper_every_caller_runs_under_no_grad_is_not_reported(tree):
    assert findings("--no-cache", "helpers.py", "run.py") == []


def test_a_single_file_run_indexes_the_files_next_to_it(tree):
    assert findings("--no-cache", "helpers.py") == []
    alone = tree / "alone"
    alone.mkdir()
    (alone / "helpers.py").write_text(HELPER)
    assert findings("--no-cache", "alone/helpers.py") == [("helpers.py", "GL101", 5)]


def test_a_cached_finding_follows_a_change_in_another_file(tree):
    assert findings("helpers.py") == []
    assert findings("helpers.py") == []  # from the cache
    (tree / "run.py").write_text(CALLER.replace("with torch.no_grad():", "if True:"))
    assert findings("helpers.py") == [("helpers.py", "GL101", 5)]
    (tree / "run.py").write_text(CALLER)
    assert findings("helpers.py") == []


def test_extra_files_are_bounded(tmp_path):
    for i in range(5):
        (tmp_path / f"m{i}.py").write_text("x = 1\n")
    (tmp_path / "notes.txt").write_text("")
    extra = neighbours.extra_files([tmp_path / "m0.py"], limit=3)
    assert [p.name for p in extra] == ["m1.py", "m2.py", "m3.py"]


LOSSES = """\
import torch.nn as nn

from .deep import more


class IoULoss(nn.Module):
    def forward(self, pred, target):
        inter = (pred * target).sum()
        return 1 - inter / (pred + target - pred * target).sum()
"""

TRAIN = """\
from utils.losses import IoULoss


def train(model, loader, optimizer):
    criterion = IoULoss()
    for x, y in loader:
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        print(loss.data[0])
"""


@pytest.fixture
def packaged(tmp_path, monkeypatch):
    """A script next to a package it imports from, and a package it does not import."""
    (tmp_path / "pyproject.toml").write_text("[tool.gradlint]\n")
    (tmp_path / "utils" / "deep").mkdir(parents=True)
    (tmp_path / "utils" / "__init__.py").write_text("")
    (tmp_path / "utils" / "losses.py").write_text(LOSSES)
    (tmp_path / "utils" / "deep" / "more.py").write_text("X = 1\n")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "unused.py").write_text("Y = 1\n")
    (tmp_path / "train.py").write_text(TRAIN)
    (tmp_path / "helpers.py").write_text("Z = 1\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_extra_files_follow_imports_below_the_files_then_take_their_neighbours(packaged):
    extra = neighbours.extra_files([Path("train.py")])
    assert [p.as_posix() for p in extra] == ["utils/losses.py", "utils/deep/more.py", "helpers.py"]


def test_imports_are_read_in_every_spelling_without_a_parse():
    text = (
        "import os, sys as s\nimport a.b.c as d\nfrom . import x, y as z\n"
        "from ..pkg.mod import (A,\n    B as C,\n)\nfrom m import *\n"
        "def f():\n    from q.r import t  # a comment\n"
    )
    assert list(neighbours._imported_modules(text)) == [
        (0, "os"), (0, "sys"), (0, "a.b.c"), (1, "x"), (1, "y"), (2, "pkg.mod"), (2, "pkg.mod.A"),
        (2, "pkg.mod.B"), (0, "m"), (0, "q.r"), (0, "q.r.t"),
    ]


def test_an_import_chain_deeper_than_the_bound_is_not_followed(packaged, monkeypatch):
    monkeypatch.setattr(bounds, "IMPORT_STEPS", 1)
    assert [p.as_posix() for p in neighbours.extra_files([Path("train.py")])] == ["utils/losses.py", "helpers.py"]


def test_a_single_file_run_knows_a_loss_class_of_a_package_below_it(packaged):
    # ``IoULoss``'s forward returns a sum: its output is 0-dim, so ``.data[0]`` raises.
    assert findings("--no-cache", "train.py") == [("train.py", "GL003", 10)]


@pytest.mark.parametrize("run", [("tools/train.py",), (".",)])
@pytest.mark.parametrize(("imported", "expected"), [("pkg.losses", [("train.py", "GL003", 10)]), ("losses", [])])
def test_a_script_below_the_top_finds_the_package_at_the_top_by_its_full_name(tmp_path, monkeypatch, run, imported, expected):
    # ``tools/`` is a project of its own (no ``__init__.py``); a script there that
    # puts the repository's top on ``sys.path`` imports ``pkg.losses``, never ``losses``.
    (tmp_path / "pyproject.toml").write_text("[tool.gradlint]\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "losses.py").write_text(LOSSES)
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "train.py").write_text(TRAIN.replace("utils.losses", imported))
    monkeypatch.chdir(tmp_path)
    assert findings("--no-cache", *run) == expected


AGENT = """\
import random


class Agent:
    def __init__(self, online_net, actions):
        self.online_net = online_net
        self.actions = actions

    def act(self, state):
        return (self.online_net(state.unsqueeze(0)).data * self.support).sum(2).argmax(1).item()

    def act_e_greedy(self, state, epsilon=0.05):
        return random.randrange(self.actions) if random.random() < epsilon else self.act(state)

    def learn(self, batch):
        loss = self.online_net(batch.states).mean()
        loss.backward()
"""

EVALUATION = """\
def test(env, agent, episodes):
    rewards = []
    for _ in range(episodes):
        state, done, total = env.reset(), False, 0.0
        while not done:
            state, reward, done = env.step(agent.act_e_greedy(state))
            total += reward
        rewards.append(total)
    return sum(rewards) / episodes
"""


def test_a_method_called_from_inference_code_in_another_file_is_reported(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "agent.py").write_text(AGENT)
    (tmp_path / "evaluation.py").write_text(EVALUATION)
    # ``test()`` is inference code by its name: the preview tier's evidence
    assert proven("GL101", "agent.py", "evaluation.py") == []
    assert findings("--no-cache", "--preview", "agent.py", "evaluation.py") == [("agent.py", "GL101", 10)]
    result = CliRunner().invoke(main, ["check", "--no-cache", "--preview", "--select", "GL101", "agent.py"])
    assert "`self.online_net` runs for inference in `act()`, called from `test()` (evaluation.py:6)" in result.output
    # without the caller, ``act`` is a method like any other
    (tmp_path / "evaluation.py").unlink()
    assert findings("--no-cache", "--preview", "agent.py") == []


def test_workers_that_do_not_fork_are_sent_the_index(tree, monkeypatch):
    from gradlint import parallel

    for i in range(4):  # enough files to be worth workers
        (tree / f"other{i}.py").write_text(HELPER.replace("evaluate", f"evaluate{i}"))
    expected = sorted(findings("--no-cache", "--jobs", "1", "."))
    assert ("helpers.py", "GL101", 5) not in expected and len(expected) == 4
    monkeypatch.setattr(parallel, "_context", lambda: __import__("multiprocessing").get_context("spawn"))
    assert sorted(findings("--no-cache", "--jobs", "2", ".")) == expected


DETECTOR = """\
import torch


class Energy(torch.nn.Module):
    def __init__(self, model, t=1.0):
        super().__init__()
        self.t = t
        self.model = model

    def forward(self, x):
        return -self.t * torch.logsumexp(self.model(x) / self.t, dim=1)


class GuardedEnergy(torch.nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    @torch.no_grad()
    def forward(self, x):
        return torch.logsumexp(self.model(x), dim=1)
"""

SCORING = """\
import torch

from ood import Energy, GuardedEnergy


def score(model, loader):
    energy, guarded = Energy(model), GuardedEnergy(model)
    model.eval()
    scores = []
    for x, _ in loader:
        scores += energy(x).tolist()
        scores += guarded(x).tolist()
    return scores
"""


def _package(root: Path, monkeypatch, name: str, files) -> Path:
    """A package ``name`` under ``root`` (the run's directory) holding ``files``."""
    monkeypatch.chdir(root)
    package = root / name
    package.mkdir()
    for file, text in files.items():
        (package / file).write_text(text)
    return package


@pytest.mark.parametrize("export", [True, False])
def test_a_wrapper_class_of_another_file_runs_the_module_it_is_given(tmp_path, monkeypatch, export):
    # the package re-exports the classes, or not: then the import names no class
    exports = "from .detectors import Energy, GuardedEnergy\n" if export else ""
    package = _package(tmp_path, monkeypatch, "ood", {"__init__.py": exports, "detectors.py": DETECTOR})
    (tmp_path / "score.py").write_text(SCORING)
    expected = [("score.py", "GL101", 11)] if export else []
    assert findings("--no-cache", "--select", "GL101", "score.py") == expected
    summary = project.summarize("ood/__init__.py", (package / "__init__.py").read_text())
    assert (summary or {}).get("exports") == ({"Energy": "ood.detectors.Energy", "GuardedEnergy": "ood.detectors.GuardedEnergy"} if export else None)
    summary = project.summarize("ood/detectors.py", DETECTOR)
    assert summary["wraps"] == {"Energy": [0, "model", "forward"]}
    # what calling an instance runs: ``energy.model.eval()`` then ``energy(x)`` is its forward
    assert summary["runs_attributes"] == {"Energy": [["model"], "forward"]}


def test_a_method_run_under_its_own_no_grad_decorator_is_no_forward_of_the_caller():
    source = textwrap.dedent(
        """\
        import torch


        class Encoder(torch.nn.Module):
            def forward(self, x):
                return self.lin(x)

            @torch.no_grad()
            def encode(self, x):
                return self(x)

            def embed(self, x):
                return self(x)
        """
    )
    assert project.summarize("pkg/encoder.py", source)["forwards"] == {"Encoder": ["embed"]}


CONVERTER = """\
import torch

torch.set_grad_enabled(False)


def psnr(a, b):
    return float(10 * torch.log10(1 / ((a - b) ** 2).mean()))
"""

CALIBRATION = """\
from pipeline.convert import psnr


def calibrate(model, batches):
    model.eval()
    for batch in batches:
        model(batch)
    return psnr
"""


@pytest.mark.parametrize("switches_off", [True, False])
def test_a_module_that_switches_gradients_off_at_import_leaves_its_importers_without_them(tmp_path, monkeypatch, switches_off):
    source = CONVERTER if switches_off else CONVERTER.replace("torch.set_grad_enabled(False)\n", "")
    _package(tmp_path, monkeypatch, "pipeline", {"__init__.py": "", "convert.py": source, "calibrate.py": CALIBRATION})
    expected = [] if switches_off else [("calibrate.py", "GL101", 7)]
    assert findings("--no-cache", "--select", "GL101", "pipeline/calibrate.py") == expected
    assert (project.summarize("pipeline/convert.py", source) or {}).get("grad_off") is (True if switches_off else None)


DOCS = """\
import contextlib
import functools

import torch


def model_doc(header):
    def add_doc(fn):
        fn.__doc__ = header
        return fn

    return add_doc


def guarded(fn):
    def run(*args):
        with torch.no_grad():
            return fn(*args)

    return run


@contextlib.contextmanager
def fixed_seed(seed):
    state = torch.get_rng_state()
    torch.manual_seed(seed)
    yield
    torch.set_rng_state(state)


def seeded(fn):
    @functools.wraps(fn)
    def run(*args):
        with fixed_seed(0):
            return fn(*args)

    return run
"""

ENSEMBLE = """\
from torch import nn

from .docs import guarded, model_doc, seeded


class Ensemble(nn.Module):
    def forward(self, x):
        return sum(e(x) for e in self.members)

    @{decorator}
    def predict(self, loader):
        self.eval()
        hits = 0
        for x, y in loader:
            hits += (self.forward(x).argmax(1) == y).sum().item()
        return hits
"""


@pytest.mark.parametrize(
    "decorator, expected", [("model_doc(\"Accuracy.\")", [("ensemble.py", "GL101", 15)]), ("seeded", [("ensemble.py", "GL101", 15)]), ("guarded", [])]
)
def test_a_decorator_of_another_file_that_hands_back_the_function_leaves_grad_mode_alone(tmp_path, monkeypatch, decorator, expected):
    # a relative import of the package's docstring helper (a factory), or a wrapper
    # that seeds the generator around the call; a wrapper that enters no_grad turns
    # gradients off, as ``guarded`` does
    _package(tmp_path, monkeypatch, "ens", {"__init__.py": "", "docs.py": DOCS, "ensemble.py": ENSEMBLE.format(decorator=decorator)})
    monkeypatch.chdir(tmp_path / "ens")
    assert proven("GL101", "ensemble.py") == expected
    if expected:
        assert findings("--no-cache", "--select", "GL101", "ensemble.py") == expected
    assert project.summarize("ens/docs.py", DOCS)["identity_decorators"] == {"model_doc": "factory", "seeded": "wrapper"}


INCEPTION = """\
import torch
from torch import nn


class InceptionV3(nn.Module):
    def __init__(self, blocks, resize_input=True, requires_grad=False):
        super().__init__()
        self.layers = nn.ModuleList(nn.Conv2d(3, 8, 3) for _ in blocks)
        for param in self.parameters():
            param.requires_grad = requires_grad

    def forward(self, x):
        return [layer(x) for layer in self.layers]


class Tuned(InceptionV3):
    def __init__(self, blocks):
        super().__init__(blocks)
        self.head = nn.Linear(8, 2)


class Guarded(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Linear(4, 4)

    @torch.no_grad()
    def forward(self, x):
        return self.net(x)


class Unfreezes(InceptionV3):
    def __init__(self, blocks):
        super().__init__(blocks)
        self.requires_grad_(False)

    def fine_tune(self):
        self.requires_grad_(True)
"""

FID = """\
import torch

from metrics.inception import {cls}


def fid_features(loader, device):
    model = {cls}({args}).to(device)
    model.eval()
    feats = []
    for images in loader:
        feats.append(model(images.to(device))[0].cpu())
    return torch.cat(feats)
"""


@pytest.mark.parametrize(
    "cls, args, reported",
    [
        ("InceptionV3", "[3]", False),
        ("InceptionV3", "[3], True", False),
        ("InceptionV3", "[3], True, True", True),
        ("InceptionV3", "[3], requires_grad=True", True),
        ("InceptionV3", "*blocks", True),
        ("Tuned", "[3]", True),
        ("Guarded", "", False),
        ("Unfreezes", "[3]", True),
    ],
)
def test_a_class_of_another_file_that_freezes_its_parameters_makes_frozen_models(tmp_path, monkeypatch, cls, args, reported):
    _package(tmp_path, monkeypatch, "metrics", {"__init__.py": "", "inception.py": INCEPTION})
    (tmp_path / "fid.py").write_text(FID.format(cls=cls, args=args))
    assert findings("--no-cache", "--select", "GL101", "fid.py") == ([("fid.py", "GL101", 11)] if reported else [])
    frozen = project.summarize("metrics/inception.py", INCEPTION)["frozen_classes"]
    assert frozen == {"InceptionV3": ["requires_grad", 2], "Guarded": []}


SERVE = """\
{imports}from models.nets import Net


def score(loader, path):
    net = Net()
    net.eval()
    return [net(x).argmax(1).tolist() for x in loader]
"""

NETS = """\
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x)
"""


@pytest.mark.parametrize("imports, applicability", [("", "unsafe"), ("import numpy\nfrom torch.utils.data import DataLoader\n", "safe")])
def test_a_fix_that_brings_torch_into_a_file_without_it_is_unsafe(tmp_path, monkeypatch, imports, applicability):
    # the file may run where torch is not installed: the ``import torch`` the fix adds could raise
    _package(tmp_path, monkeypatch, "models", {"__init__.py": "", "nets.py": NETS})
    (tmp_path / "serve.py").write_text(SERVE.format(imports=imports))
    result = CliRunner().invoke(main, ["check", "--no-cache", "--preview", "--output-format", "json", "--select", "GL101", "serve.py"])
    found = json.loads(result.stdout)
    assert [(f["code"], f["location"]["row"], f["fix"]["applicability"]) for f in found] == [("GL101", 7 + imports.count("\n"), applicability)]


AUTOENCODER = """\
import torch
import pytorch_lightning as pl

from .blocks import Encoder


class VQModel(pl.LightningModule):
    def __init__(self, config):
        super().__init__()
        self.encoder = Encoder(config)
        self.quant_conv = torch.nn.Conv2d(4, 4, 1)


class VQModelInterface(VQModel):
    def encode(self, x):
        return self.quant_conv(self.encoder(x))
"""

PIPELINE = """\
from .vqgan.autoencoder import VQModelInterface


class Pipeline:
    def __init__(self, config):
        self.image_encoder = VQModelInterface(config)
        self.image_encoder.eval()

    def encode(self, image):
        return self.image_encoder.encode(image).cpu().numpy()
"""


@pytest.mark.parametrize("where", [".", "pipe"])
@pytest.mark.parametrize("absolute", [False, True])
def test_a_relative_import_through_a_directory_without_init_finds_the_class(tmp_path, monkeypatch, where, absolute):
    # ``pipe/vqgan/`` has no ``__init__.py``: its files are a project root of their own,
    # below the root of ``pipe/pipeline.py``; ``encode`` of the subclass runs the
    # submodules its base's ``__init__`` builds
    package = _package(tmp_path, monkeypatch, "pipe", {"__init__.py": "", "pipeline.py": PIPELINE})
    (package / "vqgan").mkdir()
    (package / "vqgan" / "autoencoder.py").write_text(AUTOENCODER)
    monkeypatch.chdir(tmp_path / where)
    files = [str(tmp_path / p) if absolute else os.path.relpath(tmp_path / p) for p in ("pipe/pipeline.py", "pipe/vqgan/autoencoder.py")]
    assert findings("--no-cache", "--select", "GL101", *files) == [("pipeline.py", "GL101", 10)]
    summary = project.summarize("autoencoder.py", AUTOENCODER)
    assert summary["forwards"] == {"VQModelInterface": ["encode"]}


FACTORIES = """\
import torch
from torch import nn

from .blocks import Backbone


class Net(nn.Module):
    pass


def create_model(opt):
    if opt.big:
        model = Net()
    else:
        model = Backbone(opt)
    model.load_state_dict(torch.load(opt.path))
    if opt.gpus:
        model = nn.DataParallel(model)
    return model


def build(opt):
    return Net().to(opt.device).eval()


def get_optimizer(model):
    return torch.optim.Adam(model.parameters())


def load(path):
    return torch.load(path)


def pick(models, i):
    return models[i]
"""


@pytest.mark.parametrize(("backbone", "expected"), [("class Backbone(torch.nn.Module):\n    pass\n", True), ("class Backbone:\n    pass\n", False)])
def test_a_function_of_another_file_that_builds_and_returns_a_module_is_a_module_factory(tmp_path, monkeypatch, backbone, expected):
    # ``create_model`` picks one of two classes; it is a factory of modules only when both are
    summary = project.summarize("models/factories.py", FACTORIES)
    assert summary["factories"] == {
        "create_model": [".Net", "models.blocks.Backbone", "torch.nn.DataParallel"],
        "build": [".Net"],
        "get_optimizer": ["torch.optim.Adam"],
        "load": ["torch.load"],
    }
    package = _package(tmp_path, monkeypatch, "models", {"__init__.py": "", "factories.py": FACTORIES, "blocks.py": "import torch\n\n\n" + backbone})
    files = [str(p) for p in sorted(package.glob("*.py"))]
    index = project.build([(f, Path(f).read_text()) for f in files])
    origin = str(tmp_path / "run.py")
    assert index.factory_returns_module("models.factories.create_model", origin) is expected
    assert index.factory_returns_module("models.factories.build", origin) is True
    assert index.factory_returns_module("models.factories.get_optimizer", origin) is False
    assert index.factory_returns_module("models.factories.load", origin) is False
    assert index.factory_returns_module("models.factories.pick", origin) is False
