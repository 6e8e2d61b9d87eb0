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


MODULE_STATE = '''\
from torch import nn
from torch.autograd import Variable


class Encoder(nn.Module):
    def one_hidden(self, w, bs):
        return Variable(w.new(1, bs, 3).zero_(), volatile=not self.training)


def verify(vocab, examples, numericalized):
    for i, example in enumerate(numericalized.t()):
        for j, token in enumerate(example):
            token = token.data[0]
            assert vocab.itos[token] == examples[i][j]
'''


def test_migrate_drops_eval_mode_flags_and_reads_elements_of_transposed_rows(tmp_path):
    # a flag that is the module's own eval mode, and an element of a row of `x.t()` (0-dim)
    base = tmp_path / "oldlib-0.2"
    base.mkdir()
    (base / "a.py").write_text(MODULE_STATE)
    results = uses.measure([base])
    assert results["oldlib-0.2"]["before"] == Counter({"volatile=": 1, "Variable(": 1, ".data[0]": 1})
    assert sum(results["oldlib-0.2"]["after"].values()) == 0


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
    # `self.data[0][i]` of an object of unknown type reads a row too; an element write
    # through `.data` means what it meant in 0.3. The loss read and `step.data[0]`
    # (unknown receiver) count.
    assert found == Counter({".data[0]": 2, uses.LOOKALIKE: 5})
    assert "b.py:18: [Variable(, lookalike] term = Variable(\"x\")" in listing
    assert "b.py:16: [.data[0], lookalike] head = out.data[0].cpu().numpy()" in listing
    assert "b.py:20: [.data[0], lookalike] model.weight.data[0] = 0.5" in listing
    assert "b.py:21: [.data[0]] return head, row, term, loss.data[0], step.data[0]" in listing


def test_a_file_that_does_not_parse_counts_everything(tmp_path):
    (tmp_path / "c.py").write_text("from nltk.sem.logic import Variable\nprint Variable(x).data[0]\n")
    assert uses.count_uses(tmp_path) == Counter({"Variable(": 1, ".data[0]": 1})


# A code base that still supports torch 0.3 on purpose: helpers with a `volatile`
# parameter that reaches `Variable` only in the 0.3 branch of a version check, a
# `.cuda(async=True)` that keeps the file from parsing until it is renamed, element
# writes through `.data`, and a dataset class whose own attribute is called `data`.
STRADDLING = '''\
from distutils.version import LooseVersion
import torch
from torch.autograd import Variable

IS_TORCH_04 = LooseVersion(torch.__version__) >= LooseVersion('0.4')


def T(a):
    return a.cuda(async=True)


def create_variable(x, volatile, requires_grad=False):
    if IS_TORCH_04: x = Variable(T(x), requires_grad=requires_grad)
    else:           x = Variable(T(x), requires_grad=requires_grad, volatile=volatile)
    return x


def V(x, requires_grad=False, volatile=False):
    return create_variable(x, volatile=volatile, requires_grad=requires_grad)


def wrap(x, volatile=False):
    return Variable(x, volatile=volatile)


def as_input(x, volatile=False):
    return wrap(x, volatile=volatile), unknown_helper(x, volatile=volatile)


class Pairs:
    def __init__(self, data):
        self.data = data

    def __len__(self):
        return len(self.data[0])


def setup(mixture, weights):
    mixture.gamma.data[0] = 0.5
    mixture.scalars[0].data[0] += weights[0]
    if not IS_TORCH_04:
        return mixture.gamma.data[0]
    return mixture.gamma.data[0]
'''


def test_uses_kept_for_torch_0_3_and_the_files_own_api(tmp_path):
    (tmp_path / "core.py").write_text(STRADDLING)
    listing = []
    found = uses.count_uses(tmp_path, listing)
    assert found == Counter({uses.LOOKALIKE: 6, uses.OLD_TORCH: 4, "volatile=": 3, "Variable(": 2, ".data[0]": 1})
    assert listing == [
        "core.py:14: [volatile=, 0.3-only] else:           x = Variable(T(x), requires_grad=requires_grad, volatile=volatile)",
        "core.py:18: [volatile=, lookalike] def V(x, requires_grad=False, volatile=False):",
        "core.py:19: [volatile=, 0.3-only] return create_variable(x, volatile=volatile, requires_grad=requires_grad)",
        "core.py:22: [volatile=, lookalike] def wrap(x, volatile=False):",
        "core.py:23: [volatile=] return Variable(x, volatile=volatile)",
        "core.py:26: [volatile=, lookalike] def as_input(x, volatile=False):",
        "core.py:27: [volatile=] return wrap(x, volatile=volatile), unknown_helper(x, volatile=volatile)",
        "core.py:27: [volatile=] return wrap(x, volatile=volatile), unknown_helper(x, volatile=volatile)",
        "core.py:13: [Variable(] if IS_TORCH_04: x = Variable(T(x), requires_grad=requires_grad)",
        "core.py:14: [Variable(, 0.3-only] else:           x = Variable(T(x), requires_grad=requires_grad, volatile=volatile)",
        "core.py:23: [Variable(] return Variable(x, volatile=volatile)",
        "core.py:35: [.data[0], lookalike] return len(self.data[0])",
        "core.py:39: [.data[0], lookalike] mixture.gamma.data[0] = 0.5",
        "core.py:40: [.data[0], lookalike] mixture.scalars[0].data[0] += weights[0]",
        "core.py:42: [.data[0], 0.3-only] return mixture.gamma.data[0]",
        "core.py:43: [.data[0]] return mixture.gamma.data[0]",
    ]


def test_the_0_3_column_is_counted_neither_before_nor_after(tmp_path):
    base = tmp_path / "straddling-0.7"
    base.mkdir()
    (base / "core.py").write_text(STRADDLING)
    # `migrate` turns the 0.4 branch's wrapper into `.detach()`; the forwarded run-time
    # flags and the read of an unknown receiver stay.
    table = uses.render(uses.measure([base]))
    assert table.splitlines()[0].endswith("| left | lookalikes (not counted) | 0.3-only branch, kept (not counted) |")
    assert "| straddling-0.7 | 3 → 3 | 2 → 1 | 1 → 1 | 6 | 5 | 83.3% | 6 | 4 |" in table


def test_migrate_keeps_the_0_3_branch_the_files_api_and_the_writes():
    from gradlint.engine import LintSettings
    from gradlint.migrate import migrate_source, migration_settings

    codes, options = migration_settings().codes_for("core.py")
    result = migrate_source(STRADDLING, "core.py", LintSettings(codes, options))
    # Only the wrapper of the branch that runs on torch 0.4 and the `async=` keyword
    # change; the 0.3 branch, the helpers' parameters, the dataset class and the
    # element writes stay byte for byte.
    assert result.source == STRADDLING.replace("a.cuda(async=True)", "a.cuda(non_blocking=True)").replace(
        "if IS_TORCH_04: x = Variable(T(x), requires_grad=requires_grad)",
        "if IS_TORCH_04: x = T(x).detach().requires_grad_(requires_grad)",
    )
    assert dict(result.fixed) == {"GL002": 1, "GL005": 1}
    # Left for a human: the forwarded run-time flag, and GL204's writes through `.data`.
    assert [(f.code, f.start) for f in result.remaining] == [("GL001", (23, 11)), ("GL204", (39, 4)), ("GL204", (40, 4))]
