"""Recall case (kept): ``model.eval()`` at module level, then a test loop, in a script.

The same script shape as a test loop after training, with the ``eval()``
that the rule has always followed.
"""

import torch

from data import test_loader
from models import ConvNet

model = ConvNet(num_classes=10)
model.load_state_dict(torch.load("convnet.pt"))
model.eval()
correct = 0
for images, labels in test_loader:
    outputs = model(images)  # expect: GL101:15
    correct += (outputs.argmax(1) == labels).sum().item()
print(correct / len(test_loader.dataset))
