"""Shape of the recall cause `train-mode-flag-shared-step-forward` (benchmarks/recall/sites.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch


def run_epoch(net, batches, split, optimizer):
    training = split == "train"
    net.train(mode=training)
    for x, y in batches:
        out = net(x)  # expect: GL101
        loss = torch.nn.functional.mse_loss(out, y)
        if training:
            loss.backward()
            optimizer.step()


def fit(net, train_batches, valid_batches, optimizer):
    run_epoch(net, train_batches, "train", optimizer)
    run_epoch(net, valid_batches, "valid", optimizer)
