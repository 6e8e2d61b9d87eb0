"""Shape of the recall cause `eval-in-grandcaller` (benchmarks/recall/first-sight-9.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch


def compute_outputs(model, batches):
    losses = []
    for batch in batches:
        loss, pred = model(batch)  # expect: GL101
        losses.append(loss)
    return torch.cat(losses, 0)


def gather(model, batches):
    return compute_outputs(model, batches).mean()


def validate(model, batches):
    model.eval()
    return gather(model, batches)
