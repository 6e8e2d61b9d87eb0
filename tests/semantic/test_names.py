"""Names (``gradlint.semantic.names``): the import index and ``torch_ref_at``.

``# torch_ref: torch`` marks the statement on its line (for a ``def`` line: the
function, whose decorators a fix would join) with how inserted code can spell
the torch module there: a name, ``<name> +import`` when the fix must add
``import torch``, or ``none`` when no name can be vouched for.
"""

from __future__ import annotations

import libcst as cst
import pytest
from marks import context, each, statement_on

from gradlint import engine
from gradlint.rule import RuleOptions
from gradlint.semantic.names import build_import_index
from gradlint.semantic.torch_api import NO_GRAD, VARIABLE
from gradlint.semantic.tree import walk


def _ref(ctx, line):
    found = ctx.semantic.names.torch_ref_at(statement_on(ctx, line))
    if found is None:
        return "none"
    name, imports = found
    return name + (" +import" if imports else "")


TORCH_REF = {
    "a module import": """\
        import torch
        def f():  # torch_ref: torch
            x = 1  # torch_ref: torch
        """,
    "an alias": """\
        import torch as th
        def f():
            x = 1  # torch_ref: th
        """,
    "import torch.nn binds torch": """\
        import torch.nn
        x = 1  # torch_ref: torch
        """,
    "torch.nn as nn does not": """\
        import torch.nn as nn
        x = 1  # torch_ref: torch +import
        """,
    "no import at all": """\
        def f():
            x = 1  # torch_ref: torch +import
        """,
    "a class attribute is seen by decorators in the class body": """\
        import torch
        class C:
            def before(self):  # torch_ref: torch
                pass
            torch = None  # torch_ref: torch
            def after(self):  # torch_ref: none
                y = 1  # torch_ref: torch
            z = 2  # torch_ref: none
        """,
    "an import after a decorated def has not run when the decorator does": """\
        def f():  # torch_ref: none
            x = 1  # torch_ref: torch
        import torch
        y = 2  # torch_ref: torch
        """,
    "except ... as torch": """\
        import torch
        try:
            pass
        except Exception as torch:
            pass
        def f():
            x = 1  # torch_ref: none
        """,
    "a parameter named torch": """\
        import torch
        def f(torch):
            x = 1  # torch_ref: none
        def g():
            x = 1  # torch_ref: torch
        """,
    "a local named torch, before and after its binding": """\
        import torch
        def f():
            x = 1  # torch_ref: none
            torch = load()
            y = 2  # torch_ref: none
        """,
    "a local of an enclosing function": """\
        import torch
        def outer():
            torch = make()
            def inner():  # torch_ref: none
                x = 1  # torch_ref: none
        """,
    "del torch": """\
        import torch
        x = 1  # torch_ref: torch
        del torch
        y = 2  # torch_ref: none
        def f():
            z = 3  # torch_ref: none
        """,
    "global torch rebound in a function": """\
        import torch
        def f():
            global torch
            torch = None
        def g():
            x = 1  # torch_ref: none
        """,
    "nonlocal torch": """\
        def outer():
            import torch
            def inner():
                nonlocal torch
                torch = 1
            def other():
                x = 1  # torch_ref: none
        """,
    "an import inside the function": """\
        def f():
            import torch
            x = 1  # torch_ref: torch
        def g():
            y = 2  # torch_ref: torch +import
        """,
    "an import that may have failed": """\
        try:
            import torch
        except ImportError:
            torch = None
        def f():
            x = 1  # torch_ref: none
        """,
    "an import in one branch only": """\
        if c:
            import torch
        x = 1  # torch_ref: none
        """,
    "a star import that may bind torch": """\
        import torch
        from helpers_nobody_can_read import *
        def f():  # torch_ref: none
            x = 1  # torch_ref: none
        """,
    "a star import of a torch module that does not export torch": """\
        import torch
        from torch.autograd import *
        def f():  # torch_ref: torch
            x = 1  # torch_ref: torch
        """,
    "a comprehension variable does not leak": """\
        import torch
        xs = [torch for torch in r]
        y = 1  # torch_ref: torch
        """,
}


@pytest.mark.parametrize("name", sorted(TORCH_REF))
def test_torch_ref_at(name):
    for ctx, fact in each(TORCH_REF[name], "torch_ref"):
        assert _ref(ctx, fact.line) == fact.expected, (name, fact.line)


def test_a_class_attribute_fix_converges():
    """A decorator fix on a method after a class attribute ``torch`` is not offered:
    ``@torch.no_grad()`` would call the attribute (before, it was added round after
    round until the fix loop gave up)."""
    source = (
        "import torch\n"
        "class Runner:\n"
        "    torch = None\n"
        "    def evaluate(self, model, x):\n"
        "        model.eval()\n"
        "        return model(x).argmax(1).tolist()\n"
    )
    settings = engine.LintSettings(frozenset({"GL101"}), RuleOptions())
    result = engine.fix_source(source, "x.py", settings, unsafe=True)
    assert result.source == source
    assert not result.problems
    assert [f.code for f in result.remaining] == ["GL101"]
    assert result.remaining[0].fix is None


def test_import_index_is_one_walk_of_statements():
    ctx = context(
        """\
        import numpy as np, torch.nn
        from torch.autograd import Variable as V
        from . import local
        def f():
            import os.path
        """
    )
    index = ctx.semantic.names.index
    assert {r.name: (r.target, r.package, r.module_level) for r in index.records} == {
        "np": ("numpy", "numpy", True),
        "torch": ("torch", "torch", True),
        "V": ("torch.autograd.Variable", "torch", True),
        "local": (".local", "", True),  # as LibCST's scope analysis qualifies it
        "os": ("os", "os", False),
    }
    assert index.aliases == {"np", "V"}
    # ``import torch.nn`` binds ``torch`` to the package: ``torch.nn.X`` reads as spelled
    assert index.sole == {"np": "numpy", "torch": "torch", "V": "torch.autograd.Variable", "local": ".local"}
    assert index.torch_names() == ["torch"]
    assert index.defined == {"f"}
    assert build_import_index(cst.parse_module("from x import *\nimport y\n")).sole == {}


def test_imports_of_lists_the_module_level_imports_reaching_names():
    ctx = context(
        """\
        import torch.autograd as ag
        from torch.autograd import Variable, grad
        from torch import autograd
        import torch.autograd
        if c:
            from torch.autograd import Variable as W
        """
    )
    specs = ctx.semantic.names.imports_of(VARIABLE)
    assert [(s.module, s.obj, s.asname) for s in specs] == [
        ("torch.autograd", None, "ag"),
        ("torch.autograd", "Variable", None),
        ("torch", "autograd", None),
    ]


def test_refers_to_and_is_imported():
    ctx = context(
        """\
        from torch import no_grad as ng
        import numpy as np
        def f(np):
            np.zeros(1)
        ng()
        np.ones(1)
        """
    )
    names = ctx.semantic.names
    calls = [n for n in walk(ctx.module, True) if isinstance(n, cst.Call)]
    inner, guard, ones = calls
    assert names.refers_to(guard.func, NO_GRAD)
    assert not names.refers_to(ones.func, NO_GRAD)
    assert names.is_imported(ones.func) and not names.is_imported(inner.func)
    assert names.qualnames(ones.func) == {"numpy.ones"}


@pytest.mark.parametrize(
    "imports,expected",
    [
        ("from torch.autograd import *\n", {"torch.autograd.Variable"}),
        ("from torch.autograd.variable import *\n", {"torch.autograd.variable.Variable"}),
        ("from torch.autograd import *\nfrom .helpers import *\n", set()),  # the later one may rebind it
        ("from .helpers import *\nfrom torch.autograd import *\n", {"torch.autograd.Variable"}),
        ("from torch.nn import *\n", set()),  # torch.nn exports no Variable
        ("from nltk.sem.logic import *\n", set()),
        ("", set()),  # not bound at all: a NameError, not torch's
        ("from torch.autograd import *\nVariable = make_variable\n", set()),  # bound in the file
        ("from torch.autograd import *\ndef Variable(x, volatile=False):\n    return x\n", set()),
    ],
)
def test_star_imported_names(imports, expected):
    ctx = context(imports + "\n\ndef step(seq):\n    return Variable(seq, volatile=True)\n")
    call = next(n for n in walk(ctx.module, into_functions=True) if isinstance(n, cst.Call) and ctx.code_for(n.func) == "Variable")
    names = ctx.semantic.names
    assert {q for q in names.qualnames(call.func) if q.startswith("torch.")} == expected
    assert names.is_call_to(call, VARIABLE) is bool(expected)
    assert ctx.semantic.names.index.star_modules == tuple(
        line.split()[1] for line in imports.splitlines() if line.endswith("import *")
    )


IMPORT_READS = {
    "read in a function": ("import torch\ndef f():\n    return torch.zeros(1)\n", "torch", 3),
    "read at module level after the import": ("from torch.autograd import Variable\nx = Variable(1)\n", "Variable", 2),
    "read before the import at module level does not count": ("x = np.zeros(1)\nimport numpy as np\n", "np", None),
    "a function defined before the import is not looked at": ("def f():\n    return np\nimport numpy as np\n", "np", None),
    "read in a class body, a decorator, an annotation": (
        "import torch\nclass C:\n    @torch.no_grad()\n    def f(self, x: torch.Tensor):\n        pass\n",
        "torch",
        3,
    ),
    "an attribute or keyword of that name is no read": ("import torch\nx.torch\nf(torch=1)\n", "torch", None),
    "rebound somewhere": ("import torch\ndef f(torch):\n    return torch\n", "torch", None),
    "bound by two imports of the same module": ("import torch\nif c:\n    import torch\ny = torch\n", "torch", 4),
    "bound by imports of two things": ("import torch\nif c:\n    import numpy as torch\ny = torch\n", "torch", None),
    "a string annotation is not looked into": ("import torch\ndef f(x: 'torch.Tensor'):\n    pass\n", "torch", None),
    "read in a comprehension and a lambda": ("import torch\nys = [torch.f(x) for x in xs]\ng = lambda: torch\n", "torch", 2),
    "an import inside a function is not the module's": ("def f():\n    import torch\ntorch.x\n", "torch", None),
}


@pytest.mark.parametrize("name", list(IMPORT_READS))
def test_import_read_after(name):
    source, bound, line = IMPORT_READS[name]
    ctx = context(source)
    found = ctx.semantic.names.import_read_after(bound)
    assert (found and ctx.tree.line(found)) == line or found is None and line is None
    if found is not None:
        # The read is one LibCST's scope analysis links to the import (what its import
        # codemods go by when they decide whether an import is still used).
        from libcst.metadata import MetadataWrapper, ScopeProvider

        wrapper = MetadataWrapper(ctx.module, unsafe_skip_copy=True)
        scopes = wrapper.resolve(ScopeProvider)
        refs = [
            access.node
            for scope in {id(s): s for s in scopes.values() if s is not None}.values()
            for assignment in scope.assignments
            if assignment.name == bound and isinstance(getattr(assignment, "node", None), (cst.Import, cst.ImportFrom))
            for access in assignment.references
        ]
        assert any(found is ref for ref in refs)


def test_import_read_after_skips_the_nodes_given():
    ctx = context("from torch.autograd import Variable\nx = Variable(1)\ny = Variable(2)\n")
    names = ctx.semantic.names
    first = names.import_read_after("Variable")
    assert ctx.tree.line(first) == 2
    call = ctx.tree.parent(first)
    second = names.import_read_after("Variable", {id(call)})
    assert ctx.tree.line(second) == 3
    assert names.import_read_after("Variable", {id(call), id(ctx.tree.parent(second))}) is None
