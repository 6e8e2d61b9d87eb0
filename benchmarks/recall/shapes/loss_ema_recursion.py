"""Shape of the recall cause `loss-ema-recursion` (benchmarks/recall/first-sight-5.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
def train(agent, opt, steps, alpha=0.01, stop_below=0.1):
    ema = None
    for it in range(steps):
        losses = agent.loss(it)
        losses[0].backward()
        opt.step()
        opt.zero_grad()
        if ema is not None:
            ema = alpha * losses[1] + (1 - alpha) * ema  # expect: GL301
            if ema < stop_below:
                break
        else:
            ema = losses[1]
    return ema
