"""Shape of the recall cause `score-method-attribute-forward` (benchmarks/recall/first-sight-18.toml).

A learner's scoring method runs its network attribute on candidate features
with gradients enabled and hands the scores back; no module is put in eval
mode anywhere in the file and no gradient is ever taken of the scores.

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch


class Bandit:
    def __init__(self, net, explorer):
        self.net = net
        self.explorer = explorer

    def learn(self, feats, rewards, opt):
        loss = torch.nn.functional.mse_loss(self.net(feats).squeeze(-1), rewards)
        opt.zero_grad()
        loss.backward()
        opt.step()

    def get_scores(self, feats):
        flat = feats.reshape(-1, feats.shape[-1])
        out = self.net(flat)  # expect: GL101
        return self.explorer(out).reshape(feats.shape[0], -1)
