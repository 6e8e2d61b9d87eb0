"""Recall case: ``feats.detach()`` normalised in place and returned with ``feats``.

The caller gets two tensors that are one storage: ``feats`` is normalised
too, behind autograd's back, and its graph's saved values may be stale.
"""


def split_features(feats, eps=1e-6):
    frozen = feats.detach()
    frozen.div_(frozen.norm(dim=1, keepdim=True) + eps)  # expect: GL201:5
    return feats, frozen
