"""The fix loop's shortcuts write what the plain loop writes.

``fix_source`` picks each round's fixes with an index of their spans, and has
LibCST's import codemods look only at the statements that decide what they do
(``import_changes._import_statements``) when the module's head is not enough. The plain
loop (every pair of fixes compared, the codemods on the whole module) is run
next to it on every fixture, every rule case and a generated long file: the
fixed text, the counts, the problems and the findings left are the same.
"""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path
from typing import Dict, Iterable, List, Tuple

import libcst as cst
import pytest

from gradlint import engine, fixes, import_changes
from gradlint.catalog import load
from gradlint.engine import LintSettings, fix_source, lint_source
from gradlint.fixes import Edit, Fix, ImportSpec
from gradlint.import_changes import _import_statements, _update_imports, _update_imports_now

ROOT = Path(__file__).resolve().parent.parent
CORPUS = sorted(
    p
    for base in (ROOT / "fixtures", ROOT / "tests" / "cases")
    for p in base.rglob("*.py")
    if not p.name.endswith((".fixed.py", ".unsafe.py"))
)
ALL = LintSettings(frozenset(load()))


def generated_file(lines: int) -> str:
    """The GL001-GL003 fixture inputs repeated (what benchmarks/speed_diff.py fixes at 20,000 lines)."""
    parts = [p.read_text(encoding="utf-8") for p in CORPUS if p.parent.parent.name == "fixtures" and p.parent.name in ("GL001", "GL002", "GL003")]
    text = "".join(parts)
    out = text * (lines // text.count("\n") + 1)
    return "".join(out.splitlines(keepends=True)[:lines])


def _plain_select(candidates: Iterable[Fix]) -> List[Fix]:
    kept: List[Fix] = []
    edits: List[Edit] = []
    for fix in candidates:
        if any(fixes._conflict(e, k) for e in fix.edits for k in edits):
            continue
        kept.append(fix)
        edits.extend(fix.edits)
    return kept


def _outcome(source: str, unsafe: bool):
    result = fix_source(source, "m.py", ALL, unsafe=unsafe)
    remaining = [(f.code, f.start, f.end, f.message) for f in result.remaining]
    return result.source, dict(result.fixed), result.problems, remaining


# The plain loop's outcome on a long file, by (source, unsafe): the long-file tests
# differ only in what the shortcuts may use (`_read_as_globals`, which the plain
# loop replaces), so the slowest half of each test, about 11 s of CPU, is the same.
_PLAIN: Dict[Tuple[str, bool], tuple] = {}


# The lints of the long file's rounds, shared by its four tests (see _shared_lints).
_LONG_LINTS: Dict[Tuple[str, str, int], tuple] = {}


def _shared_lints(monkeypatch, lints: Dict[Tuple[str, str, int], tuple]) -> None:
    """Each text linted once for every loop run on it. What the loops do
    differently is which fixes they pick and how they change imports (what the
    tests patch is read only there); a lint depends on the text alone (the
    module a round hands on is a fresh parse of it, ``_apply_checked``), so a
    loop's lint of a text another loop wrote is that loop's."""
    real = engine.lint_source

    def shared(text, path, settings, **kw):
        assert set(kw) <= {"module"}, kw
        key = (text, path, id(settings))
        if key not in lints:
            lints[key] = (settings, real(text, path, settings, **kw))  # (settings kept: its id stays its own)
        return lints[key][1]

    monkeypatch.setattr(engine, "lint_source", shared)


def _both(monkeypatch, source: str, unsafe: bool, share_plain: bool = False):
    with monkeypatch.context() as m:
        _shared_lints(m, _LONG_LINTS if share_plain else {})
        new = _outcome(source, unsafe)
        if share_plain and (source, unsafe) in _PLAIN:
            return new, _PLAIN[(source, unsafe)]
        m.setattr(engine, "select_compatible", _plain_select)
        m.setattr(import_changes, "_import_statements", lambda module, removes: None)
        m.setattr(import_changes, "_read_as_globals", lambda code, removes: set())
        old = _outcome(source, unsafe)
    if share_plain:
        _PLAIN[(source, unsafe)] = old
    return new, old


@pytest.mark.slow
@pytest.mark.parametrize("path", CORPUS, ids=[str(p.relative_to(ROOT)) for p in CORPUS])
def test_the_fix_loop_writes_what_the_plain_loop_writes(path, monkeypatch):
    new, old = _both(monkeypatch, path.read_text(encoding="utf-8"), unsafe=True)
    assert new == old


@pytest.mark.parametrize("unsafe", [pytest.param(False, marks=pytest.mark.slow), True])
@pytest.mark.parametrize("symbol_table", [True, False], ids=["symbol table", "sparse codemods"])
def test_the_fix_loop_writes_what_the_plain_loop_writes_on_a_long_file(unsafe, symbol_table, monkeypatch):
    sparse: List[int] = []
    read: List[int] = []
    real = import_changes._update_imports_sparse
    real_read = import_changes._read_as_globals
    monkeypatch.setattr(import_changes, "_update_imports_sparse", lambda *a: sparse.append(1) or real(*a))
    monkeypatch.setattr(import_changes, "_read_as_globals", lambda *a: read.append(len(real_read(*a))) or real_read(*a))
    if not symbol_table:
        # as if the file imported ``annotations`` from ``__future__``: the symbol table is not asked
        monkeypatch.setattr(import_changes, "_postponed_annotations", lambda code: True)
    # The plain loop's `_read_as_globals` is its own (no symbol table asked, patched or
    # not): its outcome is shared by the two `symbol_table` cases.
    new, old = _both(monkeypatch, generated_file(1500), unsafe, share_plain=True)
    if symbol_table:
        # The file's modules import ``print_function`` from ``__future__``, and read
        # ``Variable`` after the first fixes: kept, without the codemods.
        assert read[0]
    else:
        assert sparse  # the codemods saw part of the module
    assert new == old
    assert new[0] != generated_file(1500)


# Modules whose imports follow code, so that the head of the module is not enough.
LATE = "import torch\n\n\ndef f(x):\n    return x\n\n\ndef f2(x):\n    return x\n\n\n"
SPARSE_CASES = {
    "comment above moves on": LATE + "# the wrapper\nfrom torch.autograd import Variable\n\n\ndef g():\n    pass\n\n\nz = 1\n",
    "read further down: kept": LATE + "from torch.autograd import Variable\nz = Variable(1)\n\n\ndef g(y):\n    return y\n",
    "the last statement": LATE + "z = 1\n# the wrapper\nfrom torch.autograd import Variable\n",
    "imported again in a function": LATE + "from torch.autograd import Variable\n\n\ndef g(x):\n    # local\n    from torch.autograd import Variable\n\n\nz = 1\n",
    "hidden by a local": LATE + "from torch.autograd import Variable\n\n\ndef g(Variable):\n    return Variable\n\n\nz = 1\n",
    "two in a row": LATE + "from torch.autograd import Variable\nfrom torch.autograd import Variable as V\n\n\nz = 1\n\n\ndef h():\n    pass\n",
    "in a string annotation": LATE + "from torch.autograd import Variable\n\n\ndef g(x) -> 'Variable':\n    return x\n\n\nz = 1\n",
    "in a docstring": LATE + "from torch.autograd import Variable\n\n\ndef g(x):\n    '''Not a Variable.'''\n\n\nz = 1\n",
    "a TypeVar named elsewhere": "from typing import TypeVar as T\n" + LATE + "from torch.autograd import Variable\n\n\nq = T('Variable')\n\n\nz = 1\n",
    "a Literal": "import typing\n" + LATE + "from torch.autograd import Variable\n\n\ndef g(x: typing.Literal['Variable']):\n    pass\n\n\nz = 1\n",
}
# Not shown from the statements that spell the name: the whole module is changed.
WHOLE_CASES = {
    "listed in __all__": LATE + "from torch.autograd import Variable\n__all__ = ['Variable']\n\n\nz = 1\n",
    "spelled with an escape": LATE + "from torch.autograd import Variable\n\n\ndef g(x) -> '\\x56ariable':\n    return x\n\n\nz = 1\n",
}


@pytest.mark.parametrize("name", sorted(SPARSE_CASES))
def test_import_codemods_on_the_statements_that_spell_the_names_change_the_module_as_on_all_of_it(name):
    module = cst.parse_module(SPARSE_CASES[name])
    removes = [ImportSpec("torch.autograd", "Variable"), ImportSpec("torch.autograd", "Variable", "V")]
    keep = _import_statements(module, removes)
    assert keep is not None and len(keep) < len(module.body)
    for adds in ([], [ImportSpec("torch")], [ImportSpec("torch", "no_grad")]):
        whole = _update_imports_now(module, adds, removes).code
        assert import_changes._update_imports_sparse(module, keep, adds, removes).code == whole
        if import_changes._import_head(module, removes) is None:  # (the head, where it is enough, goes first)
            assert _update_imports(module, adds, removes).code == whole


@pytest.mark.parametrize("name", sorted(WHOLE_CASES))
def test_names_the_statements_do_not_show_are_left_to_the_whole_module(name):
    module = cst.parse_module(WHOLE_CASES[name])
    removes = [ImportSpec("torch.autograd", "Variable")]
    assert _import_statements(module, removes) is None
    assert _update_imports(module, [], removes).code == _update_imports_now(module, [], removes).code


def test_the_statements_kept_are_the_head_those_that_spell_a_name_and_the_next():
    module = cst.parse_module(SPARSE_CASES["comment above moves on"])
    # 0 import torch, 1 def f, 2 def f2, 3 the import, 4 def g, 5 z = 1
    assert _import_statements(module, [ImportSpec("torch.autograd", "Variable")]) == [0, 1, 3, 4]


def test_fixes_are_chosen_as_by_comparing_every_pair():
    """The span index finds every edit a fix could conflict with: random spans, nested,
    touching and overlapping, some with shared keys, give the same choice."""
    rng = random.Random(29)
    node = cst.Name("x")
    for _ in range(200):
        fixes_: List[Fix] = []
        for _ in range(rng.randint(1, 12)):
            edits = []
            for _ in range(rng.randint(1, 3)):
                a = (rng.randint(1, 6), rng.randint(0, 4))
                b = (rng.randint(1, 6), rng.randint(0, 4))
                start, end = min(a, b), max(a, b)
                kind = rng.choice(["replace", "transform", "wrap"])
                key = rng.choice([None, None, "k1", "k2"])
                edits.append(Edit(kind, node, (start, end), key=key))
            fixes_.append(Fix("safe", "t", tuple(edits)))
        assert fixes.select_compatible(fixes_) == _plain_select(fixes_)


def test_a_fix_loop_given_the_first_lint_does_not_lint_it_again(monkeypatch):
    source = "import torch\nfrom torch.autograd import Variable\n\n\ndef f(model, x):\n    return model(Variable(x, volatile=True)).argmax(1)\n"
    settings = LintSettings(frozenset({"GL001", "GL002"}))
    first = lint_source(source, "m.py", settings)
    linted: List[str] = []
    real = engine.lint_source
    monkeypatch.setattr(engine, "lint_source", lambda text, *a, **k: linted.append(text) or real(text, *a, **k))
    given = fix_source(source, "m.py", settings, first=first)
    assert source not in linted and len(linted) == 1  # the fixed text only
    assert given.original is first
    linted.clear()
    fresh = fix_source(source, "m.py", settings)
    assert linted[0] == source
    assert (given.source, dict(given.fixed)) == (fresh.source, dict(fresh.fixed))
    assert given.source == "import torch\n\n\n@torch.no_grad()\ndef f(model, x):\n    return model(x.detach()).argmax(1)\n"


ASYNC_SOURCES = {
    "plain": "import torch\nfrom torch.autograd import Variable\n\n\ndef f(model, x):\n    x = x.cuda(async=True)\n"
    "    return model(Variable(x, volatile=True)).data[0]\n",
    "noqa on a line": "import torch\nfrom torch.autograd import Variable\n\n\ndef f(model, x):\n    x = x.cuda(async=True)\n"
    "    y = Variable(x, volatile=True)  # noqa: GL001\n    return model(Variable(x)).data[0]  # noqa\n",
    "noqa on the repaired line": "import torch\n\n\ndef f(loss, x):\n    x = x.cuda(async=True)  # noqa: GL003\n    return loss.data[0]\n",
}


@pytest.mark.parametrize("name", sorted(ASYNC_SOURCES))
def test_after_a_source_repair_the_repaired_text_is_not_linted_again(name, monkeypatch):
    """The first lint ran the rules on the repaired text: the fix loop's first round is
    that lint, what linting the repaired text again gives."""
    source = ASYNC_SOURCES[name]
    settings = LintSettings(frozenset({"GL001", "GL002", "GL003", "GL005"}))
    first = lint_source(source, "m.py", settings)
    assert first.repaired_by is not None and first.repaired_lint is not None
    repaired = first.context.source
    again = lint_source(repaired, "m.py", settings, module=first.context.module)
    key = lambda r: [(f.code, f.start, f.end, f.message, f.fix is None) for f in r.findings]  # noqa: E731
    assert key(first.repaired_lint) == key(again)
    linted: List[str] = []
    real = engine.lint_source
    monkeypatch.setattr(engine, "lint_source", lambda text, *a, **k: linted.append(text) or real(text, *a, **k))
    reused = fix_source(source, "m.py", settings, first=first)
    assert repaired not in linted
    linted.clear()
    plain = fix_source(source, "m.py", settings, first=dataclasses.replace(first, repaired_lint=None))
    assert linted[0] == repaired
    assert (reused.source, dict(reused.fixed), reused.problems) == (plain.source, dict(plain.fixed), plain.problems)
    assert [(f.code, f.start) for f in reused.remaining] == [(f.code, f.start) for f in plain.remaining]
    assert reused.source != source


# name -> (module, whether Python's symbol table shows the import read as the module's own)
READ_CASES = {
    "in a function": (LATE + "from torch.autograd import Variable\n\n\ndef g(x):\n    return Variable(x)\n", True),
    "at module level": (LATE + "from torch.autograd import Variable\nz = Variable(1)\n", True),
    "in a method": (LATE + "from torch.autograd import Variable\n\n\nclass A:\n    def g(self, x):\n        return Variable(x)\n", True),
    "in a comprehension": (LATE + "from torch.autograd import Variable\nzs = [Variable(x) for x in range(3)]\n", True),
    "in a lambda": (LATE + "from torch.autograd import Variable\nwrap = lambda x: Variable(x)\n", True),
    "a parameter of that name": (LATE + "from torch.autograd import Variable\n\n\ndef g(Variable):\n    return Variable\n", False),
    "bound later in the function": (LATE + "from torch.autograd import Variable\n\n\ndef g(x):\n    y = Variable(x)\n    Variable = 1\n    return y\n", False),
    "imported again in a function": (LATE + "from torch.autograd import Variable\nz = Variable(1)\n\n\ndef g(x):\n    from torch.autograd import Variable\n    return 1\n", False),
    "deleted": (LATE + "from torch.autograd import Variable\nz = Variable(1)\ndel z\n", False),
    "postponed annotations": ("from __future__ import annotations\n" + LATE + "from torch.autograd import Variable\nz = Variable(1)\n", False),
    "postponed annotations, imported with others": (
        "from __future__ import division, annotations\n" + LATE + "from torch.autograd import Variable\nz = Variable(1)\n",
        False,
    ),
    "another feature from __future__": ("from __future__ import print_function\n" + LATE + "from torch.autograd import Variable\nz = Variable(1)\n", True),
    "not read": (LATE + "from torch.autograd import Variable\nz = 1\n", False),
}


@pytest.mark.parametrize("name", sorted(READ_CASES))
def test_an_import_python_reads_as_the_modules_own_is_kept_without_the_codemods(name, monkeypatch):
    text, read = READ_CASES[name]
    module = cst.parse_module(text + '\n\ndef doc():\n    "Not torch\'s Variable."\n')
    removes = [ImportSpec("torch.autograd", "Variable")]
    assert import_changes._import_head(module, removes) is None  # (the name in a string): else the head goes first
    assert import_changes._read_as_globals(module.code, removes) == (set(removes) if read else set())
    for adds in ([], [ImportSpec("torch", "no_grad")]):
        whole = _update_imports_now(module, adds, removes).code
        if read:
            # kept, and decided without the remover
            monkeypatch.setattr(import_changes, "_remove_imports_visitor", lambda: pytest.fail("the remover ran"))
        assert _update_imports(module, adds, removes).code == whole
        monkeypatch.undo()
    if read:
        assert _update_imports(module, [], removes) is module
