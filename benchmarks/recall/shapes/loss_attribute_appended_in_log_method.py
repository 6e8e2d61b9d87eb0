"""Shape of the recall cause `loss-attribute-appended-in-log-method` (benchmarks/recall/sites.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch


class Trainer:
    def __init__(self, model):
        self.model = model
        self.history = []

    def batch_step(self, x, y):
        loss = torch.nn.functional.mse_loss(self.model(x), y)
        self.batch_loss = loss
        self.log_batch()

    def log_batch(self):
        self.history += [self.batch_loss]  # expect: GL301
