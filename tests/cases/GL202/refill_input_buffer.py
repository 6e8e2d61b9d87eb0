"""Precision case: refilling an input buffer before the forward that reads it.

The 2017 DCGAN training loop keeps preallocated ``input`` and ``label``
buffers and refills them with each batch through ``.data``; the forward that
reads them comes after the refill, and no graph of the previous step is alive.
"""

import torch
import torch.nn as nn


def train_discriminator(netD, loader, optimizerD, batch_size, image_size):
    criterion = nn.BCELoss()
    input = torch.FloatTensor(batch_size, 3, image_size, image_size)
    label = torch.FloatTensor(batch_size)
    for real_cpu, _ in loader:
        netD.zero_grad()
        size = real_cpu.size(0)
        input.data.resize_(real_cpu.size()).copy_(real_cpu)  # expect-not: GL202
        label.data.resize_(size).fill_(1)  # expect-not: GL202
        output = netD(input)
        errD_real = criterion(output, label)
        errD_real.backward()
        optimizerD.step()
