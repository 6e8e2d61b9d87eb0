"""Shape of the recall cause `eval-in-returning-helper` (benchmarks/recall, first-sight batch 12).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import sys

import torch
import torch.nn as nn


def build():
    net = nn.Sequential(nn.Embedding(100, 8), nn.Flatten(), nn.Linear(32, 3))
    net.load_state_dict(torch.load(sys.argv[1]))
    net.eval()
    return net


def classify(net, rows):
    scores = net(torch.tensor(rows))  # expect: GL101
    return scores.argmax(1).tolist()


def main():
    net = build()
    labels = []
    for chunk in ([[1, 2, 3, 4]], [[5, 6, 7, 8]]):
        labels.extend(classify(net, chunk))
    print(labels)


if __name__ == "__main__":
    main()
