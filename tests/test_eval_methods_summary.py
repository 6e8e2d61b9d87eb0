"""What ``semantic.ast_eval_methods`` records of a file's classes: the methods that
leave ``self.<attr>`` in eval mode, and what the class may train again."""

import ast

import pytest

from gradlint.semantic.ast_eval_methods import summary_entry


@pytest.mark.parametrize(
    "body, methods",
    [
        ("self.model.eval()", {"m": ["model"]}),
        ("self.model.train(False)\n        self.head.train(mode=False)", {"m": ["model", "head"]}),
        ('if hasattr(self.model, "eval"):\n            self.model.eval()', {"m": ["model"]}),
        ("self.model = model\n        if hasattr(model, 'eval'):\n            self.model.eval()", {"m": ["model"]}),
        # trained again, rebound, or switched after an early return: not left in eval mode
        ("self.model.eval()\n        self.model.train()", {}),
        ("self.model.eval()\n        self.train()", {}),
        ("self.model.eval()\n        self.model = other", {}),
        ("if flag:\n            return\n        self.model.eval()", {}),
        ("if flag:\n            self.model.eval()", {}),
    ],
)
def test_methods_that_leave_an_attribute_in_eval_mode(body, methods):
    source = f"class C:\n    def m(self, model=None, other=None, flag=False):\n        {body}\n\n    def fit(self):\n        self.head.train()\n"
    entry = summary_entry(ast.parse(source), source)
    assert entry.get("eval_methods", {}).get("C", {}) == methods
    if methods:
        assert entry["trained_attributes"] == {"C": ["head"]}
