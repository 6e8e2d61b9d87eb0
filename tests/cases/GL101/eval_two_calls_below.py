"""Recall case (first-sight recall batch 9): ``validate`` puts the model in eval
mode and hands it to ``gather_results``, which hands it on to
``compute_outputs``: there the model runs on every batch with grad on and each
loss is appended to a list that is returned, so every batch's graph stays alive
until it returns, whatever the caller (not in the file) then does with it.
Reported at the forward, two calls below the ``eval()``.

Near shape, silent: ``compare`` hands the chain another object (``teacher``)
than the one it switched (``eval_two_calls_below_kept.py`` has the others).
"""

import torch


def compute_outputs(model, batches):
    losses, predictions = [], []
    for batch in batches:
        loss, pred = model(batch)  # expect: GL101
        losses.append(loss)
        predictions.append(pred.argmax(-1))
    return torch.cat(losses), torch.cat(predictions)


def gather_results(model, batches, field):
    losses, predictions = compute_outputs(model, batches)
    return losses, field.reverse(predictions)


def validate(model, batches, field):
    model.eval()
    losses, answers = gather_results(model, batches, field)
    return losses, answers


def compute_teacher(teacher, batches):
    outputs = []
    for batch in batches:
        out = teacher(batch)
        outputs.append(out)
    return outputs


def gather_teacher(teacher, batches):
    return torch.cat(compute_teacher(teacher, batches))


def compare(model, teacher, batches):
    model.eval()
    return gather_teacher(teacher, batches)
