"""Shape of the recall cause `accumulated-expression-module-level` (benchmarks/recall/sites.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch

net = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
batches = [(torch.randn(4, 3), torch.randn(4, 1))]
epoch_err = 0.0
for x, y in batches:
    err = ((net(x) - y) ** 2).mean()
    opt.zero_grad()
    err.backward()
    opt.step()
    epoch_err += err / len(batches)  # expect: GL301
print(float(epoch_err))
