"""Shape of the recall cause `reduction-data-index-zero` (benchmarks/recall/first-sight-17.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch


def token_accuracy(predicted, gold, pad_id):
    keep = gold.ne(pad_id)
    hits = predicted.eq(gold).masked_select(keep).sum().data[0]  # expect: GL003
    return hits / max(1, int(keep.long().sum()))
