"""Shape of the recall cause `input-wrapped-under-guard-forward-outside` (benchmarks/recall/first-sight-22.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch
from torch.autograd import Variable


def score_clips(net, clips):
    net.eval()
    scores = []
    for clip in clips:
        with torch.no_grad():
            clip = Variable(clip)
        logits = net(clip)  # expect: GL101
        scores.append(torch.softmax(logits, dim=1)[0].tolist())
    return scores
