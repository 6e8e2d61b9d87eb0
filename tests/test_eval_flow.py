"""GL101's flow of a region's forward outputs (``rules._eval_flow._Flow``).

A region's statements and the body its fix decorates often hold the same forward
calls: ``_Flow.analyse`` follows one set of seeds once per flow. Here its answers
are those of following them again, and where the seeds differ they are followed
again."""

from __future__ import annotations

import libcst as cst
import pytest
from harness import FIX_CORPUS

from gradlint.engine import LintSettings, fix_source
from gradlint.rule import FileContext
from gradlint.rules import _eval_flow

# Each region is the whole body after ``model.eval()``, and the fix decorates the function:
# ``_check_region`` follows the region's statements, ``_fix`` the whole body, which hold
# the same forward call, ``model(x)``.
SOURCE = """\
import torch


def predict(model, x):
    model.eval()
    out = model(x)
    print(out)


def score(model, x):
    model.eval()
    y = model(x)
    return y.argmax(-1)
"""

GL101 = LintSettings(frozenset({"GL101"}))


def _key(result):
    return result.source, dict(result.fixed), [(f.code, f.start, f.end, f.message, f.fix and (f.fix.applicability, f.fix.title)) for f in result.remaining]


def _followed(monkeypatch):
    calls = []
    follow = _eval_flow._Flow._follow
    monkeypatch.setattr(_eval_flow._Flow, "_follow", lambda self, seeds: calls.append(len(seeds)) or follow(self, seeds))
    return calls


def _unkept(monkeypatch):
    analyse = _eval_flow._Flow.analyse

    def fresh(self, covered):
        self._analysed.clear()
        analyse(self, covered)

    monkeypatch.setattr(_eval_flow._Flow, "analyse", fresh)


def test_the_same_seeds_are_followed_once(monkeypatch):
    calls = _followed(monkeypatch)
    kept = _key(fix_source(SOURCE, "m.py", GL101))
    assert kept[1] == {"GL101": 2}
    assert "@torch.no_grad()\ndef predict(" in kept[0] and "@torch.no_grad()\ndef score(" in kept[0]
    assert calls == [1, 1]  # per function, its region and then its whole body: one forward call, followed once
    calls.clear()
    _unkept(monkeypatch)
    assert _key(fix_source(SOURCE, "m.py", GL101)) == kept
    assert calls == [1, 1, 1, 1]


def test_other_seeds_are_followed_again():
    source = SOURCE.replace("return y.argmax(-1)", "return y")
    module = cst.parse_module(source)
    ctx = FileContext("m.py", source, module)
    score = module.body[2]
    flow = _eval_flow._Flow(ctx, score, frozenset({"model"}))
    flow.analyse(score.body.body[:1])  # ``model.eval()`` alone: no forward
    assert (flow.escapes, flow.leaves, flow.returns_results) == (False, False, False)
    flow.analyse(score.body.body)
    assert (flow.leaves, flow.returns_results) == (True, True)
    assert [r.kind for r in flow.result_routes] == ["return"]
    flow.analyse(score.body.body[:1])
    assert (flow.escapes, flow.leaves, flow.returns_results, flow.result_routes) == (False, False, False, [])


@pytest.mark.parametrize("unsafe", [False, True])
def test_kept_flows_fix_what_fresh_ones_fix(monkeypatch, unsafe):
    paths = [p for p in FIX_CORPUS if "GL101" in p.parts or "eval" in p.name]
    assert len(paths) > 20
    kept = {p: _key(fix_source(p.read_text(encoding="utf-8"), str(p), LintSettings(frozenset({"GL101"})), unsafe=unsafe)) for p in paths}
    _unkept(monkeypatch)
    for p in paths:
        assert _key(fix_source(p.read_text(encoding="utf-8"), str(p), LintSettings(frozenset({"GL101"})), unsafe=unsafe)) == kept[p], p
