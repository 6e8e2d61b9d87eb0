"""A fix is offered only if ``--fix`` would apply it, and what is offered is what it writes.

``[*]``, the fixable counts, JSON edits and an editor's quick fixes all ask
``FixRenderer.parses``, which applies the check ``--fix`` makes
(``fixes.parse_fixed``). The property test runs every fix found on the
fixtures and the rule-case corpus: its exported edits, applied by a plain
text applier, give code that parses and equals what applying the fix writes.
"""

from __future__ import annotations

import json
from pathlib import Path

import libcst as cst
import pytest
from click.testing import CliRunner

from gradlint import codegen
from gradlint.checking import check_document
from gradlint.cli import main
from gradlint.config import Settings
from gradlint.fixes import apply_fixes, parse_fixed
from gradlint.runner import Mode, to_diagnostics
from samples import LIFTED
from test_fix_renderer import apply_text_edits

ROOT = Path(__file__).resolve().parent.parent
CORPUS = sorted(
    p
    for base in (ROOT / "fixtures", ROOT / "tests" / "cases")
    for p in base.rglob("*.py")
    if not p.name.endswith((".fixed.py", ".unsafe.py"))
)

LIFTED_FIXED = (
    "import torch\n"
    "\n"
    "\n"
    "def f(c):\n"
    "    x = (torch.zeros(3).float()\n"
    "    .cuda())\n"
    "    return x\n"
)


def run(*args):
    return CliRunner().invoke(main, ["check", "--no-cache", "--jobs", "1", *args])


def test_a_lifted_two_line_argument_is_parenthesised(tmp_path):
    path = tmp_path / "m.py"
    path.write_text(LIFTED)
    listed = run(str(path))
    assert listed.stdout.splitlines()[0].startswith(f"{path}:6:9: GL002 [*] ")
    assert listed.stdout.splitlines()[-1] == "Found 1 problem (1 fixable with --fix)."
    exported = json.loads(run("--output-format", "json", str(path)).stdout)
    edits = exported[0]["fix"]["edits"]
    assert [(e["location"]["row"], e["end_location"]["row"], e["content"]) for e in edits] == [
        (2, 3, ""),
        (6, 7, "(torch.zeros(3).float()\n    .cuda()"),
    ]
    fixed = run("--fix", str(path))
    assert fixed.exit_code == 0, fixed.output
    assert path.read_text() == LIFTED_FIXED


@pytest.mark.parametrize(
    "code, breaks",
    [
        ("x", False),
        ("f(\n    a)", False),  # its own brackets hold it together
        ("x \\\n  .y", False),  # a backslash continues the line anywhere
        ("x.f()\n.g()", True),
        ("x[0]\n[1]", True),
        ("a +\n b", True),
        ("'a'\n'b'", True),
    ],
)
def test_breaks_lines(code, breaks):
    expr = cst.parse_expression(f"({code})").with_changes(lpar=[], rpar=[])
    assert codegen.breaks_lines(expr) is breaks
    wrapped = cst.Module([]).code_for_node(codegen.atomic(expr))
    assert parse_fixed(f"y = {wrapped}\n") is not None


def test_a_fix_whose_result_does_not_parse_is_not_offered(tmp_path, monkeypatch):
    """The same finding, with the parenthesising undone: --fix refuses the fix, so no
    output format offers it."""
    monkeypatch.setattr(codegen, "breaks_lines", lambda expr: False)
    path = tmp_path / "m.py"
    path.write_text(LIFTED)
    listed = run(str(path))
    assert listed.stdout.splitlines()[0] == (
        f"{path}:6:9: GL002 `Variable(...)` has been deprecated since PyTorch 0.4 and now returns its argument's "
        "`.detach()`"
    )
    assert "(1 fixable" not in listed.stdout
    exported = json.loads(run("--output-format", "json", str(path)).stdout)
    assert exported[0]["code"] == "GL002" and exported[0]["fix"] is None
    sarif = json.loads(run("--output-format", "sarif", str(path)).stdout)
    assert "fixes" not in sarif["runs"][0]["results"][0]
    diff = run("--diff", str(path))
    assert "produced code that does not parse; not applied" in diff.output
    assert "+++" not in diff.stdout


def _fixes_with_edits(path: Path):
    source = path.read_text(encoding="utf-8")
    checked = check_document(path, source, Settings(cwd=path.parent, select=["ALL"]))
    if checked.context is None:
        return source, None, []
    diagnostics = to_diagnostics(checked.findings, source, checked.context, Mode(edits=True))
    pairs = [(f.fix, d.fix) for f, d in zip(checked.findings, diagnostics) if f.fix is not None]
    return source, checked.context, pairs


@pytest.mark.parametrize("path", CORPUS, ids=[str(p.relative_to(ROOT)) for p in CORPUS])
def test_exported_edits_give_what_the_fix_writes(path):
    source, ctx, pairs = _fixes_with_edits(path)
    for fix, info in pairs:
        whole = apply_fixes(ctx.module, [fix], ctx.parents)
        if info is None:  # not offered: --fix would refuse it
            assert parse_fixed(whole) is None
            continue
        assert apply_text_edits(source, info.edits) == whole, fix.title
        assert parse_fixed(whole) is not None


def test_diff_of_a_long_file_has_a_hunk_per_edit():
    """A 20,000-line file of repeated blocks (no line found once: difflib's junk
    heuristic took its blank lines for junk and gave one hunk for the whole file)."""
    from gradlint.text_diff import unified_diff

    block = ["def f(loss):\n", "    x = loss.data[0]\n", "\n", "    return x\n", "\n"]
    old = block * 4000
    new = list(old)
    for row in (101, 9001, 19001):  # 1-based rows of `x = loss.data[0]` lines
        assert new[row] == "    x = loss.data[0]\n"
        new[row] = "    x = loss.item()\n"
    diff = unified_diff("m.py", "".join(old), "".join(new))
    assert [line for line in diff.splitlines() if line.startswith("@@")] == [
        "@@ -99,7 +99,7 @@",
        "@@ -8999,7 +8999,7 @@",
        "@@ -18999,7 +18999,7 @@",
    ]
    assert diff.splitlines()[:2] == ["--- m.py", "+++ m.py"]
    assert diff.count("\n-") == 3 and diff.count("\n+") == 3 + 1  # the edits, and the +++ line


@pytest.mark.parametrize(
    "old, new",
    [
        ("a\nb\nc\n", "a\nB\nc\n"),
        ("a\nb", "a\nc"),  # no final newline on either side
        ("a\nb\n", "a\nb"),
        ("", "x\n"),
        ("x\n", ""),
    ],
)
def test_diff_is_what_difflib_writes_for_small_changes(old, new):
    import difflib

    from gradlint.parsing import split_lines
    from gradlint.text_diff import unified_diff

    ours = unified_diff("f", old, new)
    theirs = "".join(difflib.unified_diff(split_lines(old), split_lines(new), fromfile="f", tofile="f"))
    if not (old.endswith("\n") and new.endswith("\n")) and old and new:
        # difflib runs a line without a newline into the next one; git's marker instead.
        assert "\\ No newline at end of file" in ours
    else:
        assert ours == theirs


HEAD_CASES = {
    "unused, comment above moves on": "import torch\n# the wrapper\nfrom torch.autograd import Variable\n\n\ndef f(x):\n    return x\n\n\ndef g():\n    pass\n",
    "read further down: kept": "import torch\nfrom torch.autograd import Variable\n\n\ndef f(x):\n    return x\n\n\ndef g(y):\n    return Variable(y)\n",
    "named in a comment only": "from torch.autograd import Variable\n\n\ndef f(x):\n    return x  # was Variable(x)\n\n\nz = 1\n",
    "in a string annotation": "from torch.autograd import Variable\n\n\ndef f(x) -> 'Variable':\n    return x\n\n\nz = 1\n",
    "listed in __all__": "from torch.autograd import Variable\n__all__ = ['Variable']\n\n\ndef f(x):\n    return x\n\n\nz = 1\n",
    "imported again in a function": "from torch.autograd import Variable\n\n\ndef f(x):\n    from torch.autograd import Variable\n    return Variable(x)\n\n\nz = 1\n",
    "after the code": "import torch\n\n\ndef f(x):\n    return x\n\n\nfrom torch.autograd import Variable\nz = 1\n",
}


@pytest.mark.parametrize("name", sorted(HEAD_CASES))
def test_import_codemods_on_the_head_change_the_module_as_on_all_of_it(name):
    from gradlint.fixes import ImportSpec
    from gradlint.import_changes import _update_imports, _update_imports_now

    module = cst.parse_module(HEAD_CASES[name])
    removes = [ImportSpec("torch.autograd", "Variable")]
    if name in KEEPS_UNUSED:
        # A local import hides the module's: the remover takes the module's out; read
        # as a name further down, it is kept here, unused, which changes nothing.
        assert _update_imports(module, [], removes).code == HEAD_CASES[name]
        assert _update_imports_now(module, [], removes).code != HEAD_CASES[name]
        return
    for adds in ([], [ImportSpec("torch")]):
        assert _update_imports(module, adds, removes).code == _update_imports_now(module, adds, removes).code


KEEPS_UNUSED = {"imported again in a function"}


def test_diff_does_not_read_where_noqa_would_go(tmp_path, monkeypatch):
    # `--diff` prints the diff alone: the noqa map of its findings (a tokenizing of the
    # file) is not made; the diff, the count and the exit code are the same.
    from gradlint import runner

    source = "import torch\nfrom torch.autograd import Variable\n\n\ndef f(x):\n    return Variable(x) + \\\n        1\n"
    (tmp_path / "m.py").write_text(source, encoding="utf-8")
    (tmp_path / "n.py").write_text("import torch\n\nx = torch.ones(1) + \\\n    1\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)

    def refused(text):
        raise AssertionError("noqa map read")

    monkeypatch.setattr(runner, "PlacementReader", refused)
    result = CliRunner().invoke(main, ["check", "--no-cache", "--diff", "m.py", "n.py"])
    assert result.exit_code == 1, result.output
    assert result.stdout == (
        "--- m.py\n+++ m.py\n@@ -1,7 +1,6 @@\n import torch\n-from torch.autograd import Variable\n \n \n def f(x):\n"
        "-    return Variable(x) + \\\n+    return x.detach() + \\\n         1\n"
    )
    with pytest.raises(AssertionError, match="noqa map read"):
        runner.to_diagnostics([], source, None, runner.Mode())
