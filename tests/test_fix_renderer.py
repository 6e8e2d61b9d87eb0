"""fix_renderer.FixRenderer gives each fix's text exactly as rendering the whole module does.

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
from gradlint.fix_renderer import FixRenderer
from gradlint.fixes import apply_fixes
from gradlint.text_diff import text_edits

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
        "    print(loss.sum().data[0])\n"
    ),
    "torch not imported at the top: the fix adds it": (
        "from torch.autograd import Variable\n"
        "import numpy as np\n"
        "\n"
        "\n"
        "def evaluate(model, x):\n"
        "    return model(Variable(x, volatile=True))\n"
    ),
    "no final newline": "import torch\n\n\ndef log(loss):\n    print(loss.sum().data[0])",
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
    "statements in blocks indented with tabs and odd widths, with comments around": (
        "import torch\n"
        "\n"
        "\n"
        "def log(losses):\n"
        "\tfor loss in losses:\n"
        "\t\t# the first element\n"
        "\t\tprint(loss.sum().data[0])  # as a number\n"
        "\treturn (\n"
        "\t\tlosses[0].data[0]\n"
        "\t)\n"
        "\n"
        "\n"
        "def show(losses):\n"
        "   for loss in losses:\n"
        "     if loss:\n"
        "\n"
        "          # a continued line\n"
        "          total = loss.sum().data[0] + \\\n"
        "              1\n"
    ),
    "decorator fixes of functions with comment lines, decorators and a tab-indented class": (
        "import torch\n"
        "\n"
        "\n"
        "# evaluation helpers\n"
        "# (two of them, alike)\n"
        "@staticmethod\n"
        "def evaluate(model, loader):\n"
        "    model.eval()\n"
        "    for x in loader:\n"
        "        print(model(x))\n"
        "\n"
        "\n"
        "class Runner:\n"
        "\t# the same, in a class indented with tabs\n"
        "\n"
        "\tdef evaluate(self, model, loader):\n"
        "\t\tmodel.eval()\n"
        "\t\tfor x in loader:\n"
        "\t\t\tprint(model(x))\n"
        "\t\t# trailing comment of the body\n"
    ),
}

# Cases whose import questions the semantic model answers alone: no scope analysis.
WITHOUT_SCOPES = {
    "variable used once, import removed with its comment",
    "variable still used elsewhere",
    "variable read in a class body after the fix's function",
}
# Cases whose fixes all lie in one-line statements, or edit a compound statement (a
# decorator added to a function): the module is not rendered whole.
WITHOUT_MODULE_RENDER = {
    "variable still used elsewhere",
    "statements in blocks indented with tabs and odd widths, with comments around",
    "decorator fixes of functions with comment lines, decorators and a tab-indented class",
}


@pytest.mark.parametrize("semantic", [False, True], ids=["scopes", "names"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_each_fix_renders_as_the_whole_module_does(tmp_path, name, semantic, monkeypatch):
    source = CASES[name]
    # with the preview tier, where GL101's decorator and wrapping fixes are made
    checked = check_document(Path(tmp_path / "m.py"), source, Settings(cwd=tmp_path, select=["ALL"], overrides={"preview": True}))
    fixes = [f.fix for f in checked.findings if f.fix is not None]
    assert fixes, "the case must have fixes"
    ctx = checked.context
    if semantic:
        renderer = FixRenderer(ctx.module, source, ctx.parents, names=lambda: ctx.semantic.names, span=ctx.span)
    else:
        renderer = FixRenderer(ctx.module, source, ctx.parents)

    def not_run(self):
        raise AssertionError("not expected to run")

    if semantic and name in WITHOUT_SCOPES:
        monkeypatch.setattr(FixRenderer, "_references", not_run)
    if semantic and name in WITHOUT_MODULE_RENDER:
        monkeypatch.setattr(FixRenderer, "_statement_spans", not_run)
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

    from gradlint.fixes import ImportSpec
    from gradlint.import_changes import _among_top_imports

    module = cst.parse_module(source)
    visitor = AddImportsVisitor(CodemodContext(), [ImportItem("torch")])
    visitor.visit_Module(module)
    assert _among_top_imports(module, ImportSpec("torch")) is TOP_IMPORTS[source]
    assert (not visitor.module_imports) is TOP_IMPORTS[source]


def test_quick_matcher_visitors_change_nothing_and_are_undone():
    import libcst as cst
    from libcst.matchers import _visitors as mv

    from gradlint.fixes import ImportSpec
    from gradlint.import_changes import _quick_matcher_visitors, _update_imports_now

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


def apply_text_edits(text: str, edits) -> str:
    """A plain text applier, as an editor or a JSON consumer applies ``fix.edits``."""
    from gradlint.parsing import split_lines

    starts = [0]
    for line in split_lines(text):
        starts.append(starts[-1] + len(line))

    def offset(row: int, column: int) -> int:
        return starts[row - 1] + column - 1 if row <= len(starts) else len(text)

    for e in sorted(edits, key=lambda e: (e.row, e.column), reverse=True):
        text = text[: offset(e.row, e.column)] + e.content + text[offset(e.end_row, e.end_column) :]
    return text


def test_a_file_read_with_async_renamed_renders_its_fixes_on_the_renamed_text(tmp_path, monkeypatch):
    """A 0.3-era file is linted with its `async=` arguments renamed, line for line: each
    fix is rendered on its statement of that text (not the whole module), and its edits
    on the file as written give what applying it to the module gives (the renames
    included: no fix applies without them)."""
    from gradlint import fix_renderer as fix_renderer_module
    from gradlint.runner import fix_renderer

    source = (
        "import torch\n\n\ndef log(loss, x):\n    x = x.cuda(async=True)\n    print(loss.sum().data[0])\n"
        "    y = x.cuda(async=True)\n    return loss.sum().data[0]\n"
    )
    checked = check_document(Path(tmp_path / "m.py"), source, Settings(cwd=tmp_path, select=["ALL"]))
    ctx = checked.context
    assert ctx.source != source
    fixes = [f.fix for f in checked.findings if f.fix is not None and f.code == "GL003"]
    assert len(fixes) == 2
    wholes = [apply_fixes(ctx.module, [fix], ctx.parents) for fix in fixes]
    renderer = fix_renderer(ctx, source)

    def not_run(*args, **kwargs):
        raise AssertionError("the whole module rendered")

    monkeypatch.setattr(fix_renderer_module, "apply_fixes", not_run)
    monkeypatch.setattr(FixRenderer, "_statement_spans", not_run)
    for fix, whole in zip(fixes, wholes):
        edits = renderer.text_edits(fix)
        assert apply_text_edits(source, edits) == whole
        assert renderer.parses(fix)
    assert [(e.row, e.column, e.end_row, e.end_column, e.content) for e in renderer.text_edits(fixes[0])] == [
        (5, 16, 5, 21, "non_blocking"),
        (6, 22, 6, 29, "item()"),
        (7, 16, 7, 21, "non_blocking"),
    ]
