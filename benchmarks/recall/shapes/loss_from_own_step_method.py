"""Shape of the recall cause `loss-from-own-step-method` (benchmarks/recall/sites.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch


class Trainer:
    def training_step(self, model, inputs):
        loss = model(**inputs).loss
        loss.backward()
        return loss

    def train(self, model, loader):
        total = torch.tensor(0.0)
        for inputs in loader:
            total += self.training_step(model, inputs)  # expect: GL301
            self.optimizer.step()
        return total.item()
