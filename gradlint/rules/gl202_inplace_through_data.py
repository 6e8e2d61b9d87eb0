"""GL202 inplace-through-data: an in-place edit through ``.data`` hides it from autograd."""

from __future__ import annotations

from gradlint.rules._data_edits import DataEditRule


class InplaceThroughData(DataEditRule):
    code = "GL202"
    # The edits a pending backward can see; GL204 reports the rest.
    reports_pending = True
    triggers = DataEditRule.triggers
    gates = DataEditRule.gates
