"""Shape of the recall cause `autoregressive-sampling-likelihood-accumulated-with-graph` (benchmarks/recall/first-sight-23.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.

A sequence model's sampling method draws one step at a time from the
network's output, with gradients on: each step's output is concatenated onto
the growing sequence and its log-likelihood is added to a running total, so
the whole chain of forwards stays in one graph until the best of several
candidate sequences is chosen, and nothing is ever backpropagated.
"""
import torch


class SequenceSampler:
    def __init__(self, net, steps=20, tries=4):
        self.net = net
        self.steps = steps
        self.tries = tries

    def _one(self, context):
        seq = torch.zeros(1, 1, 8)
        total = 0.0
        for _ in range(self.steps):
            logits = self.net(seq, context)[-1:]  # expect: GL101
            probs = torch.softmax(logits[0, 0], dim=0)
            pick = torch.multinomial(probs, 1)
            step = torch.zeros_like(logits)
            step[0, 0, pick] = 1.0
            seq = torch.cat([seq, step], dim=0)  # expect: GL301
            total += torch.log(probs[pick]).sum()  # expect: GL301
        return seq[1:], total

    def sample(self, context):
        best, best_ll = None, float("-inf")
        for _ in range(self.tries):
            seq, ll = self._one(context)
            if ll > best_ll:
                best, best_ll = seq, ll
        return best
