"""Recall case: the loss comes from ``self(*inputs)`` inside a module method.

A model whose ``forward`` returns its loss trains itself in ``fit_epoch``; the
running total adds the loss tensor, so every step's graph stays referenced.
"""

import torch.nn as nn
import torch.nn.functional as F


class Seq2SeqModel(nn.Module):
    def __init__(self, encoder, decoder):
        super().__init__()
        self.encoder = encoder
        self.decoder = decoder

    def forward(self, src, tgt_in, tgt_out):
        logits = self.decoder(tgt_in, self.encoder(src))
        return F.cross_entropy(logits.flatten(0, 1), tgt_out.flatten())

    def fit_epoch(self, loader, optimizer):
        running = 0.0
        for step, inputs in enumerate(loader):
            loss = self(*inputs)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            running += loss  # expect: GL301:13
        return running / (step + 1)
