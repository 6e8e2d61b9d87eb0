"""Recall case: a function whose every return is a transformers ``from_pretrained``
load returns a model in eval mode, and its caller runs it on every batch with
gradients on, keeping each batch's scores.

Silent twin: a loader that may return the model put in train mode.
"""

from transformers import AutoModel, AutoModelForCausalLM


def load(name):
    return AutoModelForCausalLM.from_pretrained(name)


def score_all(name, batches):
    lm = load(name)
    scores = []
    for ids in batches:
        scores.append(lm(input_ids=ids).logits.softmax(-1))  # expect: GL101:23
    return scores


def load_either(name, tuned):
    if tuned:
        return AutoModel.from_pretrained(name).train()
    return AutoModel.from_pretrained(name)


def score_either(name, batches, tuned):
    lm = load_either(name, tuned)
    return [lm(input_ids=ids).last_hidden_state.mean().item() for ids in batches]  # expect-not: GL101
