"""The oracle's corpus family (tests/oracle/corpus.py): functions of released torch
code that a safe fix or a migration changes, run on stub arguments before and after.

CI runs the sample code bases (``corpus.SAMPLE_BASES``, built from PyPI by
``benchmarks/run.py`` when absent; skipped, with the reason, when they cannot be
downloaded); ``GRADLINT_ORACLE=long`` runs every code base of the corpus and prints
the figures docs/reliability.md reports.
"""

from __future__ import annotations

import os
import textwrap
from collections import Counter

import pytest

from oracle import corpus

LONG = os.environ.get("GRADLINT_ORACLE") == "long"

LEGACY = textwrap.dedent(
    """\
    from __future__ import print_function
    import torch
    from torch.autograd import Variable
    from .helpers import missing_helper

    SCALE = 2


    def double(x):
        v = Variable(x)
        return v * SCALE


    class Net(torch.nn.Module):
        def forward(self, x):
            return Variable(x) + 1


    if __name__ == "__main__":
        print(double(torch.ones(2)))
    """
)


def test_a_module_is_cut_into_guarded_statements():
    assert corpus._guarded_module(LEGACY) == textwrap.dedent(
        """\
        from __future__ import print_function
        import torch as __oracle_torch

        try:
            import torch
        except BaseException:
            pass

        try:
            from torch.autograd import Variable
        except BaseException:
            pass

        try:
            from .helpers import missing_helper
        except BaseException:
            pass

        try:
            SCALE = 2
        except BaseException:
            pass

        try:
            def double(x):
                v = Variable(x)
                return v * SCALE
        except BaseException:
            pass

        try:
            class Net(torch.nn.Module):
                def forward(self, x):
                    return Variable(x) + 1
        except BaseException:
            pass

        def __oracle_main__():
            print(double(torch.ones(2)))"""
    )


def test_the_functions_a_fix_changed_are_found_by_qualified_name():
    after = LEGACY.replace("Variable(x)", "x")
    assert [q for q, _, _ in corpus.changed_functions(LEGACY, after)] == ["double", "Net.forward"]
    assert corpus.changed_functions(LEGACY, LEGACY) == []


def _tiny_corpus(tmp_path):
    base = tmp_path / "tinylegacy-0.1" / "pkg"
    base.mkdir(parents=True)
    (base / "mod.py").write_text(LEGACY)
    return tmp_path


def test_functions_are_found_with_their_fixes(tmp_path, monkeypatch):
    monkeypatch.setattr(corpus, "era_of", lambda base: "legacy")
    root = _tiny_corpus(tmp_path)
    found, counts = corpus.find_functions(sorted(root.rglob("*.py")), root)
    assert sorted((f.qualname, f.version, f.params, f.method_of) for f in found) == [
        ("Net.forward", "fixed", (("x", False),), "Net"),
        ("Net.forward", "migrated", (("x", False),), "Net"),
        ("double", "fixed", (("x", False),), None),
        ("double", "migrated", (("x", False),), None),
    ]
    assert counts == Counter({"fixed files": 1, "fixed functions": 2, "migrated files": 1, "migrated functions": 2})


def test_functions_run_on_stubs_and_are_compared(tmp_path, monkeypatch):
    pytest.importorskip("torch")
    monkeypatch.setattr(corpus, "era_of", lambda base: "modern")
    root = _tiny_corpus(tmp_path)
    found, counts = corpus.find_functions(sorted(root.rglob("*.py")), root)
    judged = {j.function.qualname: j for j in corpus.judge_functions(found, workers=1)}
    assert {q: (j.verdict, j.stub) for q, j in judged.items()} == {"double": ("same", 0), "Net.forward": ("same", 0)}
    assert corpus.figures(counts, list(judged.values())).splitlines() == [
        "fixed: 1 files changed, 2 functions changed, 2 callable; run on stubs 2: same 2, changed 0 (forbidden 0); not run 0",
        "migrated: 0 files changed, 0 functions changed, 0 callable; run on stubs 0: same 0, changed 0 (forbidden 0); not run 0",
    ]


def test_a_changed_function_is_reported(tmp_path):
    pytest.importorskip("torch")
    fn = corpus.CorpusFunction(
        "p", "f.py", "f", "fixed", Counter({"GL301": 1}),
        "def f(x):\n    return x * 2\n", "def f(x):\n    return x * 3\n", (("x", False),),
    )
    [j] = corpus.judge_functions([fn], workers=1)
    assert (j.verdict, corpus.is_failure(j)) == ("changed", True)
    assert j.difference.startswith("returned: returned {\"dict\": [[\"result\", {\"tensor\": \"torch.float32\", \"shape\": [4, 3]")


@pytest.fixture(scope="module")
def corpus_run():
    pytest.importorskip("torch")
    root, why = corpus.corpus_bases(LONG)
    if root is None:
        pytest.skip(why)
    found, counts = corpus.find_functions(corpus.corpus_files(root, LONG), root)
    judged = corpus.judge_functions(found)
    if LONG:
        print("\n" + corpus.figures(counts, judged))
    return found, judged


def test_fixes_of_real_functions_keep_behaviour(corpus_run):
    found, judged = corpus_run
    assert found, "the sample holds functions that a fix changes"
    failures = [f"{j.function.file} {j.function.qualname} after {j.function.version}: {j.difference}" for j in judged if corpus.is_failure(j)]
    assert not failures, "\n".join(failures)
    # the sample is chosen so that some of them run on stubs
    assert LONG or any(j.verdict == "same" for j in judged)
