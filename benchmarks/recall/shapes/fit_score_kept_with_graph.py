"""Shape of the recall cause `fit-score-kept-with-graph` (benchmarks/recall, first-sight batch 11).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class ReconstructionDetector:
    """An sklearn-style outlier detector: fit() leaves the training scores on the estimator."""

    def __init__(self, width, epochs=10):
        self.net = nn.Sequential(nn.Linear(width, 4), nn.ReLU(), nn.Linear(4, width))
        self.epochs = epochs

    def fit(self, x):
        opt = torch.optim.Adam(self.net.parameters(), lr=1e-3)
        for _ in range(self.epochs):
            recon = self.net(x)
            loss = F.mse_loss(recon, x)
            opt.zero_grad()
            loss.backward()
            opt.step()
            score = (recon - x).pow(2).mean(dim=1)
        # the last epoch's scores stay on the estimator with the graph of that forward
        self.scores_ = score  # expect: GL301
        return self
