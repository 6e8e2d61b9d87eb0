"""Recall case (first-sight recall batch 3, issue 26): a transformers model
loaded with ``from_pretrained`` and put in eval mode in ``__init__``; a method
runs one of its submodules, reached through attributes
(``self.asr.speecht5.encoder(...)``), with gradients on. ``eval()`` switched the
submodule too, and its forward records a graph.

Precision counterparts: a model from a loader the file cannot see; attributes
that hold no submodule (the config, a parameter) or a method of the model.
"""

import torch
from transformers import AutoModel, SpeechT5ForSpeechToText


class AudioEncoder:
    def __init__(self, name, load):
        self.asr = SpeechT5ForSpeechToText.from_pretrained(name).to("cuda")
        self.asr.eval()
        self.other = load(name)
        self.other.eval()
        self.lm = AutoModel.from_pretrained(name)
        self.lm.eval()

    def embed(self, batches):
        out = []
        for b in batches:
            hidden = self.asr.speecht5.encoder(input_values=b).last_hidden_state  # expect: GL101:22
            out.append(hidden.mean(1).cpu())
        return torch.cat(out)

    def embed_other(self, batches):
        for b in batches:
            print(self.other.speecht5.encoder(b).last_hidden_state.sum().item())  # expect-not: GL101

    def describe(self, batches):
        for b in batches:
            print(self.lm.config.to_dict())  # expect-not: GL101
            print(self.lm.lm_head.weight.t().sum().item())  # expect-not: GL101
            print(self.lm.get_input_embeddings().num_embeddings)  # expect-not: GL101
