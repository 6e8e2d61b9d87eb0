"""GL201-GL203: in-place edits through `.detach()` / `.data` aliases, and `.data` reads."""

from __future__ import annotations

import textwrap

import pytest

from harness import fix, lint, messages
from gradlint.config import default_codes
from gradlint.engine import LintSettings, lint_source
from gradlint.rule import RuleOptions

PREVIEW = RuleOptions(preview=True)

HEAD = "import torch\n\n\ndef f(model, x, mask, idx, noise, lr):\n"


def body(code: str) -> str:
    return HEAD + textwrap.indent(textwrap.dedent(code), "    ")


def typed_body(code: str) -> str:
    """``body`` with ``model`` proven an ``nn.Module`` (only its name says so in ``body``)."""
    return body(code).replace("def f(model,", "def f(model: torch.nn.Module,", 1)


# -- GL201 ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "code,expected",
    [
        ("h = model(x)\nh.detach().zero_()\nreturn h\n", [(6, 5)]),
        ("h = model(x)\ny = h.detach()\ny.add_(1)\nreturn h\n", [(7, 5)]),
        ("h = model(x)\ny = h.detach()\ny += 1\nreturn h\n", [(7, 5)]),
        ("h = model(x)\ny = h.detach()\ny[idx] = 0\nreturn h\n", [(7, 5)]),
        ("h = model(x)\ny = h.detach()\ny[0] -= 1\nreturn h\n", [(7, 5)]),
        ("h = model(x)\ny = h.detach()\ny.copy_(noise)\nreturn h\n", [(7, 5)]),
        ("h = model(x)\ny = h.detach().view(-1)\ny.masked_fill_(mask, 0)\nreturn h\n", [(7, 5)]),
        ("h = model(x)\ny = h.detach().t()\ny.clamp_(0, 1)\nreturn h\n", [(7, 5)]),
        ("h = model(x)\ny = h.detach()[0]\ny.zero_()\nreturn h\n", [(7, 5)]),
        ("h = model(x)\ny = h.detach()\nz = y\nz.add_(1)\nreturn h\n", [(8, 5)]),
        ("h = model(x)\nh.detach().mul_(2).add_(1)\nreturn h\n", [(6, 5)]),  # once, at the first edit
        ("h = model(x)\nh.detach()[:, 0] = 0\nreturn h\n", [(6, 5)]),
        ("h = torch.relu(model.fc(x))\ny = h.detach()\ny.neg_()\nreturn h\n", [(7, 5)]),
        ("out, hidden = model.rnn(x)\ny = hidden.detach()\ny.zero_()\nreturn hidden\n", [(7, 5)]),
        # arithmetic on a leaf that requires grad
        ("w = torch.ones(3, requires_grad=True)\nh = w * 2\nh.detach().add_(1)\nreturn h\n", [(7, 5)]),
        ("w = torch.nn.Parameter(x)\nh = w.pow(2)\nh.detach().add_(1)\nreturn h\n", [(7, 5)]),
        # a parameter read again after the edit, through a named alias: the caller's tensor holds the edit
        ("t = x.detach()\nt[idx] = noise\nreturn (x - t).pow(2).mean()\n", [(6, 5)]),
    ],
)
def test_gl201_findings(code, expected):
    found = [(r, c, "GL201") for r, c in expected]
    assert lint(body(code), ["GL201"], options=PREVIEW) == found
    # `model(x)` has a graph by the name `model` only; leaves that require grad need no name
    assert lint(body(code), ["GL201"]) == ([] if "model" in code else found)
    # typed, except a submodule of a module of unknown class (`model.fc`, `model.rnn`)
    assert lint(typed_body(code), ["GL201"]) == ([] if "model." in code else found)


@pytest.mark.parametrize(
    "code",
    [
        "h = model(x)\ny = h.detach().clone()\ny.add_(1)\nreturn h\n",
        "h = model(x)\nh.detach().clone().zero_()\nreturn h\n",
        "h = model(x)\ny = h.detach()\ny = y * 2\ny.add_(1)\nreturn h\n",  # rebound to a new tensor
        "h = model(x)\ny = h.detach()\ny = y + noise\ny += 1\nreturn h\n",
        "h = model(x)\ny = h.detach().cpu()\ny.add_(1)\nreturn h\n",  # a copy for CUDA tensors
        "h = model(x)\ny = h.detach().to('cuda')\ny.add_(1)\nreturn h\n",
        "h = model(x)\ny = h.detach().float()\ny.add_(1)\nreturn h\n",
        "h = model(x)\ny = h.detach()[idx]\ny.zero_()\nreturn h\n",  # advanced indexing copies
        "h = model(x)\ny = h.detach()\ny.requires_grad_()\ny.detach_()\nreturn h\n",  # no element changes
        "h = model(x)\ny = h.detach()\nreturn y.add(1), h\n",
        "model(x).detach().zero_()\n",  # a temporary: nobody else sees it
        "h = model(x)\nh.detach().zero_()\n",  # h is never read again
        "x.detach().zero_()\n",  # a parameter not read after the edit: an update on purpose
        "y = x.detach()\ny.add_(1)\nx = noise\nreturn x\n",  # the parameter rebound before it is read
        "model.h.detach().zero_()\n",
        "for p in model.parameters():\n    p.detach().add_(1)\n",  # a parameter update
        "with torch.no_grad():\n    h = model(x)\ny = h.detach()\ny.add_(1)\nreturn h\n",
        "h = torch.randn(3)\ny = h.detach()\ny.add_(1)\nreturn h\n",  # a fresh tensor
        "h = model(x)\nif mask:\n    y = h.detach()\nelse:\n    y = h.detach().clone()\ny.zero_()\nreturn h\n",
        "h = model(x)\ny = h.detach()\nfor _ in range(3):\n    y.mul_(2)\n    y = y * 2\nreturn h\n",
        "h = model(x)\ny = h.detach()\ndef g(y):\n    y.add_(1)\nreturn h\n",
    ],
)
def test_gl201_negatives(code):
    assert lint(body(code), ["GL201"]) == []


def test_gl201_parameter_edited_through_a_temporary_alias_is_preview_only():
    # `state.detach().copy_(new); return state` fills the caller's tensor on purpose
    # (loading state): nothing proves the edit unintended, so only the preview tier says it
    code = "x.detach().zero_()\nreturn x\n"
    assert lint(body(code), ["GL201"]) == []
    assert lint(body(code), ["GL201"], options=PREVIEW) == [(5, 5, "GL201")]


def test_gl201_follows_the_loop_variable_only_inside_its_loop():
    code = "h = model(x)\nfor y in [h.detach()]:\n    y.add_(1)\nreturn h\n"
    assert lint(body(code), ["GL201"]) == []  # loop variables are not followed


@pytest.mark.parametrize(
    "code,out",
    [
        ("h = model(x)\ny = h.detach()\ny.add_(1)\nreturn h\n", "h = model(x)\ny = h.detach().clone()\ny.add_(1)\nreturn h\n"),
        ("h = model(x)\nh.detach().zero_()\nreturn h\n", "h = model(x)\nh.detach().clone().zero_()\nreturn h\n"),
        (
            "h = model(x)\ny = h.detach().view(-1)\ny.add_(1)\ny[0] = 2\nreturn h\n",
            "h = model(x)\ny = h.detach().clone().view(-1)\ny.add_(1)\ny[0] = 2\nreturn h\n",
        ),
    ],
)
def test_gl201_fix_is_unsafe_and_clones(code, out):
    assert fix(typed_body(code), ["GL201"]) == typed_body(code)
    assert fix(typed_body(code), ["GL201"], unsafe=True) == typed_body(out)


def test_gl201_message_names_the_variables():
    assert messages(typed_body("h = model(x)\ny = h.detach()\ny.add_(1)\nreturn h\n"), ["GL201"]) == [
        "`y.add_(1)` edits the storage of `h` through `y`, an alias of `h.detach()`: if `h` was saved for "
        "`backward()`, backward fails with \"one of the variables needed for gradient computation has been "
        "modified by an inplace operation\", and later reads of `h` see the edit; edit a copy (`.detach().clone()`)"
    ]


# -- GL202 and GL204 ---------------------------------------------------------------
# The edit shapes, the aliases and the fix are the same for both codes: GL202 takes
# the edits a pending backward can see, GL204 the rest. The sources below have no
# forward before the edit, so GL204 reports them.


@pytest.mark.parametrize(
    "line,col",
    [
        ("p.data.add_(1)", 1),
        ("p.data -= lr * p.grad.data", 1),
        ("p.data += noise", 1),
        ("p.data[0] = 0", 1),
        ("p.data[idx] *= 2", 1),
        ("p.grad.data.zero_()", 1),
        ("model.fc.weight.data.normal_(0, 0.02)", 1),
        ("p.data.view(-1).fill_(0)", 1),
        ("next(model.parameters()).data.fill_(0)", 1),
        ("ema.data.mul_(0.9).add_(0.1, p.data)", 1),  # once, at the first edit of the chain
        ("f(p.data.clamp_(-1, 1))", 3),
    ],
)
def test_gl204_direct_edits(line, col):
    assert lint(f"import torch\n{line}\n", ["GL204"]) == [(2, col, "GL204")]


@pytest.mark.parametrize(
    "code,row",
    [
        ("y = x.data\ny.add_(1)\n", 3),
        ("y = x.data\ny += 1\n", 3),
        ("y = x.data\ny[0] = 0\n", 3),
        ("d_p = p.grad.data\nd_p.add_(wd, p.data)\n", 3),
        ("y = x.data[0]\ny.zero_()\n", 3),
    ],
)
def test_gl204_edits_through_an_alias(code, row):
    assert lint("import torch\n" + code, ["GL204"]) == [(row, 1, "GL204")]


@pytest.mark.parametrize(
    "code",
    [
        "p.data = q",
        "p.data = p.data.half()",
        "self.data[0] = 1",
        "self.data += 1",
        "dataset.data[idx] = 0",
        "train_set.data[mask] = 255",
        "args.data += 1",
        "y = p.data.clone()\ny.add_(1)",
        "y = p.data\ny = y * 2\ny.add_(1)",
        "v = p.data.sum()",
        "p.data.requires_grad_()",
        "with torch.no_grad():\n    p.add_(p.grad, alpha=-lr)",
        "loader = torch.utils.data.DataLoader(ds)",
        "buf.mul_(0.9).add_(p.grad)",
    ],
)
def test_gl204_negatives(code):
    assert lint("import torch\n" + code + "\n", ["GL204"]) == []


def test_gl204_needs_no_torch_import():
    # `*_()` edit methods are torch's own: no import is needed as evidence
    assert lint("p.data.add_(1)\n", ["GL204"]) == [(1, 1, "GL204")]


SGD = """\
import torch


def sgd(params, lr):
    for p in params:
{body}"""


@pytest.mark.parametrize(
    "before,after",
    [
        (
            "p.data.add_(-lr, p.grad.data)\n",
            "with torch.no_grad():\n    p.add_(p.grad, alpha=-lr)\n",
        ),
        (
            "p.data -= lr * p.grad.data\n",
            "with torch.no_grad():\n    p -= lr * p.grad\n",
        ),
        # a gradient edited with numbers only needs no block (Optimizer.zero_grad does the same)...
        ("p.grad.data.zero_()\n", "p.grad.zero_()\n"),
        ("p.grad.data.mul_(0.5).clamp_(-1, 1)\n", "p.grad.mul_(0.5).clamp_(-1, 1)\n"),
        ("p.grad.data[0] = 0\n", "p.grad[0] = 0\n"),
        # ...but with a tensor that may require grad it does
        ("p.grad.data.add_(wd, p.data)\n", "with torch.no_grad():\n    p.grad.add_(p, alpha=wd)\n"),
        ("p.grad.data *= scale\n", "with torch.no_grad():\n    p.grad *= scale\n"),
        # an index after `.data` of what may be no tensor (a PackedSequence's `packed.data[0]`
        # is a row; `packed[0]` the whole data): no fix
        ("p.data[0] = 0\n", "p.data[0] = 0\n"),
        # consecutive edits share one block
        (
            "p.data.add_(-lr, p.grad.data)\np.grad.data.zero_()\n",
            "with torch.no_grad():\n    p.add_(p.grad, alpha=-lr)\n    p.grad.zero_()\n",
        ),
        # anything else in between ends the block
        (
            "p.data.mul_(0.9)\nprint(p)\np.data.add_(1)\n",
            "with torch.no_grad():\n    p.mul_(0.9)\nprint(p)\nwith torch.no_grad():\n    p.add_(1)\n",
        ),
        # the legacy overloads
        ("p.data.sub_(lr, g)\n", "with torch.no_grad():\n    p.sub_(g, alpha=lr)\n"),
        ("p.data.addcmul_(0.5, g, g)\n", "with torch.no_grad():\n    p.addcmul_(g, g, value=0.5)\n"),
        ("p.data.addcdiv_(-lr, m, v.sqrt())\n", "with torch.no_grad():\n    p.addcdiv_(m, v.sqrt(), value=-lr)\n"),
        ("p.data.add_(p.grad.data, alpha=-lr)\n", "with torch.no_grad():\n    p.add_(p.grad, alpha=-lr)\n"),
        (
            "p.data.mul_(0.9).add_(0.1, q.data)\n",
            "with torch.no_grad():\n    p.mul_(0.9).add_(q, alpha=0.1)\n",
        ),
        # comments stay with their statements
        (
            "# SGD update\np.data.add_(-lr, p.grad.data)  # in place\n",
            "# SGD update\nwith torch.no_grad():\n    p.add_(p.grad, alpha=-lr)  # in place\n",
        ),
    ],
)
def test_gl204_fix(before, after):
    src = SGD.format(body=textwrap.indent(before, " " * 8))
    assert fix(src, ["GL204"]) == src  # unsafe only
    assert fix(src, ["GL204"], unsafe=True) == SGD.format(body=textwrap.indent(after, " " * 8))


def test_gl204_fix_under_no_grad_adds_no_block():
    src = (
        "import torch\n\n\n@torch.no_grad()\ndef ema(t, s, d):\n    t.data.mul_(d).add_(1 - d, s.data)\n"
        "    with torch.no_grad():\n        t.data.zero_()\n"
    )
    assert fix(src, ["GL204"], unsafe=True) == (
        "import torch\n\n\n@torch.no_grad()\ndef ema(t, s, d):\n    t.mul_(d).add_(s, alpha=1 - d)\n"
        "    with torch.no_grad():\n        t.zero_()\n"
    )


def test_gl204_fix_adds_the_import_or_uses_the_alias():
    assert fix("def shrink(m):\n    m.weight.data.mul_(0.5)\n", ["GL204"], unsafe=True) == (
        "import torch\n\ndef shrink(m):\n    with torch.no_grad():\n        m.weight.mul_(0.5)\n"
    )
    assert fix("import torch as th\nw.data.fill_(0)\n", ["GL204"], unsafe=True) == (
        "import torch as th\nwith th.no_grad():\n    w.fill_(0)\n"
    )


@pytest.mark.parametrize(
    "code",
    [
        "d_p = p.grad.data\nd_p.add_(1)\n",  # through a variable
        "y = p.data.add_(1)\n",  # binds the result
        "for p in ps: p.data.zero_()\n",  # a one-line body
        "x = [p.data.zero_() for p in ps]\n",
    ],
)
def test_gl204_reported_without_fix(code):
    src = "import torch\n" + code
    assert lint(src, ["GL204"])
    assert fix(src, ["GL204"], unsafe=True) == src


def test_gl204_keeps_torch_utils_data():
    src = "import torch\nimport torch.utils.data\np.data.copy_(torch.utils.data.default_collate(b).data)\n"
    assert fix(src, ["GL204"], unsafe=True) == (
        "import torch\nimport torch.utils.data\nwith torch.no_grad():\n    p.copy_(torch.utils.data.default_collate(b))\n"
    )


def test_gl204_messages():
    assert messages("import torch\np.data.add_(1)\ny = x.data\ny.add_(1)\n", ["GL204"]) == [
        "`p.data.add_(1)` updates `p` in place through `.data`, the pre-0.4 idiom: no graph holds `p` here, but "
        "autograd cannot check the edit if that changes; edit `p` itself under `torch.no_grad()`",
        "`y.add_(1)` updates `x` in place through `y`, an alias of `x.data`, the pre-0.4 idiom: no graph holds `x` "
        "here, but autograd cannot check the edit if that changes; edit `x` itself under `torch.no_grad()`",
    ]


# GL202 on real code: edits no pending backward can see go to GL204. Each source has
# the shape of code that was reported in released libraries.

GL202_NO_PENDING_GRAPH = {
    "gradient post-processing after backward": """\
import torch.distributed as dist
import torch.nn.functional as F


def td_update(q_net, target_net, optimizer, batch, gamma=0.9):
    q = q_net(batch.obs).gather(1, batch.act)
    target = batch.rew + gamma * target_net(batch.next_obs).max(1)[0].detach()
    loss = F.smooth_l1_loss(q, target.unsqueeze(1))
    optimizer.zero_grad()
    loss.backward()
    for p in q_net.parameters():
        p.grad.data.clamp_(-1, 1)
        dist.all_reduce(p.grad.data)
        p.grad.data.div_(dist.get_world_size())
    optimizer.step()
""",
    "an optimizer's step": """\
import torch
from torch.optim import Optimizer


class Lamb(Optimizer):
    def step(self, closure=None):
        loss = closure() if closure is not None else None
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                if not state:
                    state["avg"] = torch.zeros_like(p.data)
                state["avg"].data.mul_(0.9).add_(p.grad.data, alpha=0.1)
                p.data.add_(state["avg"], alpha=-group["lr"])
        return loss
""",
    "weights loaded at set-up, outside functions named *init*": """\
import torch
import torch.nn as nn


class Tagger(nn.Module):
    def __init__(self, vocab, dim, tags):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.out = nn.Linear(dim, tags)

    def load_vectors(self, vectors):
        self.embed.weight.data.copy_(vectors)

    def grow_vocab(self, size):
        old = self.embed
        self.embed = nn.Embedding(size, old.embedding_dim)
        self.embed.weight.data[: old.num_embeddings] = old.weight.data

    def forward(self, tokens):
        return self.out(self.embed(tokens))


def build_tagger(vocab, path, tags=9):
    tagger = Tagger(len(vocab), 100, tags)
    tagger.load_vectors(torch.load(path))
    tagger.out.bias.data.zero_()
    return tagger
""",
    "a unit test setting weights before the first forward": """\
import torch


def test_gate_output(make_gate):
    gate = make_gate(2, 2)
    gate.linear.weight.data.fill_(1)
    gate.linear.bias.data.zero_()
    out = gate(torch.ones(1, 2))
    assert out.sum().item() == 4
""",
    "fresh fused layers filled under no_grad": """\
import torch
import torch.nn as nn


class ConvBn(nn.Sequential):
    @torch.no_grad()
    def fuse(self):
        conv, bn = self[0], self[1]
        scale = bn.weight / (bn.running_var + bn.eps) ** 0.5
        fused = nn.Conv2d(conv.in_channels, conv.out_channels, conv.kernel_size, bias=True)
        fused.weight.data.copy_(conv.weight * scale[:, None, None, None])
        fused.bias.data.copy_(bn.bias - bn.running_mean * scale)
        return fused
""",
    "an input buffer refilled before the forward that reads it": """\
import torch


def train_d(netD, loader, optimizerD, criterion, batch_size):
    inputs = torch.empty(batch_size, 3, 64, 64)
    labels = torch.empty(batch_size)
    for real, _ in loader:
        netD.zero_grad()
        inputs.data.resize_(real.size()).copy_(real)
        labels.data.resize_(real.size(0)).fill_(1)
        loss = criterion(netD(inputs), labels)
        loss.backward()
        optimizerD.step()
""",
    "fresh tensors and scalar counters": """\
import torch


class Explorer:
    def __init__(self, policy):
        self.policy = policy
        self.temperature = torch.tensor(1.0)

    def act(self, obs):
        logits = self.policy(obs)
        noise = torch.randn_like(logits)
        noise.data.mul_(0.1)
        self.temperature.data.mul_(0.99)
        step = self.temperature.data
        step.clamp_(min=0.05)
        return (logits + noise).argmax(-1)
""",
}


@pytest.mark.parametrize("source", GL202_NO_PENDING_GRAPH.values(), ids=list(GL202_NO_PENDING_GRAPH))
def test_gl202_not_where_no_pending_graph_can_see_it(source):
    assert lint(source, ["GL202"]) == []
    assert lint(source, ["GL204"])  # the idiom is still there for who asks


def test_gl202_layer_weight_clamped_after_it_ran_on_the_forwards_own_input_is_preview_only():
    # A Linear keeps its weight for backward only if its input carries a graph, which
    # a forward's own ``x`` does not prove (it is plain data in a model's first layer).
    source = """\
import torch.nn as nn


class Head(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        y = self.proj(x)
        self.proj.weight.data.clamp_(-1, 1)
        return y
"""
    assert lint(source, ["GL202"]) == []
    assert lint(source, ["GL202"], options=PREVIEW) == [(11, 9, "GL202")]


GL202_PENDING = {
    "masking an op's saved output in forward": (
        """\
import torch
import torch.nn as nn


class Gate(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.lin = nn.Linear(dim, dim)

    def forward(self, x, keep):
        h = torch.relu(self.lin(x))
        h.data.mul_(keep)
        return h * x
""",
        [(12, 9, "GL202")],
    ),
    # A Linear keeps its weight for backward only when its input carries a graph
    # (torch 2.13: ``_saved_mat2`` is None on plain data): here the input is another
    # layer's output; a forward's own ``x`` proves nothing (the case below, silent).
    "clamping a layer's weight after it ran on a graph, in forward": (
        """\
import torch
import torch.nn as nn


class Head(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.inp = nn.Linear(dim, dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        y = self.proj(torch.relu(self.inp(x)))
        self.proj.weight.data.clamp_(-1, 1)
        return y
""",
        [(13, 9, "GL202")],
    ),
    "a critic's weights clamped between its forward and its backward": (
        """\
def critic_step(netD, real, fake, opt, clip=0.01):
    opt.zero_grad()
    gap = netD(fake).mean() - netD(real).mean()
    for p in netD.parameters():
        p.data.clamp_(-clip, clip)
    gap.backward()
    opt.step()
""",
        [(5, 9, "GL202")],
    ),
    "logits rescaled through a .data alias before the loss's backward": (
        """\
import torch.nn.functional as F


def step(model, x, y, opt, t):
    logits = model(x)
    view = logits.data
    view.div_(t)
    loss = F.cross_entropy(logits, y)
    loss.backward()
    opt.step()
""",
        [(7, 5, "GL202")],
    ),
}


@pytest.mark.parametrize("source,expected", GL202_PENDING.values(), ids=list(GL202_PENDING))
def test_gl202_kept_where_a_pending_graph_sees_it(source, expected):
    assert lint(source, ["GL202"], options=PREVIEW) == expected
    # ``netD``/``model`` handed in untyped: only their names say they are modules
    by_name = "def critic_step(netD," in source or "def step(model," in source
    assert lint(source, ["GL202"]) == ([] if by_name else expected)
    assert lint(source, ["GL204"]) == []


def test_gl202_and_gl204_split_the_edits_at_the_backward():
    src = (
        "def critic_step(netD, x, opt):\n"
        "    loss = netD(x).mean()\n"
        "    for p in netD.parameters():\n"
        "        p.data.clamp_(-0.01, 0.01)\n"
        "    loss.backward()\n"
        "    opt.step()\n"
        "    for p in netD.parameters():\n"
        "        p.data.clamp_(-0.01, 0.01)\n"
    )
    assert lint(src, ["GL202", "GL204"], options=PREVIEW) == [(4, 9, "GL202"), (8, 9, "GL204")]
    # untyped, the graph before the first clamp is a guess from names: neither claims it
    assert lint(src, ["GL202", "GL204"]) == [(8, 9, "GL204")]
    typed = src.replace("def critic_step(netD,", "def critic_step(netD: torch.nn.Module,")
    assert lint("import torch\n" + typed, ["GL202", "GL204"]) == [(5, 9, "GL202"), (9, 9, "GL204")]
    assert "GL204" not in default_codes() and "GL202" in default_codes()


# -- GL203 ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "line,expected",
    [
        ("_, pred = torch.max(out.data, 1)", [(2, 21)]),
        ("arr = out.data.cpu().numpy()", [(2, 7)]),
        ("h = hidden.data", [(2, 5)]),
        ("g = p.grad.data.norm(2)", [(2, 5)]),
        ("x = (a + b).data", [(2, 5)]),
        # not a tensor's, a write, or GL202's
        ("images = train_set.data", []),
        ("rows = self.data", []),
        ("payload = request.data", []),
        ("p.data = q", []),
        ("del p.data", []),
        ("p.data.add_(-lr, p.grad.data)", []),
        ("p.data -= lr * p.grad.data", []),
        ("d = p.grad.data\nd.add_(1)", []),
        ("import torch.utils.data", []),
        ("from torch.utils.data import DataLoader", []),
        ("s = torch.utils.data.RandomSampler(ds)", []),
    ],
)
def test_gl203_findings(line, expected):
    assert lint("import torch\n" + line + "\n", ["GL203"]) == [(r, c, "GL203") for r, c in expected]


def test_gl203_is_off_by_default_and_needs_torch():
    src = "import torch\nh = hidden.data\n"
    assert "GL203" not in default_codes()
    assert lint_source(src, "x.py", LintSettings(default_codes())).findings == []
    assert lint("h = hidden.data\n", ["GL203"]) == []


def test_gl203_fix():
    src = "import torch\nhidden = torch.zeros(3)\nh = (hidden.data)\nv = out.data.cpu()\n"
    assert fix(src, ["GL203"]) == src
    # ``.detach()`` only on what is proven a tensor: ``out`` may be anything with a `.data`
    assert fix(src, ["GL203"], unsafe=True) == "import torch\nhidden = torch.zeros(3)\nh = (hidden.detach())\nv = out.data.cpu()\n"
    assert lint(src, ["GL203"]) == [(3, 6, "GL203"), (4, 5, "GL203")]


def test_gl203_message():
    assert messages("import torch\nv = out.data.cpu()\n", ["GL203"]) == [
        "`out.data` bypasses autograd's version tracking: edits made through it go unnoticed and can silently "
        "corrupt gradients; use `out.detach()`"
    ]


@pytest.mark.parametrize(
    "func",
    ["__init__(self)", "reset_parameters(self)", "_init_weights(self, m)", "weights_init(m)", "initialize(net)"],
)
def test_gl204_not_in_parameter_initialisation(func):
    # No forward has run: no graph can hold the tensor, the edit cannot corrupt a gradient.
    src = f"import torch\n\ndef {func}:\n    m.weight.data.normal_(0.0, 0.02)\n    m.bias.data.zero_()\n"
    assert lint(src, select=["GL204"]) == []
    assert lint(src.replace(func.split("(")[0], "update"), select=["GL204"]) == [(4, 5, "GL204"), (5, 5, "GL204")]


def test_gl204_no_guard_where_torch_is_a_local_variable():
    src = "import torch\n\n\ndef sgd(params, lr):\n    torch = 1\n    for p in params:\n        p.data.add_(-lr, p.grad.data)\n"
    assert lint(src, ["GL204"]) == [(7, 9, "GL204")]
    assert fix(src, ["GL204"], unsafe=True) == src
