"""GL101/GL001 guard fixes around code whose effects or outputs reach training.

Two families of shapes, each run under torch as written and after ``check --fix``:

- *trainer*: the guarded code calls a method of a class of the file that trains
  (a test-time adapter's ``adapter.adapt(x)`` runs backward and steps an optimizer,
  or asks ``torch.autograd.grad``, or switches gradients back on). The instance is
  built in the function, held on ``self``, or a parameter annotated with the class
  (plainly, as a string, ``Optional[...]``), or not annotated at all; the method may
  be inherited, or reach the training through a helper.
- *holder*: the guarded forwards' outputs are kept where a later ``backward()``
  finds them: a local alias of a holder on ``self``, of a global or of a parameter,
  a ``global`` name, a dict or list parameter, a holder chosen by name at run time
  (``getattr(self, f"{stage}_outputs")``, ``vars(self)[...]``), a forward hook that
  keeps the module's output. The backward runs in the caller, in a method of the
  class, or in a helper.

A safe fix must change nothing any of them does.
"""

from __future__ import annotations

from typing import Dict, Iterator, Tuple

from oracle.runner import Program

# -- trainer: a method of the file's classes trains ------------------------------------

# The body of ``adapt(self, x)``: what it does to train.
EFFECTS: Dict[str, str] = {
    "backward-step": """\
        loss = self.model(x).pow(2).mean()
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
""",
    "through-helper": """\
        self._update(self.model(x).pow(2).mean())
""",
    "autograd-grad": """\
        (g,) = torch.autograd.grad(self.model(x).pow(2).mean(), self.model.weight)
        with torch.no_grad():
            self.model.weight.sub_(0.1 * g)
""",
    "module-step": """\
        sgd_step(self.model(x).pow(2).mean(), self.opt)
""",
    "grad-on": """\
        torch.set_grad_enabled(True)
        loss = self.model(x).pow(2).mean()
        loss.backward()
        self.opt.step()
""",
}

TRAINER_CLASSES = """\
def sgd_step(loss, opt):
    opt.zero_grad()
    loss.backward()
    opt.step()


class {base}:
    def __init__(self, model, opt):
        self.model = model
        self.opt = opt
        self.batch = randn(3, 4)

    def refresh(self):
        self.adapt(self.batch)

    def _update(self, loss):
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()

    def adapt(self, x):
{effect}
{sub}
"""

# How the guarded code knows the adapter: (signature of ``evaluate``, its first
# statement, the receiver of ``.adapt``, what ``run`` passes).
KNOWN_BY: Dict[str, Tuple[str, str, str, str]] = {
    "built": ("model, opt, batches", "adapter = Adapter(model, opt)", "adapter", "model, opt, batches"),
    "annotated": ("model, adapter: Adapter, batches", "pass", "adapter", "model, Adapter(model, opt), batches"),
    "string-annotated": ('model, adapter: "Adapter", batches', "pass", "adapter", "model, Adapter(model, opt), batches"),
    "optional": ("model, adapter: Optional[Adapter], batches", "pass", "adapter", "model, Adapter(model, opt), batches"),
    "unannotated": ("model, adapter, batches", "pass", "adapter", "model, Adapter(model, opt), batches"),
    "self-attribute": ("model, batches", "pass", "self.adapter", "model, batches"),
}

TRAINER_HEAD = """\
from typing import Optional

import torch
from torch import nn, randn
{variable}

{classes}
"""


def _trainer_classes(effect: str, inherited: bool) -> str:
    body = EFFECTS[effect]
    if inherited:
        return TRAINER_CLASSES.format(base="BaseAdapter", effect=body, sub="\nclass Adapter(BaseAdapter):\n    pass\n")
    return TRAINER_CLASSES.format(base="Adapter", effect=body, sub="")


def _gl101_trainer(known: str, effect: str, inherited: bool) -> str:
    sig, first, receiver, passed = KNOWN_BY[known]
    head = TRAINER_HEAD.format(variable="", classes=_trainer_classes(effect, inherited))
    loop = f"""\
    {first}
    model.eval()
    outs = []
    for x in batches:
        {receiver}.adapt(x)
        out = model(x)
        outs.append(round(float(out.sum()), 5))
    return outs
"""
    return _trainer_program(head, known, sig, passed, loop)


def _gl001_trainer(known: str, effect: str, inherited: bool) -> str:
    sig, first, receiver, passed = KNOWN_BY[known]
    head = TRAINER_HEAD.format(variable="from torch.autograd import Variable\n", classes=_trainer_classes(effect, inherited))
    body = f"""\
    {first}
    outs = []
    for x in batches:
        {receiver}.refresh()
        out = model(Variable(x, volatile=True))
        outs.append(round(float(out.sum()), 5))
    print(outs)
"""
    return _trainer_program(head, known, sig, passed, body)


def _trainer_program(head: str, known: str, sig: str, passed: str, body: str) -> str:
    """``body`` as the evaluation function (a method of an ``Evaluator`` that holds the
    adapter, for ``self-attribute``) and a ``run()`` that calls it once."""
    if known == "self-attribute":
        return head + f"""
class Evaluator:
    def __init__(self, model, opt):
        self.adapter = Adapter(model, opt)

    def evaluate(self, {sig}):
{_indent(body)}

def run():
    model = nn.Linear(4, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    batches = [randn(3, 4) for _ in range(3)]
    print(Evaluator(model, opt).evaluate({passed}))
    return model.weight
"""
    return head + f"""
def evaluate({sig}):
{body}

def run():
    model = nn.Linear(4, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    batches = [randn(3, 4) for _ in range(3)]
    print(evaluate({passed}))
    return model.weight
"""


def _indent(text: str) -> str:
    return "".join("    " + line if line.strip() else line for line in text.splitlines(True))


def trainer_family() -> Iterator[Program]:
    for known in KNOWN_BY:
        for effect in EFFECTS:
            for inherited in (False, True):
                where = "inherited" if inherited else "own"
                family = f"trainer known={known} effect={effect} method={where}"
                yield Program(f"gl101-trainer-{known}-{effect}-{where}", "GL101", family, _gl101_trainer(known, effect, inherited))
                yield Program(f"gl001-trainer-{known}-{effect}-{where}", "GL001", family, _gl001_trainer(known, effect, inherited))


# -- holder: the outputs are kept where a later backward finds them --------------------

# Class-based holders: (statements before the loop, the statement in it that keeps
# ``self.model(x)``, the kept tensors as an expression of ``{o}``: the evaluator).
CLASS_HOLDERS: Dict[str, Tuple[str, str, str]] = {
    "self-alias": ("kept = self.kept", "kept.append(self.model(x))", "{o}.kept"),
    "self-alias-item": ("kept = self.store", "kept[i] = self.model(x)", "list({o}.store.values())"),
    "self-alias-chain": ("a = self.kept\n        kept = a", "kept.append(self.model(x))", "{o}.kept"),
    "self-for-alias": ("pass", "for buf in self.bufs:\n                buf.append(self.model(x))", "{o}.bufs[0]"),
    "self-get-alias": ("kept = self.named.get('val')", "kept.append(self.model(x))", "{o}.named['val']"),
    "self-setdefault-alias": ("kept = self.named.setdefault('val', [])", "kept.append(self.model(x))", "{o}.named['val']"),
    "getattr-self": ("pass", 'getattr(self, f"{stage}_outputs").append(self.model(x))', "{o}.val_outputs"),
    "getattr-other": ("pass", 'getattr(self.sink, f"{stage}_outputs").append(self.model(x))', "{o}.sink.val_outputs"),
    "vars-self": ("pass", 'vars(self)[f"{stage}_last"] = self.model(x)', "[{o}.val_last]"),
}

CLASS_HOLDER_PROGRAM = """\
import types
{variable}
import torch
from torch import nn, randn


def backprop_all(ts):
    torch.stack(list(ts)).sum().backward()


class Evaluator:
    def __init__(self, model):
        self.model = model
        self.kept = []
        self.store = {{}}
        self.bufs = [[]]
        self.named = {{"val": []}}
        self.val_outputs = []
        self.val_last = None
        self.sink = types.SimpleNamespace(val_outputs=[])

    def evaluate(self, batches, stage="val"):
        {switch}
        {pre}
        for i, x in enumerate(batches):
            {keep}
        print("evaluated", len(batches))

    def backprop(self):
        backprop_all({kept_self})


def run():
    model = nn.Linear(4, 1)
    ev = Evaluator(model)
    ev.evaluate([randn(3, 4) for _ in range(2)])
{backward}
    return model.weight.grad
"""

# Function-based holders: (module-level setup, statements before the loop, the
# statement that keeps ``model(x)``, what ``run`` passes as ``store``, the kept tensors).
FUNCTION_HOLDERS: Dict[str, Tuple[str, str, str, str, str]] = {
    "global-list": ("OUT = []", "pass", "OUT.append(model(x))", "{}", "OUT"),
    "global-alias": ("OUT = []", "kept = OUT", "kept.append(model(x))", "{}", "OUT"),
    "global-declared": ("LAST = None", "global LAST", "LAST = model(x)", "{}", "[LAST]"),
    "dict-param": ("", "pass", "store[i] = model(x)", "{}", "list(store.values())"),
    "dict-param-alias": ("", "d = store", "d[i] = model(x)", "{}", "list(store.values())"),
    "dict-param-setdefault": ("", "pass", 'store.setdefault("val", []).append(model(x))', "{}", 'store["val"]'),
    "list-param-alias": ("", "kept = store", "kept.append(model(x))", "[]", "store"),
    "hook-lambda": ("KEPT = []", "pass", "print(round(float(model(x).sum()), 5))", "{}", "KEPT"),
    "hook-def": ("KEPT = []", "pass", "y = model(x)\n        print(round(float(y.sum()), 5))", "{}", "KEPT"),
}

FUNCTION_HOLDER_PROGRAM = """\
{variable}import torch
from torch import nn, randn

{setup}


def keep_output(module, inputs, output):
    KEPT.append(output)


def backprop_all(ts):
    torch.stack(list(ts)).sum().backward()


def evaluate(model, batches, store):
    {switch}
    {pre}
    for i, x in enumerate(batches):
        {keep}
    print("evaluated", len(batches))


def run():
    model = nn.Linear(4, 1)
{hook}    store = {store}
    evaluate(model, [randn(3, 4) for _ in range(2)], store)
{backward}
    return model.weight.grad
"""

HOOKS = {
    "hook-lambda": "    model.register_forward_hook(lambda m, i, o: KEPT.append(o))\n",
    "hook-def": "    model.register_forward_hook(keep_output)\n",
}

# Where the kept outputs are backpropagated.
CLASS_BACKWARDS = {
    "caller": "    torch.stack(list({kept})).sum().backward()",
    "helper": "    backprop_all({kept})",
    "method": "    ev.backprop()",
}
FUNCTION_BACKWARDS = {k: v for k, v in CLASS_BACKWARDS.items() if k != "method"}


# How the rule's premise is set up: GL101's ``eval()``, GL001's volatile input (the
# forwards then run on ``x`` rebound to ``Variable(x, volatile=True)``).
SWITCHES = {
    "GL101": ("", "{model}.eval()", ""),
    "GL001": ("from torch.autograd import Variable\n", "pass", "x = Variable(x, volatile=True)\n{indent}"),
}


def holder_family() -> Iterator[Program]:
    for rule, (variable, switch, rebind) in SWITCHES.items():
        for holder, (pre, keep, kept) in CLASS_HOLDERS.items():
            for where, backward in CLASS_BACKWARDS.items():
                source = CLASS_HOLDER_PROGRAM.format(
                    variable=variable,
                    switch=switch.format(model="self.model"),
                    pre=pre,
                    keep=rebind.format(indent=" " * 12) + keep,
                    kept_self=kept.format(o="self"),
                    backward=backward.format(kept=kept.format(o="ev")),
                )
                yield Program(f"{rule.lower()}-holder-{holder}-{where}", rule, f"holder kind={holder} backward={where}", source)
        for holder, (setup, pre, keep, store, kept) in FUNCTION_HOLDERS.items():
            for where, backward in FUNCTION_BACKWARDS.items():
                source = FUNCTION_HOLDER_PROGRAM.format(
                    variable=variable,
                    switch=switch.format(model="model"),
                    setup=setup,
                    pre=pre,
                    keep=rebind.format(indent=" " * 8) + keep,
                    hook=HOOKS.get(holder, ""),
                    store=store,
                    backward=backward.format(kept=kept),
                )
                yield Program(f"{rule.lower()}-holder-{holder}-{where}", rule, f"holder kind={holder} backward={where}", source)


def escape_family() -> Iterator[Program]:
    yield from trainer_family()
    yield from holder_family()
