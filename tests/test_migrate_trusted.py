"""migrate's trusted rewrites hold beyond the common case: each restores what the
0.3 code did, and no more (run under torch before and after)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from gradlint.engine import LintSettings
from gradlint.migrate import migrate_source, migrations

SETTINGS = LintSettings(frozenset(migrations()))


def migrated(src: str):
    return migrate_source(textwrap.dedent(src), "legacy.py", SETTINGS)


def run(src: str, tmp_path, name: str) -> subprocess.CompletedProcess:
    path = tmp_path / f"{name}.py"
    path.write_text(src, encoding="utf-8")
    return subprocess.run([sys.executable, "-W", "ignore", str(path)], capture_output=True, text=True, timeout=300)


# GL001: a second returned value, not computed from the volatile input, was backpropagated on 0.3 too.
SECOND_VALUE = """\
import torch
from torch import nn, randn
from torch.autograd import Variable

torch.manual_seed(0)
model = nn.Linear(4, 2)
reg = nn.Linear(4, 1)


def evaluate(model, x):
    penalty = reg(x).pow(2).mean()
    out = model(Variable(x, volatile=True))
    return out.argmax(1), penalty


idx, penalty = evaluate(model, randn(3, 4))
penalty.backward()
print(idx.tolist(), reg.weight.grad.abs().sum().item())
"""

# GL002: the wrapper made a new object; `x.requires_grad = True` must not land on the loader's tensor.
ADVERSARIAL = """\
import torch
from torch import nn
from torch.autograd import Variable

torch.manual_seed(0)
model = nn.Linear(4, 2)
loader = [(torch.randn(3, 4), torch.randn(3, 2)) for _ in range(2)]
for epoch in range(2):
    for x, y in loader:
        x = Variable(x)
        x.requires_grad = True
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        x_adv = x + 0.1 * x.grad.sign()
print(loader[0][0].grad is None, round(x_adv.sum().item(), 4))
"""


def test_gl001_covers_only_what_flows_from_the_volatile_input(tmp_path):
    result = migrated(SECOND_VALUE)
    assert "@torch.no_grad()" not in result.source
    assert (
        "    penalty = reg(x).pow(2).mean()\n    with torch.no_grad():\n        out = model(x.detach())\n"
        "        return out.argmax(1), penalty\n"
    ) in result.source
    assert result.fixed["GL001"] == 1 and not result.remaining
    original = run(SECOND_VALUE.replace("Variable(x, volatile=True)", "x"), tmp_path, "original")
    after = run(result.source, tmp_path, "migrated")
    assert after.returncode == 0, after.stderr
    assert after.stdout == original.stdout


def test_gl001_leaves_a_function_whose_other_value_a_region_cannot_cover():
    # the other value is computed after the volatile one, between it and the return
    src = SECOND_VALUE.replace(
        "    penalty = reg(x).pow(2).mean()\n    out = model(Variable(x, volatile=True))\n",
        "    out = model(Variable(x, volatile=True))\n    penalty = reg(x).pow(2).mean()\n",
    )
    result = migrated(src)
    assert "no_grad" not in result.source
    assert [f.code for f in result.remaining] == ["GL001"]


def test_gl002_keeps_a_new_object_where_the_wrapped_value_is_changed(tmp_path):
    result = migrated(ADVERSARIAL)
    assert "        x = x.detach()\n        x.requires_grad = True\n" in result.source
    before = run(ADVERSARIAL, tmp_path, "original")
    after = run(result.source, tmp_path, "migrated")
    assert before.returncode == after.returncode == 0, (before.stderr, after.stderr)
    assert after.stdout == before.stdout
    assert after.stdout.startswith("True ")  # the loader's tensor gets no gradient


@pytest.mark.parametrize("use", ["x.add_(0.1)", "x[x > 0] = 0", "x += 1", "x.register_hook(print)"])
def test_gl002_any_use_of_the_object_as_such_keeps_it(use):
    src = f"from torch.autograd import Variable\n\n\ndef f(model, loader):\n    for x in loader:\n        x = Variable(x)\n        {use}\n        model(x)\n"
    assert "x = x.detach()" in migrated(src).source


def test_gl002_a_value_only_read_loses_the_wrapper():
    src = "from torch.autograd import Variable\n\n\ndef f(model, loader):\n    for x in loader:\n        x = Variable(x)\n        print(model(x).sum())\n"
    assert "Variable" not in migrated(src).source and "detach" not in migrated(src).source


PER_SAMPLE = """\
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Variable

crit = nn.CrossEntropyLoss(reduce=False)


def step(model, x, y):
    losses = crit(model(x), y)
    print(losses.data[0])
    mean = F.cross_entropy(model(x), y)
    print(mean.data[0])
"""


def test_gl003_item_only_where_it_cannot_raise_the_rest_is_left():
    result = migrated(PER_SAMPLE)
    assert "    print(losses.data[0])\n" in result.source  # `.item()` of a per-sample loss raises
    assert "    print(mean.item())\n" in result.source
    assert result.fixed["GL003"] == 1
    assert [(f.code, f.start[0]) for f in result.remaining] == [("GL003", 10)]
