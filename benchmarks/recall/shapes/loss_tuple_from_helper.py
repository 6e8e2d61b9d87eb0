"""Shape of the recall cause `loss-tuple-from-helper` (benchmarks/recall/sites.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
def train(trainer, loader):
    total_sum, box_sum = 0, 0
    for batch in loader:
        losses = trainer.train_step(batch)
        box, cls, total = losses
        total_sum += total  # expect: GL301
        box_sum += box  # expect: GL301
    return total_sum, box_sum
