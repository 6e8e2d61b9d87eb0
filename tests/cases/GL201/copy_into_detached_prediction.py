"""Recall case (preview): ``pred.detach().copy_(ref)`` then ``return pred``.

A teacher-forcing helper means to keep the prediction and overwrite a
detached copy; ``.detach()`` copies nothing, so the returned ``pred`` now
holds ``ref``'s values. The same lines also load saved state into a tensor on
purpose (``state.detach().copy_(new); return state``): nothing in the file tells
the two apart, so only the preview tier reports it.
"""


def force_reference(pred, ref, use_reference):
    if use_reference:
        pred.detach().copy_(ref)  # expect-preview: GL201:9
    return pred
