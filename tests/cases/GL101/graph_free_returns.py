"""Recall case (first-sight recall batch 6): an evaluation method that returns only
values with no graph. ``_eval_batch`` puts the model in eval mode, runs a batch with
gradients on and returns the loss as a Python number and the predicted labels
(``argmax``): no caller can backpropagate through either, so the graph is wanted
by nothing, as if the method returned nothing. So is a dict of metrics computed
with ``.item()``, comparisons and sizes.

Precision counterparts: methods that return the loss tensor beside the labels, a
list holding an output, a tensor an output was written into, or what an unknown
function makes of an output: each may hand the graph to a caller the file does not
show, so the default tier is silent.
"""

import torch
import torch.nn.functional as F
from metrics import span_f1


class Trainer:
    def __init__(self, model):
        self.model = model

    def _eval_batch(self, data, labels):
        self.model.eval()
        logits = self.model(data)  # expect: GL101:18
        loss = F.cross_entropy(logits, labels)
        loss = loss.item()
        preds = logits.argmax(-1)
        return loss, preds

    def metrics(self, x, y):
        self.model.eval()
        out = self.model(x)  # expect: GL101:15
        correct, total = (out.argmax(1) == y).sum().item(), y.shape[0]
        return {"acc": correct / total, "n": total, "loss": F.nll_loss(out, y).item()}

    def loss_and_labels(self, data, labels):
        self.model.eval()
        logits = self.model(data)
        loss = F.cross_entropy(logits, labels)
        return loss, logits.argmax(-1)

    def filled(self, data):
        self.model.eval()
        outs = []
        out = self.model(data)  # expect-preview: GL101:15
        outs.append(out)
        return outs, len(outs)

    def edited(self, data):
        self.model.eval()
        scores = torch.zeros(2)
        out = self.model(data)  # expect-preview: GL101:15
        scores[0] = out.sum()
        return scores

    def scored(self, data, labels):
        self.model.eval()
        probs = self.model(data).softmax(-1)  # expect-preview: GL101:17
        return span_f1(probs, labels)
