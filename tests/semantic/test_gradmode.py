"""The grad mode at a node (``gradlint.semantic.gradmode``).

``# mode: off`` marks the statement on its line: gradients are off when it
runs (``on``: on; ``unknown``: decided at run time). ``# computed y: off``
marks a read of ``y``: the mode its value was computed in.
"""

from __future__ import annotations

import asyncio

import libcst as cst
import pytest
from marks import each, read_on, statement_on

from gradlint.semantic.tree import walk

_MODES = {True: "off", False: "on", None: "unknown"}

MODES = {
    "with guards": """\
        import torch
        x = 1  # mode: on
        with torch.no_grad():
            y = 2  # mode: off
            with torch.enable_grad():
                z = 3  # mode: on
        with torch.inference_mode(False):
            w = 4  # mode: on
        with torch.set_grad_enabled(flag):
            v = 5  # mode: unknown
        """,
    "a framework's autocast is a precision context, not a grad mode": """\
        import torch
        import lightning as L
        fabric = L.Fabric(precision="bf16-mixed")
        with fabric.autocast():
            y = 2  # mode: on
        with torch.no_grad(), fabric.autocast():
            z = 3  # mode: off
        """,
    "decorators": """\
        import torch
        @torch.no_grad()
        def f():
            x = 1  # mode: off
        @torch.inference_mode
        def g():
            x = 1  # mode: off
        """,
    "a decorator on an async def covers none of its body": """\
        import torch
        @torch.no_grad()
        async def f():
            x = 1  # mode: on
            with torch.no_grad():
                await g()  # mode: off
        """,
    "set_grad_enabled statements": """\
        import torch
        def f(flag):
            a = 0  # mode: on
            torch.set_grad_enabled(False)
            b = 1  # mode: off
            torch.set_grad_enabled(flag)
            c = 2  # mode: unknown
        """,
    "a switch inside an if makes the mode unknown": """\
        import torch
        def f(c):
            if c:
                torch.set_grad_enabled(False)
            x = 1  # mode: unknown
        """,
    "a try/except fallback": """\
        import torch
        try:
            ctx = torch.inference_mode()
        except AttributeError:
            ctx = torch.no_grad()
        with ctx:
            x = 1  # mode: off
        """,
    "a guard chosen at run time": """\
        import torch
        ctx = torch.no_grad() if c else torch.enable_grad()
        with ctx:
            x = 1  # mode: unknown
        with torch.no_grad() if evaluating else contextlib.nullcontext():
            y = 2  # mode: unknown
        with make_context():
            z = 3  # mode: on
        """,
    "a module-wide switch": """\
        import torch
        torch.set_grad_enabled(False)
        def f():
            x = 1  # mode: off
        """,
    "every call site under no_grad": """\
        import torch
        class Pipe:
            @torch.no_grad()
            def __call__(self, x):
                return self.helper(x)
            def helper(self, x):
                return x  # mode: off
        def train(x):
            return x  # mode: on
        with torch.no_grad():
            train(1)
        train(2)
        """,
    "a function wrapped after the fact": """\
        import torch
        def evaluate(m):
            x = m  # mode: off
        evaluate = torch.no_grad()(evaluate)
        """,
    "Lightning hooks": """\
        import pytorch_lightning as pl
        class M(pl.LightningModule):
            def training_step(self, batch, i):
                x = 1  # mode: on
            def validation_step(self, batch, i):
                x = 1  # mode: off
            def on_test_batch_end(self, *a):
                x = 1  # mode: off
        class CB(pl.Callback):
            def on_validation_batch_end(self, *a):
                x = 1  # mode: off
            def on_train_batch_end(self, *a):
                x = 1  # mode: on
        """,
    "Hugging Face pipelines and trainers": """\
        from transformers import Pipeline, Trainer
        class P(Pipeline):
            def _forward(self, inputs):
                x = 1  # mode: off
            def preprocess(self, inputs):
                x = 1  # mode: on
        class T(Trainer):
            def prediction_step(self, model, inputs, only):
                x = 1  # mode: off
            def compute_loss(self, model, inputs):
                x = 1  # mode: on
        """,
    "Stable-Baselines3 policies": """        from stable_baselines3.common.policies import BasePolicy
        class QNet(BasePolicy):
            def _predict(self, observation, deterministic=True):
                x = 1  # mode: off
            def forward(self, obs):
                x = 1  # mode: on
        """,
}


@pytest.mark.parametrize("name", sorted(MODES))
def test_mode_at(name):
    for ctx, fact in each(MODES[name], "mode"):
        mode = ctx.semantic.gradmode.mode_at(statement_on(ctx, fact.line))
        assert _MODES[mode.disabled] == fact.expected, (name, fact.line)


COMPUTED = {
    "computed under no_grad, used later": """\
        import torch
        with torch.no_grad():
            y = model(x)
        print(y)  # computed y: off
        """,
    "one path under no_grad, one not": """\
        import torch
        y = model(x)
        if c:
            with torch.no_grad():
                y = model(x)
        print(y)  # computed y: unknown
        """,
    "recomputed with gradients": """\
        import torch
        with torch.no_grad():
            y = model(x)
        y = model(x)
        print(y)  # computed y: on
        """,
}


@pytest.mark.parametrize("name", sorted(COMPUTED))
def test_computed_under(name):
    for ctx, fact in each(COMPUTED[name], "computed"):
        use = read_on(ctx, fact.line, fact.subject)
        mode = ctx.semantic.gradmode.computed_under(use, use)
        assert _MODES[mode.disabled] == fact.expected, (name, fact.line)


def test_an_async_def_decorated_with_no_grad_runs_with_gradients():
    """What ``gradmode`` encodes, measured on the installed torch."""
    torch = pytest.importorskip("torch")

    @torch.no_grad()
    async def decorated():
        before = torch.is_grad_enabled()
        await asyncio.sleep(0)
        return before, torch.is_grad_enabled()

    @torch.inference_mode()
    async def inference():
        return torch.is_inference_mode_enabled(), torch.is_grad_enabled()

    assert asyncio.run(decorated()) == (True, True)
    assert asyncio.run(inference()) == (False, True)


def test_a_framework_backward_needs_gradients():
    from marks import context

    ctx = context(
        """\
        import lightning as L
        class Lit(L.LightningModule):
            def training_step(self, batch, i):
                self.manual_backward(self(batch).sum())
            def validation_step(self, batch, i):
                self.log("x", self(batch).sum())
        def train(fabric, model, x):
            fabric.backward(model(x).sum())
        """
    )
    funcs = [n for n in ctx.module.body[1].body.body] + [ctx.module.body[2]]
    assert [ctx.semantic.gradmode.needs_gradients(f.body) for f in funcs] == [True, False, True]


def test_may_compute_gradients_follows_same_file_callees():
    """``# computes: yes`` marks a ``def`` that may compute gradients when run: in its
    body, through a function of this file, or by calling a parameter its callers
    bind to something other than a module (a training step)."""
    code = """\
        import torch
        from torch import nn
        net = nn.Linear(4, 1)
        def train_step(batch):  # computes: yes
            net(batch).sum().backward()
        def indirect(batch):  # computes: yes
            train_step(batch)
        def predict(batch):  # computes: no
            return net(batch)
        def on_batch(model, batch):  # computes: yes
            print(model(batch))
        def evaluate(model, batch):  # computes: no
            print(model(batch))
        class Step(nn.Module):
            def forward(self, batch):  # computes: yes
                train_step(batch)
        def wrapped(model, batch):  # computes: yes
            print(model(batch))
        def direct(batch):  # computes: yes
            print(Step()(batch))
        def run(batch):
            on_batch(train_step, batch)
            evaluate(net, batch)
            wrapped(Step(), batch)
        """
    for ctx, fact in each(code, "computes"):
        func = statement_on(ctx, fact.line)
        assert ("yes" if ctx.semantic.gradmode.may_compute_gradients(func) else "no") == fact.expected, fact


def test_calls_of_methods_of_the_files_classes_that_train():
    """``# trains: yes`` marks a call whose callee (a method of a class of the file,
    known by its receiver, else by its name) may train: run backward, step an
    optimizer, call ``.train()`` or switch gradients on, itself or through what it
    calls. ``# computes: yes`` marks a ``def`` that may compute gradients, now
    through such methods too."""
    code = """\
        from typing import Optional
        import torch
        from torch import nn
        class Base:
            def __init__(self, model, opt):
                self.model, self.opt = model, opt
            def adapt(self, x):
                loss = self.model(x).sum()
                loss.backward()
                self.opt.step()
            def refresh(self, x):
                self.adapt(x)
            def unfreeze(self):
                self.model.train()
            def grad_on(self):
                torch.set_grad_enabled(True)
            def report(self, x):
                print(self.model(x))
        class Adapter(Base):
            pass
        class Other:
            def report(self, x):
                self.helper.adapt(x)
        def built(model, opt, x):  # computes: yes
            adapter = Adapter(model, opt)
            adapter.adapt(x)  # trains: yes
            adapter.refresh(x)  # trains: yes
            adapter.unfreeze()  # trains: yes
            adapter.grad_on()  # trains: yes
            adapter.report(x)  # trains: no
            model.train()  # trains: no
        def annotated(a: Adapter, b: "Adapter", c: Optional[Adapter], d: Adapter | None, x):  # computes: yes
            a.adapt(x)  # trains: yes
            b.adapt(x)  # trains: yes
            c.adapt(x)  # trains: yes
            d.report(x)  # trains: no
        def unknown(thing, x):  # computes: yes
            thing.adapt(x)  # trains: yes
            thing.report(x)  # trains: yes
            thing.summary(x)  # trains: no
        class Evaluator:
            def __init__(self, model, opt):
                self.adapter = Adapter(model, opt)
            def evaluate(self, x):  # computes: yes
                self.adapter.adapt(x)  # trains: yes
                self.adapter.report(x)  # trains: no
        """
    for ctx, fact in each(code, "computes"):
        func = statement_on(ctx, fact.line)
        assert ("yes" if ctx.semantic.gradmode.may_compute_gradients(func) else "no") == fact.expected, fact
    for ctx, fact in each(code, "trains"):
        call = next(n for n in walk(statement_on(ctx, fact.line)) if isinstance(n, cst.Call))
        assert ("yes" if ctx.semantic.gradmode.call_may_train(call) else "no") == fact.expected, fact


def test_super_calls_run_the_bases_method():
    code = """\
        class Base:
            def f(self, x):
                return x
        class Net(Base):
            def f(self, x):
                super().f(x)  # trains: no
                x.sum().backward()
        class Trainer(Base):
            def f(self, x):
                x.sum().backward()
        class Tuned(Trainer):
            def f(self, x):
                super().f(x)  # trains: yes
        """
    for ctx, fact in each(code, "trains"):
        call = next(n for n in walk(statement_on(ctx, fact.line)) if isinstance(n, cst.Call))
        assert ("yes" if ctx.semantic.gradmode.call_may_train(call) else "no") == fact.expected, fact


def test_callers_keep_grad_off():
    """``# off: yes`` marks a ``def`` every caller of which, proven so in the file,
    runs it with grad already off; a method counts only through a call proven to
    reach it (``env.step(...)`` on an untyped ``env`` is not one), though its
    callers' modes count every call of its name."""
    code = """\
        import torch
        class Env:
            def _torques(self, a):  # off: yes
                return a
            def _observe(self):  # off: no
                return self.sim.read()
            def step(self, a):  # off: no
                self.t = self._torques(a)
            def reset(self):  # off: no
                return self.sim.reset()
        def clip(x):  # off: no
            return x.clamp(-1, 1)
        def post(x):  # off: yes
            return x
        def unused(x):  # off: no
            return x
        def rollout(env, policy):
            with torch.inference_mode():
                env.step(policy(env.obs))
                clip(env.obs)
                env.sim.reset()
            torch.set_grad_enabled(False)
            post(env.obs)
        def train(env, policy):
            env.sim.read()
            clip(policy(env.obs)).sum().backward()
        """
    for ctx, fact in each(code, "off"):
        func = statement_on(ctx, fact.line)
        assert ("yes" if ctx.semantic.gradmode.callers_keep_grad_off(func) else "no") == fact.expected, fact
