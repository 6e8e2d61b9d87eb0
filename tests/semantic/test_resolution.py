"""The project's scope analysis answers what LibCST's did, so that no finding or fix moved.

``semantic.resolution`` (qualified names, the reads of each import, the imports
nothing reads) replaced LibCST's ``ScopeProvider`` and ``QualifiedNameProvider``
in the product. LibCST stays the oracle here: every answer is compared with its
own on every fixture, case and catalog example, on a file using all of Python's
syntax, on snippets of the rules where LibCST departs from Python, and on the
benchmark corpus where it has been downloaded.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from pathlib import Path
from typing import Dict, FrozenSet, List, Optional, Tuple

import libcst as cst
import pytest
from libcst.codemod import CodemodContext
from libcst.codemod.visitors import GatherUnusedImportsVisitor, RemoveImportsVisitor
from libcst.metadata import MetadataWrapper, QualifiedNameProvider, ScopeProvider

from harness import FIXTURES, ROOT
from gradlint.fix import ImportSpec
from gradlint.import_changes import _quick_matcher_visitors
from gradlint.semantic.resolution import Resolution, unused_imports
from gradlint.semantic.scopes import Scopes
from gradlint.semantic.tree import Tree
from gradlint.traversal import walk

from test_traversal import SOURCES

# Where LibCST's rules are not Python's; each was once answered differently here.
QUIRKS = [
    # a read before the binding in its own scope reaches the scope around it
    "import torch\ndef f():\n    y = torch.zeros(1)\n    torch = 1\n    return torch\n",
    # a ``for`` target counts as bound for its own iterable
    "import x\ndef f():\n    for x in x:\n        pass\n",
    # the element of a comprehension is read after all of its ``for``s
    "def f(d):\n    return set(p for o in d.values() for p in o)\n",
    "def f(m):\n    return [s for s in m if s] + [[t for t in s] for s in m]\n",
    # an inner ``for`` is bound when it ends, not for its own ``if``s
    "c = 1\nys = [c for a in b for c in a if c]\n",
    # a walrus binds in the comprehension it is written in
    "def f(xs):\n    return [(y := x) for x in xs], y\n",
    # classes are not seen from their methods, nor from nested classes
    "import torch\nclass A:\n    torch = 1\n    def m(self):\n        return torch.zeros(1)\n    class B:\n        t = torch\n",
    # a method's late binding of a name its class binds reaches the class
    "class A:\n    x = 1\n    def m(self):\n        y = x\n        x = 2\n",
    # global and nonlocal
    "import torch\ndef f():\n    global torch\n    torch = None\ndef g():\n    v = 1\n    def h():\n        nonlocal v\n        v = torch.ones(1)\n    return h\n",
    # ``import a.b`` binds ``a.b`` and ``a``; ``a.b.c`` reads ``a.b``
    "import torch\nimport torch.nn\nimport os.path as osp\nm = torch.nn.Linear(1, 1)\nz = torch.zeros(1)\np = osp.join\n",
    "from . import sibling\nfrom ..pkg.mod import thing as t\nx = sibling.f(t.g)\n",
    # del and match patterns read
    "import torch\ndel torch\nmatch command:\n    case Point(x=0) as torch:\n        pass\n",
    # string annotations, typing functions, Literal
    "from typing import TypeVar, cast, List, Literal\nimport torch\nimport numpy as np\n"
    "T = TypeVar('T', bound='torch.Tensor')\n"
    "def f(a: 'np.ndarray', b: List['torch.nn.Module'], c: Literal['np']) -> 'T':\n"
    "    return cast('np.ndarray', a)\n",
    # builtins, decorators, defaults and lambdas evaluated around the def
    "import functools\n@functools.lru_cache(maxsize=len)\ndef f(x=print, *, y=lambda q=x: q):\n    return sorted(x)\n",
]


CORPUS = ROOT / "benchmarks" / ".work" / "corpus"


def _corpus_downloaded() -> bool:
    """Every code base of ``benchmarks/run.py`` unpacked: the oracle's corpus test
    (tests/test_oracle_corpus.py) downloads one of them, and whether it ran first on
    another worker must not decide what this suite compares."""
    # run.py's ERA table names each code base as its directory is named
    bases = re.findall(r'^\s*"([\w.-]+)": "(?:modern|legacy)",$', (ROOT / "benchmarks" / "run.py").read_text(encoding="utf-8"), re.M)
    return bool(bases) and all((CORPUS / base / ".complete").exists() for base in bases)


def _corpus() -> List[str]:
    return [p.read_text(encoding="utf-8", errors="replace") for p in sorted(CORPUS.rglob("*.py"))]


def _cases() -> List[str]:
    return [p.read_text(encoding="utf-8") for p in sorted((ROOT / "tests" / "cases").rglob("*.py"))]


def _parsed(source: str):
    try:
        return cst.parse_module(source)
    except cst.ParserSyntaxError:
        return None


def _libcst_qualified(wrapper: MetadataWrapper) -> Dict[cst.CSTNode, FrozenSet[Tuple[str, str]]]:
    provided = wrapper.resolve(QualifiedNameProvider)
    out = {}
    for node, value in provided.items():
        names = value() if callable(value) else value
        out[node] = frozenset((q.name, q.source.name.lower()) for q in names)
    return out


def _libcst_import_reads(wrapper: MetadataWrapper) -> Dict[str, List[int]]:
    """LibCST's answer to the fix renderer's question: for each name one import binds, its reads."""
    scopes = wrapper.resolve(ScopeProvider)
    bound: Dict[str, list] = {}
    for scope in {id(s): s for s in scopes.values() if s is not None}.values():
        for a in scope.assignments:
            if isinstance(getattr(a, "node", None), (cst.Import, cst.ImportFrom)):
                bound.setdefault(a.name, []).append(a)
    return {name: sorted(id(r.node) for r in found[0].references) for name, found in bound.items() if len(found) == 1}


def _compare(source: str) -> List[str]:
    """Every disagreement with LibCST on ``source``: qualified names of every name,
    attribute, call, subscript and decorator; the reads of each import; the imports
    nothing reads."""
    module = _parsed(source)
    if module is None:
        return []
    with _quick_matcher_visitors():
        return _disagreements(source, module, MetadataWrapper(module, unsafe_skip_copy=True))


def _disagreements(source: str, module: cst.Module, wrapper: MetadataWrapper) -> List[str]:
    theirs = _libcst_qualified(wrapper)
    ours = Resolution(Scopes(module, Tree(module), source))
    wrong = []
    nodes: List[cst.CSTNode] = []
    walk(module, lambda n, p: nodes.append(n), lambda n: None)
    for node in nodes:
        if isinstance(node, (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Decorator)):
            expected = theirs.get(node, frozenset())
            got = ours.qualified_names(node)
            if got != expected:
                wrong.append(f"{module.code_for_node(node)!r}: {sorted(got)} != {sorted(expected)}")
    reads, _ = ours.import_references()
    if {n: sorted(id(r) for r in found) for n, found in reads.items()} != _libcst_import_reads(wrapper):
        wrong.append("import reads differ")
    gatherer = GatherUnusedImportsVisitor(CodemodContext(wrapper=wrapper))
    wrapper.visit(gatherer)
    exported = _exported(module)
    if set(unused_imports(module, exported).items()) != set(gatherer.unused_imports):
        wrong.append("unused imports differ")
    return wrong


def _exported(module: cst.Module) -> FrozenSet[str]:
    from libcst.codemod.visitors import GatherExportsVisitor

    exports = GatherExportsVisitor(CodemodContext())
    module.visit(exports)
    return frozenset(exports.explicit_exported_objects)


@pytest.mark.parametrize("index", range(len(QUIRKS)))
def test_libcsts_rules_where_they_are_not_pythons(index):
    assert _compare(QUIRKS[index]) == []


def test_a_read_before_its_binding_reaches_the_scope_around():
    module = cst.parse_module(QUIRKS[0])
    ours = Resolution(Scopes(module, Tree(module)))
    names: List[cst.Name] = []
    walk(module, lambda n, p: names.append(n) if isinstance(n, cst.Name) and n.value == "torch" else None, lambda n: None)
    assert [ours.qualified_names(n) for n in names] == [
        frozenset(),  # ``import torch``: no read
        {("torch", "import")},  # ``torch.zeros``, before ``torch = 1``
        {("f.<locals>.torch", "local")},  # the target
        {("f.<locals>.torch", "local")},  # ``return torch``
    ]


@functools.lru_cache(maxsize=None)
def _everywhere(source: str) -> Tuple[Tuple[str, ...], Optional[Tuple[str, str]]]:
    """(every disagreement with LibCST on ``source``, what the two removers write when
    every module-level import of it is removed where nothing reads it, or None where
    it has none or does not parse).

    The two slow tests below ask both of every fixture, case and example. Asked
    together, each source is parsed once and LibCST's scope analysis (most of their
    time) runs once: its remover resolves its metadata on the tree the comparison
    resolved them on, not on a copy of it (``Codemod.transform_module`` copies the
    tree first). The tree is only read: each remover returns a new module."""
    module = _parsed(source)
    if module is None:
        return (), None
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    with _quick_matcher_visitors():
        wrong = tuple(_disagreements(source, module, wrapper))
        outputs = _removed_both(module, wrapper)
    return wrong, outputs


# The sources both slow tests take.
def _fixtures_cases_and_examples() -> List[str]:
    return [*SOURCES, *_cases()]


@pytest.mark.slow
def test_every_fixture_case_and_example_agrees_with_libcst():
    wrong = {}
    for source in _fixtures_cases_and_examples():
        found = list(_everywhere(source)[0])
        if found:
            wrong[source[:60]] = found[:3]
    assert wrong == {}


@pytest.mark.slow
@pytest.mark.skipif(not _corpus_downloaded(), reason="the benchmark corpus is not downloaded (benchmarks/run.py)")
def test_the_benchmark_corpus_agrees_with_libcst():
    wrong = {}
    for source in _corpus():
        found = _compare(source)
        if found:
            wrong[source[:60]] = found[:3]
    assert wrong == {}


def _libcst_remover():
    """The import remover fixes use, with LibCST's own unused-import gatherer and scope analysis."""
    from gradlint.import_changes import _remove_imports_visitor

    ours = _remove_imports_visitor()
    return type(
        "LibCSTRemover",
        (ours,),
        {
            "get_inherited_dependencies": classmethod(lambda cls: RemoveImportsVisitor.get_inherited_dependencies()),
            "visit_Module": RemoveImportsVisitor.visit_Module,
        },
    )


def _removals(module: cst.Module) -> List[ImportSpec]:
    specs: List[ImportSpec] = []
    for stmt in module.body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            if isinstance(small, cst.Import):
                specs += [ImportSpec(a.evaluated_name, None, a.evaluated_alias) for a in small.names]
            elif isinstance(small, cst.ImportFrom) and small.module is not None and not small.relative:
                if not isinstance(small.names, cst.ImportStar):
                    base = module.code_for_node(small.module)
                    specs += [ImportSpec(base, a.evaluated_name, a.evaluated_alias) for a in small.names]
    return specs


def _import_removal_sources() -> List[str]:
    """The fixtures of the rules whose fixes remove imports, and the snippets above."""
    paths = [p for code in ("GL002", "GL005") for p in sorted((FIXTURES / code).glob("*.py"))]
    return [p.read_text(encoding="utf-8") for p in paths] + QUIRKS


def test_removing_imports_writes_what_libcsts_remover_writes():
    assert _removed_as_libcst_removes(_import_removal_sources()) >= 4


@pytest.mark.slow
def test_removing_imports_everywhere_writes_what_libcsts_remover_writes():
    changed = 0
    for source in _fixtures_cases_and_examples():
        outputs = _everywhere(source)[1]
        if outputs is not None:
            assert outputs[0] == outputs[1], source[:200]
            changed += outputs[0] != source
    assert changed > 20


def _removed_as_libcst_removes(sources: List[str]) -> int:
    """Every module-level import of each source removed where nothing reads it: the
    project's answers and LibCST's give the same module, byte for byte. Returns how
    many sources changed."""
    changed = 0
    for source in sources:
        module = _parsed(source)
        if module is None:
            continue
        with _quick_matcher_visitors():
            outputs = _removed_both(module, MetadataWrapper(module, unsafe_skip_copy=True))
        if outputs is None:
            continue
        assert outputs[0] == outputs[1], source[:200]
        changed += outputs[0] != source
    return changed


def _removed_both(module: cst.Module, wrapper: MetadataWrapper) -> Optional[Tuple[str, str]]:
    """(the project's remover's module, LibCST's remover's module) with every
    module-level import of ``module`` asked removed, or None where it has none.
    Both run on ``wrapper``'s tree, as ``Codemod.transform_module`` would run them on
    a copy of it: LibCST's remover resolves its scope analysis there (or finds it
    resolved already), the project's asks for none."""
    from gradlint.import_changes import _remove_imports_visitor

    removes = _removals(module)
    if not removes:
        return None
    outputs = []
    for remover_class in (_remove_imports_visitor(), _libcst_remover()):
        context = CodemodContext()
        for imp in removes:
            RemoveImportsVisitor.remove_unused_import(context, imp.module, imp.obj, imp.asname)
        remover = remover_class(context)
        with remover.resolve(wrapper):
            remover.context = dataclasses.replace(context, wrapper=wrapper)
            outputs.append(remover.transform_module_impl(wrapper.module).code)
    return outputs[0], outputs[1]


_LIBCSTS_SCOPES = frozenset({"ScopeProvider", "QualifiedNameProvider", "FullyQualifiedNameProvider", "scope_provider", "name_provider"})


def _names_libcsts_scopes(path: Path) -> bool:
    """Whether the code of ``path`` (not its comments or docstrings) imports or reads
    LibCST's scope or qualified-name providers, or the modules defining them."""
    import ast

    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            parts = set((node.module or "").split(".")) | {a.name for a in node.names}
        elif isinstance(node, ast.Import):
            parts = {part for a in node.names for part in a.name.split(".")}
        elif isinstance(node, ast.Attribute):
            parts = {node.attr}
        elif isinstance(node, ast.Name):
            parts = {node.id}
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and "." in node.value and " " not in node.value:
            parts = set(node.value.split("."))  # importlib.import_module("libcst.metadata.scope_provider")
        else:
            continue
        if parts & _LIBCSTS_SCOPES:
            return True
    return False


def test_the_product_never_runs_libcsts_scope_analysis(monkeypatch):
    """No module of gradlint names LibCST's scope or qualified-name providers, and
    checking and fixing the fixtures (fixes that add and remove imports included)
    never runs them."""
    found = [str(p.relative_to(ROOT)) for p in sorted((ROOT / "gradlint").rglob("*.py")) if _names_libcsts_scopes(p)]
    assert found == []

    from libcst.metadata import name_provider, scope_provider

    def refuse(self, node):
        raise AssertionError(f"{type(self).__name__} ran")

    monkeypatch.setattr(scope_provider.ScopeProvider, "visit_Module", refuse)
    monkeypatch.setattr(name_provider.QualifiedNameProvider, "visit_Module", refuse)
    from harness import expected_paths, run_fixture

    checked = 0
    for path in sorted(FIXTURES.glob("GL00[1-5]/*.py")) + sorted(FIXTURES.glob("GL10[16]/*.py")):
        if path.name.endswith((".fixed.py", ".unsafe.py")):
            continue
        run = run_fixture(path)
        _, fixed, _ = expected_paths(path)
        if fixed.exists():
            assert run.fixed == fixed.read_text(encoding="utf-8"), path
        checked += 1
    assert checked > 10
    # The remover itself, on a module whose ``__all__`` sends it past every shortcut.
    from gradlint.import_changes import _update_imports_now

    module = cst.parse_module("__all__ = ['f']\nimport torch\nfrom torch.autograd import Variable\ndef f(x):\n    return torch.ones(1)\n")
    out = _update_imports_now(module, [], [ImportSpec("torch.autograd", "Variable"), ImportSpec("torch")]).code
    assert out == "__all__ = ['f']\nimport torch\ndef f(x):\n    return torch.ones(1)\n"
