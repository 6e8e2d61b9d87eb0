"""fixes.FixRenderer gives each fix's text exactly as rendering the whole module does.

It renders only the statement a fix changes, and runs LibCST's import codemods
on the head of the module only; these cases take each of its paths (no import
change, an import added, an import removed with its comment, a removal that
does not happen because the name is still used, a large class standing in at
the end of the head, a file without a final newline).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gradlint.checking import check_document
from gradlint.config import Settings
from gradlint.fixes import FixRenderer, apply_fixes, text_edits

CASES = {
    "variable used once, import removed with its comment": (
        "import torch\n"
        "# autograd's wrapper\n"
        "from torch.autograd import Variable\n"
        "\n"
        "\n"
        "class Model(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        return self.net(Variable(x))\n"
    ),
    "variable still used elsewhere": (
        "import torch\n"
        "from torch.autograd import Variable\n"
        "\n"
        "\n"
        "def f(x, y):\n"
        "    a = Variable(x)\n"
        "    b = Variable(y)\n"
        "    return a, b\n"
        "\n"
        "\n"
        "def log(loss):\n"
        "    print(loss.data[0])\n"
    ),
    "torch not imported at the top: the fix adds it": (
        "from torch.autograd import Variable\n"
        "import numpy as np\n"
        "\n"
        "\n"
        "def evaluate(model, x):\n"
        "    return model(Variable(x, volatile=True))\n"
    ),
    "no final newline": "import torch\n\n\ndef log(loss):\n    print(loss.data[0])",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_fix_renders_as_the_whole_module_does(tmp_path, name):
    source = CASES[name]
    checked = check_document(Path(tmp_path / "m.py"), source, Settings(cwd=tmp_path, select=["ALL"]))
    fixes = [f.fix for f in checked.findings if f.fix is not None]
    assert fixes, "the case must have fixes"
    ctx = checked.context
    renderer = FixRenderer(ctx.module, source, ctx.parents)
    for fix in fixes:
        whole = apply_fixes(ctx.module, [fix], ctx.parents)
        assert renderer.fixed_text(fix) == whole
        assert renderer.text_edits(fix) == text_edits(source, whole)
