"""import_changes._update_imports_quick changes a module's imports exactly as LibCST's codemods do.

The quick path stands in for ``AddImportsVisitor`` and gradlint's extended
``RemoveImportsVisitor`` for the changes fixes make most, so that rendering
fixes (JSON and SARIF edits, ``full``'s previews) never imports
``libcst.codemod``. Wherever it answers, its module must render to the same
text as the codemods' on the same module; where it cannot show that, it must
decline (None) rather than guess.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import libcst as cst
import pytest

from gradlint.fixes import ImportSpec
from gradlint.import_changes import _quick_matcher_visitors, _update_imports_now, _update_imports_quick

ROOT = Path(__file__).resolve().parents[1]

TORCH = ImportSpec("torch")
NUMPY = ImportSpec("numpy")
VARIABLE = ImportSpec("torch.autograd", "Variable")
AUTOGRAD = ImportSpec("torch.autograd", None, "autograd")
V_ALIAS = ImportSpec("torch.autograd", "Variable", "V")

# (source, adds, removes, whether the quick path must answer)
CASES = {
    "remove the only use's import": ("import torch\nfrom torch.autograd import Variable\n\n\ndef f(x):\n    return x\n", [], [VARIABLE], True),
    "remove, comment above kept": (
        "import torch\n\n# the wrapper\nfrom torch.autograd import Variable\nimport numpy\n\nx = 1\n",
        [],
        [VARIABLE],
        True,
    ),
    "remove, blank lines above dropped": ("import torch\n\n\nfrom torch.autograd import Variable\nx = 1\n", [], [VARIABLE], True),
    "remove the last statement, comment to the footer": ("import torch\n# why\nfrom torch.autograd import Variable\n# end\n", [], [VARIABLE], True),
    "remove, trailing comment goes with it": ("import torch\nfrom torch.autograd import Variable  # noqa: F401\nx = 1\n", [], [VARIABLE], True),
    "remove the first statement after a header": ("#!/usr/bin/env python\n# header\nfrom torch.autograd import Variable\nimport torch\n", [], [VARIABLE], True),
    "remove an aliased module import": ("import torch\nimport torch.autograd as autograd\nfrom torch.autograd import grad\n\ny = torch.autograd.grad\n", [], [AUTOGRAD], True),
    "remove an aliased name": ("from torch.autograd import Variable as V\nimport torch\n\nz = 2\n", [], [V_ALIAS], True),
    "remove two in a row, comments carried": (
        "import torch\n# one\nfrom torch.autograd import Variable\n# two\nimport torch.autograd as autograd\nx = 1\n",
        [],
        [AUTOGRAD, VARIABLE],
        True,
    ),
    "remove with CRLF": ("import torch\r\n# c\r\nfrom torch.autograd import Variable\r\n\r\nx = 1\r\n", [], [VARIABLE], True),
    "remove and add": ("from torch.autograd import Variable\n\n\ndef f(x):\n    return x\n", [TORCH], [VARIABLE], True),
    "still used: declined": ("from torch.autograd import Variable\n\nx = Variable(1)\n", [], [VARIABLE], False),
    "in a string: declined": ("from torch.autograd import Variable\n\ndef f(x: 'Variable'):\n    pass\n", [], [VARIABLE], False),
    "in __all__: declined": ("from torch.autograd import Variable\n__all__ = ['x']\n", [], [VARIABLE], False),
    "an escape in a string: declined": ("from torch.autograd import Variable\n\ndef f(x: '\\x56ariable'):\n    pass\n", [], [VARIABLE], False),
    "two names on the line: declined": ("from torch.autograd import Variable, grad\n\ngrad(1)\n", [], [VARIABLE], False),
    "nested import: declined": ("try:\n    from torch.autograd import Variable\nexcept ImportError:\n    pass\n", [], [VARIABLE], False),
    "two statements on the line: declined": ("from torch.autograd import Variable; import os\nos.sep\n", [], [VARIABLE], False),
    "relative import: declined": ("from .autograd import Variable\nx = 1\n", [], [VARIABLE], False),
    "add after the top imports": ("import os\nimport sys\nx = 1\n", [TORCH], [], True),
    "add after a docstring": ('"""Doc."""\nx = 1\n', [TORCH], [], True),
    "add after a docstring and imports, comment first": ('"""Doc."""\nimport os\n# c\nx = 1\n', [TORCH], [], True),
    "add, blank line already there": ("import os\n\nx = 1\n", [TORCH], [], True),
    "add after __strict__": ("__strict__ = True\nimport os\nx = 1\n", [TORCH, NUMPY], [], True),
    "add when present": ("import os\nimport torch\nx = torch.ones(1)\n", [TORCH], [], True),
    "add when present only below the top: added": ("x = 1\nimport torch\n", [TORCH], [], True),
    "add when aliased: added": ("import torch as th\nx = th.ones(1)\n", [TORCH], [], True),
    "add when a submodule is imported: added": ("import torch.nn\nx = 1\n", [TORCH], [], True),
    "add to a module of imports only": ("import os\n# end\n", [TORCH], [], True),
    "add to an empty module": ("", [TORCH], [], True),
    "add after a header": ("# header\n\nx = 1\n", [TORCH], [], True),
    "add after a multi-statement line": ("import os; import sys\nx = 1\n", [TORCH], [], True),
    "add a name: declined": ("import os\n", [VARIABLE], [], False),
}


def codemods(source: str, adds, removes) -> str:
    return _update_imports_now(cst.parse_module(source), adds, removes).code


@pytest.mark.parametrize("name", list(CASES))
def test_quick_path_is_the_codemods_or_declines(name):
    source, adds, removes, answers = CASES[name]
    quick = _update_imports_quick(cst.parse_module(source), adds, removes)
    assert (quick is not None) == answers
    if quick is not None:
        assert quick.code == codemods(source, adds, removes)


def _sources():
    for path in sorted([*ROOT.glob("fixtures/**/*.py"), *ROOT.glob("tests/cases/**/*.py")]):
        try:
            yield path, cst.parse_module(path.read_text(encoding="utf-8"))
        except Exception:
            continue


def test_quick_path_on_every_fixture_and_case():
    # Every change the fixes make, on every real file: adding `import torch`, removing the
    # Variable import (also from files where it is still used: then the quick path declines).
    # The codemods' visitors skip their search for matcher decorators where a class
    # has none (most of the codemods' set-up; test_fix_renderer.py shows it changes
    # nothing): some 400 codemod runs here.
    answered = 0
    with _quick_matcher_visitors():
        for path, module in _sources():
            for adds, removes in (([TORCH], []), ([], [VARIABLE]), ([TORCH], [VARIABLE]), ([], [AUTOGRAD])):
                quick = _update_imports_quick(module, adds, removes)
                if quick is not None:
                    answered += 1
                    assert quick.code == _update_imports_now(module, adds, removes).code, (path, adds, removes)
    assert answered > 100


def test_rendering_edits_does_not_import_the_codemods(tmp_path):
    # A file whose fixes remove `from torch.autograd import Variable` and add `import torch`:
    # its JSON edits are rendered without importing libcst.codemod (a third of a second).
    (tmp_path / "a.py").write_text("from torch.autograd import Variable\n\n\ndef f(x):\n    return Variable(x, volatile=True)\n")
    (tmp_path / "b.py").write_text("import os\nfrom torch.autograd import Variable\n\n\ndef g(y):\n    return Variable(y)\n")
    code = (
        "import sys\nfrom gradlint.cli import main\n"
        "sys.argv = ['gradlint', 'check', '--no-cache', '--exit-zero', '--jobs', '1', '--output-format', 'json', 'a.py', 'b.py']\n"
        "try:\n    main()  # the command less the console script's exit, which skips what follows\nexcept SystemExit:\n    pass\n"
        "print('CODEMOD' if 'libcst.codemod' in sys.modules else 'NONE', file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=True)
    assert '"content": "import torch\\n' in done.stdout or "import torch" in done.stdout
    assert done.stderr.strip().splitlines()[-1] == "NONE"
