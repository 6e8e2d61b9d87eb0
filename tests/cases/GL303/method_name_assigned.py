"""Recall case: a batch's option meant to make its samples require gradients
assigns the in-place method's name, `requires_grad_`, instead of the flag
`requires_grad`; the value hides the method on that tensor and nothing asks
for gradients. A call of the method elsewhere in the file is no read of an
attribute of that name.
"""

import torch


class DatasetBatch:
    def __init__(self, samples: torch.Tensor, targets, samples_require_grad=False):
        self._samples = samples
        self._targets = targets
        self._samples.requires_grad_ = samples_require_grad  # expect: GL303:9

    def detach_targets(self):
        self._targets.requires_grad_(False)
