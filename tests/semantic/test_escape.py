"""Where a value goes (``gradlint.semantic.escape``).

``# routes y: return self`` marks the line where ``y`` is bound: the kinds of
the routes by which what ``y`` holds leaves its function (sorted, each once),
or ``none``. ``maybe:call`` is a route that may or may not keep the value.
"""

from __future__ import annotations

import libcst as cst
import pytest
from marks import context, each, facts, node_on, statement_on

from gradlint.semantic.tree import walk


def _routes(ctx, fact):
    name = node_on(ctx, fact.line, fact.subject, cst.Name)
    routes = ctx.semantic.escape.routes(name)
    kinds = sorted({r.kind if r.certain else f"maybe:{r.kind}" for r in routes})
    return " ".join(kinds) or "none"


ROUTES = {
    "backward and autograd.grad": """\
        import torch
        def f(model, x):
            loss = model(x).sum()  # routes loss: backward
            loss.backward()
            out = model(x)  # routes out: backward
            torch.autograd.grad(out.sum(), [x])
        """,
    "a helper that backpropagates its argument": """\
        def update(opt, loss):
            opt.zero_grad()
            loss.backward()
            opt.step()
        def train(model, opt, x):
            loss = model(x).sum()  # routes loss: helper
            update(opt, loss)
        class Trainer:
            def step(self, loss):
                scaled = loss * 2
                scaled.backward()
            def run(self, model, x):
                out = model(x)  # routes out: helper
                self.step(out.mean())
        """,
    "a framework's backward of its argument": """\
        import lightning as L
        from accelerate import Accelerator
        def train(fabric: L.Fabric, model, x):
            loss = model(x).sum()  # routes loss: backward
            fabric.backward(loss)
        def main(model, x, y):
            fabric = L.Fabric(accelerator="cpu")
            total = model(x).sum()  # routes total: backward
            fabric.backward(total)
            grad_out = model(y).sum()  # routes grad_out: backward maybe:call
            grad_out.backward(torch.ones_like(grad_out))
        class Net:
            def __init__(self):
                self.accelerator = Accelerator()
            def step(self, model, x):
                loss = model(x).mean()  # routes loss: backward
                self.accelerator.backward(loss)
        class Lit(L.LightningModule):
            def training_step(self, batch, i):
                loss = self(batch).sum()  # routes loss: backward
                self.manual_backward(loss)
        """,
    "a backward method of an object that is no framework's": """\
        def train(runner, model, x):
            # `runner` is not shown to be a tensor: it may be a driver that runs
            # backward on its argument (`accelerator.backward(loss)`), so the loss
            # counts as backpropagated, and nothing is reported as kept for nothing
            loss = model(x).sum()  # routes loss: backward
            runner.backward(loss)
        def step(model, x, gradient):
            # a tensor's own backward: its argument is the gradient given
            out = model(x)  # routes out: backward
            out.backward(gradient)
        class Plain:
            def training_step(self, batch):
                loss = self.net(batch).sum()  # routes loss: maybe:call
                self.manual_backward(loss)
        """,
    "return and yield": """\
        def f(model, x):
            out = model(x)  # routes out: return
            y = out * 2
            return y
        def g(model, xs):
            for x in xs:
                out = model(x)  # routes out: yield
                yield out
        """,
    "stores on self": """\
        class M:
            def f(self, x):
                out = self.net(x)  # routes out: self
                self.last = out
                h = self.net(x)  # routes h: self
                self.history.append(h)
                b = self.net(x)  # routes b: self
                self.buf.copy_(b)
        """,
    "globals and outer containers": """\
        cache = []
        def f(model, x, outs, table, acc):
            global last
            a = model(x)  # routes a: global
            last = a
            b = model(x)  # routes b: global
            cache.append(b)
            c = model(x)  # routes c: outer
            outs.append(c)
            d = model(x)  # routes d: outer
            table[0] = d
            e = model(x)  # routes e: outer
            acc += [e]
            g = model(x)  # routes g: global
            cache.setdefault("g", []).append(g)
            t = model(x)  # routes t: outer
            table.setdefault(0, []).append(t)
        """,
    "closures and callbacks": """\
        def f(model, x, register):
            out = model(x)  # routes out: closure
            register(lambda: out.sum())
            h = model(x)  # routes h: closure
            def hook(grad):
                return grad * h
        """,
    "raise": """\
        def f(model, x):
            out = model(x)  # routes out: raise
            raise ValueError(out)
        """,
    "unknown callees may keep it": """\
        import torch
        def f(model, x, logger):
            out = model(x)  # routes out: maybe:call
            logger.log(out)
            kept = model(x)  # routes kept: none
            print(len(kept), torch.stack([kept]).shape)
        """,
    "values without a graph go nowhere that matters": """\
        def f(model, x, outs):
            out = model(x)  # routes out: none
            acc = out.argmax(1).item()
            outs.append(acc)
            return float(out.sum())
        """,
    "local aliases of holders the function does not own": """\
        OUT = []
        class E:
            def f(self, x, store, make):
                kept = self.kept
                a = self.net(x)  # routes a: self
                kept.append(a)
                first = self.kept
                second = first
                b = self.net(x)  # routes b: self
                second.append(b)
                d = store
                c = self.net(x)  # routes c: outer
                d[0] = c
                g = OUT
                e = self.net(x)  # routes e: global
                g.append(e)
                item = self.named.get("val")
                h = self.net(x)  # routes h: self
                item.append(h)
                for buf in self.bufs:
                    i = self.net(x)  # routes i: self
                    buf.append(i)
                made = make()
                j = self.net(x)  # routes j: maybe:holder
                made.append(j)
                fresh = list()
                k = self.net(x)  # routes k: none
                fresh.append(k)
        """,
    "holders chosen by name at run time": """\
        class E:
            def f(self, x, stage, other):
                a = self.net(x)  # routes a: self
                getattr(self, f"{stage}_outputs").append(a)
                b = self.net(x)  # routes b: self
                vars(self)[stage] = b
                c = self.net(x)  # routes c: maybe:holder
                getattr(other, stage).append(c)
                d = self.net(x)  # routes d: global
                globals()[stage] = d
        """,
    "locals stay": """\
        def f(model, x):
            out = model(x)  # routes out: none
            total = out.sum()
            local = []
            local.append(total)
        """,
}


@pytest.mark.parametrize("name", sorted(ROUTES))
def test_routes(name):
    for ctx, fact in each(ROUTES[name], "routes"):
        assert _routes(ctx, fact) == fact.expected, (name, fact.line)


def test_routes_of_the_values_of_expressions():
    """What a fix that puts some statements under no_grad asks: where do the values
    of the forward calls made there go?"""
    ctx = context(
        """\
        def evaluate(model, x, y):
            preds = model(x)
            acc = (preds.argmax(1) == y).float().mean().item()
            logits = model(y)
            return acc, logits
        """
    )
    func = ctx.module.body[0]
    calls = [n for n in walk(func) if isinstance(n, cst.Call) and ctx.code_for(n.func) == "model"]
    flows = ctx.semantic.escape.flows(func)
    assert [r.kind for r in flows.routes_of_nodes(calls[:1], ctx.tree)] == []
    assert [r.kind for r in flows.routes_of_nodes(calls[1:], ctx.tree)] == ["return"]


def test_an_index_keeps_none_of_its_graph():
    """``tags[out[i].argmax()]`` is an element of ``tags``: stored into a parameter or
    returned, it takes no graph of ``out`` along; ``out[i]`` itself does."""
    ctx = context(
        """\
        def classify(model, tags, data, x):
            out = model(x)
            for i in range(len(data)):
                data[i] = (data[i][0], tags[out[i].argmax()])
            return tags[out.max(1)[1][0]]

        def keep(model, data, x):
            out = model(x)
            data[0] = out[0]
            return data
        """
    )
    for func, expected in zip(ctx.module.body, ([], ["outer", "return"])):
        calls = [n for n in walk(func) if isinstance(n, cst.Call) and ctx.code_for(n.func) == "model"]
        flows = ctx.semantic.escape.flows(func)
        assert [r.kind for r in flows.routes_of_nodes(calls, ctx.tree, frozenset({"return", "outer"}))] == expected


def test_sources_of_what_a_name_holds():
    ctx = context(
        """\
        def clip(netD, real, fake):
            gap = netD(fake).mean() - netD(real).mean()
            for p in netD.parameters():
                w = p
                w.data.clamp_(-0.01, 0.01)
            n = len(real)
        """
    )
    flows = ctx.semantic.escape.flows(ctx.module.body[0])
    assert {"w", "p", "netD"} <= flows.sources_of(["w"])
    assert "gap" not in flows.sources_of(["w"])
    assert flows.sources_of(["n"]) == {"n"}  # a number: no edge, whatever it was computed from


def test_yield_from():
    ctx = context(
        """\
        def f(model, xs):
            outs = [model(x) for x in xs]  # routes outs: yield
            yield from outs
        """
    )
    for fact in facts(ctx, "routes"):
        assert _routes(ctx, fact) == fact.expected


def test_routes_do_not_depend_on_the_grad_mode_callers_give():
    """A helper called only under no_grad computes values without history there,
    but where its values go is the same question."""
    ctx = context(
        """\
        import torch
        def helper(model, x):
            outs = []  # routes outs: return
            outs.append(model(x))
            return torch.cat(outs)
        @torch.no_grad()
        def run(model, x):
            return helper(model, x)
        """
    )
    for fact in facts(ctx, "routes"):
        assert _routes(ctx, fact) == fact.expected


def _leaving(ctx, fact):
    func = statement_on(ctx, fact.line)
    routes = ctx.semantic.escape.leaving(func)
    return " ".join(sorted({r.kind if r.certain else f"maybe:{r.kind}" for r in routes})) or "none"


LEAVING = {
    "numbers, indices and what torch and modules make stay": """\
        import torch
        from torch import nn
        net = nn.Linear(4, 2)
        def f(x):  # leaving: none
            out = net(x)
            print(float(out.sum()), torch.softmax(out, -1).argmax(1).tolist())
            return out.argmax(1)
        def g(model, batches):  # leaving: none
            total, n = 0.0, 0
            for x in batches:
                total += model(x).sum().item()
                n += 1
            return total / n, n
        """,
    "every way out of the function": """\
        cache = []
        def ret(model, x):  # leaving: return
            return model(x)
        def stored(model, x, holder):  # leaving: outer
            holder.out = model(x)
        def glob(model, x):  # leaving: global
            cache.append(model(x))
        def raised(model, x):  # leaving: raise
            raise ValueError(model(x))
        def closure(model, x):  # leaving: closure
            out = model(x)
            return lambda: out.sum()
        def declared(model, x):  # leaving: global
            global last
            print(model(x).sum().item())
        """,
    "a callee that may keep its argument": """\
        from torch import nn
        def keep(t):
            kept.append(t)
        def show(t):
            print(t.sum().item())
        def f(model, x, logger):  # leaving: maybe:call
            logger.log(model(x))
        def g(model, x):  # leaving: maybe:call
            keep(model(x))
        def h(model, x):  # leaving: none
            show(model(x))
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.body = nn.Linear(4, 4)
                self.history = []
            def log(self, name, value):
                self.history.append(value)
            def logged(self, x):  # leaving: maybe:call
                self.log("features", self.body(x))
            def forwarded(self, x):  # leaving: none
                print(self.body(self.body(x)).sum().item())
        """,
    "a parameter called like a model is one unless its callers say otherwise": """\
        from torch import nn
        net = nn.Linear(4, 2)
        def step(batch):
            return net(batch).sum()
        def by_module(model, x):  # leaving: none
            print(model(x.clone()).sum().item())
        def by_step(model, x):  # leaving: maybe:call
            print(model(x.clone()).sum().item())
        def as_callback(model, x):  # leaving: maybe:call
            print(model(x.clone()).sum().item())
        def nobody_calls(model, x):  # leaving: none
            print(model(x.clone()).sum().item())
        def run(x, callbacks):
            by_module(net, x)
            by_step(step, x)
            callbacks.append(as_callback)
        """,
}


@pytest.mark.parametrize("name", sorted(LEAVING))
def test_leaving(name):
    for ctx, fact in each(LEAVING[name], "leaving"):
        assert _leaving(ctx, fact) == fact.expected, (name, fact.line)


@pytest.mark.parametrize(
    "use,expected",
    [
        ("print(out.sum().item())\n", []),
        # a function that reads the name captures it too
        ("holder.cache = out\ndef later():\n    return holder.cache\n", ["closure", "global"]),
        ("sink.append(out)\ndef later():\n    return sink\n", ["closure", "global"]),
        ("buf.copy_(out)\nclass Later:\n    kept = buf\n", ["global"]),
        ("backprop(out)\n", ["helper"]),
        ("sink.append(out)\nclass Later:\n    def f(self, sink):\n        return sink\n", []),  # a parameter of its own
        # stored through a module-level alias: in the list the function reads
        ("kept = sink\nkept.append(out)\ndef later():\n    return sink\n", ["closure", "global"]),
        ("kept = sink\nkept[0] = out\ndef later():\n    return sink\n", ["closure", "global"]),
    ],
)
def test_module_results_leave(use, expected):
    """Calls made at module level: their values stay in the module's names, which
    code that runs later (functions, classes) may read."""
    ctx = context(
        "from torch import nn, randn, zeros\nmodel = nn.Linear(4, 2)\nsink, buf = [], zeros(3, 2)\n"
        "def backprop(t):\n    t.sum().backward()\n"
        "out = model(randn(3, 4))\n" + use
    )
    seeds = [n for n in walk(ctx.module, into_functions=True) if isinstance(n, cst.Call) and ctx.code_for(n) == "model(randn(3, 4))"]
    assert sorted(r.kind for r in ctx.semantic.escape.module_results_leave(seeds)) == expected


def test_values_accumulated_across_the_iterations_of_a_loop():
    """Whether graphs made in a loop pile up: what a unit test's loop of forwards asks."""
    ctx = context(
        """\
        def f(model, batches, x):
            outs, total, by_key = [], 0, {}
            for b in batches:
                out = model(b)
                assert out.shape[0] == len(b)
            for b in batches:
                outs.append(model(b).softmax(-1))
            for b in batches:
                total += model(b).sum()
            for i, b in enumerate(batches):
                h = model(b)
                by_key[i] = h * 2
            for b in batches:
                n = model(b).argmax(1).sum().item()
                total += n
            return outs, total, by_key
        """
    )
    func = ctx.module.body[0]
    loops = [n for n in func.body.body if isinstance(n, cst.For)]
    flows = ctx.semantic.escape.flows(func)
    found = []
    for loop in loops:
        calls = [n for n in walk(loop.body) if isinstance(n, cst.Call) and ctx.code_for(n.func) == "model"]
        found.append(flows.accumulates(calls, ctx.tree, loop))
    assert found == [False, True, True, True, False]
