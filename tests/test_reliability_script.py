"""benchmarks/reliability.py's own checks: what it calls a collateral edit, on known cases.

The script itself is run by hand on the whole corpus (docs/reliability.md);
these make sure its accounting would notice an edit outside a fix.
"""

from __future__ import annotations

import importlib.util
import sys

import pytest

from harness import ROOT


@pytest.fixture(scope="module")
def reliability():
    spec = importlib.util.spec_from_file_location("reliability", ROOT / "benchmarks" / "reliability.py")
    module = importlib.util.module_from_spec(spec)
    saved = list(sys.path)
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path[:] = saved
    return module


def edit(row, column, end_row, end_column, content=""):
    return {"content": content, "location": {"row": row, "column": column}, "end_location": {"row": end_row, "column": end_column}}


def test_edit_rows(reliability):
    assert reliability.edit_rows(edit(2, 1, 3, 1)) == {2}  # a deleted line: ends where line 3 starts
    assert reliability.edit_rows(edit(4, 1, 4, 1, "@torch.no_grad()\n")) == {4}  # inserted before line 4
    assert reliability.edit_rows(edit(6, 18, 8, 5)) == {6, 7, 8}
    # A wrap that re-indents the next line: its text goes before that line's own.
    assert reliability.edit_rows(edit(43, 9, 44, 1, "with torch.no_grad():\n            x = 1\n    ")) == {43, 44}
    assert reliability.edit_rows(edit(43, 9, 44, 1, "y = 2\n")) == {43}


def test_diff_rows(reliability):
    old = "a\nb\nc\nd\n"
    assert reliability.diff_rows(old, "a\nB\nc\nd\n") == {2}
    assert reliability.diff_rows(old, "a\nc\nd\n") == {2}
    assert reliability.diff_rows(old, "a\nb\nx\nc\nd\n") == {3}  # inserted before line 3
    assert reliability.diff_rows(old, old) == set()


def test_compare_flags_collateral_edits_and_broken_results(reliability, capsys):
    before = {"m.py": b"import torch\nx = Variable(y)\nz = 1\n"}
    spans = {"corpus/m.py": {"GL002:safe": {2}}}
    safe = lambda code, applicability: applicability == "safe"  # noqa: E731
    figures = reliability.compare("fix", before, {"m.py": b"import torch\nx = y.detach()\nz = 1\n"}, spans, safe)
    assert figures == {"changed": 1, "diff_lines": 1, "span_lines": 1, "imports": 0, "exact": 1}
    with pytest.raises(reliability.Failed, match="fix: 1 problems"):
        reliability.compare("fix", before, {"m.py": b"import torch\nx = y.detach()\nz = 2\n"}, spans, safe)
    assert "corpus/m.py: lines changed outside any fix: [3]" in capsys.readouterr().out
    with pytest.raises(reliability.Failed):
        reliability.compare("fix", before, {"m.py": b"import torch\nx = y.detach(\nz = 1\n"}, spans, safe)
    assert "corpus/m.py: does not parse after the fix" in capsys.readouterr().out
    # Unsafe fixes' lines are allowed only where the run applies unsafe fixes.
    spans = {"corpus/m.py": {"GL002:unsafe": {2}}}
    with pytest.raises(reliability.Failed):
        reliability.compare("fix", before, {"m.py": b"import torch\nx = y.detach()\nz = 1\n"}, spans, safe)


def test_an_import_left_unused_by_several_fixes_is_not_collateral(reliability, capsys):
    # Each fix alone leaves the other use of Variable: neither lists the import's removal.
    before = {"m.py": b"from torch.autograd import Variable\na = Variable(x)\nb = Variable(y)\n"}
    spans = {"corpus/m.py": {"GL002:safe": {2, 3}}}
    safe = lambda code, applicability: applicability == "safe"  # noqa: E731
    figures = reliability.compare("fix", before, {"m.py": b"a = x\nb = y\n"}, spans, safe)
    assert (figures["diff_lines"], figures["span_lines"], figures["imports"], figures["exact"]) == (3, 2, 1, 1)
    # An import whose name is still used is not an unused import: its removal is collateral.
    with pytest.raises(reliability.Failed):
        reliability.compare("fix", before, {"m.py": b"a = x\nb = Variable(y)\n"}, spans, safe)
    assert "lines changed outside any fix: [1]" in capsys.readouterr().out
