"""Recall case (first-sight recall batch 8, stanza's POS trainer): a tagger's
``predict`` puts its model in eval mode, runs one batch with gradients on and
maps the predicted ids to tags in a comprehension over ``preds[0].tolist()``.

A loop variable drawn from ``.tolist()`` holds Python numbers: the tags the
method returns carry no graph, whatever ``vocab.unmap`` does with them, so the
forward's graph is wanted by nothing.

Silent twin: the comprehension runs over the rows of the output tensor itself
(``for row in preds[0]``), so what ``unmap`` returns may hold them, graph and
all, for a caller the file does not show.
"""


class Tagger:
    def __init__(self, model, vocab):
        self.model = model
        self.vocab = vocab

    def predict(self, batch):
        self.model.eval()
        _, preds = self.model(batch)  # expect: GL101:20
        tags = [self.vocab.unmap(sent) for sent in preds[0].tolist()]
        return [[t for t in seq] for seq in tags]

    def predict_rows(self, batch):
        self.model.eval()
        _, preds = self.model(batch)  # expect-preview: GL101:20
        tags = [self.vocab.unmap(row) for row in preds[0]]
        return tags
