"""Shape of the recall cause `loss-reduced-then-appended` (benchmarks/recall, first-sight batch 3).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
from functools import reduce

import torch


def fit(params, objective, steps=100):
    opt = torch.optim.SGD(params, lr=0.1)
    history = []
    for _ in range(steps):
        opt.zero_grad()
        terms = objective(*params)
        history.append(reduce(lambda a, b: a + b, terms))  # expect: GL301
        history[-1].backward(retain_graph=True)
        opt.step()
    return history
