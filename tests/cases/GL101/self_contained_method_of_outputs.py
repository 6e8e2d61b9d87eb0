"""Recall case (first-sight recall batch 8, graph4nlp): an evaluation method of a
plain class passes the decoded predictions through another method of its class
(``self.strip_bpe(words)``) before scoring them and returning the score.

That method reads nothing but its argument, builtins and itself: it runs no
model, so its result carries no graph of its own, and the predictions it is
given were detached. Nothing the evaluation returns can reach the forward's
graph, which is wanted by nothing.

Silent twin: ``self.rescore(words)`` reads ``self.scorer``, an object the file
does not show, which may be a model whose graph the returned score carries.
"""

import torch


def decode(ids):
    return [str(i) for i in ids]


class Translator:
    def __init__(self, model, scorer, loader):
        self.model = model
        self.scorer = scorer
        self.loader = loader

    def strip_bpe(self, words):
        if isinstance(words, list):
            return [self.strip_bpe(w) for w in words]
        return words.replace("@@ ", "").strip()

    def rescore(self, words):
        return self.scorer(words)

    def evaluate(self):
        self.model.eval()
        preds = []
        for src, _ in self.loader:
            logits = self.model(src)  # expect: GL101:22
            words = decode(logits.argmax(-1).detach().cpu())
            preds.extend(self.strip_bpe(words))
        score = sum(len(p) for p in preds)
        return score

    def evaluate_rescored(self):
        self.model.eval()
        preds = []
        for src, _ in self.loader:
            logits = self.model(src)  # expect-preview: GL101:22
            words = decode(logits.argmax(-1).detach().cpu())
            preds.extend(self.rescore(words))
        score = preds[0]
        return score
