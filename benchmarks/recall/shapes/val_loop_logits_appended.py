"""Shape of the recall cause `val-loop-logits-appended` (benchmarks/recall/first-sight-18.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch
import torch.nn as nn

net = nn.Linear(5, 3)
opt = torch.optim.Adam(net.parameters())
ce = nn.CrossEntropyLoss()
train_batches = [(torch.randn(4, 5), torch.randint(0, 3, (4,))) for _ in range(3)]
val_batches = [(torch.randn(4, 5), torch.randint(0, 3, (4,))) for _ in range(3)]

for epoch in range(2):
    for x, y in train_batches:
        loss = ce(net(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()

    # the validation pass keeps every batch's output, each with its graph
    collected, targets = [], []
    for x, y in val_batches:
        scores = net(x)
        collected.append(scores)  # expect: GL301
        targets.append(y)
    val_loss = ce(torch.cat(collected), torch.cat(targets)).item()
    print(epoch, val_loss)
