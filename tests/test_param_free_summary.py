"""What ``semantic.ast_param_free`` records of a file's module classes, and how the
index resolves a class through the classes it builds and derives from."""

import ast
import textwrap

import pytest

from gradlint.semantic import ast_imports, ast_param_free, project

HEAD = "from typing import Optional\nimport torch\nfrom torch import nn\nfrom .layers import Block\n\n"


@pytest.mark.parametrize(
    "body, deps",
    [
        ("def __init__(self, n: int, k: Optional[int] = None):\n    super().__init__()\n    self.n, self.k = n, k\n    self.register_buffer('g', torch.zeros(n))", ["torch.nn.Module"]),
        ("def __init__(self):\n    super().__init__()\n    self.act = nn.ReLU()\n    self.block = Block()\n    self.cache = {}", ["pkg.layers.Block", "torch.nn.Module", "torch.nn.ReLU"]),
        # a parameter, a registered module, a value of unknown kind, a tensor that requires grad
        ("def __init__(self):\n    super().__init__()\n    self.w = nn.Parameter(torch.ones(2))", None),
        ("def __init__(self):\n    super().__init__()\n    self.add_module('f', nn.Linear(2, 2))", None),
        ("def __init__(self, net):\n    super().__init__()\n    self.net = net", None),
        ("def __init__(self):\n    super().__init__()\n    self.t = torch.ones(2, requires_grad=True)", None),
        ("def __init__(self):\n    super().__init__()\n    self.f = build_head()", None),
        ("fc = nn.Linear(2, 2)\n\ndef __init__(self):\n    super().__init__()", None),
        ("scale = 2.0\n\ndef __init__(self):\n    super().__init__()", ["torch.nn.Module"]),
    ],
)
def test_classes_without_parameters_of_their_own(body, deps):
    source = HEAD + "class C(nn.Module):\n" + textwrap.indent(body, "    ") + "\n"
    tree = ast.parse(source)
    entry = ast_param_free.summary_entry(tree, ast_imports.imports(tree, "pkg"), "pkg.mod")
    assert entry.get("param_free_classes", {}).get("C") == deps


def test_the_index_follows_what_a_class_builds_and_derives_from(tmp_path, monkeypatch):
    files = {
        "pkg/__init__.py": "",
        "pkg/layers.py": "from torch import nn\n\n\nclass Block(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.act = nn.GELU()\n",
        "pkg/heads.py": "from torch import nn\n\n\nclass Head(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.fc = nn.Linear(2, 2)\n",
        "pkg/mod.py": "from torch import nn\nfrom .layers import Block\nfrom .heads import Head\n\n\nclass Free(Block):\n    pass\n\n\n"
        "class Holder(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.head = Head()\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    monkeypatch.chdir(tmp_path)
    index = project.build([(name, text) for name, text in files.items()])
    assert ast_param_free.param_free(index, "pkg.mod.Free", "pkg/mod.py")
    assert ast_param_free.param_free(index, "pkg.layers.Block", "pkg/mod.py")
    assert not ast_param_free.param_free(index, "pkg.mod.Holder", "pkg/mod.py")  # its Head has a Linear
    assert not ast_param_free.param_free(index, "pkg.heads.Head", "pkg/mod.py")
    assert ast_param_free.param_free(index, "torch.nn.Dropout", "pkg/mod.py")
    assert not ast_param_free.param_free(index, "torch.nn.PReLU", "pkg/mod.py")
