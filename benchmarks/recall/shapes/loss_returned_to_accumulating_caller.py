"""Shape of the recall cause `loss-returned-to-accumulating-caller` (benchmarks/recall, first-sight batch 3).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch


class Learner:
    def __init__(self, net):
        self.net = net
        self.opt = torch.optim.Adam(net.parameters())

    def step(self, x, y):
        self.opt.zero_grad()
        self.loss = torch.nn.functional.mse_loss(self.net(x), y)
        self.loss.backward()
        self.opt.step()
        return self.loss


def run(learner, batches, every=100):
    running = 0.0
    for i, (x, y) in enumerate(batches):
        running += learner.step(x, y) / every  # expect: GL301
        if i % every == every - 1:
            print(float(running))
            running = 0.0
