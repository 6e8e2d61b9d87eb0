"""Shape of the recall cause `sample-forward-in-training-loop` (benchmarks/recall/first-sight-20.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.

Every few iterations a training loop draws a preview sample from the
generator with gradients on (the generator is never put in eval mode and no
backward follows), only to plot or save the picture.
"""
import torch
import torch.nn as nn


def fit(gen, disc, loader, opt_g, plot, steps=25):
    for i, real in enumerate(loader, 1):
        z = torch.randn(real.shape[0], 8)
        loss = -disc(gen(z)).mean()
        opt_g.zero_grad()
        loss.backward()
        opt_g.step()
        if i % steps == 0:
            preview = gen(torch.randn(1, 8))  # expect: GL101
            plot(preview.detach().cpu().numpy())


if __name__ == "__main__":
    g = nn.Sequential(nn.Linear(8, 16), nn.Tanh())
    d = nn.Sequential(nn.Linear(16, 1))
    fit(g, d, [torch.randn(4, 16) for _ in range(30)], torch.optim.Adam(g.parameters()), print)
