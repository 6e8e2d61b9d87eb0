"""Recall case: an evaluation loop over mini-batches sliced by hand.

``evaluate`` cuts its sentences into mini-batches with a slicing
comprehension, runs the model on each and adds the loss tensor to a total that
it returns with the metrics. The loop is over data, not over heads or layers:
the returned total is a metric, and it holds every batch's graph.
"""


class Trainer:
    def __init__(self, model):
        self.model = model

    def evaluate(self, sentences, mini_batch_size=32):
        eval_loss = 0
        batches = [sentences[x : x + mini_batch_size] for x in range(0, len(sentences), mini_batch_size)]
        predictions = []
        for batch in batches:
            scores = self.model.forward(batch)
            predictions.extend(self.model.obtain_labels(scores))
            loss = self.model.calculate_loss(scores, batch)
            eval_loss += loss  # expect-preview: GL301:13
        eval_loss /= len(sentences)
        return predictions, eval_loss
