"""Shape of the recall cause `data0-indexed-element` (benchmarks/recall/first-sight-3.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch


def expand(beams, scores, width):
    top_scores, top_ids = torch.topk(scores, width)
    grown = []
    for b, beam in enumerate(beams):
        for k in range(width):
            grown.append(beam + [(top_ids[b, k].data[0], top_scores[b, k].data[0])])  # expect: GL003
    return grown
