"""Precision case: a checkpoint converter checks the new model against the
original on transformers' ``dummy_inputs`` and prints whether they agree.

``dummy_inputs`` of a model that ``from_pretrained`` loaded are literal token ids,
and the outputs are only compared: a self-check on made-up inputs, a small
graph held for one comparison. ``set_default_language`` is a method of X-MOD's
model class, not a submodule's forward.
"""

import torch
from transformers import XmodModel


def convert(model_name, new_model):
    orig_model = XmodModel.from_pretrained(model_name)
    orig_model.eval()
    new_model.eval()
    inputs = orig_model.dummy_inputs
    for lang in ("en_XX", "de_DE"):
        orig_model.set_default_language(lang)  # expect-not: GL101
        orig_outputs = orig_model(**inputs)  # expect-not: GL101
        new_outputs = new_model(**inputs)
        same = torch.allclose(orig_outputs.last_hidden_state, new_outputs.last_hidden_state)
        print(f"{lang:>6}: {'OK' if same else 'FAIL'}")
