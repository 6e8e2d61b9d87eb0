"""Recall case: criterion and loss outputs under names that do not say so.

``out`` is what the criterion returns, ``output`` what ``F.smooth_l1_loss``
returns, and ``objective`` a sum of such: all 0-dim, so ``.data[0]`` raises.
Only ``output`` is proven 0-dim (a functional loss); ``criterion`` is a parameter
of unknown type, so its result and the sum are 0-dim by name alone: preview.
"""

import torch.nn.functional as F


def train_step(model, criterion, optimizer, batch, meter, beta=0.5):
    pred, aux = model(batch["x"])
    out = criterion(pred, batch["y"])
    output = F.smooth_l1_loss(aux, batch["aux"])
    objective = out + beta * output
    optimizer.zero_grad()
    objective.backward()
    optimizer.step()
    meter.update("ce", out.data[0])  # expect-preview: GL003:24
    meter.update("aux", output.data[0])  # expect: GL003:25
    meter.update("objective", objective.data[0])  # expect-preview: GL003:31
