"""``rejects_call``: a call that cannot bind to a ``forward`` runs no forward (issue 26)."""

from __future__ import annotations

import libcst as cst
import pytest

from gradlint.semantic.signatures import rejects_call


def _check(signature: str, call: str) -> bool:
    func = cst.parse_module(f"def forward{signature}:\n    pass\n").body[0]
    expr = cst.parse_expression(call)
    assert isinstance(func, cst.FunctionDef) and isinstance(expr, cst.Call)
    return rejects_call(func, expr)


@pytest.mark.parametrize(
    "signature, call, rejected",
    [
        ("(self, image, text, return_sims=False)", "m(i, t, train=False, k=8)", True),
        ("(self, image, text, return_sims=False)", "m(i, t, return_sims=True)", False),
        ("(self, image, text, return_sims=False)", "m(i, t, True, 4)", True),
        ("(self, image, text, return_sims=False)", "m(i, t, True)", False),
        ("(self, image, *, k=1)", "m(i, k=3)", False),
        ("(self, image, **kwargs)", "m(i, train=False)", False),
        ("(self, *inputs)", "m(i, t, u, v)", False),
        ("(self, image, /)", "m(image=i)", True),
        ("(self, image)", "m(**batch)", False),
        ("(self, image)", "m(*batch, train=False)", False),
    ],
)
def test_rejects_call(signature, call, rejected):
    assert _check(signature, call) is rejected


def test_a_decorated_forward_is_unknown():
    func = cst.parse_module("@wrap\ndef forward(self, x):\n    pass\n").body[0]
    assert isinstance(func, cst.FunctionDef)
    assert rejects_call(func, cst.parse_expression("m(x, train=False)")) is False  # type: ignore[arg-type]
