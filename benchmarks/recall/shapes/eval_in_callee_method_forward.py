"""Shape of the recall cause `eval-in-callee-method-forward` (benchmarks/recall/sites.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch
import torch.nn as nn


class AutoEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Linear(8, 2)
        self.dec = nn.Linear(2, 8)

    def decode(self, z):
        return torch.sigmoid(self.dec(z))

    def forward(self, x):
        return self.decode(self.enc(x))


model = AutoEncoder()


def test(batches):
    model.eval()
    with torch.no_grad():
        return sum(float((model(x) - x).pow(2).mean()) for x in batches)


for epoch in range(3):
    print(test([torch.randn(4, 8)]))
    samples = model.decode(torch.randn(16, 2))  # expect: GL101
    print(samples.mean().item())
