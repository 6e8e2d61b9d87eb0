"""Precision case (issue 26): one-off reference forwards of an example script on
inputs it makes up.

``export_and_compare`` runs once: its only call is in ``main``, outside any
loop, and ``main``'s only call is the ``__main__`` block's, which hands it a
random example input. Its forward gives the reference outputs an exported model
is checked against, and holds the graph of a dummy input for that one
comparison; so does the ``__main__`` block's own forward. Forwards in a loop
over inputs or in a function called in a loop run more than once: they are
reported. The preview tier keeps the one-off forwards.

Counterpart: ``one_off_forward_passed_as_callback.py``.
"""

import torch

from models import export, make_model, run_exported


def export_and_compare(example_inputs):
    model = make_model()
    model.eval()
    reference = model(*example_inputs)  # expect-preview: GL101:17
    exported = export(model, example_inputs)
    run_exported(exported, example_inputs, reference)


def compare_all(inputs):
    model = make_model()
    model.eval()
    outputs = []
    for x in inputs:
        outputs.append(model(x))  # expect: GL101:24
    torch.save(outputs, "outputs.pt")


def golden(inputs):
    model = make_model()
    model.eval()
    out = model(inputs)  # expect: GL101:11
    torch.save(out, "golden.pt")


def main(inputs):
    export_and_compare(inputs)
    compare_all(inputs)
    for batch in inputs:
        golden(batch)


if __name__ == "__main__":
    net = make_model()
    data = (torch.randn(1, 3, 224, 224),)
    net.eval()
    first = net(*data)  # expect-preview: GL101:13
    torch.save(first, "first.pt")
    main(data)
