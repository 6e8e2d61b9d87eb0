"""Shape of the recall cause `grad-written-into-preallocated-tensor` (benchmarks/recall, first-sight batch 8).

Each line marked `# expect: CODE` is where gradlint should report CODE.

A gradient taken with create_graph=True is copied, slice by slice, into a
tensor allocated before the loop: every slice assignment links that
iteration's double-backward graph to the buffer, which keeps all of them.
"""
import torch
from torch.autograd import grad


def curvature(score, points):
    steps = points.size(1)
    out = torch.zeros(points.size(0), steps, points.size(2))
    for i in range(steps):
        x = points[:, i].requires_grad_()
        g = grad(score(x).sum(), x, create_graph=True)[0]
        h = grad(g.sum(), x, create_graph=True)[0]
        out[:, i, :] = h  # expect: GL301
    return out.mean(1)
