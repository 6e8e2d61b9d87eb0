"""Shape of the recall cause `loss-tuple-from-helper` (benchmarks/recall/sites.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
def train(model, opt, loader, step_fn):
    total_sum, box_sum = 0, 0
    for batch in loader:
        box, cls, total = step_fn(model, opt, batch)
        total_sum += total  # expect: GL301
        box_sum += box  # expect: GL301
    return total_sum, box_sum
