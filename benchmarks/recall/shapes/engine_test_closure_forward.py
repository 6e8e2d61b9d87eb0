"""Shape of the recall cause `engine-test-closure-forward` (benchmarks/recall/sites.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch
import torch.nn.functional as F


def run(engine, f, params, train_loader, test_loader, optimizer, epochs):
    def step(sample):
        x, y = sample[0], sample[1]
        out = f(x, params, sample[2])  # expect: GL101
        return F.cross_entropy(out, y), out

    for _ in range(epochs):
        engine.train(step, train_loader, 1, optimizer)
        engine.test(step, test_loader)
