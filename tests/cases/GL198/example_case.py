"""Recall case: TODO name the shape this case stands for.

Scaffolded: rewrite it once the rule checks what it should, and add a case
per shape (a ``Precision case`` marks the lines that must not be reported).
"""

import torch

torch.autograd.set_detect_anomaly(True)  # expect-preview: GL198:1


def debug_backward(loss):
    with torch.autograd.set_detect_anomaly(True):  # expect-not: GL198
        loss.backward()
