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
