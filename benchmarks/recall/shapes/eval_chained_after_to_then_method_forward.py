"""Shape of the recall cause `eval-chained-after-to-then-method-forward` (benchmarks/recall/first-sight-17.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.

The codec is switched to eval mode through the module that `.to()` hands
back, then one of its encoding methods runs with gradients on.
"""
import torch
import torch.nn as nn


class Codec(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Conv1d(1, 4, 3, padding=1)

    def encode(self, wave):
        return {"codes": self.enc(wave).argmax(1)}


def tokenize_all(codec, batches):
    def to_codes(wave):
        codec.to(wave.device).eval()
        codes = codec.encode(wave)["codes"]  # expect: GL101
        return codes.cpu()

    return [to_codes(w) for w in batches]


if __name__ == "__main__":
    print(len(tokenize_all(Codec(), [torch.randn(2, 1, 32) for _ in range(3)])))
