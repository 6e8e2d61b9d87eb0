"""Shape of the recall cause `generate-without-guard` (benchmarks/recall, first-sight batch 4).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch
import torch.nn as nn


class Captioner(nn.Module):
    """A model whose own generate method (as in remote code) enters no no-grad guard."""

    def __init__(self):
        super().__init__()
        self.step = nn.Linear(8, 8)

    def generate(self, pixels, max_new_tokens=4):
        tokens = []
        h = pixels
        for _ in range(max_new_tokens):
            h = torch.tanh(self.step(h))
            tokens.append(h.argmax(-1))
        return torch.stack(tokens, 1)


def caption_crops(model, crops, batch_size=2):
    texts = []
    for i in range(0, len(crops), batch_size):
        ids = model.generate(torch.stack(crops[i:i + batch_size]))  # expect: GL101
        texts.extend(ids.tolist())
    return texts


print(caption_crops(Captioner(), [torch.randn(8) for _ in range(4)]))
