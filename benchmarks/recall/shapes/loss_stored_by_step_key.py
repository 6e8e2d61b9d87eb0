"""Shape of the recall cause `loss-stored-by-step-key` (benchmarks/recall/first-sight-5.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
def train_epoch(model, opt, loader):
    per_step = {}
    step = 0
    for batch in loader:
        loss = model(**batch).loss
        loss.backward()
        opt.step()
        opt.zero_grad()
        per_step[step] = loss  # expect: GL301
        step += 1
    return {k: float(v) for k, v in per_step.items()}
