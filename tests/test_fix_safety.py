"""Fix applicability per defect class: safe only where the conditions are proven,
unsafe where they are not, no fix where even an unsafe one would crash. The
differential oracle (tests/test_oracle.py) checks the same classes under torch."""

from __future__ import annotations

import textwrap

import pytest

from gradlint.engine import LintSettings, lint_source
from gradlint.rule import RuleOptions


def fixes(src: str, code: str, preview: bool = False):
    """(line, applicability or None) of every finding of ``code``."""
    findings = lint_source(textwrap.dedent(src), "x.py", LintSettings(frozenset({code}), RuleOptions(preview=preview))).findings
    return [(f.start[0], f.fix.applicability if f.fix else None) for f in findings if f.code == code]


GL001_HEAD = "import torch\nfrom torch.autograd import Variable\n"


@pytest.mark.parametrize(
    "body,safety",
    [
        ("def f(m, x):\n    print(m(Variable(x, volatile=True)).sum().item())\n", "safe"),
        ("def f(m, x):\n    return m(Variable(x, volatile=True)).argmax(1)\n", "safe"),
        # Python numbers added up from `.item()`s carry no graph
        (
            "def f(m, batches):\n    total, n = 0.0, 0\n    for x in batches:\n        total += m(Variable(x, volatile=True)).sum().item()\n"
            "        n += 1\n    return total / n, n\n",
            "safe",
        ),
        ("def f(m, batches):\n    total = 0.0\n    for x in batches:\n        total += m(Variable(x, volatile=True)).sum()\n    return total\n", "unsafe"),
        # read through `.data`: no graph
        ("def f(m, batches):\n    total = 0.0\n    for x in batches:\n        total += m(Variable(x, volatile=True)).sum().data[0]\n    return total\n", "safe"),
        # the result reaches a caller, a helper, a list passed in, a buffer, a closure
        ("def f(m, x):\n    return m(Variable(x, volatile=True))\n", "unsafe"),
        ("def f(m, x):\n    backprop(m(Variable(x, volatile=True)))\n", "unsafe"),
        ("def f(m, x, outs):\n    outs.append(m(Variable(x, volatile=True)))\n", "unsafe"),
        ("def f(m, x, outs):\n    y = m(Variable(x, volatile=True))\n    outs += [y]\n", "unsafe"),
        ("def f(m, x, buf):\n    buf.copy_(m(Variable(x, volatile=True)))\n", "unsafe"),
        ("def f(m, x):\n    y = m(Variable(x, volatile=True))\n    return lambda: y.sum()\n", "unsafe"),
        ("def f(m, x):\n    y = m(Variable(x, volatile=True))\n    raise Stop(y)\n", "unsafe"),
        ("def f(self, m, x):\n    self.out = m(Variable(x, volatile=True))\n", "unsafe"),
        # a generator, a sync def nested in an async def
        ("def f(m, x):\n    yield m(Variable(x, volatile=True)).argmax(1)\n", "unsafe"),
        ("async def g(m, x):\n    def f(m, x):\n        print(m(Variable(x, volatile=True)).sum().item())\n    f(m, x)\n", "unsafe"),
    ],
)
def test_gl001_decorator_safe_only_when_nothing_escapes(body, safety):
    assert [s for _, s in fixes(GL001_HEAD + body, "GL001")] == [safety]


@pytest.mark.parametrize(
    "src",
    [
        # a class attribute named torch is what the decorator would see
        GL001_HEAD + "class A:\n    torch = 'cpu'\n\n    def f(self, m, x):\n        print(m(Variable(x, volatile=True)).sum().item())\n",
        # imported after the def: the decorator runs first
        "from torch.autograd import Variable\n\ndef f(m, x):\n    print(m(Variable(x, volatile=True)).sum().item())\n\nimport torch\n",
        # `except ... as torch` unbinds the module
        GL001_HEAD + "try:\n    import apex\nexcept ImportError as torch:\n    pass\n\ndef f(m, x):\n    print(m(Variable(x, volatile=True)).sum().item())\n",
        # a parameter of an enclosing function
        GL001_HEAD + "def outer(torch):\n    def f(m, x):\n        print(m(Variable(x, volatile=True)).sum().item())\n    return f\n",
    ],
)
def test_gl001_no_fix_where_torch_is_not_the_module(src):
    assert fixes(src, "GL001") == [(fixes(src, "GL001")[0][0], None)]


@pytest.mark.parametrize(
    "src",
    [
        # a parameter named torch: the `with torch.no_grad():` would be its attribute
        "import torch\ndef f(model, x, torch=None):\n    h = prep(x)\n    model.eval()\n    print(model(h).sum().item())\n",
        "import torch\ntry:\n    pass\nexcept Exception as torch:\n    pass\ndef f(model, x):\n    model.eval()\n    print(model(x).sum().item())\n    return 1\n",
        # a with statement runs when the function is called: an `except ... as torch` anywhere may have unbound it
        "import torch\ndef f(model, x, h):\n    h.prep()\n    model.eval()\n    print(model(x).sum().item())\ntry:\n    pass\nexcept Exception as torch:\n    pass\n",
        "def f(model, x):\n    model.eval()\n    print(model(x).sum().item())\n    return 1\nimport torch\n",
    ],
)
def test_gl101_no_fix_where_torch_is_not_the_module(src):
    assert [s for _, s in fixes(src, "GL101")] == [None]


def test_a_decorator_sees_torch_as_it_is_where_the_def_runs():
    """Decorators run where the ``def`` stands: an ``except ... as torch`` later in
    the file has not run yet, and an ``import torch`` placed after an outer
    function's ``def`` has run by the time it calls the inner ``def``."""
    later_except = "import torch\ndef f(model, x):\n    model.eval()\n    print(model(x).sum().item())\ntry:\n    pass\nexcept Exception as torch:\n    pass\n"
    assert [s for _, s in fixes(later_except, "GL101")] == ["safe"]
    nested = "def make(model):\n    def f(x):\n        model.eval()\n        print(model(x).sum().item())\n    return f\nimport torch\n"
    assert [s for _, s in fixes(nested, "GL101")] == ["safe"]


GL101_LOOP = "import torch\n\ndef f(model, loader{params}):\n    model.eval()\n    for x in loader:\n        y = model(x)\n{use}"


@pytest.mark.parametrize(
    "params,use,safety",
    [
        ("", "        print(y.sum().item())\n", "safe"),
        # backward/step in a helper (eval() used to freeze batch norm while training)
        ("", "        step(y.sum())\n", "unsafe"),
        (", outs", "        outs += [y]\n", "unsafe"),
        (", buf", "        buf.copy_(y)\n", "unsafe"),
        ("", "        on_output(y)\n", "unsafe"),
        ("", "        raise Found(y)\n", "unsafe"),
        ("", "        keep = lambda: y\n", "unsafe"),
        # torch's own functions and a local list keep nothing outside
        ("", "        kept = []\n        kept.append(torch.softmax(y, -1))\n        print(len(kept))\n", "safe"),
    ],
)
def test_gl101_outputs_that_escape_make_the_fix_unsafe(params, use, safety):
    assert [s for _, s in fixes(GL101_LOOP.format(params=params, use=use), "GL101")] == [safety]


@pytest.mark.parametrize("hook", ["forward", "__call__"])
def test_gl101_unsafe_in_a_module_s_forward(hook):
    # The reference forward's output is only printed, but the forward returns `x * 2`:
    # under `@torch.no_grad()` a caller's `x` with requires_grad=True would come back
    # without its graph (measured under torch 2.13: requires_grad True, then False).
    src = (
        "import torch\nimport torch.nn as nn\n\n\nclass Penalised(nn.Module):\n"
        "    def __init__(self):\n        super().__init__()\n        self.ref = nn.Linear(4, 4)\n\n"
        f"    def {hook}(self, x):\n        self.ref.eval()\n        r = self.ref(x)\n"
        "        print(float(r.sum()))\n        return x * 2\n"
    )
    assert fixes(src, "GL101") == [(12, "unsafe")]


def test_gl101_unsafe_in_a_sync_def_nested_in_an_async_def():
    src = "import torch\nasync def g(model, x):\n    def f():\n        model.eval()\n        print(model(x).sum().item())\n    f()\n"
    assert [s for _, s in fixes(src, "GL101")] == ["unsafe"]


@pytest.mark.parametrize(
    "value,safety",
    [
        ("torch.randn(3)", "safe"),  # made right there
        ("batch", "unsafe"),  # only looks graph-free
        ("torch.as_tensor(p)", "unsafe"),  # returns `p` itself, which may carry a graph
    ],
)
def test_gl002_removal_safe_only_around_a_fresh_tensor(value, safety):
    src = f"import torch\nfrom torch.autograd import Variable\nfor batch in loader:\n    v = Variable({value})\n"
    assert [s for _, s in fixes(src, "GL002")] == [safety]


def test_gl002_requires_grad_on_a_shared_base_keeps_two_leaves():
    src = "import torch\nfrom torch.autograd import Variable\nbase = load()\na = Variable(base, requires_grad=True)\nb = Variable(base, requires_grad=True)\n"
    from harness import fix

    out = fix(src, ["GL002"])
    assert "a = base.detach().requires_grad_()\nb = base.detach().requires_grad_()\n" in out


@pytest.mark.parametrize(
    "src,safety,by_default",
    [
        # safety: in the preview tier, which takes a value named `loss` for 0-dim; by_default:
        # the default tier reports it too (it takes nothing for 0-dim by its name, issue 26,
        # but a name that holds a full reduction on every path is as 0-dim as the reduction)
        ("loss = out.mean()\nprint(loss.data[0])\n", "safe", True),
        ("print(out.sum().data[0])\n", "safe", True),
        # a functional loss with its default reduction is 0-dim; with reduction="none" it is not
        ("import torch.nn.functional as F\nloss = F.cross_entropy(out, y)\nprint(loss.data[0])\n", "safe", True),
        # (then `.item()` raises: no fix at all)
        ("import torch.nn.functional as F\nloss = F.cross_entropy(out, y, reduction='none')\nprint(loss.data[0])\n", None, False),
        ("print(loss.data[0])\n", "unsafe", False),  # maybe a one-element tensor: printed differently
        ("loss = out.mean(0)\nprint(loss.data[0])\n", "unsafe", False),  # n elements: .item() raises
        ("loss = out.mean()\nloss = loss * 2\nprint(loss.data[0])\n", "unsafe", False),  # bound twice
    ],
)
def test_gl003_safe_only_on_zero_dim_evidence(src, safety, by_default):
    assert [s for _, s in fixes(src, "GL003", preview=True)] == [safety]
    assert [s for _, s in fixes(src, "GL003")] == ([safety] if by_default else [])


@pytest.mark.parametrize(
    "src,safety",
    [
        ("import torch\ndef f(m, x):\n    with torch.no_grad():\n        with torch.no_grad():\n            return m(x)\n", "safe"),
        ("import torch\ndef f(m, x):\n    with torch.set_grad_enabled(False):\n        with torch.no_grad():\n            return m(x)\n", "safe"),
        ("import torch\n@torch.no_grad()\ndef f(m, x):\n    with torch.no_grad():\n        return m(x)\n", "safe"),
        # a decorator does not cover a coroutine's body: the inner guard is the one in
        # effect, so it is not reported at all
        ("import torch\n@torch.no_grad()\nasync def f(m, x):\n    with torch.no_grad():\n        return m(x)\n", None),
        # gradients may be switched back on before the inner guard: the mode there is not
        # known, so the inner guard is not reported either
        (
            "import torch\ndef f(m, x, ft):\n    with torch.no_grad():\n        if ft:\n            torch.set_grad_enabled(True)\n"
            "        with torch.no_grad():\n            return m(x)\n",
            None,
        ),
    ],
)
def test_gl106_safe_only_when_the_outer_guard_is_surely_in_effect(src, safety):
    assert [s for _, s in fixes(src, "GL106")] == ([safety] if safety else [])


@pytest.mark.parametrize(
    "handler,safety",
    [
        (None, "safe"),
        ("except TypeError:", "unsafe"),
        ("except (ValueError, AttributeError):", "unsafe"),
        ("except Exception:", "unsafe"),
        ("except:", "unsafe"),
        ("except KeyError:", "safe"),
    ],
)
def test_gl102_unsafe_inside_a_try_that_catches_the_error(handler, safety):
    body = "with torch.no_grad:\n    y = m(x)\n"
    if handler is None:
        src = "import torch\n" + body
    else:
        src = "import torch\ntry:\n" + textwrap.indent(body, "    ") + f"{handler}\n    y = m(x)\n"
    assert [s for _, s in fixes(src, "GL102")] == [safety]


# ``model`` proven a module, and ``torch.mean`` proven to give a tensor: GL301 reports and fixes it
GL301_LOOP = "import torch\n\ndef run(model: torch.nn.Module, loader):\n{body}"


@pytest.mark.parametrize(
    "body,safety",
    [
        ("    total = 0.0\n    for x in loader:\n        total += torch.mean(model(x))\n    print(total)\n", "safe"),
        ("    total = 0.0\n    for x in loader:\n        total += torch.mean(model(x))\n    return total\n", "unsafe"),
        ("    for x in loader:\n        self.stats['loss'] += torch.mean(model(x))\n", "unsafe"),
    ],
)
def test_gl301_unsafe_where_the_total_leaves_the_function(body, safety):
    # No backward runs from the kept value: the preview tier's finding (what computed it proves the graph).
    preview = LintSettings(frozenset({"GL301"}), RuleOptions(preview=True))
    findings = lint_source(GL301_LOOP.format(body=body), "x.py", preview).findings
    assert [f.fix.applicability for f in findings if f.fix] == [safety]


# A callback's `model` may be a training step: the callers say what it is.
CALLBACK = """\
import torch
from torch import nn
from torch.autograd import Variable

net = nn.Linear(4, 1)


def train_step(batch):
    net(batch).sum().backward()


def on_batch(model, batch):
{body}


def run(batches, callbacks):
{calls}
"""


@pytest.mark.parametrize(
    "calls,safety",
    [
        ("    for b in batches:\n        on_batch(net, b)\n", "safe"),
        ("    for b in batches:\n        on_batch(train_step, b)\n", "unsafe"),
        ("    callbacks.append(on_batch)\n", "unsafe"),  # who calls it, with what, is not shown
    ],
)
@pytest.mark.parametrize(
    "code,body",
    [
        ("GL001", "    out = model(Variable(batch, volatile=True))\n    print(out.sum().item())"),
        ("GL101", "    model.eval()\n    out = model(batch)\n    print(out.sum().item())"),
    ],
)
def test_a_callback_parameter_called_like_a_model_follows_the_callers(code, body, calls, safety):
    assert [s for _, s in fixes(CALLBACK.format(body=body, calls=calls), code)] == [safety]


LOGGED = """\
import torch
from torch import nn
from torch.autograd import Variable


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(4, 4)
        self.history = []

    def log(self, name, value):
{log}

    def evaluate(self, x):
{body}
        self.log("features", out)
"""


@pytest.mark.parametrize(
    "log,safety",
    [
        ("        self.history.append(value)", "unsafe"),  # kept on the module: not a forward
        ("        print(name, value.sum().item())", "safe"),
    ],
)
@pytest.mark.parametrize(
    "code,body",
    [
        ("GL001", "        out = self.body(Variable(x, volatile=True))"),
        ("GL101", "        self.body.eval()\n        out = self.body(x)"),
    ],
)
def test_a_logged_result_is_kept_where_the_logging_method_keeps_it(code, body, log, safety):
    assert [s for _, s in fixes(LOGGED.format(log=log, body=body), code)] == [safety]


@pytest.mark.parametrize(
    "src",
    [
        # inside the guard already
        GL001_HEAD + "def f(m, x):\n    with torch.no_grad():\n        out = m(Variable(x, volatile=True))\n    return out\n",
        # every caller runs it under one
        GL001_HEAD + "def f(m, x):\n    return m(Variable(x, volatile=True))\n\n"
        "def g(m, x):\n    with torch.no_grad():\n        return f(m, x)\n",
    ],
)
def test_gl001_on_a_path_without_gradients_only_removes_the_wrapper(src):
    findings = lint_source(src, "x.py", LintSettings(frozenset({"GL001"}))).findings
    assert [(f.fix.applicability, f.fix.title) for f in findings] == [
        ("safe", "Remove the `Variable` wrapper (gradients are already disabled here)")
    ]


@pytest.mark.parametrize(
    "use,safety",
    [
        ("print(out.sum().item())\n", "safe"),
        ("holder.cache = out\n\n\ndef later():\n    return holder.cache\n", "unsafe"),
        ("sink.append(out)\n\n\ndef later():\n    return sink\n", "unsafe"),
        ("backprop(out)\n", "unsafe"),
    ],
)
def test_gl101_at_module_level_unsafe_where_functions_read_the_results(use, safety):
    src = (
        "import torch\nfrom torch import nn, randn\n\nmodel = nn.Linear(4, 2)\nsink = []\n"
        "holder = type('Holder', (), {})()\n\n\ndef backprop(t):\n    t.sum().backward()\n\n\n"
        "model.eval()\nout = model(torch.load(\"x.pt\"))\n" + use
    )
    # A module-level forward runs once (issue 26): on data the script loads, with its
    # output kept as a result, it is reported; printed only, it is a check, the preview tier's.
    preview = LintSettings(frozenset({"GL101"}), RuleOptions(preview=True))
    assert [f.fix.applicability for f in lint_source(src, "x.py", preview).findings if f.fix] == [safety]
    assert [s for _, s in fixes(src, "GL101")] == ([] if use.startswith("print") else [safety])


def test_each_gl001_fix_of_a_file_asks_where_its_own_guard_goes():
    """Every GL001 fix asks whether `torch` is the module where it would insert
    `torch.no_grad()`; each gets its own answer (a class attribute `torch` shadows the
    module for the decorator of the method)."""
    src = GL001_HEAD + "".join(
        f"def f{i}(m, x):\n    print(m(Variable(x, volatile=True)).sum().item())\n" for i in range(4)
    ) + "class C:\n    torch = None\n\n    def h(self, m, x):\n        print(m(Variable(x, volatile=True)).sum().item())\n"
    assert fixes(src, "GL001") == [(4, "safe"), (6, "safe"), (8, "safe"), (10, "safe"), (15, None)]
