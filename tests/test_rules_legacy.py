"""GL001-GL004: positives, negatives and fixes, pyupgrade-style tables."""

from __future__ import annotations

import textwrap

import pytest

from gradlint.options import RuleOptions
from harness import fix, lint, messages


@pytest.mark.parametrize(
    "src,expected",
    [
        ("from torch.autograd import Variable\nv = Variable(x, volatile=True)\n", [(2, 5, "GL001")]),
        ("import torch\nv = torch.autograd.Variable(x, volatile=True)\n", [(2, 5, "GL001")]),
        ("from torch.autograd import Variable as V\nv = V(x, volatile=True)\n", [(2, 5, "GL001")]),
        ("import torch.autograd as ag\nv = ag.Variable(x, volatile=True)\n", [(2, 5, "GL001")]),
        ("from torch.autograd.variable import Variable\nv = Variable(x, volatile=1)\n", [(2, 5, "GL001")]),
        ("from torch.autograd import Variable\nv = Variable(x, False, True)\n", [(2, 5, "GL001")]),
        ("from torch import autograd\nf(autograd.Variable(x, volatile=flag))\n", [(2, 3, "GL001")]),
        # not torch's Variable
        ("from tensorflow import Variable\nv = Variable(x, volatile=True)\n", []),
        ("class Variable: pass\nv = Variable(x, volatile=True)\n", []),
        ("def Variable(*a, **k): pass\nv = Variable(x, volatile=True)\n", []),
        ("import torch\nv = torch.Variable(x, volatile=True)\n", []),
        # a Variable without volatile is GL002's
        ("from torch.autograd import Variable\nv = Variable(x)\n", []),
    ],
)
def test_gl001_findings(src, expected):
    assert lint(src, select=["GL001"]) == expected


@pytest.mark.parametrize(
    "src,out",
    [
        # module level: no fix
        ("from torch.autograd import Variable\nv = Variable(x, volatile=True)\n", None),
        # a function that trains: no fix
        (
            "from torch.autograd import Variable\ndef f(m, x, opt):\n    m(Variable(x, volatile=True)).sum().backward()\n",
            None,
        ),
        (
            "from torch.autograd import Variable\ndef f(m, x, opt):\n    y = m(Variable(x, volatile=True))\n    opt.step()\n",
            None,
        ),
        # runtime value: no fix
        ("from torch.autograd import Variable\ndef f(m, x, t):\n    return m(Variable(x, volatile=not t))\n", None),
        # async def: no fix (torch.no_grad does not cover awaits)
        ("from torch.autograd import Variable\nasync def f(m, x):\n    return m(Variable(x, volatile=True))\n", None),
        # already under no_grad: just drop the wrapper
        (
            "import torch\nfrom torch.autograd import Variable\ndef f(m, x):\n    with torch.no_grad():\n        return m(Variable(x, volatile=True))\n",
            "import torch\ndef f(m, x):\n    with torch.no_grad():\n        return m(x.detach())\n",
        ),
        (
            "import torch\nfrom torch.autograd import Variable\n@torch.no_grad\ndef f(m, x):\n    return m(Variable(x, volatile=True))\n",
            "import torch\n@torch.no_grad\ndef f(m, x):\n    return m(x.detach())\n",
        ),
        # existing decorators stay outermost
        (
            "import torch\nfrom torch.autograd import Variable\nclass A:\n    @staticmethod\n    def f(m, x):\n        print(m(Variable(torch.Tensor(x), volatile=True)))\n",
            "import torch\nclass A:\n    @staticmethod\n    @torch.no_grad()\n    def f(m, x):\n        print(m(torch.Tensor(x)))\n",
        ),
        # a single self-assignment disappears
        (
            "import torch\nfrom torch.autograd import Variable\ndef f(m, loader):\n    for x in loader:\n        x = Variable(x, volatile=True)\n        print(m(x))\n",
            "import torch\n@torch.no_grad()\ndef f(m, loader):\n    for x in loader:\n        print(m(x))\n",
        ),
        # the 0.3 evaluation idiom: a statement of volatile and plain wrappers of batches disappears
        (
            "import torch\nfrom torch.autograd import Variable\ndef f(m, loader):\n    for x, y in loader:\n"
            "        x, y = Variable(x, volatile=True), Variable(y)\n        print(m(x), y)\n",
            "import torch\n@torch.no_grad()\ndef f(m, loader):\n    for x, y in loader:\n        print(m(x), y)\n",
        ),
        (
            "import torch\nfrom torch.autograd import Variable\ndef f(m, loader):\n    for x, y in loader:\n"
            "        x, y = Variable(x, volatile=True), Variable(y, volatile=True)\n        print(m(x), y)\n",
            "import torch\n@torch.no_grad()\ndef f(m, loader):\n    for x, y in loader:\n        print(m(x), y)\n",
        ),
        # ... but not when one of them is not a batch: its detach must stay
        (
            "import torch\nfrom torch.autograd import Variable\ndef f(m, loader, h):\n    for x in loader:\n"
            "        x, h = Variable(x, volatile=True), Variable(h, volatile=True)\n        print(m(x, h))\n",
            "import torch\n@torch.no_grad()\ndef f(m, loader, h):\n    for x in loader:\n"
            "        x, h = x, h.detach()\n        print(m(x, h))\n",
        ),
        # volatile=False is dropped, then the wrapper (GL002 with ALL selected)
        (
            "import torch\nfrom torch.autograd import Variable\nv = Variable(torch.zeros(2), volatile=False)\n",
            "import torch\nv = torch.zeros(2)\n",
        ),
    ],
)
def test_gl001_fix(src, out):
    select = ["GL001"] if out is None or "volatile=False" not in src else ["GL001", "GL002"]
    result = fix(src, select=select)
    assert result == (src if out is None else out)


def test_gl001_message():
    assert messages("from torch.autograd import Variable\nv = Variable(x, volatile=True)\n", ["GL001"]) == [
        "`volatile=True` has been ignored since PyTorch 0.4: this call still records an autograd graph; use "
        "`torch.no_grad()`"
    ]
    assert messages("from torch.autograd import Variable\nv = Variable(x, volatile=False)\n", ["GL001"]) == [
        "`volatile=False` has been ignored since PyTorch 0.4; remove it"
    ]


def test_gl001_message_for_a_flag_known_only_at_run_time():
    head = "import torch.nn as nn\nfrom torch.autograd import Variable\n"
    module = head + "class Enc(nn.Module):\n    def hidden(self, w):\n        return Variable(w.new(2).zero_(), volatile={})\n"
    plain = head + "class Enc:\n    def hidden(self, w):\n        return Variable(w.new(2).zero_(), volatile={})\n"
    assert messages(module.format("not self.training"), ["GL001"]) == [
        "`volatile=not self.training` has been ignored since PyTorch 0.4: it is true in eval mode, where this call "
        "still records an autograd graph; remove the flag and run the forward passes made after `.eval()` under "
        "`torch.no_grad()` (`gradlint check` reports those without it as GL101)"
    ]
    # Not a module's mode (a plain class, a parameter): the callers decide.
    for code in (plain.format("not self.training"), module.format("not train")):
        assert messages(code, ["GL001"]) == [
            f"`volatile={'not self.training' if 'self.training' in code else 'not train'}` has been ignored since "
            "PyTorch 0.4: where it is true this call still records an autograd graph; remove the flag and run the "
            "code that passes a true value under `torch.no_grad()`"
        ]
        assert fix(code, select=["GL001"], unsafe=True) == code


def test_gl001_fix_drops_a_flag_that_follows_eval_mode():
    head = "import torch.nn as nn\nfrom torch.autograd import Variable\n"
    cls = "class Enc(nn.Module):\n    def hidden(self, w, x):\n        return {}\n"
    fixed = "import torch.nn as nn\n" + cls
    # The flag has had no effect since 0.4: dropping it and the wrapper is safe. A fresh
    # tensor needs no detach; anything else gets what `Variable(x)` gives today.
    for before, after in (
        ("Variable(w.new(2).zero_(), volatile=not self.training)", "w.new(2).zero_()"),
        ("Variable(x, volatile=not self.training)", "x.detach()"),
        ("(Variable(x, volatile=not self.training), 1)", "(x.detach(), 1)"),
    ):
        assert fix(head + cls.format(before), select=["GL001"]) == fixed.format(after)
    # Another module's mode, when the model knows it is a module: a module built here.
    code = head + "enc = nn.LSTM(2, 2)\nh = Variable(w, volatile=not enc.training)\n"
    assert fix(code, select=["GL001"]) == "import torch.nn as nn\nenc = nn.LSTM(2, 2)\nh = w.detach()\n"
    # Another argument as well: reported, left as written.
    code = head + cls.format("Variable(x, requires_grad=True, volatile=not self.training)")
    assert len(lint(code, select=["GL001"])) == 1 and fix(code, select=["GL001"], unsafe=True) == code


@pytest.mark.parametrize(
    "src,out",
    [
        ("x = Variable(torch.randn(3))", "x = torch.randn(3)"),
        ("x = Variable(torch.randn(3), requires_grad=True)", "x = torch.randn(3, requires_grad=True)"),
        ("x = Variable(torch.randn(3), True)", "x = torch.randn(3, requires_grad=True)"),
        ("x = Variable(torch.randn(3).cuda(), requires_grad=True)", "x = torch.randn(3).cuda().requires_grad_()"),
        ("x = Variable(torch.from_numpy(a), requires_grad=True)", "x = torch.from_numpy(a).requires_grad_()"),
        ("x = Variable(torch.randn(3), requires_grad=flag)", "x = torch.randn(3).requires_grad_(flag)"),
        ("x = Variable(torch.LongTensor([1, 2]).cuda())", "x = torch.LongTensor([1, 2]).cuda()"),
        ("x = Variable(w)", "x = w.detach()"),
        ("x = Variable(w, requires_grad=True)", "x = w.detach().requires_grad_()"),
        ("x = Variable(w, requires_grad=flag)", "x = w.detach().requires_grad_(flag)"),
        ("x = Variable(a + b) * 2", "x = (a + b).detach() * 2"),
        ("x = Variable(self.weight.data)", "x = self.weight.data.detach()"),
        ("x = (Variable(w))", "x = (w.detach())"),
        ("x = Variable(\n    w,\n    requires_grad=False,\n)", "x = w.detach()"),
    ],
)
def test_gl002_fix(src, out):
    header = "import torch\nfrom torch.autograd import Variable\n"
    assert fix(header + src + "\n", select=["GL002"]) == "import torch\n" + out + "\n"


def test_gl002_dataloader_batches_are_plain():
    src = """\
        import torch
        from torch.autograd import Variable

        def train(model, train_loader, dataloaders, phase):
            for i, data in enumerate(train_loader):
                inputs, labels = data
                inputs, labels = Variable(inputs.cuda()), Variable(labels.cuda())
            for batch in tqdm(dataloaders[phase]):
                x = Variable(batch[0])
                y = Variable(batch["label"].to("cuda"))
    """
    # A loader's batches are judged graph-free by their names only: the removal is unsafe.
    assert fix(src, select=["GL002"]) == textwrap.dedent(src)
    assert fix(src, select=["GL002"], unsafe=True) == (
        "import torch\n"
        "\n"
        "def train(model, train_loader, dataloaders, phase):\n"
        "    for i, data in enumerate(train_loader):\n"
        "        inputs, labels = data\n"
        "        inputs, labels = inputs.cuda(), labels.cuda()\n"
        "    for batch in tqdm(dataloaders[phase]):\n"
        "        x = batch[0]\n"
        '        y = batch["label"].to("cuda")\n'
    )


@pytest.mark.parametrize(
    "imports,call,kept",
    [
        ("import torch.autograd as autograd\n", "autograd.Variable", ""),
        ("from torch import autograd\n", "autograd.Variable", ""),
        ("from torch import autograd as ag\n", "ag.Variable", ""),
        ("from torch.autograd import Variable, Function\n", "Variable", "from torch.autograd import Function\n"),
        # `import torch.autograd` binds `torch`, which the fixed code still uses
        ("import torch.autograd\n", "torch.autograd.Variable", "import torch.autograd\n"),
    ],
)
def test_gl002_removes_the_import_it_made_unused(imports, call, kept):
    src = f"import torch\n{imports}\nx = {call}(torch.zeros(3))\n"
    assert fix(src, select=["GL002"]) == f"import torch\n{kept}\nx = torch.zeros(3)\n"


def test_gl002_keeps_a_module_import_still_in_use():
    src = "import torch\nimport torch.autograd as autograd\n\nx = autograd.Variable(torch.zeros(3))\ng = autograd.grad\n"
    assert fix(src, select=["GL002"]) == "import torch\nimport torch.autograd as autograd\n\nx = torch.zeros(3)\ng = autograd.grad\n"


def test_gl002_parameter_gets_exact_detach():
    src = "from torch.autograd import Variable\ndef f(w):\n    return Variable(w)\n"
    assert fix(src, select=["GL002"]) == "def f(w):\n    return w.detach()\n"


@pytest.mark.parametrize(
    "src,expected",
    [
        ("from torch.autograd import Variable\nv = Variable(x)\n", [(2, 5, "GL002")]),
        ("import torch\nv = torch.autograd.Variable(x, requires_grad=True)\n", [(2, 5, "GL002")]),
        ("from torch.autograd import Variable as Var\nv = Var(*args)\n", [(2, 5, "GL002")]),
        ("from pulp import LpVariable as Variable\nv = Variable('x')\n", []),
        ("from torch.autograd import Variable\nisinstance(x, Variable)\n", []),
    ],
)
def test_gl002_findings(src, expected):
    assert lint(src, select=["GL002"]) == expected


def test_gl002_star_args_have_no_fix():
    src = "from torch.autograd import Variable\nv = Variable(*args)\n"
    assert fix(src, select=["GL002"]) == src


def test_gl002_message_names_what_it_does():
    assert messages("from torch.autograd import Variable\nv = Variable(w, requires_grad=True)\n", ["GL002"]) == [
        "`Variable(...)` has been deprecated since PyTorch 0.4 and now returns `w.detach().requires_grad_()`"
    ]


@pytest.mark.parametrize(
    "line,flagged,by_default",
    [
        # flagged: in the preview tier; by_default: in the default tier, which takes
        # no value for 0-dim because of its name (issue 26)
        ("total += loss.data[0]", True, True),
        ("total += loss.data[0] * x.size(0)", True, True),
        ("losses.append(loss.data[0])", True, True),
        ("print(loss.data[0])", True, False),
        ("print(d_loss.data[0], g_loss.data[0])", True, False),
        ("v = criterion(out, y).data[0]", True, False),
        ("v = out.sum().data[0]", True, True),
        ("v = float(out.data[0])", True, True),
        ("if out.data[0] > best: pass", True, True),
        ("print('%.4f' % out.data[0])", True, True),
        ("print('%d %.4f' % (i, out.data[0]))", True, True),
        ("print('{:.3f}'.format(out.data[0]))", True, True),
        ("print(f'{out.data[0]:.2f}')", True, True),
        ("writer.add_scalar('loss', out.data[0], step)", True, True),
        ("acc = correct.data[0] / total", True, False),
        # a row of a batch
        ("img = out.data[0].cpu().numpy()", False, False),
        ("v = out.data[0][1]", False, False),
        ("v = out.data[0]", False, False),
        ("print(out.data[0])", False, False),
        ("save_image(fake.data[0], 'x.png')", False, False),
        ("print('%s' % out.data[0])", False, False),
        ("v = loss.data[1]", False, False),
        ("v = loss.data", False, False),
        ("v = loss.data[:, 0]", False, False),
        ("v = out.max(1).data[0]", False, False),
    ],
)
def test_gl003_scalar_vs_row(line, flagged, by_default):
    found = lint(line + "\n", select=["GL003"], options=RuleOptions(preview=True))
    assert bool(found) == flagged, found
    found = lint(line + "\n", select=["GL003"])
    assert bool(found) == by_default, found


@pytest.mark.parametrize(
    "module, reported",
    [
        # a module that imports its dependencies and never names the tensor library
        ("import time\n\n\ndef first(msg):\n    return int(msg.data[0])\n", False),
        # the same naming it anywhere: an import, a call, a comment
        ("import time\nimport torch\n\n\ndef first(msg):\n    return int(msg.data[0])\n", True),
        ("import time\n\n\ndef first(msg):\n    # msg holds a Variable\n    return int(msg.data[0])\n", True),
        ("import time\n\n\ndef first(loss):\n    loss.backward()\n    return int(loss.data[0])\n", True),
        # a fragment without imports: nothing says which library
        ("def first(msg):\n    return int(msg.data[0])\n", True),
    ],
)
def test_gl003_modules_of_other_libraries_are_preview_only(module, reported):
    assert bool(lint(module, select=["GL003"])) is reported
    assert lint(module, select=["GL003"], options=RuleOptions(preview=True)) != []


def test_gl003_fix_and_position():
    # the name route (a value taken for 0-dim because it is named `loss`) is the preview tier's
    preview = RuleOptions(preview=True)
    assert lint("x = 1\nprint(loss.data[0])\n", select=["GL003"], options=preview) == [(2, 7, "GL003")]
    assert lint("x = 1\nprint(loss.data[0])\n", select=["GL003"]) == []
    # nothing says `loss` is 0-dim: on a one-element tensor `.item()` changes what is printed
    assert fix("print(loss.data[0])\n", select=["GL003"], options=preview) == "print(loss.data[0])\n"
    assert fix("print(loss.data[0])\n", select=["GL003"], unsafe=True, options=preview) == "print(loss.item())\n"
    # a reduction called without arguments is 0-dim: the original raises, the fix runs
    assert (
        fix("loss = out.mean()\nprint(loss.data[0])\n", select=["GL003"], options=preview)
        == "loss = out.mean()\nprint(loss.item())\n"
    )
    assert (
        fix("loss = out.mean(0)\nprint(loss.data[0])\n", select=["GL003"], options=preview)
        == "loss = out.mean(0)\nprint(loss.data[0])\n"
    )
    assert fix("v = (a + b).sum().data[0] + 1\n", select=["GL003"]) == "v = (a + b).sum().item() + 1\n"


@pytest.mark.parametrize(
    "code, expected, by_default",
    [
        # by_default: the default tier reports it too; a finding that rests on the callee's
        # name (`crit`) is the preview tier's (issue 26)
        # 0-dim by dataflow, whatever the names and the context
        ("import torch\nm = torch.mean(x)\nstats['m'] = m.data[0]\n", [(3, 14)], True),
        ("def f(crit, a, b, w=0.5):\n    o = crit(a, b) * w\n    log(o.data[0])\n", [(3, 9)], False),
        ("import torch.nn as nn\nc = nn.NLLLoss()\nppl = c(a, b).exp().data[0]\n", [(3, 7)], True),
        # a dimension by dataflow: the first element, whatever the context
        ("d = net(a).view(-1) - net(b).view(-1)\nwriter.add_scalar('gap', d.data[0], step)\n", [], True),
        ("f = net(a).flatten()\nprint('%.4f' % f.data[0])\n", [], True),
        # other spellings of the same IndexError
        ("def f(crit, a, b):\n    loss = crit(a, b)\n    print(loss.data.cpu().numpy()[0])\n", [(3, 11)], False),
        ("def f(crit, a, b):\n    loss = crit(a, b)\n    return loss.data.numpy()[0]\n", [(3, 12)], False),
        ("def f(crit, xs):\n    t = 0\n    for x in xs:\n        t += crit(x).data\n    return t[0]\n", [(5, 12)], False),
        # not 0-dim: an array row, a total of batch rows, an item assignment
        ("def f(out):\n    return out.data.numpy()[0]\n", [], True),
        ("def f(net, xs):\n    t = 0\n    for x in xs:\n        t += net(x).view(-1).data\n    return t[0]\n", [], True),
        ("def f(crit, xs):\n    t = 0\n    for x in xs:\n        t += crit(x).data\n    t[0] = 1\n", [], True),
    ],
)
def test_gl003_dataflow(code, expected, by_default):
    found = [(r, c, "GL003") for r, c in expected]
    assert lint(code, select=["GL003"], options=RuleOptions(preview=True)) == found
    assert lint(code, select=["GL003"]) == (found if by_default else [])


def test_gl003_other_spellings_fix_and_message():
    # a functional loss proves 0-dim (a callee named `crit` is reported, but not rewritten safely)
    code = "import torch.nn.functional as F\ndef f(a, b):\n    loss = F.mse_loss(a, b)\n    return loss.data.cpu().numpy()[0]\n"
    assert fix(code, select=["GL003"]) == "import torch.nn.functional as F\ndef f(a, b):\n    loss = F.mse_loss(a, b)\n    return loss.item()\n"
    assert messages(code, ["GL003"]) == [
        "`loss.data.cpu().numpy()[0]` reads a scalar the PyTorch 0.3 way: on a 0-dim tensor it raises IndexError; "
        "use `loss.item()`"
    ]


def test_gl003_zero_dims_proven_by_shape_rules_are_fixed_safely():
    # an element of a row of `x.t()` is 0-dim (at most 2, 1, then 0 dimensions): the read
    # raises today, so `.item()` is a safe fix even outside any numeric context
    code = (
        "def check(vocab, xs):\n"
        "    for i, row in enumerate(xs.t()):\n"
        "        for tok in row:\n"
        "            tok = tok.data[0]\n"
        "            print(vocab[tok])\n"
    )
    assert lint(code, select=["GL003"]) == [(4, 19, "GL003")]
    assert fix(code, select=["GL003"]) == code.replace("tok.data[0]", "tok.item()")
    assert fix("def f(b):\n    return b.view(-1)[0].data[0]\n", select=["GL003"]) == "def f(b):\n    return b.view(-1)[0].item()\n"
    # a row of `x.t()` has at most one dimension: maybe one element, maybe 0-dim, not proven
    row = "def f(xs):\n    for row in xs.t():\n        total = row.data[0]\n"
    assert lint(row, select=["GL003"]) == []
    # a whole `x.t()` has up to two: iterating it twice is needed before nothing is left
    assert lint("def f(xs):\n    for row in xs.t():\n        print(row.t().data[0].sum())\n", select=["GL003"]) == []


@pytest.mark.parametrize(
    "line, receiver",
    [
        ("total += loss.data[0]", "loss"),
        ("total += F.nll_loss(output, target).data[0]", "F.nll_loss(output, target)"),
        # too long (or on several lines) to quote whole: the call's arguments are elided
        ("total += F.nll_loss(output, target, size_average=False).data[0]", "F.nll_loss(...)"),
        ("total += self.criterion.forward(outputs, labels.long()).data[0]", "self.criterion.forward(...)"),
        ("total += (loss_fn(a,\n    b)).data[0]", "loss_fn(...)"),
        ("total += batch_losses[first_index:last_index].sum().data[0]", "batch_losses[...].sum()"),
    ],
)
def test_gl003_message_names_the_receiver_as_written(line, receiver):
    assert messages(line + "\n", ["GL003"]) == [
        f"`{receiver}.data[0]` reads a scalar the PyTorch 0.3 way: on a 0-dim tensor it raises IndexError; "
        f"use `{receiver}.item()`"
    ]


@pytest.mark.parametrize(
    "src,expected",
    [
        ("import torch\nif x.volatile:\n    pass\n", [(2, 4, "GL004")]),
        ("import torch\nh.volatile = True\n", [(2, 1, "GL004")]),
        ("import torch\nflag = self.hidden.volatile\n", []),
        ("import torch\nif args.volatile: pass\n", []),
        ("import torch\nif self.volatile: pass\n", []),
        ("import torch.volatile\n", []),
        ("import mylib\nx = mylib.volatile\n", []),
        ("x = h.volatile\n", []),  # no torch in the file
    ],
)
def test_gl004(src, expected):
    assert lint(src, select=["GL004"]) == expected


def test_gl004_message_read_and_write():
    assert messages("import torch\nh.volatile = True\nprint(h.volatile)\n", ["GL004"]) == [
        "Setting `h.volatile` does nothing since PyTorch 0.4 (it is always False); use `torch.no_grad()` to stop "
        "recording a graph",
        "Reading `h.volatile` does nothing since PyTorch 0.4 (it is always False); use `torch.no_grad()` to stop "
        "recording a graph",
    ]


def test_gl003_and_gl203_never_report_the_same_data_read():
    src = "import torch\ntotal += loss.data[0]\nrow = out.data[0].cpu()\n"
    # the scalar read is GL003's (fixed to .item()); the row read stays GL203's
    assert lint(src, select=["GL003", "GL203"]) == [(2, 10, "GL003"), (3, 7, "GL203")]


def test_gl301_message_says_what_a_backward_in_the_loop_frees():
    train = """\
        def train(model, loader, opt, criterion):
            total = 0.0
            for x, y in loader:
                loss = criterion(model(x), y)
                loss.backward()
                opt.step()
                total += loss
    """
    evaluate = "\n".join(line for line in train.splitlines() if "backward" not in line and "step" not in line)
    # ``model`` and ``criterion`` untyped: their history is judged from names (preview)
    preview = RuleOptions(preview=True)
    (in_training,) = messages(train, ["GL301"], options=preview)
    (in_evaluation,) = messages(evaluate, ["GL301"], options=preview)
    assert "(`backward()` frees its saved activations, but its graph nodes stay referenced)" in in_training
    assert "after the iteration ends, with the activations it saved: memory grows" in in_evaluation


def test_gl001_no_grad_decorator_only_where_torch_is_the_module():
    src = (
        "import torch\n"
        "from torch.autograd import Variable\n"
        "torch = None\n\n\n"
        "def evaluate(model, x):\n"
        "    return model(Variable(x, volatile=True))\n"
    )
    assert lint(src, ["GL001"]) == [(7, 18, "GL001")]
    assert fix(src, ["GL001"]) == src  # `@torch.no_grad()` would be None's attribute
    param = src.replace("torch = None\n", "").replace("(model, x)", "(model, x, torch=torch)")
    # the output is returned: a caller may backpropagate through it, so the fix is unsafe
    assert fix(param, ["GL001"]) == param
    assert fix(param, ["GL001"], unsafe=True).startswith("import torch\n\n\n@torch.no_grad()\ndef evaluate(model, x, torch=torch):")
