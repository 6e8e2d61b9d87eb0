"""Recall case: ``_ = vocoder.eval()`` puts the module in eval mode all the same.

HiFi-GAN-style inference code assigns the module that ``eval()`` returns to
``_``; the switch happens on the module itself, and the forward after it runs
with gradients on.
"""

import numpy as np
import torch.nn as nn


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(80, 1, 7, padding=3)

    def forward(self, mel):
        return self.conv(mel).tanh()


class Vocoder:
    def __init__(self):
        self.generator = Generator()

    def infer(self, mel, max_wav_value=32768):
        _ = self.generator.eval()
        audio = self.generator(mel).squeeze().detach().cpu().numpy()  # expect: GL101:17
        return (audio * max_wav_value).astype(np.int16)

    def reset(self, mel):
        _ = self.generator.train()
        return self.generator(mel)  # expect-not: GL101
