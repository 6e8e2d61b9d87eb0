"""Recall case (issue 26): a function with one forward, called once from the
``__main__`` block but also passed as a callback. Its callers are unknown (the
callback may run once per batch), so it is not proven to run once, and the
default tier reports its forward. ``reference`` has the same shape without the
callback: it runs once, but on data the script loads, and it keeps the output
as a result (saved), so the graph of a real forward is held: reported too.

Counterpart: ``one_off_reference_forward_of_script.py``.
"""

import sys

import torch

from models import load_inputs, make_model, serve


def on_batch(inputs):
    model = make_model()
    model.eval()
    out = model(inputs)  # expect: GL101:11
    torch.save(out, "batch.pt")


def reference(inputs):
    model = make_model()
    model.eval()
    out = model(inputs)  # expect: GL101:11
    torch.save(out, "reference.pt")


if __name__ == "__main__":
    data = load_inputs(sys.argv[1])
    on_batch(data[0])
    reference(data[0])
    serve(on_batch)
