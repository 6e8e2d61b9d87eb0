"""Precision case: a function that only a ``fire.Fire`` command calls, with
nothing that trains after it.

``setup`` switches grad off and is called only from ``chat``, the command that
``fire.Fire`` runs, which then only generates until the process ends: reported
only in the preview tier. ``check`` is called from the same command, but a
backward follows it there: reported.
"""

import fire
import torch


def check(model):
    torch.set_grad_enabled(False)  # expect: GL105:5
    return model(torch.zeros(1, 8)).isfinite().all()


def setup(model):
    torch.set_grad_enabled(False)  # expect-preview: GL105:5
    return model.eval()


def chat(path="model.pt", steps=0):
    model = torch.load(path)
    if steps:
        check(model)
        model(torch.ones(1, 8)).sum().backward()
    model = setup(model)
    while True:
        print(model.generate(input("> ")))


if __name__ == "__main__":
    fire.Fire(chat)
