"""Applying a round's fixes renders only the top-level statements they change.

The positions every lint computes come from one rendering of the module; its
tokens give the code of each top-level node (``Tree.top_level_code``), and
``fixes.apply_fixes`` renders the fixed module (for the import changes and at
the end) from that code and the code of the statements the fixes rebuilt
(``import_changes.known_code``). The import remover's name reads are made per
top-level node too (``import_changes._spliced_reads``). Here each is compared
with rendering and tokenizing the whole module, on every fixture and case.
"""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

from gradlint import engine, import_changes
from gradlint.engine import LintSettings, fix_source, lint_source
from gradlint.fixes import applied, apply_fixes, select_compatible
from gradlint import catalog
from gradlint.catalog import load
from gradlint.semantic.tree import Tree
from gradlint.traversal import positions, top_level_code
from harness import FIX_CORPUS, ROOT

CORPUS = FIX_CORPUS
RULES = frozenset(load()) - catalog.DIRECTIVE_CODES


def _parsed(path: Path):
    try:
        return cst.parse_module(path.read_text(encoding="utf-8"))
    except Exception:
        return None


def test_top_level_code_is_each_nodes_code():
    checked = 0
    for path in CORPUS:
        module = _parsed(path)
        if module is None:
            continue
        rendered: list = []
        positions(module, rendered)
        known = top_level_code(module, rendered)
        nodes = [*module.header, *module.body, *module.footer]
        if not module.body or not module.has_trailing_newline:
            assert known is None, path
            continue
        assert known is not None, path
        assert [known[id(n)][0] for n in nodes] == nodes
        assert [known[id(n)][1] for n in nodes] == [module.code_for_node(n) for n in nodes], path
        assert "".join(known[id(n)][1] for n in nodes) == module.code, path
        checked += 1
    assert checked > 100


def test_modules_that_do_not_split_into_top_level_code():
    # No final newline: the module drops its last token. Empty: it adds one.
    for source in ("x = 1", "", "# only a comment\n"):
        module = cst.parse_module(source)
        rendered: list = []
        positions(module, rendered)
        assert top_level_code(module, rendered) is None
        with import_changes.known_code(module, {}):
            assert import_changes.module_code(module) == source


def test_tree_gives_top_level_code_once_it_has_positions():
    module = cst.parse_module("import torch\n\n# a comment\nx = torch.zeros(1)\n")
    tree = Tree(module)
    assert tree.top_level_code() is None  # no rendering yet
    tree.span(module.body[1])
    known = tree.top_level_code()
    assert known is not None
    assert [c for _, c in known.values()] == ["import torch\n", "\n# a comment\nx = torch.zeros(1)\n"]


def test_spliced_code_and_reads_are_the_whole_modules():
    checked = 0
    for path in CORPUS:
        module = _parsed(path)
        if module is None or not module.body or not module.has_trailing_newline:
            continue
        rendered: list = []
        positions(module, rendered)
        # A rebuilt statement (not in ``known``) is rendered alone.
        changed = module.with_changes(body=[*module.body[:-1], module.body[-1].deep_clone()])
        with import_changes.known_code(module, top_level_code(module, rendered)):
            assert import_changes._spliced(changed) == changed.code, path
            assert import_changes._spliced_reads(changed) == import_changes._name_reads(changed.code), path
        checked += 1
    assert checked > 100


def test_other_indentation_is_not_spliced():
    module = cst.parse_module("def f():\n    return 1\n")
    rendered: list = []
    positions(module, rendered)
    other = module.with_changes(default_indent="\t")
    with import_changes.known_code(module, top_level_code(module, rendered)):
        assert import_changes._spliced(other) is None
        assert import_changes.module_code(other) == other.code


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: str(p.relative_to(ROOT)))
def test_fixes_applied_with_known_code_give_the_same_text(path):
    source = path.read_text(encoding="utf-8")
    lint = lint_source(source, str(path), LintSettings(RULES))
    if lint.context is None:
        return
    fixes = [f.fix for f in lint.findings if f.fix is not None]
    if not fixes:
        return
    ctx = lint.context
    known = ctx.tree.top_level_code()  # the findings' spans rendered the module
    assert known is not None or not ctx.module.has_trailing_newline
    chosen = select_compatible(fixes)
    assert apply_fixes(ctx.module, chosen, ctx.parents, known) == apply_fixes(ctx.module, chosen, ctx.parents)
    for fix in fixes:
        assert apply_fixes(ctx.module, [fix], ctx.parents, known) == apply_fixes(ctx.module, [fix], ctx.parents)


def test_fix_loop_gives_the_same_text_with_known_code(monkeypatch):
    # The loop with the known code against the loop that renders every module whole.
    def whole(module, fixes, parents=None, known=None):
        return applied(module, fixes, parents)

    sources = [(p, p.read_text(encoding="utf-8")) for p in CORPUS]
    settings = LintSettings(RULES)
    ours = [fix_source(s, str(p), settings, unsafe=True).source for p, s in sources]
    monkeypatch.setattr(engine, "applied", whole)
    theirs = [fix_source(s, str(p), settings, unsafe=True).source for p, s in sources]
    assert ours == theirs


def test_fixes_share_one_tuple_of_imports_to_remove():
    # Every GL002 fix of a file lists the same imports of `Variable`: one tuple, which
    # apply_fixes reads once however many fixes carry it.
    from gradlint.fixes import _union

    source = (
        "import torch\nfrom torch.autograd import Variable\n\n\n"
        "def f(x, y):\n    return Variable(x) + Variable(y)\n\n\ndef g(z):\n    return Variable(z)\n"
    )
    lint = lint_source(source, "m.py", LintSettings(frozenset({"GL002"})))
    fixes = [f.fix for f in lint.findings if f.fix is not None]
    assert [(f.code, f.start) for f in lint.findings] == [("GL002", (6, 11)), ("GL002", (6, 25)), ("GL002", (10, 11))]
    assert len({id(f.remove_imports) for f in fixes}) == 1
    assert fixes[0].remove_imports == (import_changes.ImportSpec("torch.autograd", "Variable"),)
    assert _union(f.remove_imports for f in fixes) == {imp for f in fixes for imp in f.remove_imports}
    assert apply_fixes(lint.context.module, fixes, lint.context.parents) == (
        "import torch\n\n\ndef f(x, y):\n    return x.detach() + y.detach()\n\n\ndef g(z):\n    return z.detach()\n"
    )


def test_node_classes_tested_by_exact_type_have_no_subclasses():
    # Whole-file walks test `type(node) is C` instead of isinstance(node, C) (an ABC check,
    # a Python-level call): the same answer only while LibCST has no subclass of C.
    exact = (
        cst.Call, cst.Name, cst.Attribute, cst.Assign, cst.AugAssign, cst.AnnAssign, cst.For, cst.CompFor,
        cst.AsName, cst.FunctionDef, cst.Lambda, cst.ClassDef, cst.WithItem, cst.NamedExpr, cst.Return,
        cst.Yield, cst.Raise, cst.Param, cst.ImportAlias, cst.Arg, cst.If, cst.With, cst.Await,
        cst.SimpleStatementLine, cst.SimpleStatementSuite, cst.IndentedBlock, cst.Module, cst.Expr,
        cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp, cst.Import, cst.ImportFrom,
        cst.Subscript, cst.Decorator, cst.Tuple, cst.List, cst.StarredElement,
    )  # fmt: skip
    assert [c.__name__ for c in exact if c.__subclasses__()] == []
