"""Shape of the recall cause `eval-on-wrapped-submodule` (benchmarks/recall, first-sight batch 4).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch
import torch.nn as nn


class DraftWithHead(nn.Module):
    def __init__(self, draft, head):
        super().__init__()
        self.draft = draft
        self.head = head

    def forward(self, x):
        return self.head(self.draft(x))


draft = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.1))
wrapper = DraftWithHead(draft, nn.Linear(8, 2))
opt = torch.optim.SGD(wrapper.parameters(), lr=0.1)

for epoch in range(2):
    draft.train()
    loss = wrapper(torch.randn(4, 8)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()

    # evaluation: only the inner module is switched, the wrapper holding it is run
    draft.eval()
    accs = []
    for _ in range(3):
        out = wrapper(torch.randn(4, 8))  # expect: GL101
        accs.append(out.argmax(1).float().mean().item())
    print(sum(accs) / len(accs))
