"""Jupyter notebooks: cells as one module, IPython lines, cell positions, byte-exact write-back."""

from __future__ import annotations

import json
import pickle
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional

import libcst as cst
import pytest
from click.testing import CliRunner

from gradlint import codegen, engine, prefilter
from gradlint.cli import main
from gradlint.config import Settings
from gradlint.files import discover, read_document
from gradlint.notebook import Notebook, mask
from gradlint.rule import Rule
from gradlint.runner import Mode, check_file

GL001 = (
    "GL001 `volatile=True` has been ignored since PyTorch 0.4: this call still records an autograd graph; "
    "use `torch.no_grad()`"
)


def code(source: str, outputs: Optional[list] = None, as_string: bool = False) -> Dict[str, Any]:
    return {
        "cell_type": "code",
        "execution_count": 3,
        "metadata": {"tags": ["eval"]},
        "outputs": outputs or [],
        "source": source if as_string else source.splitlines(True),
    }


def markdown(source: str) -> Dict[str, Any]:
    return {"cell_type": "markdown", "metadata": {}, "source": source.splitlines(True)}


def notebook(cells: List[Dict[str, Any]], language: str = "python") -> Dict[str, Any]:
    return {
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": language, "name": "python3"},
            "language_info": {"name": language, "version": "3.11.7"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
        "cells": cells,
    }


# How different tools write notebooks; a fix must keep each one's formatting.
STYLES: Dict[str, Callable[[Any], str]] = {
    # nbformat / Jupyter: indent 1, sorted keys, raw UTF-8, final newline
    "jupyter": lambda nb: json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n",
    # another editor: indent 2, keys in insertion order, no final newline
    "indent2": lambda nb: json.dumps(nb, indent=2, ensure_ascii=False),
    # escaped non-ASCII: a fixed line must stay escaped
    "ascii": lambda nb: json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=True) + "\n",
    # one line, no spaces
    "compact": lambda nb: json.dumps(nb, separators=(",", ":"), ensure_ascii=False),
    # Windows newlines between the JSON tokens (strings escape theirs)
    "crlf": lambda nb: json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False).replace("\n", "\r\n") + "\r\n",
}

EVAL_CELLS = [
    ("%matplotlib inline\nimport torch\nfrom torch.autograd import Variable", None),
    ("# Evaluation\nNotes on the *validation* run — é", "markdown"),
    (
        "def evaluate(model, x):\n    %time warm = model(x)\n    out = model(Variable(x, volatile=True))\n    return out.argmax(1)",
        [{"name": "stdout", "output_type": "stream", "text": ["CPU times: user 1 ms\n"]}],
    ),
    ("%%time\nloss = torch.nn.functional.mse_loss(model(x), y)\nprint(loss.data[0], 'température')", None),
    ("!pip install torch \\\n    torchvision\nresult = evaluate(model, batch)\nmodel?", None),
    ("files = !ls\nx = Variable(x2)", None),
    ("%%bash\necho 'Variable(x, volatile=True)'", None),
    ("", None),
]
EVAL_FIXED = {
    1: "%matplotlib inline\nimport torch",
    3: "@torch.no_grad()\ndef evaluate(model, x):\n    %time warm = model(x)\n    out = model(x.detach())\n    return out.argmax(1)",
    4: "%%time\nloss = torch.nn.functional.mse_loss(model(x), y)\nprint(loss.item(), 'température')",
    6: "files = !ls\nx = x2.detach()",
}


def eval_notebook(sources: Optional[Dict[int, str]] = None, as_string: bool = False) -> Dict[str, Any]:
    cells = []
    for number, (source, extra) in enumerate(EVAL_CELLS, 1):
        source = (sources or {}).get(number, source)
        if extra == "markdown":
            cells.append(markdown(source))
        else:
            cells.append(code(source, outputs=extra, as_string=as_string))
    return notebook(cells)


def write(path: Path, nb: Dict[str, Any], style: str = "jupyter") -> bytes:
    data = STYLES[style](nb).encode("utf-8")
    path.write_bytes(data)
    return data


def run(*args: str):
    return CliRunner().invoke(main, list(args))


@pytest.fixture
def here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


# -- checking -------------------------------------------------------------------


def test_findings_are_reported_per_cell_with_cell_relative_positions(here):
    write(here / "eval.ipynb", eval_notebook())
    result = run("check", "eval.ipynb")
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        f"eval.ipynb:cell 3:3:17: GL001 [*] {GL001[len('GL001 '):]}",
        "eval.ipynb:cell 4:3:7: GL003 [*] `loss.data[0]` reads a scalar the PyTorch 0.3 way: on a 0-dim tensor it "
        "raises IndexError; use `loss.item()`",
        "eval.ipynb:cell 6:2:5: GL002 [*] `Variable(...)` has been deprecated since PyTorch 0.4 and now returns "
        "`x2.detach()`",
        "Found 3 problems (3 fixable with --fix).",
    ]


def test_json_has_the_cell_and_edits_in_other_cells(here):
    write(here / "eval.ipynb", eval_notebook())
    items = json.loads(run("check", "--output-format", "json", "eval.ipynb").stdout)
    assert [(d["code"], d["cell"], d["location"], d["end_location"], d["noqa_row"]) for d in items] == [
        ("GL001", 3, {"row": 3, "column": 17}, {"row": 3, "column": 43}, 3),
        ("GL003", 4, {"row": 3, "column": 7}, {"row": 3, "column": 19}, 3),
        ("GL002", 6, {"row": 2, "column": 5}, {"row": 2, "column": 17}, 2),
    ]
    # Each fix alone keeps the Variable import (the other finding still uses it).
    gl003 = items[1]["fix"]["edits"]
    assert gl003 == [
        {"cell": 4, "content": "item()", "location": {"row": 3, "column": 12}, "end_location": {"row": 3, "column": 19}}
    ]
    gl001 = items[0]["fix"]["edits"]
    assert [(e["cell"], e["location"]["row"], e["content"]) for e in gl001] == [
        (3, 1, "@torch.no_grad()\n"),
        (3, 3, "x.detach("),  # `Variable(x, volatile=True)` -> `x.detach()`: the `)` stays
    ]


def test_json_fix_edit_removing_an_import_from_another_cell(here):
    nb = notebook([code("import torch\nfrom torch.autograd import Variable"), code("x = Variable(x2)")])
    write(here / "nb.ipynb", nb)
    (item,) = json.loads(run("check", "--output-format", "json", "nb.ipynb").stdout)
    assert item["cell"] == 2
    assert [(e["cell"], e["location"], e["end_location"], e["content"]) for e in item["fix"]["edits"]] == [
        (1, {"row": 1, "column": 13}, {"row": 2, "column": 36}, ""),
        (2, {"row": 1, "column": 5}, {"row": 1, "column": 16}, "x2.detach("),
    ]


def test_ipython_lines_do_not_break_the_parse():
    counter = [0]
    lines, masks = mask(
        "%matplotlib inline\nimport torch\n!pip install \\\n    torch\nmodel?\n??model\nfiles = !ls\n"
        's = """\n%not a magic\n"""\nf(a,\n  !b)\nprint("?")  # why?\nfor i in r:\n    %time f(i)',
        counter,
    )
    assert sorted(masks) == [0, 2, 3, 4, 5, 6, 14]
    assert lines[14] == "    pass  # gradlint-ipython-7"
    assert lines[3] == "pass  # gradlint-ipython-3\n"  # a continuation takes its first line's indent
    assert lines[8] == "%not a magic\n" and lines[11] == "  !b)\n"  # inside a string / brackets
    assert mask("%%bash\nls\n", [0]) is None
    assert mask("%%timeit -n 3\nx = 1", [0]) == (["pass  # gradlint-ipython-1\n", "x = 1"], {0: "%%timeit -n 3\n"})


def test_module_level_rules_see_across_cells(here):
    # The import in cell 1 resolves `Variable` in cell 3 (a markdown cell between).
    nb = notebook([code("from torch.autograd import Variable"), markdown("# Eval"), code("y = Variable(x, volatile=True)")])
    write(here / "imported.ipynb", nb)
    # Without that import, `Variable` is the notebook's own function: nothing to report.
    nb = notebook([code("def Variable(x, volatile=False):\n    return x"), code("y = Variable(x, volatile=True)")])
    write(here / "own.ipynb", nb)
    result = run("check", "-q", "imported.ipynb", "own.ipynb")
    assert result.stdout.splitlines() == [f"imported.ipynb:cell 3:1:5: {GL001}"]


def test_non_code_cells_other_languages_and_other_kernels_are_ignored(here):
    write(here / "r.ipynb", notebook([code("x <- Variable(x, volatile=TRUE)")], language="R"))
    nb = notebook([markdown("Variable(x, volatile=True)"), code("%%writefile model.py\nx = Variable(x, volatile=True)")])
    write(here / "md.ipynb", nb)
    result = run("check", "r.ipynb", "md.ipynb")
    assert result.exit_code == 0, result.output
    assert result.stdout == "All checks passed!\n"


def test_a_cell_that_does_not_parse_is_reported_and_the_others_checked(here):
    nb = notebook([code("import torch\nfrom torch.autograd import Variable"), code("x = (1,\nprint x"), code("y = Variable(x, volatile=True)")])
    data = write(here / "broken.ipynb", nb)
    result = run("check", "-q", "broken.ipynb")
    lines = result.stdout.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("broken.ipynb:cell 2:1:5: GL000 syntax error: ")
    assert lines[1] == f"broken.ipynb:cell 3:1:5: {GL001}"
    assert run("check", "--fix", "broken.ipynb").exit_code == 1
    assert (here / "broken.ipynb").read_bytes() == data


def test_invalid_json_is_one_gl000_line_and_left_untouched(here):
    (here / "bad.ipynb").write_bytes(b'{"cells": [\n  {"cell_type": "code" "source": []}\n]}\n')
    (here / "list.ipynb").write_bytes(b"[1, 2]\n")
    write(here / "good.ipynb", notebook([code("from torch.autograd import Variable\ny = Variable(x, volatile=True)")]))
    result = run("check", "--fix", ".")
    assert result.exit_code == 1
    assert result.stdout.splitlines()[:3] == [
        "bad.ipynb:1:1: GL000 invalid notebook JSON: Expecting ',' delimiter (line 2, column 24)",
        f"good.ipynb:cell 1:2:5: {GL001}",
        "list.ipynb:1:1: GL000 not a Jupyter notebook: the top level is not a JSON object",
    ]
    assert (here / "bad.ipynb").read_bytes() == b'{"cells": [\n  {"cell_type": "code" "source": []}\n]}\n'
    assert json.loads(run("check", "--output-format", "json", "bad.ipynb").stdout)[0]["cell"] is None


def test_directory_walks_find_notebooks_but_not_checkpoints(here):
    (here / "nbs" / ".ipynb_checkpoints").mkdir(parents=True)
    for path in ("nbs/a.ipynb", "nbs/.ipynb_checkpoints/a-checkpoint.ipynb"):
        write(here / path, notebook([code("x = 1")]))
    (here / "nbs" / "b.py").write_text("x = 1\n")
    assert discover(["."], Settings()) == [Path("nbs/a.ipynb"), Path("nbs/b.py")]


def test_diagnostics_and_reports_stay_picklable(here):
    write(here / "eval.ipynb", eval_notebook())
    report = check_file(Path("eval.ipynb"), Settings(), Mode(edits=True))
    assert pickle.loads(pickle.dumps(report)) == report
    assert [d.cell for d in report.diagnostics] == [3, 4, 6]


# -- fixing ---------------------------------------------------------------------


@pytest.mark.parametrize("style", sorted(STYLES))
def test_fix_round_trip_is_byte_exact_except_the_fixed_cells(here, style):
    path = here / "eval.ipynb"
    write(path, eval_notebook(), style)
    result = run("check", "--fix", "eval.ipynb")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[-1] == "Found 3 problems (3 fixed, 0 remaining)."
    expected = STYLES[style](eval_notebook(EVAL_FIXED)).encode("utf-8")
    assert path.read_bytes() == expected
    assert run("check", "--fix", "eval.ipynb").stdout == "All checks passed!\n"
    assert path.read_bytes() == expected


def test_source_written_as_one_string_stays_a_string(here):
    path = here / "eval.ipynb"
    write(path, eval_notebook(as_string=True))
    assert run("check", "--fix", "eval.ipynb").exit_code == 0
    assert path.read_bytes() == STYLES["jupyter"](eval_notebook(EVAL_FIXED, as_string=True)).encode()


def test_unchanged_lines_keep_their_own_json_spelling(here):
    # A hand-edited notebook: one line escaped differently from what json.dumps writes.
    path = here / "nb.ipynb"
    text = STYLES["jupyter"](notebook([code("from torch.autograd import Variable\n# caf\\u00e9\ny = Variable(x)")]))
    text = text.replace('"# caf\\\\u00e9\\n"', '"# caf\\u00e9\\n"')
    path.write_text(text, encoding="utf-8")
    assert run("check", "--fix", "nb.ipynb").exit_code == 0
    assert path.read_text(encoding="utf-8") == text.replace(
        '    "from torch.autograd import Variable\\n",\n', ""
    ).replace("Variable(x)", "x.detach()")


def test_fix_adds_an_import_to_another_cell(here):
    # GL001's fix decorates `evaluate` with torch.no_grad(); torch is imported nowhere,
    # and the Variable import in cell 1 goes: cell 1 gets `import torch` instead.
    nb = notebook(
        [
            code("from torch.autograd import Variable"),
            markdown("## Eval"),
            code("def evaluate(model, x):\n    return model(Variable(x, volatile=True)).argmax(1)"),
        ]
    )
    path = here / "nb.ipynb"
    write(path, nb)
    assert run("check", "--fix", "nb.ipynb").exit_code == 0
    fixed = json.loads(path.read_text())
    assert ["".join(c["source"]) for c in fixed["cells"]] == [
        "import torch",
        "## Eval",
        "@torch.no_grad()\ndef evaluate(model, x):\n    return model(x.detach()).argmax(1)",
    ]


def test_diff_prints_each_changed_cell(here):
    write(here / "eval.ipynb", eval_notebook())
    result = run("check", "--diff", "eval.ipynb")
    assert result.exit_code == 1
    assert result.stdout.startswith(
        "--- eval.ipynb:cell 1\n+++ eval.ipynb:cell 1\n@@ -1,3 +1,2 @@\n %matplotlib inline\n import torch\n"
        "-from torch.autograd import Variable\n--- eval.ipynb:cell 3\n"
    )
    assert "+++ eval.ipynb:cell 6\n@@ -1,2 +1,2 @@\n files = !ls\n-x = Variable(x2)\n+x = x2.detach()\n" in result.stdout


class _WrapInNoGrad(Rule):
    """A test rule whose fix wraps a statement and the next one in ``with torch.no_grad():``,
    the shape of the fixes that cross cells or IPython lines."""

    triggers = ("model",)

    def visit_Module(self, node: cst.Module) -> None:
        body = list(node.body)
        for stmt, nxt in zip(body, body[1:]):
            if "model(" in self.ctx.code_for(stmt):
                edit = self.wrap(stmt, nxt, lambda stmts: codegen.wrap_in_with(stmts, "torch.no_grad()"))
                self.report(stmt, fix=self.fix(edit, title="wrap", applicability="safe"), receiver="model", read="model.data[0]")


@pytest.fixture
def wrap_rule(monkeypatch):
    _WrapInNoGrad.code = "GL003"  # set after class creation: not registered as a real rule
    monkeypatch.setattr(engine, "rule_classes", lambda codes: {"GL003": _WrapInNoGrad} if "GL003" in codes else {})
    # the engine imports the rules its table (gradlint/triggers.py) names: this one is not in it
    monkeypatch.setattr(prefilter, "firing", lambda source, codes, index=None: sorted(codes))
    # The LibCST-free prefilter reads the real rules' triggers (gradlint/triggers.py):
    # every file goes to the engine, whose prefilter asks this rule's.
    monkeypatch.setattr(prefilter, "may_parse", lambda *args, **kwargs: True)
    monkeypatch.setattr(prefilter, "needs_engine", lambda *args, **kwargs: True)


@pytest.mark.parametrize(
    "cells, fixed",
    [
        # both statements in one cell: applied
        (["out = model(x)\nprint(out)"], ["with torch.no_grad():\n    out = model(x)\n    print(out)"]),
        # the second statement is in the next cell: not applied
        (["out = model(x)", "print(out)"], None),
        # the second statement is an IPython line: not applied
        (["out = model(x)\n%time f()"], None),
    ],
)
def test_fixes_that_span_cells_or_change_ipython_lines_are_not_applied(here, wrap_rule, cells, fixed):
    path = here / "nb.ipynb"
    data = write(path, notebook([code(c) for c in cells]))
    result = run("check", "--fix", "--select", "GL003", "nb.ipynb")
    assert result.stderr == ""
    if fixed is None:
        assert path.read_bytes() == data
        assert result.exit_code == 1
        # the finding remains, not marked fixable
        assert result.stdout.splitlines()[0].startswith("nb.ipynb:cell 1:1:1: GL003")
        assert not result.stdout.splitlines()[0].startswith("nb.ipynb:cell 1:1:1: GL003 [*]")
    else:
        assert result.exit_code == 0, result.output
        assert ["".join(c["source"]) for c in json.loads(path.read_text())["cells"]] == fixed


def test_gate_refuses_text_that_changes_a_masked_line_or_breaks_a_cell(here):
    write(here / "nb.ipynb", notebook([code("!nvidia-smi\nx = 1"), code("y = 2")]))
    nb = read_document(Path("nb.ipynb"))
    assert isinstance(nb, Notebook)
    assert nb.text == "pass  # gradlint-ipython-1\nx = 1\ny = 2\n"
    assert nb.check_fix(nb.text, "x = 1\ny = 2\n") == "it would change an IPython line (cell 1, line 1)"
    assert nb.check_fix(nb.text, nb.text.replace("x = 1\n", "if x:\n")) == (
        "cell 1 would no longer run on its own (the change spans cells)"
    )
    fixed = nb.text.replace("y = 2", "y = 3")
    assert nb.check_fix(nb.text, fixed) is None
    assert json.loads(nb.render(fixed))["cells"][1]["source"] == ["y = 3"]
    assert nb.locate(fixed, 3, 5) == (2, 1, 5)


def test_noqa_comments_work_in_cells(here):
    nb = notebook(
        [
            code("from torch.autograd import Variable"),
            code("a = Variable(x, volatile=True)  # noqa: GL001\nb = Variable(x, volatile=True)"),
        ]
    )
    write(here / "line.ipynb", nb)
    nb["cells"].append(code("# gradlint: noqa"))
    write(here / "file.ipynb", nb)
    result = run("check", "-q", "line.ipynb", "file.ipynb")
    assert result.stdout.splitlines() == [f"line.ipynb:cell 2:2:5: {GL001}"]


def test_full_github_and_sarif_formats_name_the_cell_and_quote_its_lines(here):
    write(here / "eval.ipynb", eval_notebook())
    full = run("check", "--output-format", "full", "eval.ipynb").stdout
    # the location names the cell; the quoted line is the cell's own line 3, IPython lines as written
    assert " --> eval.ipynb:cell 3:3:17\n" in full
    assert "3 |     out = model(Variable(x, volatile=True))\n" in full
    assert "  |                 ^^^^^^^^^^^^^^^^^^^^^^^^^^\n" in full
    assert "2 |     %time warm = model(x)\n" in full
    # the preview of cell 3's fix shows cell 3 only (the import removal is in cell 1)
    assert "1 + @torch.no_grad()\n" in full and "4 +     out = model(x.detach())\n" in full
    assert "import torch" not in full.split("GL003")[0]
    # GitHub and SARIF show the .ipynb file as it is: the finding goes on the line of
    # its JSON that holds the code, at the code's column there.
    raw = (here / "eval.ipynb").read_text(encoding="utf-8").splitlines()
    json_row = next(i for i, line in enumerate(raw, 1) if "out = model(Variable(x, volatile=True))" in line)
    json_col = raw[json_row - 1].index("Variable(") + 1
    github = run("check", "--output-format", "github", "eval.ipynb").stdout.splitlines()
    assert github[0].startswith(
        f"::error file=eval.ipynb,line={json_row},col={json_col},endLine={json_row},endColumn={json_col + 26},"
        "title=GL001::cell 3, line 3: `volatile=True` has been ignored"
    )
    sarif = json.loads(run("check", "--output-format", "sarif", "eval.ipynb").stdout)
    first = sarif["runs"][0]["results"][0]
    assert first["locations"][0]["physicalLocation"]["region"] == {
        "startLine": json_row, "startColumn": json_col, "endLine": json_row, "endColumn": json_col + 26
    }
    assert first["properties"] == {
        "cell": 3,
        "cellRegion": {"startLine": 3, "startColumn": 17, "endLine": 3, "endColumn": 43},
        "applicability": "safe",
    }
    # Edits relative to a cell are not the file's: no SARIF fix rather than a wrong one.
    assert "fixes" not in first
    assert first["message"]["text"].startswith("cell 3, line 3: `volatile=True` has been ignored")


@pytest.mark.parametrize("style", ["jupyter", "ascii", "compact", "crlf"])
@pytest.mark.parametrize("as_string", [False, True])
def test_file_positions_point_into_the_json_in_every_style(here, style, as_string):
    source = "s = 'é\\t\"😀'; t = \"\\n\"; loss = torch.nn.functional.mse_loss(s, t)\nv = loss.data[0]\n"
    cells = [markdown("# é"), code("import torch"), code(source, as_string=as_string)]
    write(here / "nb.ipynb", notebook(cells), style)
    github = run("check", "--output-format", "github", "--select", "GL003", "nb.ipynb").stdout
    text = (here / "nb.ipynb").read_text(encoding="utf-8")
    needle = "v = loss.data[0]"
    offset = text.index(needle) + len("v = ")
    row = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    assert github.startswith(
        f"::error file=nb.ipynb,line={row},col={column},endLine={row},endColumn={column + 12},title=GL003::cell 3, line 2: "
    )
    if as_string or style == "compact":  # the whole cell on one line of the file
        assert text.count("\n", 0, offset) == text.count("\n", 0, text.index("s = '"))
    # a finding after escapes on its own JSON line: the column counts the escapes as written
    cells[2] = code("loss = torch.nn.functional.mse_loss(a, b); s = 'é\\t\"😀'; v = loss.data[0]\n", as_string=as_string)
    write(here / "nb.ipynb", notebook(cells), style)
    github = run("check", "--output-format", "github", "--select", "GL003", "nb.ipynb").stdout
    text = (here / "nb.ipynb").read_text(encoding="utf-8")
    offset = text.index(needle) + len("v = ")
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    assert f",col={column},endLine=" in github and "::cell 3, line 1: " in github


def test_messages_name_the_cell_and_line_they_refer_to(here):
    cells = [
        code("import torch\nmodel = torch.nn.Linear(2, 2)"),
        markdown("# Evaluate"),
        code("model.eval()"),
        code("x = torch.load(\"x.pt\")\nout = model(x)"),
    ]
    write(here / "nb.ipynb", notebook(cells))
    result = run("check", "--preview", "--select", "GL101", "nb.ipynb")
    assert result.stdout.splitlines()[0] == (
        "nb.ipynb:cell 4:2:7: GL101 [*] `model` is in eval mode (cell 3, line 1) but gradients are still enabled "
        "here: `.eval()` does not stop autograd, so this forward records a graph and keeps its activations alive; "
        "run it under `torch.no_grad()`"
    )
    data = json.loads(run("check", "--preview", "--select", "GL101", "--output-format", "json", "nb.ipynb").stdout)
    assert "(cell 3, line 1)" in data[0]["message"]


@pytest.mark.slow
def test_json_cells_and_rows_follow_ruffs_convention(here):
    """Ruff reports a notebook finding with `cell` (counting every cell) and rows within that cell."""
    import subprocess
    import sys

    pytest.importorskip("ruff")
    cells = [
        markdown("# Setup"),
        code("import torch\nloss = torch.nn.functional.mse_loss(x, y)"),
        code("x = 1\nimport os; v = loss.data[0]"),
    ]
    write(here / "nb.ipynb", notebook(cells))
    ruff = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "--select", "F401", "--output-format", "json", "nb.ipynb"],
        capture_output=True, text=True,
    )
    theirs = json.loads(ruff.stdout)[0]
    ours = json.loads(run("check", "--select", "GL003", "--output-format", "json", "nb.ipynb").stdout)[0]
    assert (theirs["cell"], theirs["location"]["row"], theirs["noqa_row"]) == (3, 2, 2)
    assert (ours["cell"], ours["location"]["row"], ours["noqa_row"]) == (3, 2, 2)
    assert (theirs["location"]["column"], ours["location"]["column"]) == (8, 16)


# -- gradlint migrate -------------------------------------------------------------


LEGACY_CELLS = {
    1: "import torch\nfrom torch.autograd import Variable",
    3: "%time batch = next(it)\nx = batch.cuda(async=True)",
    4: "out = model(Variable(x, volatile=True))\nprint(out.sum().data[0])",
}
MIGRATED_CELLS = {
    1: "import torch\nfrom torch.autograd import Variable",
    3: "%time batch = next(it)\nx = batch.cuda(non_blocking=True)",
    4: "out = model(Variable(x, volatile=True))\nprint(out.sum().item())",
}
# What `migrate` makes of them: the module-level volatile call gets its no_grad region.
MIGRATE_CELLS = {
    1: "import torch",
    3: "%time batch = next(it)\nx = batch.cuda(non_blocking=True)",
    4: "with torch.no_grad():\n    out = model(x.detach())\n    print(out.sum().item())",
}


def legacy_notebook(sources: Dict[int, str]) -> Dict[str, Any]:
    return notebook(
        [
            code(sources[1]),
            markdown("# Data — é"),
            code(sources[3], outputs=[{"name": "stdout", "output_type": "stream", "text": ["Wall time: 1 ms\n"]}]),
            code(sources[4]),
        ]
    )


@pytest.mark.parametrize("style", sorted(STYLES))
def test_migrate_rewrites_only_the_changed_cells_of_a_notebook(here, style):
    path = here / "legacy.ipynb"
    write(path, legacy_notebook(LEGACY_CELLS), style)
    result = CliRunner().invoke(main, ["migrate", "legacy.ipynb"])
    assert result.exit_code == 0
    assert result.stdout == (
        "Scanned 1 file; changed 1.\n"
        "Legacy uses: 4 migrated, 0 left for a human.\n"
        "Applied 4 fixes:\n"
        "  GL001  volatile-flag           1\n"
        "  GL002  variable-wrapper        1\n"
        "  GL003  data-index-scalar       1\n"
        "  GL005  async-keyword-argument  1\n"
    )
    assert path.read_bytes() == STYLES[style](legacy_notebook(MIGRATE_CELLS)).encode("utf-8")
    # a second migration changes nothing
    assert CliRunner().invoke(main, ["migrate", "legacy.ipynb"]).stdout.startswith("Scanned 1 file; changed 0.\n")


def test_migrate_leaves_a_volatile_region_that_spans_cells(here):
    path = here / "split.ipynb"
    cells = ["import torch\nfrom torch.autograd import Variable", "out = model(Variable(x, volatile=True))", "print(out.sum())"]
    data = write(path, notebook([code(c) for c in cells]))
    result = CliRunner().invoke(main, ["migrate", "split.ipynb"])
    assert result.exit_code == 1
    assert "split.ipynb:cell 2:1:13: GL001 `volatile=True`" in result.stdout
    assert path.read_bytes() == data


def test_migrate_diff_on_a_notebook_shows_cells_and_writes_nothing(here):
    path = here / "legacy.ipynb"
    data = write(path, legacy_notebook(LEGACY_CELLS))
    result = CliRunner().invoke(main, ["migrate", "--diff", "legacy.ipynb"])
    assert result.exit_code == 1
    assert result.stdout == (
        "--- legacy.ipynb:cell 1\n+++ legacy.ipynb:cell 1\n@@ -1,2 +1 @@\n"
        " import torch\n-from torch.autograd import Variable\n"
        "--- legacy.ipynb:cell 3\n+++ legacy.ipynb:cell 3\n@@ -1,2 +1,2 @@\n"
        " %time batch = next(it)\n-x = batch.cuda(async=True)\n+x = batch.cuda(non_blocking=True)\n"
        "--- legacy.ipynb:cell 4\n+++ legacy.ipynb:cell 4\n@@ -1,2 +1,3 @@\n"
        "-out = model(Variable(x, volatile=True))\n-print(out.sum().data[0])\n"
        "+with torch.no_grad():\n+    out = model(x.detach())\n+    print(out.sum().item())\n"
    )
    assert path.read_bytes() == data


def test_check_reports_async_cells_of_a_notebook_and_fixes_them(here):
    path = here / "legacy.ipynb"
    write(path, legacy_notebook(LEGACY_CELLS))
    result = run("check", "-q", "--select", "GL005,GL003", "legacy.ipynb")
    assert [line.split(" ", 2)[:2] for line in result.stdout.splitlines()] == [
        ["legacy.ipynb:cell", "3:2:16:"],
        ["legacy.ipynb:cell", "4:2:7:"],
    ]
    assert "GL005 [*] `async=` was renamed" in result.stdout
    run("check", "--fix", "--select", "GL005,GL003", "legacy.ipynb")
    assert path.read_bytes() == STYLES["jupyter"](legacy_notebook(MIGRATED_CELLS)).encode("utf-8")
