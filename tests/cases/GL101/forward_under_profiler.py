"""Precision case: forwards of an eval-mode model inside a profiler, counting FLOPs.

``profile_model`` runs a few forwards under ``torch.profiler.profile(with_flops=True)``
and ``count_flops`` under ``FlopCounterMode``: the code runs to be measured,
and the operators and FLOPs counted are the run's own whatever the grad mode.
The same loop outside the profiler is reported.
"""

import torch
from torch.utils.flop_counter import FlopCounterMode


def profile_model(model, data, steps=5):
    model.eval()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], with_flops=True) as prof:
        for _ in range(steps):
            _ = model(data)  # expect-not: GL101
            prof.step()
    return prof.key_averages().table(row_limit=10)


def count_flops(model, batches):
    model.eval()
    with FlopCounterMode(display=False) as counter:
        for b in batches:
            model(b).sum().item()  # expect-not: GL101
    return counter.get_total_flops()


def mean_score(model, batches):
    model.eval()
    total = 0.0
    for b in batches:
        total += model(b).sum().item()  # expect: GL101:18
    return total / len(batches)
