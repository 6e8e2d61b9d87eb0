"""Asking whether the callers of a function pass a module for a parameter stays
linear in the helpers that hand it on (issue 26: the preview run on qlib's
package did not finish).

A parameter handed down a chain of helpers, each called twice by the one above,
was asked about along every path: each level asked the level above twice per
call (once as the argument's binding, once as a caller's parameter), 4**depth
questions in all. The search is counted here, not timed: past a count far below
the old one the test fails at once instead of hanging.
"""

from __future__ import annotations

import pytest

from gradlint.options import RuleOptions
from gradlint.semantic.module_evidence import ModuleEvidence
from harness import lint

DEPTH = 14


def _chain(depth: int) -> str:
    lines = ["import torch", "", ""]
    lines += ["def level0(obj, x):", "    obj.eval()", "    return obj(x)", "", ""]
    for i in range(1, depth + 1):
        lines += [f"def level{i}(obj, x):", f"    level{i - 1}(obj, x)", f"    return level{i - 1}(obj, x + 1)", "", ""]
    lines += [f"level{depth}(torch.nn.Linear(2, 2), torch.ones(2))", ""]
    return "\n".join(lines)


@pytest.fixture
def counted(monkeypatch):
    calls = []
    original = ModuleEvidence._callers_pass_modules

    def counting(self, param, _seen):
        calls.append(param)
        assert len(calls) < 5_000, "the caller search branches at every level"
        return original(self, param, _seen)

    monkeypatch.setattr(ModuleEvidence, "_callers_pass_modules", counting)
    return calls


@pytest.mark.parametrize("preview", [False, True])
def test_a_parameter_handed_down_a_chain_is_asked_about_once_per_level(counted, preview):
    findings = lint(_chain(DEPTH), select=("GL101",), options=RuleOptions(preview=preview))
    # ``level0``'s forward with grad on: the module is proven through every caller; the
    # default tier does not take an uncalled chain's entry for an evaluation.
    assert findings == ([(6, 12, "GL101")] if preview else [])
    # One search per parameter of the chain (``model`` and ``x`` of each level, and
    # the few asked again from another rule's question).
    assert len(counted) <= 4 * (DEPTH + 1)
