"""Recall case (kept): ``.data`` reads of tensors, where ``.detach()`` is the modern spelling.

Predictions taken from ``outputs.data`` and a hidden state cut from its
history with ``h.data``: both are tensors of the model.
"""

import torch


def predict(model, images):
    outputs = model(images)
    _, predicted = torch.max(outputs.data, 1)  # expect: GL203:30
    return predicted, outputs.data.cpu().numpy()  # expect: GL203:23


def truncated_bptt(rnn, chunks, hidden):
    outs = []
    for chunk in chunks:
        out, hidden = rnn(chunk, hidden)
        hidden = hidden.data  # expect: GL203:18
        outs.append(out)
    return outs
