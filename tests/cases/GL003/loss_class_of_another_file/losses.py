import torch.nn.functional as F


class SampleLoss:
    def __call__(self, logits, target):
        return F.cross_entropy(logits, target, reduction="none")
