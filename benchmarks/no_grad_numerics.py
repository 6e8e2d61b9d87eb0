"""Which ``torch.nn`` modules compute different numbers under ``torch.no_grad()``.

A fix that wraps an evaluation in ``torch.no_grad()`` (GL001, GL101) is safe
only if the numbers stay the same. Some modules take a native fast path in
eval mode only when autograd is off (``nn.MultiheadAttention`` and the
transformer layers built on it), which rounds differently. This script builds
each candidate module with seeded weights and inputs, runs it in eval mode with
grad enabled and under ``no_grad``, and compares the outputs bitwise.

    python benchmarks/no_grad_numerics.py          # a table
    python benchmarks/no_grad_numerics.py --json   # the names that differ

The result is kept in the catalog (rules/GL001.toml, ``no_grad_changes``) and
re-measured on the installed torch by GL001's probe (``gradlint verify --probes``).
"""

from __future__ import annotations

import json
import sys

import torch
from torch import nn

D, L, B = 8, 5, 3


def _seq(batch_first: bool) -> torch.Tensor:
    return torch.randn(B, L, D) if batch_first else torch.randn(L, B, D)


def _mha(batch_first: bool):
    m = nn.MultiheadAttention(D, 2, batch_first=batch_first)
    x = _seq(batch_first)
    return m, lambda: m(x, x, x, need_weights=False)[0]


def _layer(cls, batch_first: bool, decoder: bool = False):
    m = cls(D, 2, dim_feedforward=16, dropout=0.0, batch_first=batch_first)
    x, memory = _seq(batch_first), _seq(batch_first)
    return m, (lambda: m(x, memory)) if decoder else (lambda: m(x))


def _stack(batch_first: bool, decoder: bool = False):
    if decoder:
        layer = nn.TransformerDecoderLayer(D, 2, dim_feedforward=16, dropout=0.0, batch_first=batch_first)
        m = nn.TransformerDecoder(layer, 2)
        x, mem = _seq(batch_first), _seq(batch_first)
        return m, lambda: m(x, mem)
    layer = nn.TransformerEncoderLayer(D, 2, dim_feedforward=16, dropout=0.0, batch_first=batch_first)
    m = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
    x = _seq(batch_first)
    return m, lambda: m(x)


def _transformer(batch_first: bool):
    m = nn.Transformer(D, 2, 1, 1, dim_feedforward=16, dropout=0.0, batch_first=batch_first)
    x, y = _seq(batch_first), _seq(batch_first)
    return m, lambda: m(x, y)


def _plain(factory, shape):
    m = factory()
    x = torch.randn(*shape)
    return m, lambda: m(x)


def _rnn(cls, batch_first: bool):
    m = cls(D, D, num_layers=2, batch_first=batch_first)
    x = _seq(batch_first)
    return m, lambda: m(x)[0]


# (the name the catalog uses, the configuration, how to build it)
CANDIDATES = [
    ("torch.nn.MultiheadAttention", "batch_first=True, self-attention", lambda: _mha(True)),
    ("torch.nn.MultiheadAttention", "batch_first=False", lambda: _mha(False)),
    ("torch.nn.TransformerEncoderLayer", "batch_first=True", lambda: _layer(nn.TransformerEncoderLayer, True)),
    ("torch.nn.TransformerEncoderLayer", "batch_first=False", lambda: _layer(nn.TransformerEncoderLayer, False)),
    ("torch.nn.TransformerEncoder", "batch_first=True", lambda: _stack(True)),
    ("torch.nn.TransformerEncoder", "batch_first=False", lambda: _stack(False)),
    ("torch.nn.TransformerDecoderLayer", "batch_first=True", lambda: _layer(nn.TransformerDecoderLayer, True, True)),
    ("torch.nn.TransformerDecoderLayer", "batch_first=False", lambda: _layer(nn.TransformerDecoderLayer, False, True)),
    ("torch.nn.TransformerDecoder", "batch_first=True", lambda: _stack(True, True)),
    ("torch.nn.TransformerDecoder", "batch_first=False", lambda: _stack(False, True)),
    ("torch.nn.Transformer", "batch_first=True", lambda: _transformer(True)),
    ("torch.nn.Transformer", "batch_first=False", lambda: _transformer(False)),
    ("torch.nn.LSTM", "batch_first=True", lambda: _rnn(nn.LSTM, True)),
    ("torch.nn.LSTM", "batch_first=False", lambda: _rnn(nn.LSTM, False)),
    ("torch.nn.GRU", "batch_first=True", lambda: _rnn(nn.GRU, True)),
    ("torch.nn.GRU", "batch_first=False", lambda: _rnn(nn.GRU, False)),
    ("torch.nn.RNN", "batch_first=True", lambda: _rnn(nn.RNN, True)),
    ("torch.nn.LSTMCell", "", lambda: (lambda m, x: (m, lambda: m(x)[0]))(nn.LSTMCell(D, D), torch.randn(B, D))),
    ("torch.nn.GRUCell", "", lambda: _plain(lambda: nn.GRUCell(D, D), (B, D))),
    ("torch.nn.Linear", "", lambda: _plain(lambda: nn.Linear(D, D), (B, D))),
    ("torch.nn.Bilinear", "", lambda: (lambda m, a, b: (m, lambda: m(a, b)))(nn.Bilinear(D, D, 4), torch.randn(B, D), torch.randn(B, D))),
    ("torch.nn.Conv1d", "", lambda: _plain(lambda: nn.Conv1d(4, 6, 3), (B, 4, 16))),
    ("torch.nn.Conv2d", "", lambda: _plain(lambda: nn.Conv2d(3, 8, 3, padding=1), (B, 3, 16, 16))),
    ("torch.nn.Conv3d", "", lambda: _plain(lambda: nn.Conv3d(2, 4, 3), (B, 2, 8, 8, 8))),
    ("torch.nn.ConvTranspose2d", "", lambda: _plain(lambda: nn.ConvTranspose2d(3, 4, 3, stride=2), (B, 3, 8, 8))),
    ("torch.nn.BatchNorm1d", "", lambda: _plain(lambda: nn.BatchNorm1d(D), (B, D))),
    ("torch.nn.BatchNorm2d", "", lambda: _plain(lambda: nn.BatchNorm2d(3), (B, 3, 8, 8))),
    ("torch.nn.LayerNorm", "", lambda: _plain(lambda: nn.LayerNorm(D), (B, L, D))),
    ("torch.nn.GroupNorm", "", lambda: _plain(lambda: nn.GroupNorm(2, 4), (B, 4, 8, 8))),
    ("torch.nn.InstanceNorm2d", "", lambda: _plain(lambda: nn.InstanceNorm2d(3, affine=True), (B, 3, 8, 8))),
    ("torch.nn.RMSNorm", "", lambda: _plain(lambda: nn.RMSNorm(D), (B, L, D))),
    ("torch.nn.Embedding", "", lambda: (lambda m, i: (m, lambda: m(i)))(nn.Embedding(20, D), torch.randint(0, 20, (B, L)))),
    ("torch.nn.EmbeddingBag", "", lambda: (lambda m, i: (m, lambda: m(i)))(nn.EmbeddingBag(20, D), torch.randint(0, 20, (B, L)))),
    ("torch.nn.Dropout", "", lambda: _plain(lambda: nn.Dropout(0.5), (B, D))),
    ("torch.nn.GELU", "", lambda: _plain(nn.GELU, (B, D))),
    ("torch.nn.Softmax", "", lambda: _plain(lambda: nn.Softmax(-1), (B, D))),
    ("torch.nn.MaxPool2d", "", lambda: _plain(lambda: nn.MaxPool2d(2), (B, 3, 8, 8))),
    ("torch.nn.AdaptiveAvgPool2d", "", lambda: _plain(lambda: nn.AdaptiveAvgPool2d(1), (B, 3, 8, 8))),
    ("torch.nn.Upsample", "", lambda: _plain(lambda: nn.Upsample(scale_factor=2, mode="bilinear"), (B, 3, 8, 8))),
    ("torch.nn.PReLU", "", lambda: _plain(nn.PReLU, (B, D))),
]


def measure():
    """(name, configuration, differs, max absolute difference) for every candidate."""
    rows = []
    for name, config, build in CANDIDATES:
        torch.manual_seed(0)
        module, call = build()
        module.eval()
        with_grad = call()
        with torch.no_grad():
            without = call()
        same = torch.equal(with_grad.detach(), without)
        delta = float((with_grad.detach() - without).abs().max()) if not same else 0.0
        rows.append((name, config, not same, delta))
    return rows


def differing(rows) -> list:
    return sorted({name for name, _, differs, _ in rows if differs})


def main(argv) -> int:
    rows = measure()
    if "--json" in argv:
        print(json.dumps({"torch": torch.__version__, "differ": differing(rows)}))
        return 0
    print(f"torch {torch.__version__}: eval mode, grad enabled vs torch.no_grad(), bitwise")
    for name, config, differs, delta in rows:
        print(f"  {'DIFFERS' if differs else 'same   '} {name:34} {config:34} {delta:.3g}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
