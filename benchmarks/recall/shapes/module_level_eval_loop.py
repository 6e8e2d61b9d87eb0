"""Shape of the recall cause `module-level-eval-loop` (benchmarks/recall/sites.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch

model = torch.nn.Linear(4, 2)
test_loader = [(torch.randn(8, 4), torch.randint(0, 2, (8,)))]
correct = 0
for images, labels in test_loader:
    outputs = model(images)  # expect: GL101
    correct += (outputs.argmax(1) == labels).sum().item()
print(correct)
