"""Recall case: a module-level test loop after training, in a script.

The tutorial-style script trains, then measures test accuracy at module
level with gradients still enabled: every test batch records a graph.
"""

import torch
import torch.nn as nn

from data import test_loader, train_loader
from models import ConvNet

model = ConvNet(num_classes=10)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

for epoch in range(5):
    for images, labels in train_loader:
        loss = criterion(model(images), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

correct, total = 0, 0
for images, labels in test_loader:
    outputs = model(images)  # expect-preview: GL101:15
    _, predicted = torch.max(outputs.data, 1)
    total += labels.size(0)
    correct += (predicted == labels).sum().item()
print(f"Test accuracy: {100 * correct / total:.2f}%")
