"""Recall case: the evaluation epoch puts every model of a dict in eval mode and
hands each batch to a step method; the step runs ``self.model["generator"]``
and keeps only ``.item()`` losses, so the graph it records is never used.

The preview tier reports the step method's forward: it records the graph, and
its outputs never reach the caller, but only a name (``self.model``) shows it a
module's forward there. The default tier proves it through the caller instead:
every item of the dict is put in eval mode, and the step it calls runs an item.
"""

import torch


class VocoderTrainer:
    def _eval_step(self, batch):
        noise, cond, target = batch
        fake = self.model["generator"](noise, cond)  # expect-preview: GL101:16
        score = self.model["discriminator"](fake)
        self.totals["adv"] += self.criterion(score, torch.ones_like(score)).item()
        self.totals["l1"] += (fake - target).abs().mean().item()

    def _eval_epoch(self):
        for key in self.model.keys():
            self.model[key].eval()
        for batch in self.loaders["dev"]:
            self._eval_step(batch)  # expect-default: GL101:13
        for key in self.model.keys():
            self.model[key].train()

    def _train_step(self, batch):
        noise, cond, target = batch
        fake = self.model["generator"](noise, cond)  # expect-not: GL101
        loss = (fake - target).abs().mean()
        loss.backward()
        self.optimizer["generator"].step()
