"""Shape of the recall cause `eval-model-cached-on-function-attribute` (benchmarks/recall/first-sight-18.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch
import torch.nn as nn


def run_network(frames):
    # the network is built once and cached as an attribute of this function
    if not hasattr(run_network, "net"):
        run_network.net = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
        run_network.net.eval()
    return run_network.net(frames)  # expect: GL101


def estimate(signal):
    frames = signal.reshape(-1, 16)
    scores = run_network(frames)  # expect: GL101
    return scores.argmax(dim=1).tolist()


print(estimate(torch.randn(4, 16)))
