"""The engine's shortcuts give LibCST's answers: the walk, parents, qualified names.

The engine walks trees itself instead of through ``node.visit`` (which
rebuilds every node), records parents on the way instead of running
``ParentNodeProvider``, and rules nodes out by spelling before scope analysis
(``Names.refers_to``). Each is checked here against LibCST itself on
every fixture, every catalog example and a file using all of Python's syntax.
"""

from __future__ import annotations

import ast
import textwrap
from functools import lru_cache
from typing import Dict, List, Mapping, Tuple

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, ParentNodeProvider, QualifiedNameProvider, QualifiedNameSource

from harness import FIXTURES
from gradlint import catalog
from gradlint.semantic import torch_api
from gradlint.engine import _Dispatcher
from gradlint.rule import FileContext
from gradlint.traversal import TRIVIA, children, node_types, positions, walk

EVERY_SYNTAX = textwrap.dedent(
    '''\
    """Module docstring."""
    from __future__ import annotations
    import os.path, torch.autograd as ag
    from torch.autograd import Variable as V, grad
    from . import sibling as sib
    from .pkg import *
    try:
        import numpy as np
    except* ImportError as group:
        np = None
    finally:
        pass

    @torch.no_grad()
    @decorator(arg=1)
    async def f(a, /, b: int = 2, *args, c, d=3, **kw) -> "V":
        global G
        x = [i async for i in aiter() if i]
        async with ctx() as (p, q), other():
            await x
        async for y in z:
            yield y
        return (yield from g) if a else lambda e=1, *f, **g: e

    class C(Base, metaclass=Meta):
        attr: int = 1
        def m(self):
            nonlocal_ = 1
            def inner():
                nonlocal nonlocal_
                nonlocal_ += 1
            del self.attr[1:2, ::3], nonlocal_
            assert self, "message"
            raise ValueError("x") from None

    value = f"{a!r:>{width}.{prec}f} {b=} {c:{d}}" "implicit" 'concat'
    rb = rb"raw" + b"\\x00"
    s = {1, *others}, {**d, "k": [*l]}, {k: v for k, v in items}, (w := 3)
    t = a if b else c
    n = not -~+a ** b // c @ d >> 1 << 2 & 3 | 4 ^ 5
    cmp = 1 < a <= b != c is not d not in e
    match command:
        case [Point(x=0, y=0), *rest] if rest:
            pass
        case {"key": value, **others} | str() as alias:
            pass
        case _:
            pass
    while True:
        break
    else:
        continue_ = 1
    for i, (j, k) in enumerate(pairs):
        continue
    with open(p) as fh:
        data = fh.read()[0].x.data[0]
    '''
)


def _candidates() -> List[str]:
    out = [EVERY_SYNTAX]
    out += [p.read_text(encoding="utf-8") for p in sorted(FIXTURES.rglob("*.py"))]
    for doc in catalog.load().values():
        for ex in doc.examples:
            out += [ex.bad, ex.good]
    return out


def _parses(source: str) -> bool:
    try:
        cst.parse_module(source)
    except cst.ParserSyntaxError:
        return False
    return True


def _cpython_parses(source: str) -> bool:
    # Decides at collection which sources the tests take: CPython's parser is
    # some twenty times faster than LibCST's, and
    # test_the_sources_are_those_libcst_parses holds the two to the same answer.
    try:
        ast.parse(source)
    except SyntaxError:
        return False
    return True


CANDIDATES = _candidates()
# Every fixture and catalog example that parses, and EVERY_SYNTAX.
SOURCES = [s for s in CANDIDATES if _cpython_parses(s)]


@lru_cache(maxsize=None)
def _module(index: int) -> cst.Module:
    """SOURCES[index] parsed, once for all the tests that only read it."""
    return cst.parse_module(SOURCES[index])


def test_the_sources_are_those_libcst_parses():
    left_out = [s for s in CANDIDATES if not _cpython_parses(s)]
    assert left_out and not any(_parses(s) for s in left_out)
    assert all(isinstance(_module(i), cst.Module) for i in range(len(SOURCES)))


class _Recorder(cst.CSTVisitor):
    def __init__(self) -> None:
        super().__init__()
        self.events: List[tuple] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.events.append(("enter", id(node)))
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        self.events.append(("leave", id(original_node)))


@pytest.mark.parametrize("index", range(len(SOURCES)))
def test_walk_visits_what_libcst_visits_in_its_order(index):
    module = _module(index)
    libcst_events = _Recorder()
    module.visit(libcst_events)
    ours: List[tuple] = []
    walk(module, lambda n, p: ours.append(("enter", id(n))), lambda n: ours.append(("leave", id(n))))
    assert ours == libcst_events.events


# (source, provider) -> (a tree of source, what LibCST's provider gives for it).
# Two tests compare against each provider: LibCST's answer is computed once
# (a third of this file's time), while each test builds its own FileContext, so
# that one test's answers never come from another's caches.
_LIBCST: Dict[Tuple[str, type], Tuple[cst.Module, Mapping]] = {}


@pytest.fixture(scope="module", autouse=True)
def _forget_libcsts_answers():
    yield
    _LIBCST.clear()


def _libcsts(source: str, provider: type) -> Tuple[cst.Module, Mapping]:
    key = (source, provider)
    if key not in _LIBCST:
        wrapper = MetadataWrapper(cst.parse_module(source), unsafe_skip_copy=True)
        _LIBCST[key] = (wrapper.module, wrapper.resolve(provider))
    return _LIBCST[key]


def _prepared(source: str, provider: type):
    """(what LibCST's ``provider`` gives, a new FileContext, every node in visiting
    order) for ``source``, its tree shared by both."""
    module, provided = _libcsts(source, provider)
    ctx = FileContext("x.py", source, module)
    nodes: List[cst.CSTNode] = []
    walk(module, lambda n, p: nodes.append(n), lambda n: None)
    return provided, ctx, nodes


def test_children_and_parents_match_libcst_but_for_trivia():
    kinds = set()
    for source in SOURCES:
        parents, ctx, nodes = _prepared(source, ParentNodeProvider)
        _Dispatcher([], ctx.tree).run(ctx.module)
        for node in nodes:
            if type(node) in TRIVIA:
                kinds.add(type(node))
                assert ctx.parent(node) is None  # not recorded: no question is about them
                continue
            assert children(node) == [c for c in node.children if type(c) not in TRIVIA]
            assert ctx.parent(node) is parents.get(node)
    assert kinds == TRIVIA  # the sources hold every kind


def test_trivia_are_more_than_half_the_nodes_and_none_is_walked():
    source = SOURCES[0]
    module = cst.parse_module(source)
    everything: List[cst.CSTNode] = []
    walk(module, lambda n, p: everything.append(n), lambda n: None)
    ctx = FileContext("x.py", source, module)
    recorded = list(ctx.tree.nodes())
    assert recorded == [n for n in everything if type(n) not in TRIVIA]
    assert len(recorded) < len(everything) / 2


def test_parents_of_nodes_not_walked_yet_are_libcsts(monkeypatch):
    # A visitor asks about its node's operands before the walk reaches them:
    # one plain walk answers, without LibCST's provider.
    for source in SOURCES:
        parents, ctx, nodes = _prepared(source, ParentNodeProvider)
        with monkeypatch.context() as patch:
            patch.setattr(MetadataWrapper, "resolve", lambda *a: pytest.fail("LibCST metadata resolved"))
            for node in reversed(nodes):  # none of them walked by the engine
                assert ctx.parent(node) is (None if type(node) in TRIVIA else parents.get(node))
    module = cst.parse_module("x = f(y)\n")
    ctx = FileContext("x.py", "x = f(y)\n", module)
    assert isinstance(ctx.parent(module.body[0].body[0].value), cst.Assign)
    assert ctx.parent(cst.Name("elsewhere")) is None


NAME_SETS = sorted(
    (value for value in vars(torch_api).values() if isinstance(value, frozenset) and all(isinstance(v, str) for v in value)),
    key=sorted,
)


# Names an import binds that something else binds too, somewhere (``is_imported``
# may not answer from the imports alone), and imports read from every kind of place.
REBOUND_IMPORTS = [
    "import numpy as np\nimport torch.nn as nn\n@np.vectorize\ndef f(x: np.ndarray = np.zeros(1)) -> nn.Module:\n"
    "    g = lambda y: np.sum(y, axis=np.newaxis)\n    return [np.abs(v) for v in x], f'{np.pi}', g\n"
    "class C(nn.Module):\n    z = np.ones(2)\n    def m(self):\n        return np.z.np, self.np\n",
    "import numpy as np\ndef f(np):\n    return np.zeros(1)\nnp.ones(2)\n",
    "import numpy as np\ntry:\n    pass\nexcept ValueError as np:\n    np.args\n",
    "import os\nx = [os for os in range(3)]\nos.path\n",
    "import os\ndef f():\n    global os\n    os = 1\n    os.real\n",
    "import os\ndel os\nos.sep\n",
    "import os\nclass A:\n    os = 3\n    y = os.real\n",
    "def f():\n    import numpy as np\n    return np.zeros(1)\ndef g():\n    return np.zeros(2)\n",
    "import json\nwith open(p) as json:\n    json.read()\nlambda json: json.loads\n",
    "from os import *\nimport sys\nsys.argv\n",
    "import re\nif (re := compile(x)):\n    re.match(y)\nfor re in z:\n    re.sub()\n",
    "import torch\ntorch.zeros(1)\ndef torch():\n    pass\n",
    "import torch.nn as nn, torch\nclass M(nn.Module):\n    def forward(self, x):\n        return torch.relu(nn.functional.relu(x))\n",
    # One name imported more than once: to the same thing (a package and its
    # submodules, the same module twice) or not.
    "import torch\nimport torch.utils.data\nimport torch.nn as nn\nfrom torch import nn\ntorch.zeros(1)\n"
    "torch.utils.data.DataLoader(x)\nnn.Linear(2, 2)\ndef f():\n    return torch.nn.functional.relu(torch.utils.datax)\n",
    "import os\nimport os.path\nos.path.join(a)\nos.pathx.y\nos\n",
    "import numpy as np\nimport torch as np\nnp.zeros(1)\n",
    "from torch.autograd import Variable\nfrom torch.autograd import Variable\nfrom torch import autograd as Variable\nVariable(x)\n",
    "from a import b\nfrom c import b\nb.d()\ntry:\n    import torch\nexcept ImportError:\n    import torch.nn\ntorch.nn.Linear\n",
    # Imported as two things, read everywhere: a bare name in the module's own
    # statements sees the imports before it, a function or a dotted name all of them.
    "import numpy as np\nx = np\nx = np.a.b\nx = [np for _ in np]\nclass C:\n    z = np\n    w = np.q\nf = lambda: np\n"
    "if c:\n    k = np\n    from a import np\n    k2 = np(np)\ndef g(a=np, *, b: np = np) -> np:\n    return np.r, np\n"
    "@np\ndef h():\n    pass\ndef h2():\n    class D:\n        u = [np for _ in np]\n    return D\nimport torch as np\ny = np\n",
    "from sympy import Symbol as Variable\nVariable(2)\nfrom torch.autograd import Variable\n"
    "Variable(3)\ndef f():\n    return Variable(4)\n{Variable: v for v in Variable}\n",
    # Imported again and again, to things already imported and new ones, a read between each.
    "from a import V\nV(0)\nfrom b import V\nV(1)\nfrom a import V\nV(2)\nif c:\n    from c import V\nV(3)\n"
    "from b import V as V\nx = V.w, [V for _ in V]\n",
    # Bound only by module-level imports of different things: read in every scope.
    "try:\n    from a import X\nexcept ImportError:\n    from b import X\ndef f():\n    return X(1)\n"
    "g = lambda: X.y\nz = [X for _ in r]\nclass K(X):\n    pass\n",
    "import numpy as np\ntry:\n    import cupy as np\nexcept ImportError:\n    pass\ndef f(np):\n    return np.zeros\n"
    "class C:\n    np = 1\n    y = np\nnp.ones\ndef h():\n    import scipy as np\n    return np.x\n",
    # Relative imports, read without scope analysis.
    "from ..modeling import Mixin\nfrom . import vae\nfrom .a.b import c as d\nfrom .. import e\nclass K(Mixin):\n    pass\n"
    "vae.E(d.k, e)\ndef f(vae):\n    return vae.x\n",
]


def _provided(sources, kinds):
    """(a FileContext, a node of one of ``kinds``, what QualifiedNameProvider gives it)
    for every such node of ``sources``."""
    for source in sources:
        provided, ctx, nodes = _prepared(source, QualifiedNameProvider)
        for node in nodes:
            if isinstance(node, kinds):
                value = provided.get(node, set())
                yield ctx, node, value() if callable(value) else value


def test_refers_to_and_is_imported_agree_with_qualified_name_provider():
    checked = 0
    for ctx, node, qnames in _provided(SOURCES + REBOUND_IMPORTS, (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Decorator)):
        names = {q.name for q in qnames}
        assert ctx.semantic.names.qualnames(node) == names
        assert ctx.semantic.names.is_imported(node) == any(q.source is QualifiedNameSource.IMPORT for q in qnames)
        for name_set in NAME_SETS:
            assert ctx.semantic.names.refers_to(node, name_set) == bool(names & name_set), (ctx.code_for(node), sorted(name_set)[:2])
        checked += 1
    assert checked > 1000


# Files that bind a package's name themselves, for ``qualnames_in``.
ODD_BINDINGS = [
    "torch = importlib.import_module('torch')\ntorch.zeros(3).sum()\n",
    "def torch():\n    x = make()\n    return x.mean()\nclass timm:\n    y = 1\n    z = y.bit_length()\n",
    "import numpy as torch\nfrom . import timm\nfrom .torch import copy\ntorch.zeros(3)\ntimm.create_model('x')\ncopy.copy(a)\n",
    "try:\n    import torch.nn as nn\nexcept ImportError:\n    nn = None\nnn.Linear(2, 2)\nF.relu(x)\n",
]


def test_qualnames_in_packages_are_qualified_name_providers():
    packages = ["torch", "torchvision", "timm", "transformers", "copy", "lightning", "pytorch_lightning", "numpy", "os"]
    checked = 0
    for ctx, node, qnames in _provided(SOURCES + ODD_BINDINGS, (cst.Name, cst.Attribute)):
        names = {q.name for q in qnames}
        for package in packages:
            inside = {n for n in names if n == package or n.startswith(package + ".")}
            got = ctx.semantic.names.qualnames_in(node, frozenset({package}))
            assert {n for n in got if n == package or n.startswith(package + ".")} == inside, (ctx.code_for(node), package)
            checked += bool(inside)
    assert checked > 500


@pytest.mark.parametrize(
    "code, found",
    [
        ("from torch.autograd import Variable as V\nV(x)\n", True),
        ("import torch.autograd as ag\nag.Variable(x)\n", True),
        ("import torch.autograd\ntorch.autograd.Variable(x)\n", True),
        ("def f():\n    from torch.autograd import Variable as W\n    return W(x)\n", True),
        ("if c:\n    from torch import autograd as A\nA.Variable(x)\n", True),
        ("V = make()\nV(x)\n", False),
        ("from torch.autograd import Variable as V\ndef f(V):\n    return V(x)\n", False),
        ("from tf import Variable\nVariable(x)\n", False),
    ],
)
def test_refers_to_follows_aliases_and_scopes(code, found):
    module = cst.parse_module(code)
    ctx = FileContext("x.py", code, module)
    calls: List[cst.Call] = []
    walk(module, lambda n, p: calls.append(n) if isinstance(n, cst.Call) else None, lambda n: None)
    assert ctx.semantic.names.refers_to(calls[-1].func, torch_api.VARIABLE) is found


def test_scope_analysis_only_for_files_that_spell_a_name():
    code = "import torch\nmodel = torch.nn.Linear(2, 2)\ny = model(x).sum()\n"
    module = cst.parse_module(code)
    ctx = FileContext("x.py", code, module)
    calls: List[cst.Call] = []
    walk(module, lambda n, p: calls.append(n) if isinstance(n, cst.Call) else None, lambda n: None)
    assert not any(ctx.semantic.names.refers_to(c.func, torch_api.VARIABLE | torch_api.NO_GRAD) for c in calls)
    assert ctx.semantic.names._resolution is None  # nothing was resolved


def test_no_scope_analysis_for_a_package_imported_with_its_submodules():
    code = "import torch\nimport torch.utils.data\nfrom torch import nn\nloader = torch.utils.data.DataLoader(x)\ny = torch.zeros(1)\n"
    module = cst.parse_module(code)
    ctx = FileContext("x.py", code, module)
    calls: List[cst.Call] = []
    walk(module, lambda n, p: calls.append(n) if isinstance(n, cst.Call) else None, lambda n: None)
    assert [ctx.semantic.names.qualnames(c.func) for c in calls] == [{"torch.utils.data.DataLoader"}, {"torch.zeros"}]
    assert ctx.semantic.names._resolution is None


def test_a_field_first_seen_empty_is_learned_when_it_is_not(monkeypatch):
    from gradlint import traversal

    monkeypatch.setattr(traversal, "_FIELDS", {})
    for code in ('x = f"{a}"\n', 'y = f"{b:>{width}}"\n'):  # format_spec: None, then a spec
        module = cst.parse_module(code)
        expected = _Recorder()
        module.visit(expected)
        ours: List[tuple] = []
        walk(module, lambda n, p: ours.append(("enter", id(n))), lambda n: ours.append(("leave", id(n))))
        assert ours == expected.events


def test_positions_are_libcsts():
    from libcst.metadata import PositionProvider

    from gradlint.traversal import positions

    for source in SOURCES + ["x = 1\r\ny = (\r  2)\rz = f'''\n{a}\r\n'''"]:
        wrapper = MetadataWrapper(cst.parse_module(source), unsafe_skip_copy=True)
        theirs = wrapper.resolve(PositionProvider)
        ours = positions(wrapper.module)
        assert len(ours) == len(theirs)
        for node, rng in theirs.items():
            assert ours[id(node)] == (rng.start.line, rng.start.column, rng.end.line, rng.end.column)


_BINDERS = (cst.Assign, cst.AnnAssign, cst.NamedExpr, cst.WithItem, cst.FunctionDef, cst.ClassDef, cst.Import, cst.ImportFrom)


def _binders_and_names(module: cst.Module):
    binders: List[cst.CSTNode] = []
    names: List[cst.CSTNode] = []

    def enter(node, parent):
        if isinstance(node, _BINDERS):
            binders.append(node)
        elif isinstance(node, cst.For):
            binders.append(node.target)
        elif isinstance(node, cst.Name):
            names.append(node)

    walk(module, enter, lambda node: None)
    return binders[::3][:40], names[::5][:40]


@pytest.mark.parametrize("index", range(0, len(SOURCES), 3))
def test_ends_before_is_the_order_of_source_positions(index):
    """``Tree.ends_before`` (the one ordering primitive) answers as
    the rendered positions would: from a walk of the whole file, and during the
    engine's walk from what it has seen so far, without walking the file again."""
    module = _module(index)
    span = positions(module)
    binders, names = _binders_and_names(module)

    def expected(a, b):
        return span[id(a)][2:] <= span[id(b)][:2]

    ctx = FileContext("x.py", SOURCES[index], module)
    for a in binders:
        for b in names:
            assert ctx.tree.ends_before(a, b) == expected(a, b), (ctx.code_for(a), ctx.code_for(b))

    during = FileContext("x.py", SOURCES[index], module)
    wanted = {id(n) for n in names}
    checked = []

    class Probe:
        def visit_Name(self, node):
            if id(node) in wanted:
                for a in binders:
                    assert during.tree.ends_before(a, node) == expected(a, node), (during.code_for(a), during.code_for(node))
                checked.append(node)

    _Dispatcher([Probe()], during.tree).run(module)
    assert len(checked) == len(names)


def test_dispatcher_visits_and_leaves_in_libcsts_order():
    # The pass over the recorded nodes gives every rule the calls, in the order,
    # that a recursive walk (and LibCST's own visitor) would, trivia aside.
    class Probe:
        def __init__(self) -> None:
            self.events: List[Tuple[str, int]] = []

        def __getattr__(self, name: str):
            if name.startswith(("visit_", "leave_")):
                return lambda node: self.events.append((name, id(node)))
            raise AttributeError(name)

    for index, source in enumerate(SOURCES):
        ctx = FileContext("x.py", source, _module(index))
        probe = Probe()
        _Dispatcher([probe], ctx.tree).run(ctx.module)
        expected: List[Tuple[str, int]] = []
        walk(
            ctx.module,
            lambda n, p: expected.append((f"visit_{type(n).__name__}", id(n))),
            lambda n: expected.append((f"leave_{type(n).__name__}", id(n))),
        )
        trivia = {f"{way}_{kind.__name__}" for kind in TRIVIA for way in ("visit", "leave")}
        assert probe.events == [event for event in expected if event[0] not in trivia]


def test_a_rule_cannot_visit_trivia():
    from gradlint.rule import Rule

    with pytest.raises(TypeError, match="rule GL998: visit_Comment: the engine does not walk whitespace, comments and line ends"):

        class Bad(Rule):  # noqa: F841
            code = "GL998"
            triggers = ("#",)

            def visit_Comment(self, node):
                pass


# Kinds the semantic model asks ``node_types`` about, abstract bases among them.
_KINDS = [
    (cst.BaseSmallStatement, cst.BaseCompoundStatement),
    (cst.BaseStatement,),
    (cst.FunctionDef,),
    (cst.FunctionDef, cst.Lambda, cst.ClassDef),
    (cst.BaseExpression,),
    (cst.BaseSuite, cst.Arg),
    (),
]


def test_node_types_answers_isinstance():
    # `type(node) in node_types(kinds)` stands for isinstance(node, kinds) in the walks:
    # a set that missed an indirect subclass (BaseStatement's) fails here.
    sets = [(kinds, node_types(kinds)) for kinds in _KINDS]
    seen = set()
    for index in range(len(SOURCES)):
        nodes: List[cst.CSTNode] = []
        walk(_module(index), lambda n, p: nodes.append(n), lambda n: None)
        for node in nodes:
            seen.add(type(node))
            for kinds, exact in sets:
                assert (type(node) in exact) == isinstance(node, kinds), (type(node).__name__, kinds)
    assert len(seen) > 100  # the sources hold most of LibCST's node classes


def test_node_types_made_no_subclass_since():
    # node_types keeps its answer per kinds; one made before a subclass of them was
    # defined would miss it. LibCST makes its classes when imported and gradlint none:
    # every kept answer is still the whole set of subclasses.
    import gradlint.cli  # noqa: F401  (all of the package's modules a check loads)

    for kinds in _KINDS:
        node_types(kinds)
    kept = node_types.cache_info().currsize
    assert kept >= len(_KINDS)
    for kinds in _KINDS:
        assert node_types(kinds) == node_types.__wrapped__(kinds)
