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
    assert "| oldlib-0.1 | 1 → 0 | 1 → 0 | 1 → 0 | 3 | 0 | 0.0% | 0 |" in table
    assert "| **all** | 1 → 0 | 1 → 0 | 1 → 0 | 3 | 0 | 0.0% | 0 |" in table


LOOKALIKES = '''\
import torch
from nltk.sem.logic import Variable
from torch.autograd import Variable as V


class Pairs:
    def __init__(self, data):
        self.data = data

    def __getitem__(self, i):
        return self.data[0][i], self.data[1][i]


def first_rows(model, x, y, step, criterion):
    out = model(V(x))
    head = out.data[0].cpu().numpy()
    row = out.view(-1).data[0]
    term = Variable("x")
    loss = criterion(out, y)
    model.weight.data[0] = 0.5
    return head, row, term, loss.data[0], step.data[0]
'''


def test_lookalikes_are_decided_by_the_semantic_facts(tmp_path):
    (tmp_path / "b.py").write_text(LOOKALIKES)
    listing = []
    found = uses.count_uses(tmp_path, listing)
    # NLTK's Variable, a row of a batch, a view with a dimension: not legacy autograd.
    # `self.data[0][i]` of an object of unknown type reads a row too. The write through
    # `.data`, the loss read, and `step.data[0]` (unknown receiver) count.
    assert found == Counter({".data[0]": 3, uses.LOOKALIKE: 4})
    assert "b.py:18: [Variable(, lookalike] term = Variable(\"x\")" in listing
    assert "b.py:16: [.data[0], lookalike] head = out.data[0].cpu().numpy()" in listing
    assert "b.py:20: [.data[0]] model.weight.data[0] = 0.5" in listing
    assert "b.py:21: [.data[0]] return head, row, term, loss.data[0], step.data[0]" in listing


def test_a_file_that_does_not_parse_counts_everything(tmp_path):
    (tmp_path / "c.py").write_text("from nltk.sem.logic import Variable\nprint Variable(x).data[0]\n")
    assert uses.count_uses(tmp_path) == Counter({"Variable(": 1, ".data[0]": 1})
