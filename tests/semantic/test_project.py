"""The project index (``gradlint.semantic.project``): what other files of a run
tell a file's questions, and the facts consulted through it."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from gradlint.rule import FileContext
from gradlint.semantic import project
from gradlint.semantic.tree import walk


def summary(code: str, path: str = "pkg/mod.py") -> dict:
    found = project.summarize(path, textwrap.dedent(code))
    assert found is not None and project.valid(found)
    return found


def test_module_names_are_every_suffix_of_the_path():
    assert project.module_names("src/flair/models/tagger.py") == ["tagger", "models.tagger", "flair.models.tagger", "src.flair.models.tagger"]
    assert project.module_names("pkg/__init__.py") == ["pkg"]
    assert project.module_names("my-dir/mod.py") == ["mod"]  # not an identifier: not importable that way


def test_class_bases_are_qualified_through_the_imports():
    s = summary(
        """
        import torch.nn
        import flair.nn as fnn
        from .base import Model as Base

        class A(torch.nn.Module): pass
        class B(fnn.Model): pass
        class C(Base): pass
        class D(A, metaclass=M): pass
        """,
        "flair/models/tagger.py",
    )
    assert s["classes"] == {
        "A": ["torch.nn.Module"],
        "B": ["flair.nn.Model"],
        "C": ["flair.models.base.Model"],
        "D": [".A"],
    }


def _files(root, files):
    """Writes ``files`` under ``root`` (packages get their ``__init__.py``); their
    ``(path, source)`` pairs."""
    out = []
    for rel, source in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source)
        out.append((str(path), source))
    return out


def test_derives_from_module_follows_bases_across_files(tmp_path):
    sources = _files(
        tmp_path / "repo",
        {
            "flair/__init__.py": "",
            "flair/models/__init__.py": "",
            "flair/nn.py": "import torch.nn\nclass Model(torch.nn.Module):\n    pass\n",
            "flair/data.py": "class Corpus:\n    pass\nclass Big(Corpus):\n    pass\n",
            "flair/models/tagger.py": "import flair.nn\nclass Local(flair.nn.Model):\n    pass\nclass Sub(Local):\n    pass\n",
            "flair/layers.py": "from torch import nn\nclass Dense(nn.Linear):\n    pass\nclass Plain(nn.Parameter):\n    pass\n",
        },
    )
    other = _files(tmp_path / "elsewhere", {"flair/nn.py": "class Model:\n    pass\n"})
    index = project.build(sources + other)
    asking = str(tmp_path / "repo" / "flair" / "other.py")
    assert index.derives_from_module("flair.nn.Model", asking) is True
    assert index.derives_from_module("flair.models.tagger.Sub", asking) is True  # through a base of its own file
    assert index.derives_from_module("flair.data.Big", asking) is False
    assert index.derives_from_module("flair.layers.Dense", asking) is True  # a torch.nn layer is a module
    assert index.derives_from_module("flair.layers.Plain", asking) is False
    assert index.derives_from_module("other.Thing", asking) is None  # no file of the run defines it
    # another project of the same run, with its own ``flair.nn``: its facts stay its own
    assert index.derives_from_module("flair.nn.Model", str(tmp_path / "elsewhere" / "flair" / "x.py")) is False
    assert project.project_root(asking) == str(tmp_path / "repo")
    assert project.project_root(str(tmp_path / "elsewhere" / "flair" / "nn.py")) == str(tmp_path / "elsewhere" / "flair")


def test_call_counts_and_inference_callers():
    s = summary(
        """
        import torch

        def evaluate(agent, loader):
            for x in loader:
                agent.act(x)
                with torch.no_grad():
                    agent.act(x)
            helper(x)

        @torch.no_grad()
        def other(agent):
            agent.act(1)
            torch.zeros(1)
        """
    )
    assert s["calls"]["act"] == [3, 2]
    assert s["calls"]["helper"] == [1, 0]
    assert s["calls"]["zeros"] == [1, 1]
    # only the call with gradients on, from a function named for inference, on an object
    # that is neither ``self`` nor an imported module (``torch.zeros``)
    assert s["inference_calls"] == [["act", "evaluate", 6]]


def test_a_function_is_called_where_the_call_resolves_to_it_not_by_a_method_of_its_name(tmp_path):
    cli = "import click\nclass C:\n    pass\ndef predict(p):\n    return p\n"
    callers = {
        "imported.py": "import torch\nfrom cli import predict\nclass A:\n    pass\nwith torch.no_grad():\n    predict(1)\n",
        "attribute.py": "import cli as c\nclass A:\n    pass\nc.predict(1)\nc.other(2)\n",
        "starred.py": "from cli import *\nclass A:\n    pass\npredict(1)\n",
        "method.py": "class A:\n    def run(self, net):\n        return net.predict(1) + self.predict(2)\n",
        "local.py": "class A:\n    pass\ndef predict(x):\n    return x\npredict(3)\n",
        "unrelated_star.py": "from other import *\nclass A:\n    pass\npredict(1)\n",
    }
    root = tmp_path / "repo"
    sources = [(str(root / "cli.py"), cli)] + [(str(root / name), code) for name, code in callers.items()]
    index = project.build(sources)
    origin = str(root / "cli.py")
    # ``from cli import predict`` (under no_grad), ``c.predict``, the star import of ``cli``
    assert index.function_call_counts("predict", origin) == (3, 1)
    assert index.function_call_counts("other", origin) == (1, 0)
    # by last name: every call named so, methods and the other modules' own functions too
    assert index.call_counts("predict", origin)[0] == 7


def test_summaries_from_a_cache_are_checked():
    good = summary("class A:\n    pass\n")
    assert project.valid(None)
    assert not project.valid({**good, "v": 0})
    assert not project.valid({**good, "calls": {"f": [1]}})
    assert not project.valid({**good, "function_calls": {"m.f": [1]}})
    assert not project.valid({**good, "stars": "m"})
    assert not project.valid({**good, "classes": {"A": "torch.nn.Module"}})
    assert not project.valid({**good, "inference_calls": [["act", "test", "3"]]})


def test_a_file_with_nothing_to_tell_has_no_summary():
    assert project.summarize("a.py", "x = 1\nprint(x)\n") is None
    assert project.summarize("a.py", "class (:\n") is None


def test_the_digest_changes_with_the_facts():
    a = project.build([("a.py", "class A:\n    pass\n")])
    b = project.build([("a.py", "import torch\nclass A(torch.nn.Module):\n    pass\n")])
    assert a.digest != b.digest
    assert a.digest == project.build([("a.py", "class A:\n    pass\n")]).digest


def _ctx(code: str, path: str, index=None) -> FileContext:
    source = textwrap.dedent(code)
    return FileContext(path, source, cst.parse_module(source), project=index)


def test_a_class_is_a_module_through_a_base_of_another_file(tmp_path):
    code = """
    import flair.nn

    class Tagger(flair.nn.Model):
        def predict(self, x):
            return self.forward(x)
    """
    sources = _files(
        tmp_path,
        {"flair/__init__.py": "", "flair/models/__init__.py": "", "flair/nn.py": "import torch\nclass Model(torch.nn.Module):\n    pass\n"},
    )
    path = str(tmp_path / "flair" / "models" / "tagger.py")
    ctx = _ctx(code, path)
    assert [c.name.value for c in ctx.semantic.modules.module_classes()] == []
    ctx = _ctx(code, path, project.build(sources))
    assert [c.name.value for c in ctx.semantic.modules.module_classes()] == ["Tagger"]


def test_a_function_only_other_files_call_under_no_grad_is_entered_without_grad():
    code = """
    def score_batch(model, batch):
        return model(batch).argmax(1)
    """
    caller = """
    import torch
    from helpers import score_batch

    def run(model, loader):
        with torch.no_grad():
            return [score_batch(model, b) for b in loader]
    """

    def mode(index=None) -> object:
        ctx = _ctx(code, "helpers.py", index)
        func = next(n for n in walk(ctx.module, into_functions=True) if isinstance(n, cst.FunctionDef))
        return ctx.semantic.gradmode.entry_mode(func)

    assert (mode().disabled, mode().reason) == (False, "default")
    index = project.build([("run.py", textwrap.dedent(caller))])
    assert (mode(index).disabled, mode(index).reason) == (True, "project")
    # one call with gradients on anywhere and the entry mode is the default again
    index = project.build([("run.py", textwrap.dedent(caller) + "\ndef train(m, b):\n    score_batch(m, b)\n")])
    assert (mode(index).disabled, mode(index).reason) == (False, "default")


def test_unit_tests_are_not_inference_code():
    code = "def test_act(agent):\n    agent.act(1)\n\ndef evaluate(agent):\n    agent.act(2)\n"
    assert project.summarize("tests/test_agent.py", code)["inference_calls"] == [["act", "evaluate", 5]]
    assert project.summarize("scripts/test.py", code)["inference_calls"] == [["act", "test_act", 2], ["act", "evaluate", 5]]


def test_the_digest_is_the_same_from_cached_summary_hashes():
    index = project.build([("a.py", "class A:\n    pass\n"), ("b.py", "import torch\nclass B(torch.nn.Module):\n    pass\n")])
    hashes = {p: project.summary_hash(s) for p, s in index.summaries.items()}
    assert project.Project(index.summaries, hashes).digest == index.digest


def test_the_methods_of_a_class_that_run_its_forward_are_summarised():
    s = summary(
        """
        import torch.nn as nn

        class Attention(nn.Module):
            def __init__(self):
                super().__init__()
                self.head = nn.Linear(2, 1)
                self.scale = 2.0
                self.helper = make_helper()

            def forward(self, x):
                return self.head(x)

            def objective(self, x, y):
                out = self.forward(x)
                return (out - y).abs().mean()

            def error(self, x, y):
                return self.objective(x, y) > 0.5

            def called(self, x):
                return self(x)

            def scaled(self, x):
                return self.scale * x

            def assisted(self, x):
                return self.helper(x)

            def deferred(self, x):
                def later():
                    return self.forward(x)
                return later

        class Plain:
            def describe(self):
                return "plain"
        """
    )
    # self.helper is built by something else than a torch.nn class: not known to be a
    # submodule; a nested function runs when called, not when the method does
    assert s["forwards"] == {"Attention": ["called", "error", "forward", "objective"]}


def test_a_method_of_a_module_class_of_another_file_that_runs_its_forward(tmp_path):
    sources = _files(
        tmp_path / "repo",
        {
            "model.py": (
                "import torch.nn as nn\n"
                "class Attention(nn.Module):\n"
                "    def forward(self, x):\n        return x\n"
                "    def objective(self, x):\n        return self.forward(x).mean()\n"
                "    def config(self):\n        return {}\n"
                "class Wrapper:\n"
                "    def forward(self, x):\n        return x\n"
                "    def objective(self, x):\n        return self.forward(x)\n"
            ),
        },
    )
    index = project.build(sources)
    origin = str(tmp_path / "repo" / "main.py")
    assert index.method_runs_forward("model.Attention", "objective", origin)
    assert not index.method_runs_forward("model.Attention", "config", origin)
    assert not index.method_runs_forward("model.Wrapper", "objective", origin)  # not a module
    assert not index.method_runs_forward("model.Missing", "objective", origin)
    code = """
    from model import Attention, Wrapper

    if flag:
        model = Attention()
    else:
        model = Attention().cuda()
    wrapper = Wrapper()
    mixed = Attention() if flag else Wrapper()

    def test():
        model.objective(x)
        model.config()
        wrapper.objective(x)
    """
    ctx = _ctx(code, origin, index)
    calls = [n for n in walk(ctx.module, into_functions=True) if isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute)]
    assert [(ctx.code_for(c.func), ctx.semantic.modules.imported_method_forward(c)) for c in calls[-3:]] == [
        ("model.objective", True), ("model.config", False), ("wrapper.objective", False)
    ]
    assert not ctx.semantic.modules.imported_method_forward(cst.parse_expression("mixed.objective(x)"))


def test_gl101_reports_a_method_forward_of_a_module_class_of_another_file(tmp_path):
    from gradlint.engine import lint_source
    from gradlint.options import LintSettings

    model = (
        "import torch.nn as nn\n"
        "class Attention(nn.Module):\n"
        "    def __init__(self):\n        super().__init__()\n        self.fc = nn.Linear(4, 1)\n"
        "    def forward(self, x):\n        return self.fc(x)\n"
        "    def calculate_objective(self, x, y):\n        return ((self.forward(x) - y) ** 2).mean()\n"
        "    def describe(self, x):\n        return {'n': len(x)}\n"
    )
    main = textwrap.dedent(
        """\
        from model import Attention

        model = Attention()


        def test(loader):
            model.eval()
            total = 0.0
            for x, y in loader:
                total += model.calculate_objective(x, y).item()
            return total


        def describe(loader):
            model.eval()
            return [model.describe(x) for x, _ in loader]
        """
    )
    sources = _files(tmp_path / "repo", {"model.py": model, "main.py": main})
    path = str(tmp_path / "repo" / "main.py")
    found = lint_source(main, path, LintSettings(frozenset({"GL101"}), index=project.build(sources))).findings
    assert [(f.code, f.start) for f in found] == [("GL101", (10, 17))]
    # without the index, what Attention is and what its methods do is unknown
    assert lint_source(main, path, LintSettings(frozenset({"GL101"}))).findings == []


def test_gl101_reports_a_method_running_a_submodule_of_a_project_module_class(tmp_path):
    # issue 26 (first-sight batch 4): ``net.forward_local(x)`` runs ``self.local(x)``,
    # built from a module class of a third file; ``net.describe(x)`` runs
    # ``self.helper(x)``, built from a plain class: no forward.
    from gradlint.engine import lint_source
    from gradlint.options import LintSettings

    parts = (
        "import torch.nn as nn\n"
        "class LocalNet(nn.Module):\n"
        "    def __init__(self):\n        super().__init__()\n        self.fc = nn.Linear(4, 4)\n"
        "    def forward(self, x):\n        return self.fc(x)\n"
        "class Helper:\n"
        "    def __call__(self, x):\n        return x.shape\n"
    )
    net = (
        "import torch.nn as nn\n"
        "from .parts import Helper, LocalNet\n"
        "class Net(nn.Module):\n"
        "    def __init__(self):\n        super().__init__()\n"
        "        self.local = LocalNet()\n        self.helper = Helper()\n"
        "    def forward(self, x):\n        return self.forward_local(x)\n"
        "    def forward_local(self, x):\n        return self.local(x)\n"
        "    def describe(self, x):\n        return self.helper(x)\n"
    )
    main = textwrap.dedent(
        """\
        from nets.net import Net

        net = Net()


        def score(loader):
            net.eval()
            return [net.forward_local(x).sum().item() for x in loader]


        def shapes(loader):
            net.eval()
            return [str(net.describe(x)) for x in loader]
        """
    )
    assert summary(net, "nets/net.py")["forwards_if"] == {
        "Net": {"describe": ["nets.parts.Helper"], "forward_local": ["nets.parts.LocalNet"]}
    }
    sources = _files(tmp_path / "repo", {"nets/__init__.py": "", "nets/parts.py": parts, "nets/net.py": net, "main.py": main})
    path = str(tmp_path / "repo" / "main.py")
    found = lint_source(main, path, LintSettings(frozenset({"GL101"}), index=project.build(sources))).findings
    assert [(f.code, f.start) for f in found] == [("GL101", (8, 12))]
    # without the index, what Net is and what its methods run is unknown
    assert lint_source(main, path, LintSettings(frozenset({"GL101"}))).findings == []


def test_methods_running_items_of_a_submodule_container_are_summarised():
    # issue 26 (first-sight recall batch 6): ``inference`` runs the items of the
    # ``ModuleList``s ``self.lins`` and ``self.bns``, by index and by loop variable
    s = summary(
        """
        import torch

        class MLP(torch.nn.Module):
            def __init__(self, sizes):
                super().__init__()
                self.lins = torch.nn.ModuleList()
                self.bns = torch.nn.ModuleList()
                self.names = ["a", "b"]
                self.cache = {}

            def forward(self, x):
                return self.lins[0](x)

            def inference(self, x):
                for i, lin in enumerate(self.lins[:-1]):
                    x = self.bns[i](lin(x))
                return self.lins[-1](x)

            def last(self, x):
                for lin in self.lins:
                    pass
                return lin(x)

            def rebound(self, x):
                for lin in self.lins:
                    lin = lin.weight
                return lin(x)

            def named(self, x):
                for name in self.names:
                    x = name(x)
                return self.cache[0](x)
        """
    )
    # ``self.names`` and ``self.cache`` are no submodules; ``lin`` of ``rebound`` is
    # bound twice, so what it holds at the call is not known
    assert s["forwards"] == {"MLP": ["forward", "inference", "last"]}


def test_gl101_reports_a_method_running_a_module_list_of_a_project_module_class(tmp_path):
    # issue 26 (first-sight recall batch 6): ``self.model.inference(x)`` for ``self.model =
    # MLP(...)``, whose ``inference`` runs the layers of its ``ModuleList``s
    from gradlint.engine import lint_source
    from gradlint.options import LintSettings

    mlp = (
        "import torch\n"
        "class MLP(torch.nn.Module):\n"
        "    def __init__(self):\n        super().__init__()\n        self.lins = torch.nn.ModuleList()\n"
        "    def forward(self, x):\n        return self.inference(x)[0]\n"
        "    def inference(self, x):\n        for lin in self.lins:\n            x = lin(x)\n        return x, x.detach()\n"
        "    def sizes(self):\n        return [len(self.lins)]\n"
    )
    main = textwrap.dedent(
        """\
        from models.mlp import MLP


        class Runner:
            def __init__(self):
                self.model = MLP()

            def validate(self, loader):
                self.model.eval()
                correct = 0
                for x, y in loader:
                    out, _ = self.model.inference(x)
                    correct += int((out.argmax(-1) == y).sum())
                return correct

            def sizes(self):
                self.model.eval()
                return self.model.sizes()
        """
    )
    sources = _files(tmp_path / "repo", {"models/__init__.py": "", "models/mlp.py": mlp, "main.py": main})
    path = str(tmp_path / "repo" / "main.py")
    found = lint_source(main, path, LintSettings(frozenset({"GL101"}), index=project.build(sources))).findings
    assert [(f.code, f.start) for f in found] == [("GL101", (12, 21))]
    assert lint_source(main, path, LintSettings(frozenset({"GL101"}))).findings == []


def test_a_class_is_surely_no_module_only_when_every_base_is_known(tmp_path):
    sources = _files(
        tmp_path / "repo",
        {
            "base.py": (
                "import abc\nimport torch.nn as nn\nfrom ludwig.utils import LudwigModule\n"
                "class Interface(abc.ABC):\n    pass\n"
                "class Plain(object):\n    pass\n"
                "class Child(Plain, Interface):\n    pass\n"
                "class Net(nn.Module):\n    pass\n"
                "class Unknown(LudwigModule):\n    pass\n"
            ),
        },
    )
    index = project.build(sources)
    origin = str(tmp_path / "repo" / "main.py")
    found = {n: index.surely_not_module(f"base.{n}", origin) for n in ("Interface", "Plain", "Child", "Net", "Unknown", "Missing")}
    assert found == {"Interface": True, "Plain": True, "Child": True, "Net": False, "Unknown": False, "Missing": False}
    # derives_from_module answers False for Unknown as well: no module base found there
    assert index.derives_from_module("base.Unknown", origin) is False
    code = """
    import torch
    from base import Child, Unknown

    class Runner(Child):
        def __init__(self, path):
            super().__init__()
            self.net = torch.jit.load(path)
            self.net.eval()

    class Other(Unknown):
        def __init__(self, path):
            super().__init__()
            self.net = torch.jit.load(path)
            self.net.eval()
    """
    ctx = _ctx(code, origin, index)
    classes = {c.name.value: c for c in ctx.module.body if isinstance(c, cst.ClassDef)}
    assert {n: ctx.semantic.modules.not_module_class(c) for n, c in classes.items()} == {"Runner": True, "Other": False}
    assert list(ctx.semantic.modules.eval_attributes(classes["Runner"])) == ["self.net"]


def test_gl101_takes_the_class_of_an_attribute_from_the_annotation_of_what_init_stores(tmp_path):
    from gradlint.engine import lint_source
    from gradlint.options import LintSettings

    model = (
        "import torch.nn as nn\n"
        "class ECD(nn.Module):\n"
        "    def forward(self, x):\n        return x\n"
        "    def evaluation_step(self, x, y):\n        return self(x) - y\n"
        "    def describe(self):\n        return {}\n"
    )
    main = textwrap.dedent(
        """\
        from ecd import ECD


        class Predictor:
            def __init__(self, model: ECD, device="cpu"):
                self.model = model.to(device)

            def batch_evaluation(self, batches):
                self.model.eval()
                errors = []
                for x, y in batches:
                    errors.append(self.model.evaluation_step(x, y).abs().mean().item())
                return errors

            def describe_all(self, batches):
                self.model.eval()
                return [self.model.describe() for _ in batches]


        class Untyped:
            def __init__(self, model, device="cpu"):
                self.model = model.to(device)

            def batch_evaluation(self, batches):
                self.model.eval()
                return [self.model.evaluation_step(x, y).mean().item() for x, y in batches]
        """
    )
    sources = _files(tmp_path / "repo", {"ecd.py": model, "main.py": main})
    path = str(tmp_path / "repo" / "main.py")
    found = lint_source(main, path, LintSettings(frozenset({"GL101"}), index=project.build(sources))).findings
    # describe() runs no forward; Untyped's model may be anything
    assert [(f.code, f.start) for f in found] == [("GL101", (12, 26))]


def test_calls_that_hand_another_file_an_eval_mode_model_are_summarised(tmp_path):
    caller = textwrap.dedent(
        """\
        from scoring import rank, score

        def main(model, batches, epochs):
            model.eval()
            rank(model, batches)
            if epochs:
                rank(batches, model=model)
            print(model)
            score(model, batches)
            model.train()
            rank(model, batches)
            model.eval()
            for _ in range(epochs):
                rank(model, batches)
                helper(model)

        def helper(model):
            model.train()
        """
    )
    root = tmp_path / "repo"
    index = project.build([(str(root / "scoring.py"), "def rank(m, b):\n    return m(b)\n"), (str(root / "main.py"), caller)])
    origin = str(root / "scoring.py")
    # [line, line of the eval(), positions, keywords]: not after ``train()``, nor in a loop
    # that hands it to a function of the caller's own file (which may train it for the next turn)
    assert index.eval_passes("rank", origin) == [(str(root / "main.py"), [5, 4, [0], []]), (str(root / "main.py"), [7, 4, [], ["model"]])]
    assert index.eval_passes("score", origin) == []  # ``rank`` had it first, and may have trained it
    assert index.function_call_counts("rank", origin) == (4, 0)
    assert "rank" in index.inference_called()


def test_functions_that_return_a_model_in_eval_mode_are_summarised(tmp_path):
    code = """\
        import torch

        def load(path, fp16=False):
            model = torch.load(path)
            model.eval()
            model.load_state_dict({})
            if fp16:
                model = model.half().to("cuda")
            return model

        def load_pair(path):
            net = Net(path).eval().cuda()
            return path, net

        def trains_after(path):
            model = torch.load(path)
            model.eval()
            model.train()
            return model

        def some_paths(path, ready):
            model = torch.load(path)
            model.eval()
            if ready:
                return model
            return None

        def handed_on(path, trainer):
            model = torch.load(path)
            model.eval()
            trainer.fit(model)
            return model

        def never_switched(path):
            config = torch.load(path)
            return config

        def rebound(path):
            model = torch.load(path)
            model.eval()
            model = Wrapper(model)
            return model

        def generator(path):
            model = torch.load(path)
            model.eval()
            yield model
            return model

        @cached
        def decorated(path):
            model = torch.load(path)
            model.eval()
            return model

        class Loader:
            def load(self, path):
                model = torch.load(path)
                model.eval()
                return model
        """
    assert summary(code)["returns_eval"] == {"load": [[-1, 0]], "load_pair": [[1, 2]]}
    root = tmp_path / "repo"
    index = project.build([(str(root / "pkg" / "loading.py"), textwrap.dedent(code)), (str(root / "pkg" / "main.py"), "import torch\n")])
    origin = str(root / "pkg" / "main.py")
    assert index.returns_eval("pkg.loading.load", origin) == {(-1, 0)}
    assert index.returns_eval("loading.load_pair", origin) == {(1, 2)}
    assert index.returns_eval("pkg.loading.trains_after", origin) == frozenset()
    assert index.returns_eval("pkg.other.load", origin) == frozenset()
    assert index.eval_returning == {"load", "load_pair"}
    # A summary read back from a cache is checked for the entry's shape.
    assert not project.valid({**summary(code), "returns_eval": {"load": [[-1]]}})
