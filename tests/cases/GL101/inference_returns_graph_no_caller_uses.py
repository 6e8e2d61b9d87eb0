"""Recall case: an ``evaluate()`` method without ``eval()`` sums its losses with
their graphs and returns them, but every caller in the file only logs what it
gets back (directly, or through a helper that returns it to a caller that
logs it): no backward can ever reach those graphs.

Precision counterpart: when a caller runs ``backward()`` on what comes back,
the graph is wanted, and the inference function is left alone.
"""

import logging

log = logging.getLogger(__name__)


class TextClassifierTrainer:
    def evaluate(self, sentences, batch_size=16):
        eval_loss = 0
        predictions = []
        for i in range(0, len(sentences), batch_size):
            batch = sentences[i : i + batch_size]
            scores = self.model.forward(batch)  # expect-preview: GL101:22
            eval_loss += self.model.calculate_loss(scores, batch)
            predictions.extend(self.model.obtain_labels(scores))
        return predictions, eval_loss / len(sentences)

    def _results_for(self, name, sentences):
        predictions, loss = self.evaluate(sentences)
        log.info("%s: loss %.4f", name, loss)
        return predictions, loss

    def train(self, corpus, epochs):
        for epoch in range(epochs):
            for batch in corpus.train:
                self.optimizer.zero_grad()
                self.model.calculate_loss(self.model.forward(batch), batch).backward()
                self.optimizer.step()
            _, dev_loss = self._results_for("dev", corpus.dev)
            log.info("epoch %d: dev loss %s", epoch, dev_loss)


class SelfDistillingTrainer:
    def validate(self, sentences):
        total = 0
        for batch in sentences:
            scores = self.model.forward(batch)  # expect-not: GL101
            total += self.model.calculate_loss(scores, batch)
        return total

    def fit(self, corpus):
        for batch in corpus.train:
            self.optimizer.zero_grad()
            (self.model.calculate_loss(self.model.forward(batch), batch) + 0.1 * self.validate(corpus.dev)).backward()
            self.optimizer.step()
