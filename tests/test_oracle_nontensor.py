"""The oracle's non-tensor family (tests/oracle/nontensor.py), in both tiers.

At every place a tensor-method fix (``.detach()``, ``.item()``, ``.requires_grad_()``)
would edit, each kind of value: no fix, safe or unsafe, may call such a method on
what is not a tensor, and no safe fix may change what the program does.
"""

from __future__ import annotations

import pytest

from gradlint.engine import LintSettings, fix_source, lint_source
from gradlint.options import RuleOptions

from oracle import runner
from oracle.nontensor import KINDS, nontensor_family

PROGRAMS = list(nontensor_family())
TENSOR_METHODS = (".detach()", ".item()", ".requires_grad_(")


def settings(preview: bool) -> LintSettings:
    return LintSettings(runner.all_codes(), RuleOptions(preview=preview))


def test_the_family_feeds_every_kind_to_every_site():
    assert {p.family.split()[0] for p in PROGRAMS} == {f"receiver={k}" for k in KINDS}
    assert {"module", "float", "list", "numpy", "str", "future", "dataclass", "tensor-backward"} == set(KINDS)
    # in the preview tier the kept values are reported: the family tests the fixes, not silence
    reported = [p for p in PROGRAMS if p.rule == "GL301" and "site=backward-later" not in p.family]
    for p in reported:
        codes = [f.code for f in lint_source(p.source, f"{p.name}.py", settings(True)).findings]
        assert "GL301" in codes, p.name


@pytest.mark.parametrize("preview", [False, True], ids=["default", "preview"])
@pytest.mark.parametrize("program", [p for p in PROGRAMS if "tensor-backward" not in p.family], ids=lambda p: p.name)
def test_no_tensor_method_is_added_to_what_is_not_a_tensor(program, preview):
    if program.name.startswith("nontensor-gl302-") and program.name.endswith("-module"):
        # A module is GL302's premise (`m.requires_grad = False` sets a plain attribute
        # on a module): its fix calls `nn.Module.requires_grad_`, a module's own method,
        # unsafe here because the program reads the attribute back.
        fixed = fix_source(program.source, f"{program.name}.py", settings(preview), unsafe=True).source
        assert "model_out.requires_grad_(False)" in fixed
        assert fix_source(program.source, f"{program.name}.py", settings(preview), unsafe=False).source == program.source
        return
    fixed = fix_source(program.source, f"{program.name}.py", settings(preview), unsafe=True).source
    for method in TENSOR_METHODS:
        assert fixed.count(method) == program.source.count(method), f"{method} added: {fixed}"


def test_safe_fixes_keep_behaviour_on_every_kind():
    pytest.importorskip("torch")
    pairs = []
    for p in PROGRAMS:
        for preview in (False, True):
            fixed = fix_source(p.source, f"{p.name}.py", settings(preview), unsafe=False).source
            if fixed != p.source:
                pairs.append((p, preview, fixed))
    sources = {f"{p.name}@original": p.source for p, _, _ in pairs}
    sources.update({f"{p.name}@{'preview' if preview else 'default'}": fixed for p, preview, fixed in pairs})
    runs = runner.run_sources(sorted(sources.items())) if sources else {}
    changed = []
    for p, preview, _ in pairs:
        before, after = runs[f"{p.name}@original"], runs[f"{p.name}@{'preview' if preview else 'default'}"]
        diff = runner.difference(before, after)
        error_gone = before.get("exception") and not after.get("exception")
        if diff is not None and not error_gone:
            changed.append(f"{p.name} ({'preview' if preview else 'default'}): {diff}")
    assert not changed, "\n".join(changed)
