"""Safe-fix conditions as the semantic facts they check (docs/fixes.md): each case
below is a shape whose fix changed what the program did under torch while its
condition was read off the spelling. The oracle families of the same names
(tests/oracle/templates.py) run them under torch."""

from __future__ import annotations

import textwrap

import pytest

from gradlint.engine import LintSettings, lint_source, parse


def fixes(src: str, code: str):
    """Applicability (or None) of every finding of ``code``."""
    findings = lint_source(textwrap.dedent(src), "x.py", LintSettings(frozenset({code}))).findings
    return [f.fix.applicability if f.fix else None for f in findings if f.code == code]


def semantic(src: str):
    from gradlint.semantic import SemanticModel
    from gradlint.semantic.tree import Tree

    module = parse(src)
    return SemanticModel(module, src, Tree(module))


# -- GL302 `m.requires_grad = True`: the parameters' flags along the path, and every read --

NN = "import torch\nimport torch.nn as nn\n\n\ndef run(x):\n"


def body(code: str) -> str:
    return NN + textwrap.indent(textwrap.dedent(code), "    ")


@pytest.mark.parametrize(
    "code",
    [
        "m = nn.Linear(4, 4)\nm.requires_grad = True\n",
        "m = nn.Sequential(nn.Linear(4, 4)).to('cpu').train()\nopt = torch.optim.SGD(m.parameters(), lr=0.1)\n"
        "m.requires_grad = True\nprint(m)\nm(x).sum().backward()\nreturn list(m.parameters())\n",
        # a tensor's flag set to True freezes nothing
        "m = nn.Linear(4, 4)\nx.requires_grad = True\nm.requires_grad = True\n",
    ],
)
def test_gl302_true_is_safe_where_nothing_froze_or_reads(code):
    assert fixes(body(code), "GL302") == ["safe"]


@pytest.mark.parametrize(
    "code",
    [
        # frozen before it, by every route: the call would unfreeze them
        "m = nn.Sequential(nn.Linear(4, 4))\nfor p in m[0].parameters():\n    p.requires_grad = False\nm.requires_grad = True\n",
        "m = nn.Sequential(nn.Linear(4, 4))\nfor n, p in m.named_parameters():\n    p.requires_grad_('bias' in n)\nm.requires_grad = True\n",
        "m = nn.Linear(4, 4)\nm.weight.requires_grad_(False)\nm.requires_grad = True\n",
        "m = nn.Linear(4, 4)\nsetattr(m.weight, 'requires_grad', False)\nm.requires_grad = True\n",
        "m = nn.Linear(4, 4)\nm.scale = nn.Parameter(x, requires_grad=False)\nm.requires_grad = True\n",
        "m = nn.Linear(4, 4)\nfreeze(m)\nm.requires_grad = True\n",  # a helper this file does not show
        "m = nn.Linear(4, 4)\nm.freeze_encoder()\nm.requires_grad = True\n",  # a method of unknown effect
        "m = nn.Linear(4, 4)\nfor layer in [m]:\n    layer.requires_grad_(False)\nm.requires_grad = True\n",
        # where the parameters' flags are not known
        "m = torch.hub.load('repo', 'model')\nm.requires_grad = True\n",
        "import copy\nm = copy.deepcopy(nn.Linear(4, 4))\nm.requires_grad = True\n",
        # read back, by every route (the call does not set the attribute)
        "m = nn.Linear(4, 4)\nm.requires_grad = True\nprint(getattr(m, 'requires_grad', None))\n",
        "m = nn.Linear(4, 4)\nm.requires_grad = True\nprint(hasattr(m, 'requires_grad'))\n",
        "m = nn.Linear(4, 4)\nm.requires_grad = True\nprint(vars(m))\n",
        "m = nn.Linear(4, 4)\nm.requires_grad = True\nprint(m.__dict__)\n",
        "m = nn.Linear(4, 4)\nm.requires_grad = True\nlog_state(m)\n",
        "m = nn.Linear(4, 4)\nm.requires_grad = True\ntorch.save(m, 'm.pt')\n",
        "m = nn.Linear(4, 4)\nm.requires_grad = True\nreturn m\n",
        "m = nn.Linear(4, 4)\nkept = m\nm.requires_grad = True\n",
    ],
)
def test_gl302_true_is_unsafe_where_parameters_may_be_frozen_or_the_attribute_read(code):
    assert fixes(body(code), "GL302") == ["unsafe"]


GATED = (
    "import torch.nn as nn\n\n\nclass Gated(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
    "        self.fc = nn.Linear(4, 4)\n\n    def forward(self, x):\n"
    "        return self.fc(x) * 2 if getattr(self, 'requires_grad', False) else self.fc(x)\n\n\n"
)


def test_gl302_a_module_class_reading_its_own_flag():
    # the instance of the class that reads it: unsafe (its forward changes)
    src = GATED + "def run(x):\n    m = Gated()\n    m.requires_grad = True\n    return m(x)\n"
    assert fixes(src, "GL302") == ["unsafe"]
    # another module, built by a library and never handed to the class: its attribute is not that one
    src = GATED + "def run(x):\n    m = nn.Linear(4, 4)\n    m.requires_grad = True\n    return Gated()(m(x))\n"
    assert fixes(src, "GL302") == ["safe"]


def test_gl302_a_freeze_anywhere_in_the_file_makes_the_fix_unsafe():
    src = body("m = nn.Linear(4, 4)\nm.requires_grad = True\n") + "\n\ndef freeze(model):\n    model.requires_grad_(False)\n"
    assert fixes(src, "GL302") == ["unsafe"]


def test_attribute_reads_name_every_route():
    src = textwrap.dedent("""\
        import operator
        a.flag += 1
        print(b.flag, getattr(c, "flag"), hasattr(d, "flag"), operator.attrgetter("flag.x"))
        e.flag = 1
        del f.flag
        print(vars(g), h.__dict__, getattr(i, name), getattr(j, "other"))
        """)
    attributes = semantic(src).attributes
    named = [(r.kind, r.receiver.value if r.receiver is not None else None) for r in attributes.reads("flag", named_only=True)]
    assert named == [("attribute", "a"), ("attribute", "b"), ("getattr", "c"), ("hasattr", "d"), ("attrgetter", None)]
    every = [(r.kind, r.receiver.value) for r in attributes.reads("flag")[len(named):]]
    assert every == [("all", "g"), ("all", "h"), ("all", "i")]


# -- GL303: the file's own attribute, read by name ------------------------------------


@pytest.mark.parametrize(
    "code,found",
    [
        ("cfg.require_grad = False\nprint(getattr(cfg, 'require_grad'))\n", 0),
        ("cfg.require_grad = False\nif hasattr(cfg, 'require_grad'):\n    pass\n", 0),
        # reading every attribute (logging a namespace) is no evidence of an own attribute
        ("p.require_grad = False\nprint(vars(args))\n", 1),
    ],
)
def test_gl303_an_attribute_read_by_name_is_the_codes_own(code, found):
    assert len(fixes("import torch\n" + code, "GL303")) == found


# -- what a grad guard changes besides the graph (GL101, GL001) -----------------------

EVAL = "import torch\nimport torch.nn as nn\n{defs}\n\ndef evaluate(x):\n    {build}\n    model.eval()\n    out = model(x)\n    print(out.sum().item())\n"
VOLATILE = (
    "import torch\nimport torch.nn as nn\nfrom torch.autograd import Variable\n{defs}\n\n"
    "def evaluate(model, x):\n    out = model(Variable(x, volatile=True))\n    print(out.sum().item())\n"
)
HOOKED = "\n\nclass Net(nn.Module):\n    def forward(self, x):\n        y = x * 2\n        y.{call}\n        return y\n"


@pytest.mark.parametrize(
    "build,defs,safety",
    [
        ("model = nn.Linear(4, 4)", "", "safe"),
        ("model = nn.MultiheadAttention(8, 2, batch_first=True)", "", "unsafe"),
        ("model = nn.TransformerEncoderLayer(8, 2, batch_first=True)", "", "unsafe"),
        ("model = torch.nn.LSTM(8, 8)", "", "unsafe"),
        # a module class of the file built on one
        ("model = Net()", "\n\nclass Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
         "        self.enc = nn.TransformerDecoderLayer(8, 2)\n", "unsafe"),
        ("model = Net()", HOOKED.format(call="register_hook(print)"), "unsafe"),
        ("model = Net()", HOOKED.format(call="retain_grad()"), "unsafe"),
        ("model = nn.Linear(4, 4)\n    model.register_forward_hook(keep)", "\n\ndef keep(m, i, o):\n    o.retain_grad()\n", "unsafe"),
    ],
)
def test_guard_fixes_unsafe_where_the_guard_changes_more_than_the_graph(build, defs, safety):
    assert fixes(EVAL.format(build=build, defs=defs), "GL101") == [safety]
    if "model = nn.Linear(4, 4)" != build:
        defs = defs or f"\n\nbuilt = {build.split('= ', 1)[1]}\n"
    assert fixes(VOLATILE.format(defs=defs), "GL001") == [safety]


def test_the_grad_dependent_modules_are_catalog_data_the_probe_measures():
    from gradlint import catalog

    doc = catalog.load()["GL001"]
    assert doc.no_grad_changes == (
        "torch.nn.LSTM",
        "torch.nn.MultiheadAttention",
        "torch.nn.Transformer",
        "torch.nn.TransformerDecoder",
        "torch.nn.TransformerDecoderLayer",
        "torch.nn.TransformerEncoder",
        "torch.nn.TransformerEncoderLayer",
    )
    listed = {q.rsplit(".", 1)[1] for q in doc.no_grad_changes}
    import ast
    import re

    written = re.search(r"^LISTED = (\{.*?\})$", doc.probe.code, re.M | re.S)
    assert written is not None and ast.literal_eval(written.group(1)) == listed


def test_the_catalog_rejects_a_grad_dependent_module_that_is_no_qualified_name():
    from gradlint.catalog import CatalogError, load, parse_entry

    raw = _raw("GL001")
    raw["no_grad_changes"] = ["LSTM"]
    with pytest.raises(CatalogError, match="no_grad_changes: must be a list of dotted qualified names"):
        parse_entry("rules/GL001.toml", raw)
    assert load()["GL001"].no_grad_changes


def _raw(code: str) -> dict:
    import tomllib
    from pathlib import Path

    return tomllib.loads((Path(__file__).resolve().parent.parent / "rules" / f"{code}.toml").read_text(encoding="utf-8"))


# -- fix-grad-guard = "inference_mode": only where the results stay plain ---------------


def guard_written(src: str, code: str) -> str:
    from gradlint.engine import fix_source
    from gradlint.rule import RuleOptions

    settings = LintSettings(frozenset({code}), RuleOptions(fix_grad_guard="inference_mode"))
    out = fix_source(textwrap.dedent(src), "x.py", settings, unsafe=True).source
    return "inference_mode" if "inference_mode" in out else "no_grad" if "no_grad" in out else "none"


# the training at the end keeps the guard a `with` around the evaluation
INFER = (
    "import torch\nimport torch.nn as nn\n\n\ndef run(model, x, head, kept):\n    model.eval()\n    {compute}\n"
    "    model.train()\n    {use}\n    head(x).sum().backward()\n"
)


@pytest.mark.parametrize(
    "compute,use,guard",
    [
        ("preds = model(x).argmax(1)", "print(preds.tolist())", "inference_mode"),
        ("loss = model(x).mean()", "print(f'{loss.item():.4f}', float(loss))", "inference_mode"),
        # edited in place, used where autograd saves it, kept in a list of the caller: no_grad
        ("labels = model(x).argmax(1)", "labels[labels == 2] = 0", "no_grad"),
        ("feats = model(x)", "head(feats).sum().backward()", "no_grad"),
        ("kept.append(model(x))", "print(len(kept))", "no_grad"),
        ("mine = []\n    mine.append(model(x))", "torch.cat(mine).mul_(2)", "no_grad"),
    ],
)
def test_gl101_writes_inference_mode_only_where_results_stay_plain(compute, use, guard):
    assert guard_written(INFER.format(compute=compute, use=use), "GL101") == guard


@pytest.mark.parametrize(
    "ret,guard",
    [
        ("print(model(x).sum().item())", "inference_mode"),
        ("return model(x).sum().item()", "inference_mode"),
        ("return model(x).argmax(1)", "no_grad"),  # a caller may edit the indices in place
    ],
)
def test_gl001_decorates_with_inference_mode_only_where_nothing_tensor_leaves(ret, guard):
    src = (
        "import torch\nfrom torch.autograd import Variable\n\n\ndef evaluate(model, x):\n"
        f"    x = Variable(x, volatile=True)\n    {ret}\n"
    )
    assert guard_written(src, "GL001") == guard


# -- GL102: every handler that may catch the error, and the callers' ---------------------

GUARDED = "with torch.no_grad:\n    y = m(x)\n"


@pytest.mark.parametrize(
    "src,safety",
    [
        ("import torch\n" + GUARDED, "safe"),
        # a tuple constant of the module, and names bound to classes
        ("import torch\nERRORS = (ValueError, KeyError)\ntry:\n    " + GUARDED.replace("\n    ", "\n        ") + "except ERRORS:\n    pass\n", "safe"),
        ("import torch\nERRORS = (ValueError, TypeError)\ntry:\n    " + GUARDED.replace("\n    ", "\n        ") + "except ERRORS:\n    pass\n", "unsafe"),
        ("import torch\nERRORS = Exception\ntry:\n    " + GUARDED.replace("\n    ", "\n        ") + "except ERRORS:\n    pass\n", "unsafe"),
        ("import torch\nfrom errors import ERRORS\ntry:\n    " + GUARDED.replace("\n    ", "\n        ") + "except ERRORS:\n    pass\n", "unsafe"),
        ("import torch\nclass Stop(Exception):\n    pass\ntry:\n    " + GUARDED.replace("\n    ", "\n        ") + "except Stop:\n    pass\n", "safe"),
        ("import torch\ntry:\n    " + GUARDED.replace("\n    ", "\n        ") + "except LookupError:\n    pass\n", "safe"),
        # contextlib.suppress
        ("import contextlib\nimport torch\nwith contextlib.suppress(TypeError):\n    " + GUARDED.replace("\n    ", "\n        "), "unsafe"),
        ("import torch\nfrom contextlib import suppress\nwith suppress(Exception), torch.no_grad:\n    y = m(x)\n", "unsafe"),
        ("import contextlib\nimport torch\nwith contextlib.suppress(KeyError):\n    " + GUARDED.replace("\n    ", "\n        "), "safe"),
        # a caller's handler; callers the file does not show
        ("import torch\n\n\ndef f(m, x):\n    " + GUARDED.replace("\n    ", "\n        ") + "\n\ntry:\n    f(m, x)\nexcept TypeError:\n    pass\n", "unsafe"),
        ("import torch\n\n\ndef f(m, x):\n    " + GUARDED.replace("\n    ", "\n        ") + "\n\ndef g():\n    try:\n        f(m, x)\n    except Exception:\n        pass\n\n\ng()\n", "unsafe"),
        ("import torch\n\n\ndef f(m, x):\n    " + GUARDED.replace("\n    ", "\n        ") + "\n\nf(m, x)\n", "safe"),
        ("import torch\n\n\ndef f(m, x):\n    " + GUARDED.replace("\n    ", "\n        "), "unsafe"),
        ("import torch\n\n\ndef f(m, x):\n    " + GUARDED.replace("\n    ", "\n        ") + "\n\nrun_safely(f)\n", "unsafe"),
    ],
)
def test_gl102_unsafe_wherever_a_handler_may_catch_the_error(src, safety):
    assert fixes(src, "GL102") == [safety]


# -- GL106: what runs between the guards, and suspensions -------------------------------

HELPERS = """\
import torch
from torch import nn


def enable():
    torch.set_grad_enabled(True)


def relay():
    enable()


class Tuner(nn.Module):
    def forward(self, x):
        torch.set_grad_enabled(True)
        return x


class Plain(nn.Module):
    def forward(self, x):
        return x * 2


"""


@pytest.mark.parametrize(
    "between,safety",
    [
        ("m(x)", "safe"),
        ("Plain()(x)", "safe"),
        ("print(len(x))", "safe"),
        ("enable()", "unsafe"),
        ("relay()", "unsafe"),  # through what it calls
        ("Tuner()(x)", "unsafe"),  # a module forward of the file
    ],
)
def test_gl106_unsafe_where_a_call_in_between_may_switch_grad_on(between, safety):
    src = HELPERS + f"def f(m, x):\n    with torch.no_grad():\n        {between}\n        with torch.no_grad():\n            return m(x)\n"
    assert fixes(src, "GL106") == [safety]


def test_gl106_unsafe_where_the_callee_is_project_code_not_shown():
    src = "import torch\nfrom .tuning import adapt\n\n\ndef f(m, x):\n    with torch.no_grad():\n        adapt(m)\n        with torch.no_grad():\n            return m(x)\n"
    assert fixes(src, "GL106") == ["unsafe"]


@pytest.mark.parametrize(
    "body,safety",
    [
        # resumed by a consumer that may run with grad on
        ("    with torch.no_grad():\n        for x in xs:\n            yield x\n            with torch.no_grad():\n                y = m(x)\n", "unsafe"),
        ("    with torch.no_grad():\n        for x in xs:\n            with torch.no_grad():\n                y = m(x)\n            yield y\n", "unsafe"),
        # no suspension inside the outer guard
        ("    with torch.no_grad():\n        with torch.no_grad():\n            y = m(xs)\n    yield y\n", "safe"),
    ],
)
def test_gl106_a_generator_suspended_inside_the_outer_guard(body, safety):
    assert fixes("import torch\n\n\ndef g(m, xs):\n" + body, "GL106") == [safety]


# -- GL003: 0-dim where it is read, not only where it was bound ------------------------


@pytest.mark.parametrize(
    "between,safety",
    [
        ("", "safe"),
        ("loss.backward()\n    ", "safe"),
        ("loss.mul_(2)\n    ", "safe"),  # in place, same shape
        ("loss.unsqueeze_(0)\n    ", "unsafe"),
        ("loss.resize_(1)\n    ", "unsafe"),
        ("loss.data = loss.data.view(1)\n    ", "unsafe"),
    ],
)
def test_gl003_a_loss_reshaped_in_place_is_not_proven_0_dim(between, safety):
    src = (
        "import torch.nn.functional as F\n\n\ndef step(model, x, y):\n    loss = F.mse_loss(model(x), y)\n"
        f"    {between}print(loss.data[0])\n"
    )
    assert fixes(src, "GL003") == [safety]


# -- GL101/GL001: methods of the file's classes that train; where the outputs are kept --

ADAPTER = """\
import torch
from torch import nn


class Adapter:
    def __init__(self, model, opt):
        self.model, self.opt = model, opt

    def adapt(self, x):
        loss = self.model(x).pow(2).mean()
        loss.backward()
        self.opt.step()

"""


def findings_of(src: str, code: str):
    found = lint_source(src, "x.py", LintSettings(frozenset({code}))).findings
    return [(f.start, f.fix.applicability if f.fix else None) for f in found if f.code == code]


@pytest.mark.parametrize(
    "head, receiver",
    [
        ("def evaluate(model, opt, batches):\n    adapter = Adapter(model, opt)\n", "adapter"),
        ("def evaluate(model, adapter: Adapter, batches):\n", "adapter"),
        ('def evaluate(model, adapter: "Adapter", batches):\n', "adapter"),
        ("def evaluate(model, adapter, batches):\n", "adapter"),
    ],
    ids=["built", "annotated", "string-annotated", "unannotated"],
)
def test_gl101_a_method_of_the_files_classes_that_trains_makes_the_guard_unsafe(head, receiver):
    src = ADAPTER + head + (
        "    model.eval()\n"
        "    for x in batches:\n"
        f"        {receiver}.adapt(x)\n"
        "        out = model(x)\n"
        "        print(float(out.sum()))\n"
    )
    line = src.splitlines().index("        out = model(x)") + 1
    assert findings_of(src, "GL101") == [((line, 14), "unsafe")]
    # the same loop with a method that only reads: the fix stays safe
    assert findings_of(src.replace(f"{receiver}.adapt(x)", "print(x.shape)"), "GL101") == [((line, 14), "safe")]


def test_gl101_the_fix_is_offered_only_with_unsafe_fixes():
    src = ADAPTER + (
        "def evaluate(model, adapter: Adapter, batches):\n"
        "    model.eval()\n"
        "    for x in batches:\n"
        "        adapter.adapt(x)\n"
        "        print(float(model(x).sum()))\n"
    )
    from gradlint.engine import fix_source

    settings = LintSettings(frozenset({"GL101"}))
    assert fix_source(src, "x.py", settings, unsafe=False).source == src
    assert fix_source(src, "x.py", settings, unsafe=True).source == ADAPTER + (
        "@torch.no_grad()\n"
        "def evaluate(model, adapter: Adapter, batches):\n"
        "    model.eval()\n"
        "    for x in batches:\n"
        "        adapter.adapt(x)\n"
        "        print(float(model(x).sum()))\n"
    )


def test_gl001_no_decorator_where_a_method_of_the_files_classes_trains_on_other_values():
    src = ADAPTER + (
        "from torch.autograd import Variable\n\n\n"
        "def evaluate(model, adapter: Adapter, x):\n"
        "    adapter.refresh()\n"
        "    out = model(Variable(x, volatile=True))\n"
        "    print(float(out.sum()))\n"
    )
    src = src.replace("    def adapt(self, x):", "    def refresh(self):\n        self.adapt(torch.zeros(1, 4))\n\n    def adapt(self, x):")
    line = src.splitlines().index("    out = model(Variable(x, volatile=True))") + 1
    assert findings_of(src, "GL001") == [((line, 16), None)]
    assert findings_of(src.replace("    adapter.refresh()\n", ""), "GL001") == [((line - 1, 16), "safe")]
    # migrate: only what flows from the volatile input goes under the guard
    from gradlint.migrate import migrate_source, migrations

    assert migrate_source(src, "x.py", LintSettings(frozenset(migrations()))).source.endswith(
        "def evaluate(model, adapter: Adapter, x):\n"
        "    adapter.refresh()\n"
        "    with torch.no_grad():\n"
        "        out = model(x.detach())\n"
        "        print(float(out.sum()))\n"
    )
    # the adaptation called on the volatile value itself was volatile in 0.3: decorated
    called_on_it = src.replace("    def refresh(self):", "    def refresh(self, x=None):").replace(
        "    adapter.refresh()\n    out = model(Variable(x, volatile=True))\n",
        "    v = Variable(x, volatile=True)\n    adapter.refresh(v)\n    out = model(v)\n",
    )
    assert findings_of(called_on_it, "GL001") == [((line - 1, 8), "unsafe")]


HOLDERS = {
    "self-alias": ("class E:\n    def evaluate(self, model, batches):\n        kept = self.kept\n", "kept.append(model(x))"),
    "self-alias-item": ("class E:\n    def evaluate(self, model, batches):\n        kept = self.named.get('val')\n", "kept.append(model(x))"),
    "self-for-alias": ("class E:\n    def evaluate(self, model, batches):\n        pass\n", "for buf in self.bufs:\n                buf.append(model(x))"),
    "getattr-self": ("class E:\n    def evaluate(self, model, batches, stage):\n        pass\n", 'getattr(self, f"{stage}_outputs").append(model(x))'),
    "getattr-other": ("class E:\n    def evaluate(self, model, batches, sink, stage):\n        pass\n", "getattr(sink, stage).append(model(x))"),
    "global-alias": ("OUT = []\nclass E:\n    def evaluate(self, model, batches):\n        kept = OUT\n", "kept.append(model(x))"),
    "param-alias": ("class E:\n    def evaluate(self, model, batches, store):\n        d = store\n", "d[0] = model(x)"),
}


@pytest.mark.parametrize("holder", sorted(HOLDERS))
def test_gl101_outputs_kept_through_an_alias_or_a_holder_chosen_at_run_time(holder):
    head, keep = HOLDERS[holder]
    src = "import torch\n\n" + head + "        model.eval()\n        for x in batches:\n            " + keep + "\n"
    line = next(i for i, text in enumerate(src.splitlines(), 1) if "model(x)" in text)
    column = src.splitlines()[line - 1].index("model(x)")
    assert findings_of(src, "GL101") == [((line, column), "unsafe")]


def test_gl101_a_fresh_local_holder_keeps_the_fix_safe():
    src = (
        "import torch\n\n\ndef evaluate(model, batches):\n    model.eval()\n    kept = list()\n"
        "    for x in batches:\n        kept.append(model(x).argmax(1))\n    print(len(kept))\n"
    )
    assert findings_of(src, "GL101") == [((8, 20), "safe")]


def test_gl302_self_of_a_module_class_is_fixed_only_after_the_base_init():
    # ``self`` of an ``nn.Conv2d`` subclass is a module; ``= False`` freezes its
    # parameters, a change: unsafe, and offered only once ``nn.Module.__init__`` ran
    after = (
        "import torch.nn as nn\n\n\nclass M(nn.Conv2d):\n    def __init__(self):\n"
        "        super().__init__(3, 3, 1)\n        self.requires_grad = False\n"
    )
    assert fixes(after, "GL302") == ["unsafe"]
    before = (
        "import torch.nn as nn\n\n\nclass M(nn.Conv2d):\n    def __init__(self):\n"
        "        self.requires_grad = False\n        super().__init__(3, 3, 1)\n"
    )
    assert fixes(before, "GL302") == [None]
