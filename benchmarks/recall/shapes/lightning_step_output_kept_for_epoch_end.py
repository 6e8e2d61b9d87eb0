"""Shape of the recall cause `lightning-step-output-kept-for-epoch-end` (benchmarks/recall/first-sight-8.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import pytorch_lightning as pl
import torch
import torch.nn as nn


class Segmenter(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = nn.Conv2d(3, 2, 1)

    def shared_step(self, batch):
        image, mask = batch
        logits = self.net(image)
        loss = nn.functional.cross_entropy(logits, mask)
        # the framework keeps every step output until the epoch ends
        return {"loss": loss, "logits": logits}  # expect: GL301

    def training_step(self, batch, batch_idx):
        return self.shared_step(batch)

    def training_epoch_end(self, outputs):
        self.log("pixels", float(sum(o["logits"].numel() for o in outputs)))

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.1)
