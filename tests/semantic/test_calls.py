"""The file's own functions and their callers (``gradlint.semantic.calls``)."""

from __future__ import annotations

import libcst as cst
import pytest
from marks import context


def _func(ctx, name):
    return next(s for s in ctx.module.body if isinstance(s, cst.FunctionDef) and s.name.value == name)


@pytest.mark.parametrize(
    "main,expected",
    [
        ('if __name__ == "__main__":\n    run(parse())\n', True),
        ("if '__main__' == __name__:\n    setup()\n    run(parse())\n", True),
        ('if __name__ == "__main__":\n    print(run(parse()))\n', True),  # inside the last statement
        ('if __name__ == "__main__":\n    run(parse())\n    train()\n', False),  # training follows
        ('if __name__ != "__main__":\n    run(parse())\n', False),
        ("run(parse())\n", False),  # no __main__ block: a module, not a script
        ('run(parse())\nif __name__ == "__main__":\n    run(parse())\n', False),  # also called on import
        ('if __name__ == "__main__":\n    callbacks = [run]\n    go(callbacks)\n', False),  # used as a value
    ],
)
def test_is_script_entry(main, expected):
    ctx = context("def run(args):\n    pass\n\n\n" + main)
    assert ctx.semantic.calls.is_script_entry(_func(ctx, "run")) is expected


def test_main_block_is_the_module_level_if():
    ctx = context('def f():\n    if __name__ == "__main__":\n        pass\n')
    assert ctx.semantic.calls.main_block() is None
    ctx = context('import sys\nif __name__ == "__main__":\n    sys.exit(0)\n')
    assert ctx.semantic.calls.main_block() is ctx.module.body[1]


def test_method_is_never_a_script_entry():
    ctx = context('class App:\n    def run(self):\n        pass\n\n\nif __name__ == "__main__":\n    App().run()\n')
    method = ctx.module.body[0].body.body[0]
    assert ctx.semantic.calls.is_script_entry(method) is False


_FORWARDING = """\
from torch.autograd import Variable as V


def wrap(x, volatile=False):
    return V(x, volatile=volatile)


def wrap_positional(x, flag):
    return V(x, False, flag)


def as_inputs(batch, volatile=False):
    return wrap(batch[0], volatile=volatile), wrap_positional(batch[1], volatile)


def rebound(x, volatile=False):
    volatile = not volatile
    return V(x, volatile=volatile)


def elsewhere(x, volatile=False):
    return to_variable(x, volatile=volatile)


def nested(x, volatile=False):
    def inner(volatile):
        return V(x, volatile=volatile)
    return inner(True)
"""


@pytest.mark.parametrize(
    "func,param,line",
    [
        ("wrap", "volatile", 5),
        ("wrap_positional", "flag", 9),
        ("as_inputs", "volatile", 5),  # through the first helper it reaches
        ("rebound", "volatile", None),  # not the caller's value any more
        ("elsewhere", "volatile", None),  # another module's function: not known
        ("nested", "volatile", None),  # the nested function's own parameter
        ("wrap", "x", None),  # passed, but as the data, not the flag
    ],
)
def test_forwarded_to(func, param, line):
    ctx = context(_FORWARDING)
    found = ctx.semantic.calls.forwarded_to(_func(ctx, func), param, "volatile", 2, frozenset({"torch.autograd.Variable"}))
    assert (ctx.tree.line(found) if found is not None else None) == line


def _arguments(code: str, func: str, param: str):
    ctx = context(code)
    f = next(n for n in ctx.module.body if isinstance(n, (cst.FunctionDef, cst.ClassDef)) and n.name.value == func)
    if isinstance(f, cst.ClassDef):
        f = next(s for s in f.body.body if isinstance(s, cst.FunctionDef))
    p = next(p for p in f.params.params if p.name.value == param)
    found = ctx.semantic.calls.arguments_for(p)
    return None if found is None else [(ctx.code_for(c), ctx.code_for(a)) for c, a in found]


@pytest.mark.parametrize(
    "code,func,param,expected",
    [
        ("def f(a, b):\n    pass\nf(x, y)\nf(b=z, a=w)\n", "f", "b", [("f(x, y)", "y"), ("f(b=z, a=w)", "z")]),
        ("def f(a, b=1):\n    pass\nf(x)\nf(x, 2)\n", "f", "b", [("f(x, 2)", "2")]),  # the default: nothing passed
        ("def f(a, b):\n    pass\nf(*args)\nf(x, *rest)\n", "f", "b", []),  # ``*args`` may hold it
        ("class M:\n    def g(self, d):\n        pass\nm.g(out)\n", "M", "d", [("m.g(out)", "out")]),
        ("def f(a):\n    pass\ncallbacks = [f]\nf(x)\n", "f", "a", None),  # used as a value: callers unknown
        ("def f(a):\n    pass\n", "f", "a", []),
    ],
)
def test_arguments_for(code, func, param, expected):
    assert _arguments(code, func, param) == expected

def test_runs_per_step():
    ctx = context(
        """\
import pytorch_lightning as pl


class Model(pl.LightningModule):
    def training_step(self, batch, i):
        return batch

    def helper(self, x):
        return x


class Plain:
    def training_step(self, batch, i):
        return batch


def step(x):
    return x


def once(x):
    return x


def fit(loader):
    once(loader)
    for x in loader:
        step(x)
    while True:
        Plain().helper(x)
"""
    )
    funcs = {
        f"{c.name.value}.{s.name.value}" if c is not None else s.name.value: s
        for c, body in [(None, ctx.module.body)] + [(c, c.body.body) for c in ctx.module.body if isinstance(c, cst.ClassDef)]
        for s in body
        if isinstance(s, cst.FunctionDef)
    }
    per_step = {name for name, f in funcs.items() if ctx.semantic.calls.runs_per_step(f)}
    # Lightning calls training_step per batch; helper is called (as a method) only in a loop;
    # Plain.training_step is no framework's and has no caller; once is called outside a loop.
    assert per_step == {"Model.training_step", "Model.helper", "step"}


_VERSIONED = """\
from distutils.version import LooseVersion
import torch
from torch.autograd import Variable as V

IS_TORCH_04 = LooseVersion(torch.__version__) >= LooseVersion('0.4')


def create(x, volatile, requires_grad=False):
    if IS_TORCH_04: x = V(x, requires_grad=requires_grad)
    else:           x = V(x, requires_grad=requires_grad, volatile=volatile)
    return x


def make(x, volatile=False):
    return create(x, volatile=volatile)


def both(x, volatile=False):
    if IS_TORCH_04:
        return V(x, volatile=volatile)
    return V(x, volatile=volatile)
"""


@pytest.mark.parametrize(
    "func,modern,line",
    [
        ("create", False, 10),  # the 0.3 branch hands it on
        ("create", True, None),  # ... and nothing else does
        ("make", False, 10),
        ("make", True, None),  # through ``create``: still only the 0.3 branch
        ("both", True, 20),  # the branch that runs on 0.4 too
    ],
)
def test_forwarded_to_on_modern_torch(func, modern, line):
    ctx = context(_VERSIONED)
    found = ctx.semantic.calls.forwarded_to(
        _func(ctx, func), "volatile", "volatile", 2, frozenset({"torch.autograd.Variable"}), modern=modern
    )
    assert (ctx.tree.line(found) if found is not None else None) == line


# -- which calls run backward -----------------------------------------------------


def _last_call(ctx) -> cst.Call:
    """The call that is the file's last statement."""
    return ctx.module.body[-1].body[0].value


@pytest.mark.parametrize(
    "code,tensor,spelling",
    [
        ("loss.backward()\n", "loss", "`.backward()`"),
        ("loss.backward(retain_graph=True)\n", "loss", "`.backward()`"),
        ("scaler.scale(loss).backward()\n", "scaler.scale(loss)", "`.backward()`"),
        ("import torch\ntorch.autograd.backward(loss)\n", "loss", "`torch.autograd.backward`"),
        ("import torch\ntorch.autograd.backward(tensors=[loss])\n", "[loss]", "`torch.autograd.backward`"),
        ("from torch.autograd import backward\nbackward(loss)\n", "loss", "`torch.autograd.backward`"),
        ("import torch\ntorch.autograd.grad(loss, x)\n", "loss", "`torch.autograd.grad`"),
        ("from torch import autograd\nautograd.grad(outputs=loss, inputs=x)\n", "loss", "`torch.autograd.grad`"),
        ("from lightning.fabric import Fabric\nfabric = Fabric()\nfabric.backward(loss)\n", "loss", "`.backward()`"),
        ("from accelerate import Accelerator\nacc = Accelerator()\nacc.backward(loss)\n", "loss", "`.backward()`"),
        # backward of an object gradlint does not know: on the object itself
        ("trainer.backward(loss)\n", "trainer", "`.backward()`"),
    ],
)
def test_backward_call_spellings(code, tensor, spelling):
    ctx = context(code)
    found = ctx.semantic.calls.backward_call(_last_call(ctx))
    assert found is not None
    assert (ctx.code_for(found.tensor), found.spelling) == (tensor, spelling)
    assert ctx.semantic.calls.is_backward_call(_last_call(ctx))


def test_manual_backward_runs_backward_on_its_argument_in_a_lightning_module():
    code = (
        "import lightning as L\n"
        "class M(L.LightningModule):\n"
        "    def training_step(self, batch):\n"
        "        self.manual_backward(loss)\n"
    )
    ctx = context(code)
    call = next(n for n in ctx.tree.nodes_of(cst.Call) if isinstance(n.func, cst.Attribute))
    found = ctx.semantic.calls.backward_call(call)
    assert (ctx.code_for(found.tensor), found.spelling) == ("loss", "`.manual_backward()`")
    # in a class not known to be one, still a backward call, from a tensor not known
    ctx = context(code.replace("L.LightningModule", "Base"))
    call = next(n for n in ctx.tree.nodes_of(cst.Call) if isinstance(n.func, cst.Attribute))
    found = ctx.semantic.calls.backward_call(call)
    assert found is not None and found.tensor is None
    assert ctx.semantic.calls.is_backward_call(call)


@pytest.mark.parametrize(
    "code",
    [
        "loss.sum()\n",
        "model.grad(x)\n",  # not torch.autograd.grad
        "def backward(x):\n    pass\nbackward(loss)\n",  # a function of the file's own
        "grad(loss, x)\n",  # a name nothing binds to torch.autograd
    ],
)
def test_calls_that_run_no_backward(code):
    ctx = context(code)
    call = next(n for n in ctx.tree.nodes_of(cst.Call))
    assert ctx.semantic.calls.backward_call(call) is None
    assert not ctx.semantic.calls.is_backward_call(call)


def test_autograd_grad_accumulates_no_gradients():
    ctx = context("import torch\ntorch.autograd.grad(loss, x)\n")
    call = next(n for n in ctx.tree.nodes_of(cst.Call))
    assert ctx.semantic.calls.is_backward_call(call)
    assert not ctx.semantic.calls.is_backward_call(call, gradients=False)


def test_a_constant_argument_decides_the_branches_of_the_code_a_call_runs():
    import libcst as cst

    from gradlint.semantic import branches

    module = cst.parse_module(
        "def f(self, x, backward=True, *, log=None, n=0):\n"
        "    if backward:\n"
        "        a()\n"
        "    elif not log:\n"
        "        b()\n"
        "    else:\n"
        "        c()\n"
        "    for i in range(n):\n"
        "        if n:\n"
        "            d()\n"
        "    return x\n"
        "def g(flag=False):\n"
        "    flag = flag or h()\n"
        "    if flag:\n"
        "        e()\n"
    )
    f, g = module.body

    def called(func, call, method=True):
        constants = branches.constant_params(func, cst.parse_expression(call), method)
        live = [n for node in branches.live_code(func.body, constants) for n in cst_walk(node)]
        return constants, sorted(n.func.value for n in live if isinstance(n, cst.Call) and isinstance(n.func, cst.Name) and len(n.func.value) == 1)

    def cst_walk(node):
        from gradlint.semantic.tree import walk

        return walk(node)

    assert called(f, "self.f(x, backward=False)") == ({"backward": False, "log": None, "n": 0}, ["b"])
    assert called(f, "self.f(x, False, log='a', n=2)") == ({"backward": False, "log": "a", "n": 2}, ["c", "d"])
    assert called(f, "self.f(x)") == ({"backward": True, "log": None, "n": 0}, ["a"])
    # a value that is no literal, or star-arguments that may pass anything, decide nothing
    assert called(f, "self.f(x, flag, log=y, n=m)")[1] == ["a", "b", "c", "d"]
    assert called(f, "self.f(*args)")[0] == {}
    # a parameter the body rebinds is not the constant it was given
    assert called(g, "g(False)", method=False) == ({}, ["e", "h"])


def test_a_constant_string_argument_decides_comparisons_with_strings():
    import libcst as cst

    from gradlint.semantic import branches

    (f,) = cst.parse_module(
        "def step(self, batch, mode='train', k=1):\n"
        "    if mode == 'train':\n"
        "        a()\n"
        "    if mode != 'eval' and k:\n"
        "        b()\n"
        "    if mode in ('eval', 'test') or k:\n"
        "        c()\n"
        "    if mode not in ['train']:\n"
        "        d()\n"
        "    if k == 1:\n"
        "        e()\n"
    ).body

    def live(call):
        constants = branches.constant_params(f, cst.parse_expression(call), True)
        from gradlint.semantic.tree import walk

        nodes = [n for node in branches.live_code(f.body, constants) for n in walk(node)]
        return sorted(n.func.value for n in nodes if isinstance(n, cst.Call) and isinstance(n.func, cst.Name))

    assert live("self.step(b, mode='eval')") == ["c", "d", "e"]
    assert live("self.step(b)") == ["a", "b", "c", "e"]
    assert live("self.step(b, 'test', k=0)") == ["c", "d", "e"]  # ``mode != 'eval' and k``: k is 0
    # a mode that is no literal decides nothing; numbers are not compared (``k == 1`` stays)
    assert live("self.step(b, mode)") == ["a", "b", "c", "d", "e"]


@pytest.mark.parametrize(
    "call,expected",
    [
        ("loss.backward()", True),
        ("self.manual_backward(loss)", True),
        ("fabric.backward(loss)", True),
        ("torch.autograd.grad(loss, x)", True),
        ("ag.grad(loss, x)", True),  # ``import torch.autograd as ag``: by its qualified name
        ("grad(loss, x)", True),  # ``from torch.autograd import grad``
        ("torch.func.grad(f)", True),  # by the name alone
        ("optimizer.zero_grad()", True),
        ("trainer.fit(model)", True),
        ("optimizer.step()", True),
        ("optimizer.step(closure)", True),
        ("opt_g.step(closure)", True),
        ("env.step(action)", False),  # an environment's step, not an optimizer's
        ("scheduler.step(val_loss)", False),
        ("model.train()", False),
        ("model(x)", False),
        ("print(loss.item())", False),
    ],
)
def test_may_train(call, expected):
    ctx = context("import torch\nimport torch.autograd as ag\nfrom torch.autograd import grad\n\n" + call + "\n")
    (node,) = [n for n in ctx.module.body[-1].body if isinstance(n, cst.Expr)]
    assert ctx.semantic.calls.may_train(node.value) is expected


@pytest.mark.parametrize(
    "main,expected",
    [
        ('if __name__ == "__main__":\n    fire.Fire(run)\n', True),
        ("fire.Fire(run)\n", True),  # a module that is only the command
        ('if __name__ == "__main__":\n    fire.Fire(run)\n    train()\n', False),  # work follows
        ('if __name__ == "__main__":\n    fire.Fire(component=run)\n', False),  # not the first argument
        ('if __name__ == "__main__":\n    run(parse())\n    fire.Fire(run)\n', False),  # also called
        ('if __name__ == "__main__":\n    other.Fire(run)\n', False),  # not Python Fire
    ],
)
def test_is_fire_command(main, expected):
    ctx = context("import fire\n\n\ndef run(path):\n    pass\n\n\n" + main)
    assert ctx.semantic.calls.is_fire_command(_func(ctx, "run")) is expected
