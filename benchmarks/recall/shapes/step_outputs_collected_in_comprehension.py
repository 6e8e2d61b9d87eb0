"""Shape of the recall cause `step-outputs-collected-in-comprehension` (benchmarks/recall/first-sight-10a.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch
import torch.nn as nn


class AutoEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Linear(16, 4)
        self.dec = nn.Linear(4, 16)

    def val_step(self, batch):
        recon = self.dec(self.enc(batch))
        return {"loss": torch.mean((batch - recon) ** 2)}

    def val_end(self, outputs):
        return torch.stack([o["loss"] for o in outputs]).mean().item()


def validate(model, loader):
    # every batch's loss keeps its graph until the list is reduced
    outputs = [model.val_step(batch) for batch in loader]  # expect: GL301
    return model.val_end(outputs)
