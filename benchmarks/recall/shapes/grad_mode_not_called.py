"""Shape of the recall cause `grad-mode-not-called` (benchmarks/recall/first-sight-17.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch


def show_predictions(net, images):
    net.eval()
    with torch.no_grad:  # expect: GL102
        scores = torch.softmax(net(images), dim=1)
    return scores.argmax(dim=1).tolist()
