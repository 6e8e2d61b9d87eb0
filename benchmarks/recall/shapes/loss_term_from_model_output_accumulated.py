"""Shape of the recall cause `loss-term-from-model-output-accumulated` (benchmarks/recall/first-sight-8.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch
import torch.nn as nn


class Codec(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Linear(8, 4)
        self.dec = nn.Linear(4, 8)

    def forward(self, x):
        z = self.enc(x)
        # the model returns one of its own loss terms next to its output
        return self.dec(z), z.pow(2).mean()


def train_epoch(codec, batches, opt):
    commit_total = 0.0
    for x in batches:
        out, commit = codec(x)
        loss = (out - x).abs().mean() + commit
        opt.zero_grad()
        loss.backward()
        opt.step()
        commit_total += commit  # expect: GL301
    return commit_total / len(batches)


net = Codec()
print(train_epoch(net, [torch.randn(2, 8)], torch.optim.SGD(net.parameters(), lr=0.1)))
