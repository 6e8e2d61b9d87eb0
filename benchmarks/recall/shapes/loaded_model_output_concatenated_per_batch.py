"""Shape of the recall cause `loaded-model-output-concatenated-per-batch` (benchmarks/recall/first-sight-18.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.

A model built by a loader helper is run over the clips batch by batch with
gradients on, and each batch's output is concatenated onto a running tensor,
so every batch's graph stays referenced until the loop ends.
"""
import torch

from loaders import build_model

scorer = None


def score_folder(clips):
    global scorer
    if scorer is None:
        scorer = build_model("similarity")
    sims = None
    while len(clips) > 0:
        batch = torch.stack(clips[:64], dim=0)
        clips = clips[64:]
        out = scorer.inference(batch).cpu()
        if sims is None:
            sims = out
        else:
            sims = torch.cat([sims, out], dim=0)  # expect: GL301
    return sims
