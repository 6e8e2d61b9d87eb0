"""GL201-GL203: in-place edits through `.detach()` / `.data` aliases, and `.data` reads."""

from __future__ import annotations

import textwrap

import pytest

from harness import fix, lint, messages
from gradlint.config import default_codes
from gradlint.engine import LintSettings, lint_source

HEAD = "import torch\n\n\ndef f(model, x, mask, idx, noise, lr):\n"


def body(code: str) -> str:
    return HEAD + textwrap.indent(textwrap.dedent(code), "    ")


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
        # a parameter read again after the edit: the caller's tensor holds the edit
        ("x.detach().zero_()\nreturn x\n", [(5, 5)]),
        ("t = x.detach()\nt[idx] = noise\nreturn (x - t).pow(2).mean()\n", [(6, 5)]),
    ],
)
def test_gl201_findings(code, expected):
    assert lint(body(code), ["GL201"]) == [(r, c, "GL201") for r, c in expected]


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
    assert fix(body(code), ["GL201"]) == body(code)
    assert fix(body(code), ["GL201"], unsafe=True) == body(out)


def test_gl201_message_names_the_variables():
    assert messages(body("h = model(x)\ny = h.detach()\ny.add_(1)\nreturn h\n"), ["GL201"]) == [
        "`y.add_(1)` edits the storage of `h` through `y`, an alias of `h.detach()`: if `h` was saved for "
        "`backward()`, backward fails with \"one of the variables needed for gradient computation has been "
        "modified by an inplace operation\", and later reads of `h` see the edit; edit a copy (`.detach().clone()`)"
    ]


# -- GL202 ------------------------------------------------------------------------


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
def test_gl202_direct_edits(line, col):
    assert lint(f"import torch\n{line}\n", ["GL202"]) == [(2, col, "GL202")]


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
def test_gl202_edits_through_an_alias(code, row):
    assert lint("import torch\n" + code, ["GL202"]) == [(row, 1, "GL202")]


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
def test_gl202_negatives(code):
    assert lint("import torch\n" + code + "\n", ["GL202"]) == []


def test_gl202_needs_no_torch_import():
    # `*_()` edit methods are torch's own: no import is needed as evidence
    assert lint("p.data.add_(1)\n", ["GL202"]) == [(1, 1, "GL202")]


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
        ("p.data[0] = 0\n", "with torch.no_grad():\n    p[0] = 0\n"),
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
def test_gl202_fix(before, after):
    src = SGD.format(body=textwrap.indent(before, " " * 8))
    assert fix(src, ["GL202"]) == src  # unsafe only
    assert fix(src, ["GL202"], unsafe=True) == SGD.format(body=textwrap.indent(after, " " * 8))


def test_gl202_fix_under_no_grad_adds_no_block():
    src = (
        "import torch\n\n\n@torch.no_grad()\ndef ema(t, s, d):\n    t.data.mul_(d).add_(1 - d, s.data)\n"
        "    with torch.no_grad():\n        t.data.zero_()\n"
    )
    assert fix(src, ["GL202"], unsafe=True) == (
        "import torch\n\n\n@torch.no_grad()\ndef ema(t, s, d):\n    t.mul_(d).add_(s, alpha=1 - d)\n"
        "    with torch.no_grad():\n        t.zero_()\n"
    )


def test_gl202_fix_adds_the_import_or_uses_the_alias():
    assert fix("def shrink(m):\n    m.weight.data.mul_(0.5)\n", ["GL202"], unsafe=True) == (
        "import torch\n\ndef shrink(m):\n    with torch.no_grad():\n        m.weight.mul_(0.5)\n"
    )
    assert fix("import torch as th\nw.data.fill_(0)\n", ["GL202"], unsafe=True) == (
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
def test_gl202_reported_without_fix(code):
    src = "import torch\n" + code
    assert lint(src, ["GL202"])
    assert fix(src, ["GL202"], unsafe=True) == src


def test_gl202_keeps_torch_utils_data():
    src = "import torch\nimport torch.utils.data\np.data.copy_(torch.utils.data.default_collate(b).data)\n"
    assert fix(src, ["GL202"], unsafe=True) == (
        "import torch\nimport torch.utils.data\nwith torch.no_grad():\n    p.copy_(torch.utils.data.default_collate(b))\n"
    )


def test_gl202_messages():
    assert messages("import torch\np.data.add_(1)\ny = x.data\ny.add_(1)\n", ["GL202"]) == [
        "`p.data.add_(1)` edits `p` in place through `.data`, which autograd does not track: if `p` was saved "
        "for `backward()`, its gradients come out silently wrong; edit `p` itself under `torch.no_grad()`",
        "`y.add_(1)` edits `x` in place through `y`, an alias of `x.data`, which autograd does not track: if `x` "
        "was saved for `backward()`, its gradients come out silently wrong; edit `x` itself under `torch.no_grad()`",
    ]


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
    src = "import torch\nh = (hidden.data)\nv = out.data.cpu()\n"
    assert fix(src, ["GL203"]) == src
    assert fix(src, ["GL203"], unsafe=True) == "import torch\nh = (hidden.detach())\nv = out.detach().cpu()\n"


def test_gl203_message():
    assert messages("import torch\nv = out.data.cpu()\n", ["GL203"]) == [
        "`out.data` bypasses autograd's version tracking: edits made through it go unnoticed and can silently "
        "corrupt gradients; use `out.detach()`"
    ]


@pytest.mark.parametrize(
    "func",
    ["__init__(self)", "reset_parameters(self)", "_init_weights(self, m)", "weights_init(m)", "initialize(net)"],
)
def test_gl202_not_in_parameter_initialisation(func):
    # No forward has run: no graph can hold the tensor, the edit cannot corrupt a gradient.
    src = f"import torch\n\ndef {func}:\n    m.weight.data.normal_(0.0, 0.02)\n    m.bias.data.zero_()\n"
    assert lint(src, select=["GL202"]) == []
    assert lint(src.replace(func.split("(")[0], "update"), select=["GL202"]) == [(4, 5, "GL202"), (5, 5, "GL202")]


def test_gl202_no_guard_where_torch_is_a_local_variable():
    src = "import torch\n\n\ndef sgd(params, lr):\n    torch = 1\n    for p in params:\n        p.data.add_(-lr, p.grad.data)\n"
    assert lint(src, ["GL202"]) == [(7, 9, "GL202")]
    assert fix(src, ["GL202"], unsafe=True) == src
