"""Recall case (first-sight recall batch 4): ``if self.training: self.eval()``
leaves the module in eval mode whichever way the test went, and the method
then runs the forward with gradients on to return numpy masks.

Precision counterpart: an ``eval()`` only in one branch of a test that says
nothing of the mode (``if fast:``) leaves the mode open.
"""

from torch import nn


class SegmentationModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Conv2d(3, 2, 1)

    def forward(self, x):
        return self.head(x)

    def predict(self, x):
        if self.training:
            self.eval()
        masks = self.forward(x)  # expect: GL101:17
        return masks.argmax(1).cpu().numpy()

    def run(self, x, fast):
        if fast:
            self.eval()
        masks = self.forward(x)  # expect-not: GL101
        return masks.argmax(1).cpu().numpy()
