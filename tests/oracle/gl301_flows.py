"""GL301 families: where the kept total goes after the loop, what the kept value is,
and whether the kept object itself matters.

GL301's fix (``.detach()`` on what a loop keeps) is safe only where the total's
graph is never used again and ``.detach()`` exists on it. Each program here keeps a
forward's output or a loss across a loop, then, after the loop, does one thing with
the store:

- ``leaves=``: hands it out of the function in a way that is not a ``return``
  (``LOG.extend(losses)``, ``d.update(loss=total)``, a closure passed to
  ``opt.step``, an alias kept elsewhere, a ``global``, an argument to a helper),
  and a later ``backward()`` through it must still work;
- ``kept=``: keeps what is not a tensor (``rnn(s)``'s ``(out, h)``, a dict of
  outputs), where ``.detach()`` raises ``AttributeError``;
- ``identity=``: keeps activations whose ``retain_grad()`` or hook is read back
  through the store (``acts[i].grad``), which a detached copy does not have;
- ``local=``: only reads the total in place (printed, ``.item()``, iterated and
  printed, compared): the fix is safe and must change nothing.

Every program runs with the preview tier on (GL301 is a preview rule).
"""

from __future__ import annotations

from typing import Dict, Iterator

from gradlint.options import RuleOptions

from oracle.runner import Program

HEAD = """\
import torch
from torch import nn, randn

torch.manual_seed(0)
model = nn.Linear(4, 1)
rnn = nn.GRU(4, 3, batch_first=True)
batches = [randn(3, 4) for _ in range(3)]
LOG = []
"""

# name -> (what the function does, what run() does with it afterwards)
LEAVES: Dict[str, tuple] = {
    "extend-global-log": (
        "def evaluate(batches):\n    losses = []\n    for xb in batches:\n        loss = model(xb).pow(2).mean()\n"
        "        losses.append(loss)\n    LOG.extend(losses)\n",
        "evaluate(batches)\n    torch.stack(LOG).sum().backward()",
    ),
    "dict-update": (
        "def evaluate(batches, stats):\n    total = 0.0\n    for xb in batches:\n        total += model(xb).pow(2).mean()\n"
        "    stats.update(loss=total)\n",
        "stats = {}\n    evaluate(batches, stats)\n    stats['loss'].backward()",
    ),
    "closure-to-step": (
        "def train(batches, opt):\n    total = 0.0\n    for xb in batches:\n        total += model(xb).pow(2).mean()\n"
        "    def closure():\n        opt.zero_grad()\n        grads = torch.autograd.grad(total, model.weight)\n"
        "        model.weight.grad = grads[0]\n        return float(total)\n    opt.step(closure)\n",
        "opt = torch.optim.SGD(model.parameters(), lr=0.1)\n    train(batches, opt)",
    ),
    "alias-kept": (
        "def evaluate(batches):\n    losses = []\n    for xb in batches:\n        losses.append(model(xb).pow(2).mean())\n"
        "    kept = losses\n    LOG.append(kept)\n",
        "evaluate(batches)\n    sum(LOG[0]).backward()",
    ),
    "global-assigned": (
        "TOTAL = None\n\n\ndef evaluate(batches):\n    global TOTAL\n    total = 0.0\n    for xb in batches:\n"
        "        total += model(xb).pow(2).mean()\n    TOTAL = total\n",
        "evaluate(batches)\n    TOTAL.backward()",
    ),
    "helper-keeps": (
        "def keep(values):\n    LOG.append(values)\n\n\ndef evaluate(batches):\n    losses = []\n    for xb in batches:\n"
        "        losses.append(model(xb).pow(2).mean())\n    keep(losses)\n",
        "evaluate(batches)\n    torch.stack(LOG[0]).sum().backward()",
    ),
    "derived-kept": (
        "def evaluate(batches):\n    total = 0.0\n    for xb in batches:\n        total += model(xb).pow(2).mean()\n"
        "    mean = total / len(batches)\n    LOG.append(mean)\n",
        "evaluate(batches)\n    LOG[0].backward()",
    ),
    "param-store": (
        "def evaluate(batches, losses):\n    for xb in batches:\n        losses.append(model(xb).pow(2).mean())\n",
        "losses = []\n    evaluate(batches, losses)\n    torch.stack(losses).sum().backward()",
    ),
    "alias-of-store": (
        "def evaluate(batches):\n    losses = LOG\n    for xb in batches:\n        losses.append(model(xb).pow(2).mean())\n",
        "evaluate(batches)\n    torch.stack(LOG).sum().backward()",
    ),
}

KEPT: Dict[str, tuple] = {
    "rnn-tuple": (
        "def evaluate(batches):\n    outs = []\n    for xb in batches:\n        outs.append(rnn(xb.unsqueeze(0)))\n"
        "    print(len(outs), type(outs[0]).__name__)\n",
        "evaluate(batches)",
    ),
    "dict-output": (
        "class Heads(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.a = nn.Linear(4, 1)\n\n"
        "    def forward(self, x):\n        return {'a': self.a(x)}\n\n\nheads = Heads()\n\n\n"
        "def evaluate(batches):\n    outs = []\n    for xb in batches:\n        outs.append(heads(xb))\n"
        "    print(sorted(outs[0]))\n",
        "evaluate(batches)",
    ),
}

IDENTITY: Dict[str, tuple] = {
    "retain-grad-read-back": (
        "def probe(batches):\n    acts = []\n    for xb in batches:\n        h = model(xb)\n        h.retain_grad()\n"
        "        acts.append(h)\n        h.pow(2).sum().backward()\n    print([a.grad is None for a in acts])\n",
        "probe(batches)",
    ),
    "hook-on-kept": (
        "def probe(batches):\n    acts = []\n    seen = []\n    for xb in batches:\n        h = model(xb)\n"
        "        h.register_hook(lambda g: seen.append(float(g.sum())))\n        acts.append(h)\n"
        "    torch.stack([a.sum() for a in acts]).sum().backward()\n    print(len(seen))\n",
        "probe(batches)",
    ),
}

LOCAL: Dict[str, tuple] = {
    "printed-mean": (
        "def evaluate(batches):\n    losses = []\n    for xb in batches:\n        losses.append(model(xb).pow(2).mean())\n"
        "    print(f'{float(sum(losses) / len(losses)):.4f}')\n",
        "evaluate(batches)",
    ),
    "item-comprehension": (
        "def evaluate(batches):\n    losses = []\n    for xb in batches:\n        losses.append(model(xb).pow(2).mean())\n"
        "    print([round(l.item(), 4) for l in losses])\n",
        "evaluate(batches)",
    ),
    "iterated-printed": (
        "def evaluate(batches):\n    total = 0.0\n    for xb in batches:\n        total += model(xb).pow(2).mean()\n"
        "    if total > 0:\n        print(round(total.item(), 4))\n",
        "evaluate(batches)",
    ),
}

FAMILIES = {"leaves": LEAVES, "kept": KEPT, "identity": IDENTITY, "local": LOCAL}


def gl301_flow_family() -> Iterator[Program]:
    for family, cases in FAMILIES.items():
        for name, (defs, call) in cases.items():
            source = f"{HEAD}\n\n{defs}\n\ndef run():\n    {call}\n    return model.weight.grad\n"
            yield Program(f"gl301-{family}-{name}", "GL301", f"{family}={name}", source, options=RuleOptions(preview=True))
