"""Shape of the recall cause `loss-added-inplace-to-stat-tensor` (benchmarks/recall/first-sight-5.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch


def step(model, batch, running):
    loss = model(batch).mean()
    running.add_(loss)  # expect: GL301
    loss.backward()


def train(model, loader, opt):
    running = torch.zeros(1)
    for i, batch in enumerate(loader):
        step(model, batch, running)
        opt.step()
        opt.zero_grad()
        if i % 100 == 99:
            print(running.item() / 100)
            running.zero_()
