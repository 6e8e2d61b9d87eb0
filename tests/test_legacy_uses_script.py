"""benchmarks/legacy_uses.py: what counts as a legacy use, and the before/after table."""

import importlib.util
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("legacy_uses", ROOT / "benchmarks" / "legacy_uses.py")
uses = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = uses
_spec.loader.exec_module(uses)

LEGACY = '''\
"""Docs mention Variable(x, volatile=True) and loss.data[0]: not code."""
import torch
from torch.autograd import Variable


# x = Variable(x, volatile=True) was the old way
def evaluate(model, loader, criterion):
    total = 0
    for x, y in loader:
        x = Variable(x, volatile=True)
        loss = criterion(model(x), y)
        total += loss.data[0]
    return total
'''


def test_comments_and_strings_do_not_count(tmp_path):
    (tmp_path / "a.py").write_text(LEGACY)
    assert uses.count_uses(tmp_path) == Counter({"volatile=": 1, "Variable(": 1, ".data[0]": 1})


def test_comparisons_are_not_assignments():
    assert not uses.PATTERNS["volatile="].search("if x.volatile == True: pass")


def test_migrate_leaves_none_of_them(tmp_path):
    base = tmp_path / "oldlib-0.1"
    base.mkdir()
    (base / "a.py").write_text(LEGACY)
    results = uses.measure([base])
    assert results["oldlib-0.1"]["before"] == Counter({"volatile=": 1, "Variable(": 1, ".data[0]": 1})
    assert sum(results["oldlib-0.1"]["after"].values()) == 0
    assert (base / "a.py").read_text() == LEGACY  # measured on a copy
    table = uses.render(results)
    assert "| oldlib-0.1 | 1 → 0 | 1 → 0 | 1 → 0 | 3 | 0 | 0.0% |" in table
    assert "| **all** | 1 → 0 | 1 → 0 | 1 → 0 | 3 | 0 | 0.0% |" in table
