"""Shape of the recall cause `loss-accumulated-name` (benchmarks/recall/sites.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
def train(model, opt, crit, loader):
    running = 0
    for x, y in loader:
        opt.zero_grad()
        loss = crit(model(x), y)
        loss.backward()
        opt.step()
        running += loss  # expect: GL301
    return running
