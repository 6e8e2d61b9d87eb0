"""Shape of the recall cause `fit-result-with-graph-returned-and-kept` (benchmarks/recall/first-sight-22.toml).

A helper refines coordinates by gradient descent and, on its last pass, breaks
out of the loop before backward(): the prediction and residual it returns still
carry that pass's graph, and the caller keeps them in a list for every
candidate it tries.

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch


class Fitter:
    def __init__(self, render, steps=10):
        self.render = render
        self.steps = steps

    def refine(self, target, points):
        points = points.clone().detach()
        points.requires_grad = True
        opt = torch.optim.Adam([points], lr=0.01)
        for i in range(self.steps + 1):
            opt.zero_grad()
            pred = self.render(points)
            residual = target - pred
            loss = (residual ** 2).sum()
            if i == self.steps:
                break
            loss.backward()
            opt.step()
        return points, pred, residual, loss

    def search(self, target, candidates):
        kept = []
        for cand in candidates:
            points, pred, residual, loss = self.refine(target, cand)
            kept.append(residual)  # expect: GL301
        return torch.stack(kept)
