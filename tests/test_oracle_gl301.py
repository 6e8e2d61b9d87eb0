"""GL301's oracle families (tests/oracle/gl301_flows.py): where the kept total goes,
what the kept value is, and whether the kept object matters.

The fix is safe only where the semantic model proves the store stays in its function
(``semantic.flows``); every other program gets an unsafe fix, or none where the kept
value may not be a tensor. Under torch, no safe GL301 fix may change what a program
does, and the unsafe ones on ``leaves=`` and ``identity=`` programs are shown to
change it (the family would catch a safe fix there).
"""

from __future__ import annotations

import textwrap

import pytest

from gradlint.engine import LintSettings, fix_source, lint_source
from gradlint.options import RuleOptions

from oracle import runner
from oracle.gl301_flows import gl301_flow_family

PROGRAMS = {p.name: p for p in gl301_flow_family()}
PREVIEW = LintSettings(frozenset({"GL301"}), RuleOptions(preview=True))

# program -> GL301's finding (line, column) and its fix's applicability (None: no fix)
EXPECTED = {
    "gl301-leaves-extend-global-log": ((15, 8), "unsafe"),
    "gl301-leaves-dict-update": ((14, 8), "unsafe"),
    "gl301-leaves-closure-to-step": ((14, 8), "unsafe"),
    "gl301-leaves-alias-kept": ((14, 8), "unsafe"),
    "gl301-leaves-global-assigned": ((18, 8), "unsafe"),
    "gl301-leaves-helper-keeps": ((18, 8), "unsafe"),
    "gl301-leaves-derived-kept": ((14, 8), "unsafe"),
    "gl301-leaves-param-store": ((13, 8), "unsafe"),
    "gl301-leaves-alias-of-store": ((14, 8), "unsafe"),
    "gl301-kept-rnn-tuple": ((14, 8), None),
    "gl301-kept-dict-output": ((26, 8), None),
    "gl301-identity-retain-grad-read-back": ((16, 8), "unsafe"),
    "gl301-identity-hook-on-kept": None,  # backpropagated through the store: deliberate
    "gl301-local-printed-mean": ((14, 8), "safe"),
    "gl301-local-item-comprehension": ((14, 8), "safe"),
    "gl301-local-iterated-printed": ((14, 8), "safe"),
}


def test_every_program_is_expected():
    assert set(PROGRAMS) == set(EXPECTED)
    assert {p.family.split("=")[0] for p in PROGRAMS.values()} == {"leaves", "kept", "identity", "local"}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_finding_and_fix_applicability(name):
    program = PROGRAMS[name]
    found = [
        (f.start, f.fix.applicability if f.fix else None)
        for f in lint_source(program.source, f"{name}.py", PREVIEW).findings
    ]
    assert found == ([EXPECTED[name]] if EXPECTED[name] else [])


def test_a_store_read_in_place_gets_the_safe_fix():
    source = textwrap.dedent(
        """\
        from torch import nn

        model = nn.Linear(4, 1)


        def evaluate(batches):
            losses = []
            for xb in batches:
                losses.append(model(xb).pow(2).mean())
            print([round(l.item(), 4) for l in losses])
        """
    )
    fixed = fix_source(source, "e.py", PREVIEW)
    assert fixed.source == source.replace(
        "losses.append(model(xb).pow(2).mean())", "losses.append(model(xb).pow(2).mean().detach())"
    )
    assert dict(fixed.fixed) == {"GL301": 1}


def test_a_store_handed_out_after_the_loop_is_left_to_unsafe_fixes():
    source = PROGRAMS["gl301-leaves-extend-global-log"].source
    assert fix_source(source, "e.py", PREVIEW).source == source
    unsafe = fix_source(source, "e.py", PREVIEW, unsafe=True).source
    assert "losses.append(loss.detach())" in unsafe


def _changes(unsafe: bool):
    """GL301's own fixes (safe, or with unsafe ones), run under torch: the programs whose
    behaviour changed, with what changed."""
    pairs = {}
    for name, p in PROGRAMS.items():
        fixed = fix_source(p.source, f"{name}.py", PREVIEW, unsafe=unsafe).source
        if fixed != p.source:
            pairs[name] = fixed
    sources = [(f"{n}@original", PROGRAMS[n].source) for n in pairs] + [(f"{n}@fixed", s) for n, s in pairs.items()]
    runs = runner.run_sources(sorted(sources)) if sources else {}
    changed = {}
    for name in pairs:
        diff = runner.difference(runs[f"{name}@original"], runs[f"{name}@fixed"])
        if diff is not None:
            changed[name] = diff[0]
    return set(pairs), changed


def test_safe_fixes_change_nothing_and_unsafe_ones_are_needed():
    pytest.importorskip("torch")
    fixed, changed = _changes(unsafe=False)
    assert fixed == {"gl301-local-printed-mean", "gl301-local-item-comprehension", "gl301-local-iterated-printed"}
    assert changed == {}
    _, changed = _changes(unsafe=True)
    # what the safe fixes left alone would have changed these programs
    assert changed == {
        **{n: "exception" for n in EXPECTED if n.startswith("gl301-leaves-")},
        "gl301-identity-retain-grad-read-back": "stdout",
    }
