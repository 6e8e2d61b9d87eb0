"""What a star import of a module of the project binds (``gradlint.semantic.star_exports``)."""

from __future__ import annotations

import textwrap

import libcst as cst

from gradlint.engine import LintSettings, lint_source
from gradlint.rule import FileContext, RuleOptions
from gradlint.semantic import star_exports
from gradlint.semantic.torch_api import STAR_EXPORTS, VARIABLE
from gradlint.semantic.tree import walk


def _write(root, files):
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


PROJECT = {
    "pkg/__init__.py": "",
    "pkg/torch_imports.py": """\
        import torch, os
        import torch.nn as nn
        from torch.autograd import Variable
        from .layers import *
        """,
    # back into torch_imports while it is being read: the names it has bound so far
    "pkg/layers.py": """\
        from .torch_imports import *
        class Flatten(nn.Module):
            pass
        """,
    "pkg/core.py": """\
        from .torch_imports import *
        def to_gpu(x, async=True):
            return x.cuda(async=async)
        """,
    "pkg/logic.py": """\
        __all__ = ["Variable", "unify"]
        class Variable:
            pass
        def unify(a, b):
            pass
        _private = 1
        """,
    "pkg/opaque.py": """\
        from torch.autograd import Variable
        from numpy import *
        """,
    "pkg/maybe.py": """\
        try:
            from torch.autograd import Variable
        except ImportError:
            Variable = None
        """,
    "pkg/py2.py": "print 'hello'\n",
    "scripts/models/__init__.py": "from .vgg import *\n",
    "scripts/models/vgg.py": "import torch\nimport torch.nn as nn\nclass VGG(nn.Module):\n    pass\n",
}


def test_exports_of_project_modules(tmp_path):
    _write(tmp_path, PROJECT)
    user = str(tmp_path / "pkg" / "model.py")

    def names(module):
        found = star_exports.exports(user, module, STAR_EXPORTS)
        return None if found is None else (found.complete, dict(found.names))

    complete, torch_imports = names(".torch_imports")
    assert complete
    assert torch_imports["Variable"] == "torch.autograd.Variable"
    assert torch_imports["torch"] == "torch" and torch_imports["nn"] == "torch.nn"
    assert torch_imports["Flatten"] is None  # through the cycle: layers' own class
    # `async` as a name does not hide what core binds
    complete, core = names(".core")
    assert complete and core["Variable"] == "torch.autograd.Variable" and core["to_gpu"] is None
    assert names(".logic") == (True, {"Variable": None, "unify": None})  # __all__ decides
    complete, opaque = names(".opaque")
    assert not complete and "Variable" not in opaque  # numpy's star import may rebind it
    assert names(".maybe") == (True, {"Variable": None})  # bound on one path only: not known
    assert names(".py2") is None  # cannot be read
    assert names(".missing") is None
    assert names("scripts") is None
    assert star_exports.exports(str(tmp_path / "scripts" / "main.py"), "models", STAR_EXPORTS).names["torch"] == "torch"
    assert star_exports.exports("-", ".torch_imports", STAR_EXPORTS) is None  # standard input: no place
    # the importer's own package by its absolute name, from anywhere inside it
    deep = str(tmp_path / "pkg" / "sub" / "model.py")
    (tmp_path / "pkg" / "sub").mkdir()
    (tmp_path / "pkg" / "sub" / "__init__.py").write_text("")
    assert star_exports.exports(deep, "pkg.torch_imports", STAR_EXPORTS).names["Variable"] == "torch.autograd.Variable"
    assert star_exports.exports(deep, "other.torch_imports", STAR_EXPORTS) is None  # another package: not here
    # a directory without __init__.py is no package: its name is not resolved from above
    assert star_exports.exports(str(tmp_path / "scripts" / "main.py"), "scripts.models", STAR_EXPORTS) is None


def _variable_qualnames(path, source):
    module = cst.parse_module(source)
    ctx = FileContext(str(path), source, module)
    calls = [n for n in walk(module, into_functions=True) if isinstance(n, cst.Call) and ctx.code_for(n.func) == "Variable"]
    return [ctx.semantic.names.is_call_to(c, VARIABLE) for c in calls]


def test_names_follow_star_imports_of_the_project(tmp_path):
    _write(tmp_path, PROJECT)
    path = tmp_path / "pkg" / "model.py"
    call = "\n\ndef f(x):\n    return Variable(x, volatile=True)\n"
    assert _variable_qualnames(path, "from .torch_imports import *" + call) == [True]
    assert _variable_qualnames(path, "from .torch_imports import *\nfrom .logic import *" + call) == [False]
    assert _variable_qualnames(path, "from .logic import *\nfrom .torch_imports import *" + call) == [True]
    assert _variable_qualnames(path, "from .torch_imports import *\nfrom .opaque import *" + call) == [False]
    assert _variable_qualnames(path, "from .torch_imports import *\nfrom .missing import *" + call) == [False]
    # the same source where no such module is found: nothing is known
    assert _variable_qualnames(tmp_path / "elsewhere" / "model.py", "from .torch_imports import *" + call) == [False]


def test_gl001_fix_decorates_where_a_star_import_binds_torch(tmp_path):
    _write(tmp_path, PROJECT)
    path = tmp_path / "scripts" / "main.py"
    source = textwrap.dedent(
        """\
        from models import *
        import torch
        from torch.autograd import Variable


        def test(net, loader):
            for x, y in loader:
                print(net(Variable(x, volatile=True)).sum().item())
        """
    )
    result = lint_source(source, str(path), LintSettings(frozenset({"GL001"}), RuleOptions()))
    (finding,) = result.findings
    assert finding.fix is not None and finding.fix.applicability == "safe"
    # a star import from a module that cannot be read may rebind torch after its import
    later = source.replace("from models import *\nimport torch\n", "import torch\nfrom other import *\n")
    result = lint_source(later, str(path), LintSettings(frozenset({"GL001"}), RuleOptions()))
    (finding,) = result.findings
    assert finding.fix is None
    # before ``import torch`` it is overridden by the import
    result = lint_source(source.replace("from models", "from other"), str(path), LintSettings(frozenset({"GL001"}), RuleOptions()))
    (finding,) = result.findings
    assert finding.fix is not None and finding.fix.applicability == "safe"


def test_a_loss_module_named_through_a_star_import_is_a_torch_loss(tmp_path):
    # ``nn`` reaches the script only through ``from model import *`` (model.py does
    # ``import torch.nn as nn``): ``nn.NLLLoss()`` is torch's loss, so its output is
    # 0-dim and ``loss.data[0]`` raises today.
    _write(tmp_path, {"model.py": "import torch\nimport torch.nn as nn\n\nclass RNN(nn.Module):\n    pass\n"})
    source = textwrap.dedent(
        """\
        import torch
        from model import *

        criterion = nn.NLLLoss()


        def train(output, target):
            loss = criterion(output, target)
            loss.backward()
            return output, loss.data[0]
        """
    )
    settings = LintSettings(frozenset({"GL003"}), RuleOptions())
    (finding,) = lint_source(source, str(tmp_path / "train.py"), settings).findings
    assert (finding.code, finding.start) == ("GL003", (10, 19))
    # a module that cannot be read may bind ``nn`` to anything: nothing is known
    assert lint_source(source, str(tmp_path / "elsewhere" / "train.py"), settings).findings == []
    # nor where the file binds ``nn`` itself
    rebound = source.replace("criterion = nn", "nn = object()\ncriterion = nn")
    assert lint_source(rebound, str(tmp_path / "train.py"), settings).findings == []
