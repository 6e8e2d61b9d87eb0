"""Shape of the recall cause `loss-tuple-stored-by-iteration-index` (benchmarks/recall/first-sight-5.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
class Trainer:
    def objective(self, net, xs):
        value = net(xs).square().mean()
        return value, float(value)

    def run(self, net, xs, optimizer, iterations):
        history = [None] * iterations
        costs = [None] * iterations

        def closure():
            return self.objective(net, xs)

        history[0], costs[0] = closure()
        for i in range(1, iterations):
            optimizer.zero_grad()
            history[i - 1].backward()
            history[i], costs[i] = optimizer.step(closure)  # expect: GL301
        return costs
