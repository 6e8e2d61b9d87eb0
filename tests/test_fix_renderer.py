"""fixes.FixRenderer gives each fix's text exactly as rendering the whole module does.

It renders only the statement a fix changes, and runs LibCST's import codemods
on the head of the module only; these cases take each of its paths (no import
change, an import added, an import removed with its comment, a removal that
does not happen because the name is still used, a large class standing in at
the end of the head, a file without a final newline).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gradlint.checking import check_document
from gradlint.config import Settings
from gradlint.fixes import FixRenderer, apply_fixes, text_edits

CASES = {
    "variable used once, import removed with its comment": (
        "import torch\n"
        "# autograd's wrapper\n"
        "from torch.autograd import Variable\n"
        "\n"
        "\n"
        "class Model(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        return self.net(Variable(x))\n"
    ),
    "variable still used elsewhere": (
        "import torch\n"
        "from torch.autograd import Variable\n"
        "\n"
        "\n"
        "def f(x, y):\n"
        "    a = Variable(x)\n"
        "    b = Variable(y)\n"
        "    return a, b\n"
        "\n"
        "\n"
        "def log(loss):\n"
        "    print(loss.data[0])\n"
    ),
    "torch not imported at the top: the fix adds it": (
        "from torch.autograd import Variable\n"
        "import numpy as np\n"
        "\n"
        "\n"
        "def evaluate(model, x):\n"
        "    return model(Variable(x, volatile=True))\n"
    ),
    "no final newline": "import torch\n\n\ndef log(loss):\n    print(loss.data[0])",
    "variable read in a class body after the fix's function": (
        "from torch.autograd import Variable\n"
        "\n"
        "\n"
        "def f(x):\n"
        "    return Variable(x)\n"
        "\n"
        "\n"
        "class C:\n"
        "    kind = Variable\n"
    ),
    "variable named only in a comment and a docstring besides": (
        '"""Wraps tensors in Variable."""\n'
        "from torch.autograd import Variable  # the Variable wrapper\n"
        "\n"
        "\n"
        "def f(x):\n"
        "    return Variable(x)\n"
    ),
    "variable in a string annotation": (
        "from torch.autograd import Variable\n"
        "\n"
        "\n"
        "def f(x) -> 'Variable':\n"
        "    return Variable(x)\n"
    ),
    "variable read at module level before its import": (
        "print(Variable)\n"
        "from torch.autograd import Variable\n"
        "\n"
        "\n"
        "def f(x):\n"
        "    return Variable(x)\n"
    ),
    "torch imported after a docstring; two imports on one line stop LibCST's search": (
        '"""Evaluation."""\n'
        "import os; import torch\n"
        "from torch.autograd import Variable\n"
        "\n"
        "\n"
        "def evaluate(model, x):\n"
        "    return model(Variable(x, volatile=True))\n"
    ),
    "torch imported after __strict__": (
        "__strict__ = True\n"
        "import torch\n"
        "from torch.autograd import Variable\n"
        "\n"
        "\n"
        "def evaluate(model, x):\n"
        "    return model(Variable(x, volatile=True))\n"
    ),
}

# Cases whose import questions the semantic model answers alone: no scope analysis.
WITHOUT_SCOPES = {
    "variable used once, import removed with its comment",
    "variable still used elsewhere",
    "variable read in a class body after the fix's function",
}


@pytest.mark.parametrize("semantic", [False, True], ids=["scopes", "names"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_each_fix_renders_as_the_whole_module_does(tmp_path, name, semantic, monkeypatch):
    source = CASES[name]
    checked = check_document(Path(tmp_path / "m.py"), source, Settings(cwd=tmp_path, select=["ALL"]))
    fixes = [f.fix for f in checked.findings if f.fix is not None]
    assert fixes, "the case must have fixes"
    ctx = checked.context
    renderer = FixRenderer(ctx.module, source, ctx.parents, names=(lambda: ctx.semantic.names) if semantic else None)
    if semantic and name in WITHOUT_SCOPES:

        def no_scope_analysis(self):
            raise AssertionError("scope analysis run")

        monkeypatch.setattr(FixRenderer, "_references", no_scope_analysis)
    for fix in fixes:
        whole = apply_fixes(ctx.module, [fix], ctx.parents)
        assert renderer.fixed_text(fix) == whole
        assert renderer.text_edits(fix) == text_edits(source, whole)


TOP_IMPORTS = {
    "import torch\nx = 1\n": True,
    '"""doc"""\nimport os\nimport torch\n': True,
    "__strict__ = True\nimport torch\n": True,
    "import os, torch\n": True,
    "import torch as th\n": False,
    "from torch import nn\n": False,
    "import torch.nn\n": False,
    "import os; import torch\n": False,
    "x = 1\nimport torch\n": False,
    "'doc' 'more'\nimport torch\n": False,
    "if c:\n    import torch\n": False,
}


@pytest.mark.parametrize("source", list(TOP_IMPORTS))
def test_top_imports_as_libcst_finds_them(source):
    """``_among_top_imports`` is True exactly where LibCST's own check finds ``import
    torch`` present (LibCST itself is asked where it is False)."""
    import libcst as cst
    from libcst.codemod import CodemodContext
    from libcst.codemod.visitors import AddImportsVisitor, ImportItem

    from gradlint.fixes import ImportSpec, _among_top_imports

    module = cst.parse_module(source)
    visitor = AddImportsVisitor(CodemodContext(), [ImportItem("torch")])
    visitor.visit_Module(module)
    assert _among_top_imports(module, ImportSpec("torch")) is TOP_IMPORTS[source]
    assert (not visitor.module_imports) is TOP_IMPORTS[source]


def test_quick_matcher_visitors_change_nothing_and_are_undone():
    import libcst as cst
    from libcst.matchers import _visitors as mv

    from gradlint.fixes import ImportSpec, _quick_matcher_visitors, _update_imports_now

    names = ("_gather_matchers", "_gather_constructed_visit_funcs", "_gather_constructed_leave_funcs")
    before = [getattr(mv, n) for n in names]
    module = cst.parse_module("# head\nfrom torch.autograd import Variable\nimport numpy as np\n\nx = np.zeros(1)\n")
    adds, removes = [ImportSpec("torch")], [ImportSpec("torch.autograd", "Variable")]
    plain = _update_imports_now(module, adds, removes).code
    for _ in range(2):  # the second time from what the first learnt
        with _quick_matcher_visitors():
            assert [getattr(mv, n) for n in names] != before
            assert _update_imports_now(module, adds, removes).code == plain
    assert [getattr(mv, n) for n in names] == before
    assert plain == "# head\nimport numpy as np\nimport torch\n\nx = np.zeros(1)\n"
