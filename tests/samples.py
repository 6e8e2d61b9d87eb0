"""Source shared by the CLI and integration tests: legacy evaluation code, fixed, and its messages."""

from __future__ import annotations

import textwrap

LEGACY = textwrap.dedent(
    """\
    import torch
    from torch.autograd import Variable


    def evaluate(model, x):
        out = model(Variable(x, volatile=True))
        return out.max(1)[1]


    def log(loss):
        print(loss.sum().data[0])
    """
)
LEGACY_FIXED = textwrap.dedent(
    """\
    import torch


    @torch.no_grad()
    def evaluate(model, x):
        out = model(x.detach())
        return out.max(1)[1]


    def log(loss):
        print(loss.sum().item())
    """
)
GL001_MESSAGE = (
    "`volatile=True` has been ignored since PyTorch 0.4: this call still records an autograd graph; "
    "use `torch.no_grad()`"
)
GL002_MESSAGE = "`Variable(...)` has been deprecated since PyTorch 0.4 and now returns `x.detach()`"
GL003_MESSAGE = "`loss.sum().data[0]` reads a scalar the PyTorch 0.3 way: on a 0-dim tensor it raises IndexError; use `loss.sum().item()`"


# GL002 on a two-line argument: lifted out of `Variable(...)`, the line break is no
# longer inside brackets, so the fix must parenthesise it.
LIFTED = (
    "import torch\n"
    "from torch.autograd import Variable\n"
    "\n"
    "\n"
    "def f(c):\n"
    "    x = Variable(torch.zeros(3).float()\n"
    "    .cuda(), requires_grad=False)\n"
    "    return x\n"
)

# `async=` (GL005's repair) and a GL003 finding after it: the file parses only once renamed.
ASYNC_LEGACY = (
    "import torch\n"
    "\n"
    "\n"
    "def step(model, x):\n"
    "    x = x.cuda(async=True)\n"
    "    loss = torch.nn.functional.mse_loss(model(x), x)\n"
    "    return loss.data[0]\n"
)
