"""Recall case (first-sight recall batch 8, haystack's extractive reader): a plain
component class loads its model with transformers' ``from_pretrained`` in
``warm_up``, which returns it in eval mode, and ``run`` runs it on every batch
with gradients on, collecting the logits of every batch.

No method trains the model, every value assigned to it is such a load (``None``
aside): ``self.model`` is in eval mode in ``run``, whose decorator only records
output sockets.

Silent twins: the load trained by another method or by ``.train()``, and one forward
kept in no loop (``score``: a framework may call such a wrapper under no_grad).
"""

import torch
from haystack import component
from transformers import AutoModelForQuestionAnswering


@component
class Reader:
    def __init__(self, name):
        self.name = name
        self.model = None

    def warm_up(self):
        if self.model is None:
            self.model = AutoModelForQuestionAnswering.from_pretrained(self.name).to("cpu")

    @component.output_types(logits=list)
    def run(self, batches):
        starts = []
        for ids in batches:
            out = self.model(input_ids=ids)  # expect: GL101:19
            starts.append(out.start_logits)
        return {"logits": torch.cat(starts).tolist()}

    def score(self, ids):
        return self.model(input_ids=ids).start_logits.tolist()  # expect-not: GL101


class TunedReader:
    def __init__(self, name):
        self.model = AutoModelForQuestionAnswering.from_pretrained(name)

    def fine_tune(self):
        self.model.train()

    def run(self, batches):
        starts = []
        for ids in batches:
            starts.append(self.model(input_ids=ids).start_logits)  # expect-not: GL101
        return torch.cat(starts).tolist()


class TrainingReader:
    def __init__(self, name):
        self.model = AutoModelForQuestionAnswering.from_pretrained(name).train()

    def run(self, batches):
        return [self.model(input_ids=ids).start_logits.tolist() for ids in batches]  # expect-not: GL101
