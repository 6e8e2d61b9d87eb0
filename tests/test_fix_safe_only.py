"""``--diff`` without ``--unsafe-fixes`` lints with ``LintSettings.safe_fixes_only``.

Such a loop applies safe fixes only and reads nothing else of a finding's fix, so
GL001 leaves out a ``no_grad`` decorator fix it would build as unsafe and skips the
derivation questions only a fix needs (``VolatileFlag._unsafe_decorator``, asked
first). The findings stay; a fix that is safe stays. The loop's equivalence with
the one that reads what is left, on every fixture and case, is
``test_fix_diff_lints.test_diff_loop_writes_what_the_full_loop_writes``.
"""

from __future__ import annotations

import pytest

from gradlint import engine
from gradlint.engine import LintSettings, fix_source, lint_source

GL001 = frozenset({"GL001"})

HEAD = "import torch\nfrom torch.autograd import Variable\n\n\n"
# The decorator would be unsafe: the function's value (built from the input) leaves it.
ESCAPES = HEAD + "def evaluate(model, batch):\n    x = Variable(batch, volatile=True)\n    return model(x)\n"
# Gradients already off at the call: the fix removes the wrapper alone and is safe,
# though the function's value leaves it (a shortcut that skipped `mode_at` would drop it).
GUARDED = HEAD + (
    "def evaluate(model, batch):\n"
    "    with torch.no_grad():\n"
    "        x = Variable(batch, volatile=True)\n"
    "        out = model(x)\n"
    "    return out\n"
)
# A safe decorator: nothing the function computes leaves it.
PRINTS = HEAD + "def evaluate(model, batch):\n    x = Variable(batch, volatile=True)\n    print(model(x).argmax())\n"


def _fixes(source, safe_only):
    lint = lint_source(source, "m.py", LintSettings(GL001, safe_fixes_only=safe_only))
    return [(f.code, f.start, f.message, f.fix and (f.fix.applicability, f.fix.title)) for f in lint.findings]


def test_unsafe_decorator_fix_left_out_finding_kept():
    full, safe_only = _fixes(ESCAPES, False), _fixes(ESCAPES, True)
    assert [f[:3] for f in full] == [f[:3] for f in safe_only]
    assert full[0][3] == ("unsafe", "Remove the `Variable` wrapper and decorate `evaluate` with `@torch.no_grad()`")
    assert safe_only[0][3] is None


@pytest.mark.parametrize(
    ("source", "title"),
    [
        (GUARDED, "Remove the `Variable` wrapper (gradients are already disabled here)"),
        (PRINTS, "Remove the `Variable` wrapper and decorate `evaluate` with `@torch.no_grad()`"),
    ],
)
def test_safe_fixes_stay(source, title):
    assert _fixes(source, True) == _fixes(source, False)
    assert _fixes(source, True)[0][3] == ("safe", title)


def test_diff_loop_asks_for_safe_fixes_only(monkeypatch):
    seen = []
    lint = engine.lint_source
    monkeypatch.setattr(engine, "lint_source", lambda *a, **k: seen.append(a[2].safe_fixes_only) or lint(*a, **k))
    fixed = fix_source(PRINTS, "m.py", LintSettings(GL001), remaining=False)
    assert fixed.source == HEAD.replace("from torch.autograd import Variable\n", "") + (
        "@torch.no_grad()\ndef evaluate(model, batch):\n    x = batch.detach()\n    print(model(x).argmax())\n"
    )
    assert dict(fixed.fixed) == {"GL001": 1}
    assert seen == [True, True]
    # The loop that reads what is left, or applies unsafe (or trusted) fixes, builds them all.
    for kwargs in ({}, {"remaining": False, "unsafe": True}, {"remaining": False, "trusted": GL001}):
        seen.clear()
        fixed = fix_source(ESCAPES, "m.py", LintSettings(GL001), **kwargs)
        assert seen and not any(seen)
        assert ("@torch.no_grad()" in fixed.source) == ("remaining" in kwargs)
    assert fix_source(ESCAPES, "m.py", LintSettings(GL001), remaining=False).source == ESCAPES
