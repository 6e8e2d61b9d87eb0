"""Shape of the recall cause `main-block-eval-then-method-forward` (benchmarks/recall, first-sight batch 4).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch
import torch.nn as nn


class Unprocessor(nn.Module):
    def __init__(self):
        super().__init__()
        self.local = nn.Conv2d(3, 3, 3, padding=1)
        self.globl = nn.Conv2d(3, 3, 1)

    def to_raw(self, img):
        return self.globl(img - self.local(img))

    def to_display(self, raw):
        return self.globl(raw) + self.local(raw)

    def forward(self, img):
        return self.to_display(self.to_raw(img))


if __name__ == "__main__":
    net = Unprocessor()
    net.load_state_dict(torch.load("weights.pth"))
    net.eval()
    image = torch.rand(1, 3, 32, 32)
    raw = net.to_raw(image)  # expect: GL101
    shown = net.to_display(raw * 1.2)  # expect: GL101
    torch.save(shown.clamp(0, 1), "out.pt")
