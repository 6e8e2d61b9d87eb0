"""Recall case (kept): a plain class holds a transformers `from_pretrained`
model; a helper method runs it once and returns the output, and the encoding
method switches it to eval mode itself and calls the helper on every batch
(first-sight batch 18's text2vec `SentenceModel.encode`).

The helper alone is in eval mode only because `from_pretrained` loaded it: its
single forward is left to its callers (an evaluation framework may call it
under `no_grad`). The encoding method's own `eval()` region runs the helper in
a loop and keeps only detached outputs: the forward is reported there, at the
helper's call.
"""

import torch
from transformers import AutoModel


class SentenceModel:
    def __init__(self, name):
        self.bert = AutoModel.from_pretrained(name)

    def get_sentence_embeddings(self, input_ids, attention_mask):
        output = self.bert(input_ids, attention_mask)  # expect-not: GL101
        return output.last_hidden_state[:, 0]

    def encode(self, batches, normalize=False):
        self.bert.eval()
        all_embeddings = []
        for ids, mask in batches:
            embeddings = self.get_sentence_embeddings(ids, mask)  # expect: GL101
            embeddings = embeddings.detach()
            if normalize:
                embeddings = torch.nn.functional.normalize(embeddings, p=2, dim=1)
            all_embeddings.extend(embeddings)
        return all_embeddings
