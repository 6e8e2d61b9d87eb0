"""GL204 data-update: an in-place update through ``.data`` where no graph can see it (off by default)."""

from __future__ import annotations

from gradlint.rules._data_edits import DataEditRule


class DataUpdate(DataEditRule):
    """The pre-0.4 idiom GL202 leaves alone: optimizer-style and EMA updates, gradient
    post-processing, weight copies. Nothing is wrong yet, but the edit bypasses the
    version counter; the fix (GL202's) makes the same update visible to autograd."""

    code = "GL204"
    triggers = DataEditRule.triggers
    gates = DataEditRule.gates
    reports_pending = False
