"""Settings that change what rules report or how they fix.

Kept apart from ``gradlint.rule`` so that reading the configuration does not
import LibCST: a run whose results all come from the cache never needs it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RuleOptions:
    """Settings that change what rules report or how they fix (from the config)."""

    # The guard that fixes insert: "no_grad" or "inference_mode".
    fix_grad_guard: str = "no_grad"
    # The preview tier (Ruff's convention): findings whose premises rest on a
    # guess from names, not on what the semantic model proves, and rules marked
    # ``preview = true`` in the catalog. Off by default.
    preview: bool = False
