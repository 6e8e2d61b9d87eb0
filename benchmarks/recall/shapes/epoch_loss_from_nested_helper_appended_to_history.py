"""Shape of the recall cause `epoch-loss-from-nested-helper-appended-to-history` (benchmarks/recall/first-sight-23.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch


def fit(net, xs, epochs=100):
    opt = torch.optim.SGD(net.parameters(), lr=0.01)

    def residual_loss(points):
        out = net(points)
        return ((out - torch.sin(points)) ** 2).mean()

    def run_epoch(points):
        for chunk in points.split(8):
            loss = residual_loss(chunk)
            opt.zero_grad()
            loss.backward()
            opt.step()
        epoch_loss = residual_loss(points)  # a full-set loss, still with its graph
        return epoch_loss, {}

    log = {"train_loss": []}
    for _ in range(epochs):
        epoch_loss, _metrics = run_epoch(xs)
        log["train_loss"].append(epoch_loss)  # expect: GL301
    return log
