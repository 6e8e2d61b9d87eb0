"""Precision case (issue 26, first-sight batch 10), with its recall counterpart:
a call of a model whose ``forward`` does not take the call's keyword arguments
raises ``TypeError`` before any forward runs, so no graph is recorded (a QA
evaluation copied from another code base, calling the model with ``train=``,
``k=`` and ``raw_question=``). The same loop calling it with arguments its
``forward`` takes records a graph per batch.
"""

import torch
import torch.nn as nn


class RetrievalModel(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.vision = nn.Linear(dim, dim)
        self.text = nn.Linear(dim, dim)

    def forward(self, image, text, return_sims=False):
        sims = self.vision(image) @ self.text(text).T
        return sims if return_sims else sims.mean()


def answer_questions(loader, dim):
    model = RetrievalModel(dim)
    model.eval()
    answers = []
    for image, question, answer in loader:
        topk = model(image, question, answer, train=False, k=8, raw_question=question)  # expect-not: GL101
        answers.append(topk)
    return answers


def dump_similarities(loader, dim):
    model = RetrievalModel(dim)
    model.eval()
    rows = []
    for image, text in loader:
        sims = model(image, text, return_sims=True)  # expect: GL101:16
        rows.append(sims)
    return rows
