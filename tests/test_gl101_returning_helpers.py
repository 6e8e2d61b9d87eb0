"""GL101 across files: ``model = load_model(cfg)``, where ``load_model`` is a
function of another file of the project that puts its model in eval mode and
returns it (``semantic.eval_returns``), binds an eval-mode module in the
caller, as ``model.eval()`` would. Helpers the index cannot prove return an
eval-mode model leave the caller silent."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from click.testing import CliRunner

from gradlint.cli import main

UTILS = """\
import torch
from transformers import AutoModel


def load_model(path, fp16=False):
    model = AutoModel.from_pretrained(path)
    model.eval()
    model.cuda()
    if fp16:
        model = model.half()
    return model, object()


def load_plain(path):
    net = torch.load(path).eval()
    return net


def load_trained(path):
    model = torch.load(path)
    model.eval()
    model.train()
    return model


def load_sometimes(path, ready):
    model = torch.load(path)
    model.eval()
    if ready:
        return model
    return None


def load_handed_on(path, trainer):
    model = torch.load(path)
    model.eval()
    trainer.fit(model)
    return model


def load_config(path):
    config = torch.load(path)
    return config
"""

CALLER = """\
import torch
from pkg.utils import load_config, load_handed_on, load_model, load_plain, load_sometimes, load_trained
from pkg import utils


class IndexBuilder:
    def build(self, corpus):
        self.encoder, self.tokenizer = load_model(self.model_path)
        if self.gpus > 1:
            self.encoder = torch.nn.DataParallel(self.encoder)
        out = []
        for batch in corpus:
            out.append(self.encoder(**self.tokenizer(batch)).last_hidden_state.detach().cpu().numpy())
        return out


def embed(path, batches):
    net = load_plain(path)
    return [net(b).detach().cpu().numpy() for b in batches]


def embed_module_attribute(path, batches):
    net = utils.load_plain(path)
    return [net(b).detach().cpu().numpy() for b in batches]


def trained(path, batches):
    net = load_trained(path)
    return [net(b).detach().cpu().numpy() for b in batches]


def sometimes(path, batches):
    net = load_sometimes(path, True)
    return [net(b).detach().cpu().numpy() for b in batches]


def handed_on(path, batches, trainer):
    net = load_handed_on(path, trainer)
    return [net(b).detach().cpu().numpy() for b in batches]


def config(path, batches):
    net = load_config(path)
    return [net(b).detach().cpu().numpy() for b in batches]


def guarded(path, batches):
    net = load_plain(path)
    with torch.no_grad():
        return [net(b).cpu().numpy() for b in batches]


def retrained(path, batches, opt):
    net = load_plain(path)
    for b in batches:
        net(b).sum().backward()
        opt.step()
"""


def _tree(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text("[tool.gradlint]\n")
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "utils.py").write_text(UTILS)
    (pkg / "index.py").write_text(CALLER)
    return tmp_path


def _findings(*args: str):
    result = CliRunner().invoke(main, ["check", "--no-cache", "--preview", "--output-format", "json", *args])
    assert result.exit_code in (0, 1), result.output
    return [
        (Path(f["filename"]).name, f["code"], f["location"]["row"], f["location"]["column"])
        for f in json.loads(result.stdout)
        if f["code"] == "GL101"
    ]


EXPECTED = [("index.py", "GL101", 13, 24), ("index.py", "GL101", 19, 13), ("index.py", "GL101", 24, 13)]


def test_a_model_returned_in_eval_mode_by_another_files_function_is_in_eval_mode(tmp_path, monkeypatch):
    monkeypatch.chdir(_tree(tmp_path))
    assert _findings("pkg") == EXPECTED


def test_a_run_of_the_callers_file_alone_indexes_the_helpers_file(tmp_path, monkeypatch):
    monkeypatch.chdir(_tree(tmp_path))
    assert _findings("pkg/index.py") == EXPECTED


def test_without_the_helpers_file_nothing_is_proven(tmp_path, monkeypatch):
    monkeypatch.chdir(_tree(tmp_path))
    (tmp_path / "pkg" / "utils.py").unlink()
    assert _findings("pkg/index.py") == []
