"""Settings that change what rules report or how they fix.

Kept apart from ``gradlint.rule`` so that reading the configuration does not
import LibCST: a run whose results all come from the cache never needs it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, FrozenSet, Optional

if TYPE_CHECKING:
    from gradlint.semantic.project import Project


@dataclass(frozen=True)
class RuleOptions:
    """Settings that change what rules report or how they fix (from the config)."""

    # The guard that fixes insert: "no_grad" or "inference_mode".
    fix_grad_guard: str = "no_grad"
    # The preview tier (Ruff's convention): findings whose premises rest on a
    # guess from names, not on what the semantic model proves, and rules marked
    # ``preview = true`` in the catalog. Off by default.
    preview: bool = False
    # ``gradlint migrate``: the code is declared PyTorch <= 0.3 code, where every
    # loss was a one-element tensor, so a loss named so is read as one (GL003's
    # scalar reads); ``check`` leaves that guess to the preview tier (issue 26).
    legacy_code: bool = False


@dataclass(frozen=True)
class LintSettings:
    """What one file is checked with: the rules that govern it (``codes``), their
    options, and the run's project index (``gradlint.session.Session.rules``
    makes it from the run's settings)."""

    codes: FrozenSet[str]
    options: RuleOptions = RuleOptions()
    # False leaves line `# noqa` comments to the caller (flake8 applies its own,
    # and flake8-noqa/yesqa must see the findings they silence).
    line_noqa: bool = True
    # Fixes that rules build only on request (``Rule.report``) are left unbuilt:
    # for callers that show findings and ask for a fix later, if at all.
    defer_fixes: bool = False
    # The caller applies safe fixes only and reads nothing else of the findings'
    # fixes (``--diff`` without ``--unsafe-fixes``: ``engine.fix_source``): a rule
    # may leave out a fix it would build as unsafe, and skip the analysis that
    # only such a fix needs (GL001's decorator fix).
    safe_fixes_only: bool = False
    # The caller reads a finding only for the fix it applies (``engine.fix_source``
    # for ``--diff``, where no directive code is reported): a finding without one it
    # could apply (no fix; an unsafe one with ``safe_fixes_only``) is not made at all,
    # nor its position, which is what a lint finding nothing to fix mostly spends.
    fixable_only: bool = False
    # What the other files of the run say about this one (``gradlint.semantic.project``;
    # None: nothing). Not compared: it is the run's, not the rules'.
    index: Optional["Project"] = field(default=None, compare=False, hash=False)
