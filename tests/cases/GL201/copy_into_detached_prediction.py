"""Recall case: ``pred.detach().copy_(ref)`` then ``return pred``.

A teacher-forcing helper means to keep the prediction and overwrite a
detached copy; ``.detach()`` copies nothing, so the returned ``pred`` now
holds ``ref``'s values.
"""


def force_reference(pred, ref, use_reference):
    if use_reference:
        pred.detach().copy_(ref)  # expect: GL201:9
    return pred
