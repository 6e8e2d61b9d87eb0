"""Recall case (first-sight recall batch 9): a trainer's ``eval_step`` puts its
model in eval mode, runs one forward and returns the loss and the output.

Its only callers, in ``train_loop.py`` of the project, call it in a loop with
grad mode untouched and read what it returns only as numbers (``.item()``, an
f-string, ``add_scalar``, ``.flatten().tolist()``): every batch builds a graph
that nothing differentiates, reported at the forward. Near shapes, silent by
default: ``validate_step``'s loss is backpropagated by its caller,
``predict_once`` is called once outside any loop, ``predict_kept``'s result is
kept in a list across the loop, ``eval_guarded`` is called under
``torch.no_grad()``, and ``score_step``, used as ``eval_step`` is, has a name
the index does not gate on: a file calling it might not be summarised, so its
callers are not all known.
"""

import torch.nn.functional as F


class Trainer:
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer

    def eval_step(self, batch):
        self.model.eval()
        x, y = batch
        output = self.model(x)  # expect: GL101
        loss = F.cross_entropy(output, y)
        return loss, output

    def validate_step(self, batch):
        self.model.eval()
        x, y = batch
        output = self.model(x)  # expect-preview: GL101
        return F.cross_entropy(output, y)

    def predict_once(self, batch):
        self.model.eval()
        output = self.model(batch[0])  # expect-preview: GL101
        return output.sum(), output

    def predict_kept(self, batch):
        self.model.eval()
        output = self.model(batch[0])  # expect-preview: GL101
        return output

    def eval_guarded(self, batch):
        self.model.eval()
        output = self.model(batch[0])  # expect-not: GL101
        return output.mean()

    def score_step(self, batch):
        self.model.eval()
        x, y = batch
        output = self.model(x)  # expect-preview: GL101
        return F.cross_entropy(output, y), output
